"""A SelectionMaker's Selections are those of
``Selection.from_host_state``: the same fields, values and changed
fields, whatever the host state's values."""

import types
import warnings

from oslo_serialization import jsonutils

from nova_lite import objects
from nova_lite.scheduler import selections

from . import fakes

RESOURCES = {'VCPU': 2, 'MEMORY_MB': 4096, 'DISK_GB': 40,
             'CUSTOM_GPU': 1}


def _same(host_state, resources=RESOURCES):
    made = selections.SelectionMaker(resources)(host_state)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        expected = objects.Selection.from_host_state(host_state, resources)
    assert made.obj_to_primitive() == expected.obj_to_primitive()
    assert made.obj_what_changed() == expected.obj_what_changed()
    assert made.allocations == expected.allocations
    assert made.allocation_request == expected.allocation_request
    return made


def test_a_host_state_with_a_zone_and_without():
    host = fakes.host('node7')
    assert host.availability_zone is None
    _same(host)
    host.set_aggregates([types.SimpleNamespace(
        id=1, uuid='aaaaaaaa-0000-4000-8000-000000000001', name='a',
        hosts=['node7'], metadata={'availability_zone': 'az9'})])
    assert host.availability_zone == 'az9'
    made = _same(host)
    assert made.availability_zone == 'az9'


def test_requests_of_one_resource_and_of_none():
    host = fakes.host('node8')
    _same(host, {'VCPU': 1})
    _same(host, {})


def test_values_of_other_types_take_the_coercing_path():
    # Not strings: coerced by the fields as from_host_state does.
    host = types.SimpleNamespace(
        host='h1', nodename=42,
        uuid='00000000-0000-4000-8000-000000000001',
        availability_zone=None)
    made = _same(host)
    assert made.nodename == '42'


def test_a_node_uuid_is_written_as_json_writes_it():
    # Every ASCII character, alone and in a uuid, and some beyond it.
    texts = [chr(code) for code in range(128)] + ['é', '\u2028', '']
    texts += ['00000000-0000-4000-8000-00000000000' + t for t in texts]
    for text in texts:
        assert selections._json_string(text) == jsonutils.dumps(text)
