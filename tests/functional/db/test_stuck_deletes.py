"""Deletes that never reached a compute are sent again by a conductor
(conductor/tasks/stuck_deletes.py), on every backend."""

import datetime
from unittest import mock

from nova_lite.conductor.tasks import stuck_deletes
from nova_lite.db import models
from nova_lite import exception
from nova_lite import objects
from tests.functional.db import test_build_owners as owners
from tests.functional.db import test_lost_casts as casts

ctxt = owners.ctxt


def _deleting(ctxt, host, age):
    """An instance on ``host`` deleting since ``age`` seconds ago."""
    inst = owners._building(ctxt, '-')
    values = {'host': host, 'vm_state': 'active', 'task_state': 'deleting',
              'updated_at': datetime.datetime.now(datetime.timezone.utc)
              .replace(tzinfo=None) - datetime.timedelta(seconds=age)}
    owners._update(ctxt, models.Instance,
                   models.Instance.uuid == inst.uuid, values)
    return objects.Instance.get_by_uuid(ctxt, inst.uuid)


def test_a_stuck_delete_is_cast_again_to_a_compute_that_is_up(ctxt):
    casts._compute(ctxt, 'c1')
    stuck = _deleting(ctxt, 'c1', age=30)
    recent = _deleting(ctxt, 'c1', age=0)
    compute_api = mock.Mock()
    done = stuck_deletes.resend(ctxt, compute_api, 10)
    assert done == {stuck.uuid: 'cast'}
    (call,) = compute_api.terminate_instance.call_args_list
    assert call[0][1].uuid == stuck.uuid
    # Stamped: the next check leaves it to the compute for another while.
    assert stuck_deletes.resend(ctxt, compute_api, 10) == {}
    assert compute_api.terminate_instance.call_count == 1
    assert objects.Instance.get_by_uuid(ctxt, recent.uuid).task_state == \
        'deleting'


def test_a_stuck_delete_without_a_compute_up_is_done_here(ctxt):
    casts._compute(ctxt, 'c1', up=False)
    on_down = _deleting(ctxt, 'c1', age=30)
    nowhere = _deleting(ctxt, None, age=30)
    compute_api = mock.Mock()
    done = stuck_deletes.resend(ctxt, compute_api, 10)
    assert done == {on_down.uuid: 'deleted here',
                    nowhere.uuid: 'deleted here'}
    compute_api.terminate_instance.assert_not_called()
    for inst in (on_down, nowhere):
        try:
            objects.Instance.get_by_uuid(ctxt, inst.uuid)
        except exception.InstanceNotFound:
            continue
        raise AssertionError('instance %s is still there' % inst.uuid)


def test_servers_not_deleting_are_left_alone(ctxt):
    casts._compute(ctxt, 'c1')
    inst = _deleting(ctxt, 'c1', age=30)
    owners._update(ctxt, models.Instance, models.Instance.uuid == inst.uuid,
                   {'task_state': None})
    compute_api = mock.Mock()
    assert stuck_deletes.resend(ctxt, compute_api, 10) == {}
    compute_api.terminate_instance.assert_not_called()
