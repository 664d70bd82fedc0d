"""Re-drive the builds a conductor lost.

A conductor that dies after it took a ``build_instances`` cast (or stops
while draining) leaves its builds in ``scheduling`` with no host. Each
conductor looks every ``[conductor] lost_build_check_interval`` seconds
(and at once when it starts) for builds whose owner is gone, or that it
provisioned itself and whose cast never came within ``[conductor]
lost_build_grace`` seconds (lost on the bus), and takes them over (a
compare-and-swap on the owner: one conductor wins, see
``ownership.py``). Then it schedules them again from their stored
RequestSpec, after releasing any allocation the dead conductor's
scheduling left, exactly as a fresh request: ACTIVE on a host, or ERROR
with a fault. The quota the instances hold was committed with their
records and is not touched.

    lost_builds.redrive(context, scheduler_api, compute_api, grace)
"""

from oslo_log import log as logging

from nova_lite.conductor.tasks import build
from nova_lite.conductor.tasks import ownership
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)


def redrive(context, scheduler_api, compute_api, grace):
    """Re-drive every lost build this conductor wins; return their uuids.
    Never raises for one build (it is logged)."""
    if not ownership.enabled(context):
        return []
    done = []
    for uuid, owner in ownership.find_lost(context, grace):
        if not ownership.claim_lost(context, uuid, owner):
            continue   # another conductor won it, or it moved on
        LOG.warning('Build of instance %s was lost by conductor %s; '
                    're-driving it', uuid, owner)
        try:
            _redrive_one(context, uuid, scheduler_api, compute_api)
        except Exception:
            LOG.exception('Re-driving the build of instance %s failed',
                          uuid)
        done.append(uuid)
    return done


def _redrive_one(context, uuid, scheduler_api, compute_api):
    try:
        instance = objects.Instance.get_by_uuid(context, uuid)
    except exception.InstanceNotFound:
        return
    allocations.remove(context, uuid)
    try:
        spec = objects.RequestSpec.get_by_instance_uuid(context, uuid)
    except exception.RequestSpecNotFound as exc:
        task = build.BuildTask(context, [instance], None, None,
                               scheduler_api, compute_api, redrive=True)
        task._fail(instance, exc, release=True)
        return
    build.BuildTask(context, [instance], spec, None, scheduler_api,
                    compute_api, redrive=True).execute()
