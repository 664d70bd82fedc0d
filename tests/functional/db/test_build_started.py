"""A compute's first save of a build that is also its receipt
(conductor/tasks/build_started.py, conductor RPC 1.10), on every
backend: applied only while the build waits for it."""

from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_lite.conductor.tasks import build_started
from nova_lite.conductor.tasks import ownership
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import objects
from tests.functional.db import test_build_owners as owners

ctxt = owners.ctxt
NODE_UUID = uuidutils.generate_uuid()


def _start(uuid, host='c1'):
    """What compute ``host`` sends: the uuid and the changes only."""
    instance = objects.Instance(uuid=uuid)
    instance.obj_reset_changes()
    instance.host, instance.node = host, host + '-n0'
    instance.compute_node_uuid = NODE_UUID
    instance.task_state = 'spawning'
    return instance


@db_api.reader
def _row(context, uuid):
    model = models.Instance
    return context.session.execute(sa.select(
        model.host, model.node, model.task_state, model.vm_state,
        model.build_owner).where(model.uuid == uuid)).one()


def test_a_start_saves_spawning_and_acknowledges(ctxt):
    inst = owners._building(ctxt, '-c1')
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'started'
    assert tuple(_row(ctxt, inst.uuid)) == (
        'c1', 'c1-n0', 'spawning', 'building', ownership.HANDED_OFF)
    # The same cast again (a duplicate) changes nothing.
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'ignored'


def test_a_start_after_re_casts_is_applied(ctxt):
    inst = owners._building(ctxt, '-c1#2')
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'started'
    assert _row(ctxt, inst.uuid).build_owner == ownership.HANDED_OFF


def test_an_untracked_build_stays_untracked(ctxt):
    inst = owners._building(ctxt, None)
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'started'
    assert tuple(_row(ctxt, inst.uuid))[::2] == ('c1', 'spawning', None)


def test_a_start_after_the_final_save_only_acknowledges(ctxt):
    inst = owners._building(ctxt, '-c1')
    inst.host, inst.vm_state, inst.task_state = 'c1', 'active', None
    inst.save(expected_task_state=['scheduling', 'spawning'])
    assert build_started.record(ctxt, _start(inst.uuid),
                                'c1') == 'acknowledged'
    # Never moved back from ACTIVE.
    assert tuple(_row(ctxt, inst.uuid)) == (
        'c1', None, None, 'active', ownership.HANDED_OFF)


def test_a_start_never_undoes_an_error_or_a_delete(ctxt):
    failed = owners._building(ctxt, '-c1')
    failed.vm_state, failed.task_state = 'error', None
    failed.save()
    deleted = owners._building(ctxt, '-c1')
    owners._update(ctxt, models.Instance,
                   models.Instance.uuid == deleted.uuid, {'deleted': 1})
    for inst in (failed, deleted):
        build_started.record(ctxt, _start(inst.uuid), 'c1')
        assert _row(ctxt, inst.uuid).host is None
    assert _row(ctxt, failed.uuid).vm_state == 'error'


def test_a_late_start_never_undoes_a_hand_back(ctxt):
    # The compute acknowledged (a call) before it handed the build back,
    # and the build waits for the conductors again.
    inst = owners._building(ctxt, '-c1')
    assert ownership.acknowledge(ctxt, inst.uuid, 'c1')
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'ignored'
    assert tuple(_row(ctxt, inst.uuid))[:3] == (None, None, 'scheduling')


def test_a_start_from_another_compute_is_ignored(ctxt):
    inst = owners._building(ctxt, '-c2')
    assert build_started.record(ctxt, _start(inst.uuid), 'c1') == 'ignored'
    assert tuple(_row(ctxt, inst.uuid))[::2] == (None, 'scheduling', '-c2')


def test_a_start_changing_anything_else_is_refused(ctxt):
    inst = owners._building(ctxt, '-c1')
    start = _start(inst.uuid)
    start.vm_state = 'active'
    assert build_started.record(ctxt, start, 'c1') == 'ignored'
    assert tuple(_row(ctxt, inst.uuid))[::2] == (None, 'scheduling', '-c1')


def test_a_host_name_is_matched_literally(ctxt):
    # '_' and '%' are LIKE wildcards: c_1 must not take cX1's re-cast.
    inst = owners._building(ctxt, '-cX1#2')
    for host in ('c_1', 'c%'):
        assert build_started.record(ctxt, _start(inst.uuid, host),
                                    host) == 'ignored'
    assert _row(ctxt, inst.uuid).build_owner == '-cX1#2'
    literal = owners._building(ctxt, '-c_1#1')
    assert build_started.record(ctxt, _start(literal.uuid, 'c_1'),
                                'c_1') == 'started'
