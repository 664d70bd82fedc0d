"""GET /servers?status=...: statuses that tasks show (REBOOT, RESIZE, ...)
find the servers in those tasks, as Nova's status map does.

The compute API here filters its servers the way the database query does
(vm_state and, when given, task_state in the lists), so each case lists
servers in every state of interest and checks which come back.
"""

import pytest

from nova_lite.api.handlers import server_view
from nova_lite.api.handlers import servers
from nova_lite.api import server_states
from tests.unit.api import fakes

# (vm_state, task_state) of one server each.
STATES = [
    ('active', None), ('active', 'rebooting'), ('active', 'rebooting_hard'),
    ('active', 'rebuilding'), ('active', 'resize_prep'),
    ('active', 'resize_migrating'), ('active', 'migrating'),
    ('active', 'powering-off'), ('stopped', None),
    ('stopped', 'rebooting_hard'), ('stopped', 'rebuilding'),
    ('stopped', 'resize_finish'), ('resized', None),
    ('resized', 'resize_reverting'), ('paused', None),
    ('paused', 'migrating'), ('error', None), ('error', 'rebuild_spawning'),
    ('building', 'scheduling'),
]


def _uuid(index):
    return '00000000-0000-4000-8000-%012d' % index


class FilteringComputeAPI(fakes.FakeComputeAPI):
    """Answers as the instances query does for vm_state and task_state."""

    def get_all(self, context, filters=None, **kwargs):
        found = super().get_all(context, filters, **kwargs)
        filters = filters or {}
        return [i for i in found
                if i.vm_state in filters.get('vm_state', [i.vm_state])
                and i.task_state in filters.get('task_state',
                                                [i.task_state])]


@pytest.fixture
def compute(monkeypatch):
    fake = FilteringComputeAPI([
        fakes.instance(uuid=_uuid(n), vm_state=vm, task_state=task)
        for n, (vm, task) in enumerate(STATES)])
    monkeypatch.setattr(servers, 'compute', fake)
    return fake


def _listed(api, query):
    resp = api()('GET', '/servers/detail?' + query)
    assert resp.status_int == 200, resp.body
    # (status shown, (vm_state, task_state)), in the order of STATES.
    return sorted(((s['status'], STATES[int(s['id'][-12:])])
                   for s in resp.json['servers']),
                  key=lambda pair: STATES.index(pair[1]))


@pytest.mark.parametrize('status,expected', [
    ('REBOOT', [('active', 'rebooting')]),
    ('HARD_REBOOT', [('active', 'rebooting_hard')]),
    ('REBUILD', [('active', 'rebuilding'), ('error', 'rebuild_spawning'),
                 ('stopped', 'rebuilding')]),
    ('RESIZE', [('active', 'resize_migrating'), ('active', 'resize_prep'),
                ('stopped', 'resize_finish')]),
    ('MIGRATING', [('active', 'migrating'), ('paused', 'migrating')]),
    ('REVERT_RESIZE', [('resized', 'resize_reverting')]),
])
def test_a_task_status_finds_the_servers_in_that_task(api, compute, status,
                                                      expected):
    listed = _listed(api, 'status=' + status.lower())
    assert sorted(state for _status, state in listed) == sorted(expected)
    # Each one found shows the status asked for.
    assert {shown for shown, _state in listed} == {status}


def test_a_vm_state_status_finds_every_task_of_it(api, compute):
    """As in Nova, ACTIVE is the vm_state: servers being rebooted,
    resized or migrated are listed too (they show their task)."""
    listed = _listed(api, 'status=ACTIVE')
    assert [state for _s, state in listed] == [
        s for s in STATES if s[0] == 'active']
    shutoff = _listed(api, 'status=SHUTOFF')
    assert ('SHUTOFF', ('stopped', 'rebooting_hard')) in shutoff
    assert len(shutoff) == 4


def test_verify_resize_is_the_resized_state(api, compute):
    assert [s for _x, s in _listed(api, 'status=VERIFY_RESIZE')] == [
        ('resized', None), ('resized', 'resize_reverting')]


def test_several_task_statuses_together(api, compute):
    listed = _listed(api, 'status=REBOOT&status=HARD_REBOOT')
    assert [s for _x, s in listed] == [('active', 'rebooting'),
                                       ('active', 'rebooting_hard')]


def test_the_filters_sent_to_the_compute_api(api, compute):
    api()('GET', '/servers?status=REBOOT')
    api()('GET', '/servers?status=ACTIVE')
    first, second = compute.get_all_calls
    assert first['filters'] == {'vm_state': ['active'],
                                'task_state': ['rebooting']}
    assert second['filters'] == {'vm_state': ['active']}


@pytest.mark.parametrize('status', ['PASSWORD', 'SOFT_DELETED'])
def test_statuses_no_server_here_can_have(api, compute, status, at_version):
    """Known to Nova (valid at 2.38 and later) but never shown here: an
    empty list, without a query."""
    resp = at_version(api(), '2.38')('GET', '/servers?status=' + status)
    assert resp.status_int == 200
    assert resp.json['servers'] == []
    assert compute.get_all_calls == []


def test_an_unknown_status_is_400_from_2_38(api, compute, at_version):
    assert api()('GET', '/servers?status=REBOOTING').json == {'servers': []}
    resp = at_version(api(), '2.38')('GET', '/servers?status=REBOOTING')
    assert resp.status_int == 400
    assert 'Invalid status value: REBOOTING' in resp.text


def test_every_shown_status_is_known_and_found_by_its_filter():
    """The two directions of the map agree: a server's status, used as a
    filter, selects it."""
    for vm_state, tasks in server_states.STATE_MAP.items():
        for task_state in tasks:
            task = None if task_state == server_states.DEFAULT else task_state
            status = server_view.server_status(
                fakes.instance(vm_state=vm_state, task_state=task))
            assert status in server_states.KNOWN_STATUSES
            vm_states, task_states = server_states.states_for([status])
            assert vm_state in vm_states
            assert task_states is None or task in task_states
