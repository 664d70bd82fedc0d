"""HostState.add_instance appends a new instance without unpacking the
others, with the same outcome as unpacking, appending and packing them
again: the same instances in the same order, the same counts."""

from nova_lite.scheduler import host_compact
from nova_lite.scheduler import host_state

from . import fakes

U = ['00000000-0000-4000-8000-0000000003%02d' % i for i in range(8)]


def _instance(uuid, vm_state='active'):
    return host_state.HostInstance(uuid, 'p', vm_state, None, None, {},
                                   frozenset())


def _expected(before, instance, known):
    """(instances, num_instances) as the unpacking path counts them."""
    by_uuid = {inst.uuid: inst for inst in before}
    new = instance.uuid not in by_uuid
    by_uuid[instance.uuid] = instance
    return list(by_uuid.values()), len(by_uuid) if known else None, new


def _check(before, instance):
    host = fakes.host('node1')
    host.set_instances(before)
    io_ops = host.num_io_ops
    expected, count, new = _expected(before, instance, True)
    host.add_instance(instance)
    assert list(host.instances.values()) == expected
    assert host.num_instances == count
    assert host.num_io_ops == io_ops + (new and instance.is_io_op)
    assert host._packed == host_compact.pack_instances(expected)


def test_a_new_instance_is_appended():
    _check([], _instance(U[0]))
    _check([_instance(U[0]), _instance(U[1])], _instance(U[2], 'building'))


def test_an_instance_already_there_is_replaced_in_place():
    _check([_instance(U[0]), _instance(U[1])], _instance(U[0], 'building'))


def test_uuids_not_canonical():
    _check([_instance('not-a-uuid')], _instance(U[1]))
    _check([_instance(U[1])], _instance('not-a-uuid'))


def test_a_uuid_found_across_two_packed_uuids_is_not_held():
    # The bytes of U[3] must match only at a 16-byte boundary.
    first = '00000000-0000-4000-8000-000000000000'
    second = '00000000-0000-4000-8000-000000000000'.replace('0', '1')
    raw = (bytes.fromhex(first.replace('-', ''))
           + bytes.fromhex(second.replace('-', '')))
    assert not host_state._holds(raw, raw[8:24])
    assert host_state._holds(raw, raw[16:])


def test_without_the_instance_list_the_count_grows_by_one():
    host = fakes.host('node2', stats={'num_instances': '5'})
    assert host.num_instances == 5
    host.add_instance(_instance(U[4]))
    assert host.num_instances == 6
