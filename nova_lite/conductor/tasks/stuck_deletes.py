"""Deletes that never reached a compute, sent again by a conductor.

The API records a delete (``task_state`` deleting) before it casts it to
the instance's compute. A cast the bus refused (an outage), or one never
sent (the API killed between the two), would leave the server deleting
until its owner deleted it again. Every ``[conductor]
lost_build_check_interval`` seconds each conductor looks for instances
deleting for more than ``[conductor] delete_resend_after`` seconds and
sends their delete again:

* the compute is up: the delete is cast to it again (a compute that did
  it already finds the VM and the record gone, and says so in its log);
* there is no host, or its compute is down: the records are deleted
  here, as the API does for a server whose compute is down (a compute
  that comes back finds the instance gone).

The instance's ``updated_at`` is stamped as the delete is sent again, so
a slow compute gets it once per ``delete_resend_after``, not at every
check. Two conductors may both send it: a duplicate delete is harmless.

    stuck_deletes.resend(context, compute_api, after)
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite.conductor.tasks import timeouts
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

_DELETING = fields.TaskState.DELETING


def resend(context, compute_api, after):
    """Send again the delete of every instance deleting for more than
    ``after`` seconds; return {uuid: 'cast' or 'deleted here'}. Never
    raises for one instance."""
    cutoff = (timeutils.utcnow().replace(tzinfo=None)
              - datetime.timedelta(seconds=after))
    stuck = objects.InstanceList.get_by_filters(
        context, {'task_state': [_DELETING], 'updated_before': cutoff},
        sort_key='id', sort_dir='asc')
    if not stuck:
        return {}
    up = timeouts.up_computes(context)
    done = {}
    for instance in stuck:
        try:
            outcome = _resend_one(context, compute_api, instance, up)
        except Exception:
            LOG.exception('Sending the delete of instance %s again failed',
                          instance.uuid)
            continue
        if outcome:
            done[instance.uuid] = outcome
    return done


def _resend_one(context, compute_api, instance, up):
    since = _since(instance)
    # Stamped first, conditionally: a delete that finished meanwhile
    # (record gone) or a server that left deleting is not touched.
    instance.task_state = _DELETING
    try:
        instance.save(expected_task_state=[_DELETING])
    except (exception.InstanceNotFound, exception.UnexpectedTaskStateError):
        return None
    if instance.host in up:
        LOG.warning('Instance %s has been deleting since %s without its '
                    'compute %s deleting it; casting the delete again',
                    instance.uuid, since, instance.host)
        compute_api.terminate_instance(context, instance)
        return 'cast'
    LOG.warning('Instance %s has been deleting without a compute to do '
                'it (host %s, down or none); deleting its records here',
                instance.uuid, instance.host)
    try:
        instance.destroy()
    except exception.InstanceNotFound:
        return None
    return 'deleted here'


def _since(instance):
    return instance.updated_at.isoformat() if instance.updated_at else '?'
