"""Compact host storage: shared values and packed instances."""

import random
import re
import uuid as uuid_mod

from nova_lite import objects
from nova_lite.scheduler import host_compact
from nova_lite.scheduler import host_state

A = 'a0cf03a5-d921-4877-bb5c-86d26cf818e1'
B = '8c19174f-4220-44f0-824a-cd1eeef10287'


def _instance(uuid, project='p1', task_state=None, groups=()):
    return host_state.HostInstance(uuid, project, 'active', task_state,
                                   None, {}, frozenset(groups))


def test_equal_values_are_one_object():
    first = host_compact.shared(frozenset({'CUSTOM_X', 'CUSTOM_Y'}))
    second = host_compact.shared(frozenset({'CUSTOM_Y', 'CUSTOM_X'}))
    assert first is second
    assert (host_compact.shared_mapping({'a': 1})
            is host_compact.shared_mapping({'a': 1}))
    assert host_compact.shared_list(['x']) is host_compact.shared_list(('x',))
    # Unhashable values are kept as they are, not shared.
    assert host_compact.shared_mapping({'a': [1]}) == {'a': [1]}


def test_instances_round_trip_with_shared_profiles():
    packed = host_compact.pack_instances(
        [_instance(A, groups={'g1'}), _instance(B, groups={'g1'})])
    # 16 bytes per canonical uuid, one profile for both.
    assert packed[0] == bytes.fromhex(A.replace('-', '') +
                                      B.replace('-', ''))
    assert packed[1][0] is packed[1][1]
    unpacked = host_compact.unpack_instances(packed, host_state.HostInstance)
    assert unpacked == [_instance(A, groups={'g1'}),
                        _instance(B, groups={'g1'})]


def test_other_uuids_are_kept_as_strings():
    for odd in ('inst-1', A.upper(), A.replace('-', ''), A + ' ',
                ' ' + A, A[:-1] + ' ' + B[:1], 7):
        packed = host_compact.pack_instances([_instance(A), _instance(odd)])
        assert host_compact.instance_uuids(packed) == (A, odd)
    # Two canonical uuids run together are not two uuids either.
    packed = host_compact.pack_instances([_instance(A + B)])
    assert host_compact.instance_uuids(packed) == (A + B,)


def test_a_later_duplicate_replaces_the_earlier():
    packed = host_compact.pack_instances(
        [_instance(A), _instance(B), _instance(A, task_state='rebuilding')])
    unpacked = host_compact.unpack_instances(packed, host_state.HostInstance)
    assert [(i.uuid, i.task_state) for i in unpacked] == [
        (A, 'rebuilding'), (B, None)]
    assert host_compact.pack_instances([]) == ()


def test_host_state_instances_are_made_on_read():
    state = host_state.HostState('h1', 'n1', A)
    state.set_instances([_instance(A, task_state='rebuilding'),
                         _instance(B)])
    assert state.instances == {A: _instance(A, task_state='rebuilding'),
                               B: _instance(B)}
    assert (state.num_instances, state.num_io_ops) == (2, 1)


def test_service_record_keeps_what_service_view_reads():
    service = objects.Service(id=4, host='h1', binary='nova-lite-compute',
                              disabled=True, disabled_reason='maint',
                              forced_down=False)
    record = host_state.ServiceRecord.of(service)
    view = host_state.ServiceView.from_service(record)
    assert view['disabled'] and view.disabled_reason == 'maint'
    assert (view.id, view.host, view.uuid) == (4, 'h1', None)
    assert host_state.ServiceRecord.of(record) is record


def test_equal_reported_hardware_is_one_object():
    cells = [{'id': 0, 'cpus': [0, 1], 'memory_mb': 1024}]
    first = host_compact.shared_json([dict(c) for c in cells])
    assert host_compact.shared_json([dict(c) for c in cells]) is first
    # Equal but of other types: not merged.
    other = host_compact.shared_json([{'id': 0, 'cpus': [0, 1],
                                       'memory_mb': 1024.0}])
    assert other is not first
    assert type(other[0]['memory_mb']) is float
    assert host_compact.shared_json([]) == []


def test_hosts_of_the_same_usage_share_it():
    first = host_state.HostState('h1', 'n1', A)
    second = host_state.HostState('h2', 'n2', B)
    first.usages = {'VCPU': 2, 'MEMORY_MB': 512, 'DISK_GB': 0}
    second.usages = {'VCPU': 2, 'MEMORY_MB': 512}
    assert first._used is second._used
    assert first.usages == {'VCPU': 2, 'MEMORY_MB': 512}
    second.usages = {'VCPU': 3, 'MEMORY_MB': 512}
    assert first.usages['VCPU'] == 2 and second.usages['VCPU'] == 3


def test_numbers_are_shared_by_value_and_type():
    big = host_compact.shared_number(10 ** 6 + 1)
    assert host_compact.shared_number(int('1000001')) is big
    assert type(host_compact.shared_number(1000001.0)) is float
    assert host_compact.shared_number(True) is True


def test_hypervisor_hostname_is_the_nodename():
    state = host_state.HostState('h1', 'n1', A)
    assert state.hypervisor_hostname == 'n1'
    state.hypervisor_hostname = 'n2'
    assert (state.nodename, state.hypervisor_hostname) == ('n2', 'n2')
    assert 'hypervisor_hostname' not in host_state.HostState.__slots__


def test_capacity_is_one_shared_row_and_stays_settable():
    first = host_state.HostState('h1', 'n1', A)
    second = host_state.HostState('h2', 'n2', B)
    first.ram_allocation_ratio = 1.5
    second.ram_allocation_ratio = 1.5
    assert first._capacity is second._capacity
    assert 'vcpus_total' not in host_state.HostState.__slots__
    second.vcpus_total = 8
    assert (first.vcpus_total, second.vcpus_total) == (0, 8)
    assert second.ram_allocation_ratio == 1.5
    # Equal values of another type are not merged.
    second.total_usable_ram_mb = 0.0
    assert type(second.total_usable_ram_mb) is float
    assert type(first.total_usable_ram_mb) is int


def test_derived_values_are_worked_out_once_per_source_object():
    made = []

    def make(value):
        made.append(value)
        return value * 2

    first, second = [1], [1]
    assert host_compact.derived('t', (first,), lambda: make(1)) == 2
    assert host_compact.derived('t', (first,), lambda: make(9)) == 2
    # An equal but other object, or another kind, is worked out again.
    assert host_compact.derived('t', (second,), lambda: make(3)) == 6
    assert host_compact.derived('u', (first,), lambda: make(4)) == 8
    assert made == [1, 3, 4]


_CANONICAL = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'


def test_canonical_uuid_lists_are_told_from_any_other_text():
    """The packing's check agrees with a regular expression of
    ``count`` canonical uuids joined by single spaces, on uuids with a
    character changed, dropped or added."""
    rng = random.Random(5)
    alphabet = '0123456789abcdefABCDEF- \t\x85\u3000g'
    for _ in range(3000):
        uuids = [str(uuid_mod.UUID(int=rng.getrandbits(128)))
                 for _ in range(rng.randint(1, 4))]
        text = ' '.join(uuids)
        chars = list(text)
        for _ in range(rng.choice([0, 1, 1, 2])):
            at = rng.randrange(len(chars))
            change = rng.random()
            if change < 0.6:
                chars[at] = rng.choice(alphabet)
            elif change < 0.8:
                del chars[at]
            else:
                chars.insert(at, rng.choice(alphabet))
        text = ''.join(chars)
        count = len(uuids)
        pattern = r'%s(?: %s){%d}' % (_CANONICAL, _CANONICAL, count - 1)
        found = host_compact._canonical_bytes(text, count)
        if re.fullmatch(pattern, text):
            assert found == bytes.fromhex(text.replace('-', ''))
        else:
            assert found is None, text


def test_equal_numbers_of_other_types_stay_apart():
    # 1, 1.0 and True are one dict key; a shared value keeps its type.
    assert type(host_compact.shared(True)) is bool
    assert type(host_compact.shared(1)) is int
    assert type(host_compact.shared(1.0)) is float
    used = host_compact.shared_usage(('VCPU',), (2,))
    assert type(host_compact.shared_usage(('VCPU',), (2.0,))[1][0]) is float
    assert host_compact.shared_usage(('VCPU',), (2,)) is used


def test_a_full_table_keeps_the_values_in_use(monkeypatch):
    # No cliff: when the newer half fills, what was used lately stays
    # shared (moved from the older half), only the rest is dropped.
    monkeypatch.setattr(host_compact, '_MAX_SHARED', 4)
    monkeypatch.setattr(host_compact, '_values', host_compact._Table())
    kept = host_compact.shared(('kept',))
    for round_ in range(5):
        for index in range(3):
            host_compact.shared(('other', round_, index))
        assert host_compact.shared(('kept',)) is kept
    assert len(host_compact._values) <= 8
    dropped = ('other', 0, 0)
    assert host_compact.shared(dropped) is dropped
