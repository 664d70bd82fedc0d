"""JsonFilter: every operator, $variables, malformed queries."""

import json

import pytest

from nova_lite.scheduler.filters import json_filter

from .. import fake_hosts


def _host():
    return fake_hosts.host('h1', memory_mb=4096, disk_gb=100, vcpus=8,
                           used={'VCPU': 2}, hypervisor_type='fake',
                           stats={'gpus': '2'})


def _passes(query, host=None):
    hints = {} if query is None else {'query': json.dumps(query)}
    return json_filter.JsonFilter().host_passes(
        host or _host(), fake_hosts.spec(hints=hints))


@pytest.mark.parametrize('query,expected', [
    (None, True),
    ([], True),
    (['>=', '$free_ram_mb', 1024], True),
    (['>=', '$free_ram_mb', 8192], False),
    (['<', '$vcpus_used', 3], True),
    (['>', '$vcpus_total', 8], False),
    (['<=', '$free_disk_mb', 102400], True),
    (['=', '$hypervisor_hostname', 'h1'], True),
    (['=', '$total_usable_ram_mb', 4096, 4096], True),
    (['=', '$total_usable_ram_mb', 4096, 1], False),
    (['in', '$hypervisor_type', 'qemu', 'fake'], True),
    (['in', '$hypervisor_type', 'qemu', 'kvm'], False),
    (['not', ['=', '$vcpus_total', 4]], True),
    (['not', ['=', '$vcpus_total', 8]], False),
    (['or', ['=', '$vcpus_total', 4], ['=', '$vcpus_total', 8]], True),
    (['and', ['=', '$vcpus_total', 8], ['>', '$free_ram_mb', 9999]], False),
    (['and', ['>=', '$free_ram_mb', 1024],
      ['<=', '$vcpus_used', 2]], True),
    (['=', '$stats.gpus', '2'], True),
    (['=', '$service.disabled', False], True),
    # An unknown variable is dropped, leaving too few arguments.
    (['>=', '$no_such_variable', 1], False),
    (['=', '$free_ram_mb'], False),
])
def test_queries(query, expected):
    assert _passes(query) is expected


def test_not_of_several_passes_when_any_is_true():
    assert _passes(['not', ['=', 1, 1], ['=', 1, 2]])
    assert not _passes(['not', ['=', 1, 1], ['=', 2, 2]])


def test_query_from_the_openstack_cli():
    # --hint query='[">=","$free_ram_mb",1024]'
    spec = fake_hosts.spec(hints={'query': '[">=","$free_ram_mb",1024]'})
    assert json_filter.JsonFilter().host_passes(_host(), spec)


@pytest.mark.parametrize('text,reason', [
    ('[">=", "$free_ram_mb"', 'bad query: '),
    ('["~", 1, 1]', 'bad query: unknown operator'),
    ('{"a": 1}', 'bad query: '),
])
def test_malformed_query_rejects_every_host_saying_why(text, reason):
    flt = json_filter.JsonFilter()
    spec = fake_hosts.spec(hints={'query': text})
    assert not flt.host_passes(_host(), spec)
    assert flt.rejection_reason(_host(), spec).startswith(reason)


def test_failing_query_reason():
    flt = json_filter.JsonFilter()
    spec = fake_hosts.spec(hints={'query': '["<", "$free_ram_mb", 1]'})
    assert flt.rejection_reason(_host(), spec) == 'fail query'
    hosts = [_host(), _host()]
    assert flt.summarize_rejections(hosts, spec) == '2 fail query'


def test_uncomparable_values_fail_instead_of_raising():
    assert not _passes(['<', '$hypervisor_hostname', 3])


@pytest.mark.parametrize('query,expected', [
    # Nova's host_ip is an IP address object: no string equals it, and
    # it has no order against a string (Nova raises; false here).
    (['=', '$host_ip', '10.0.0.7'], False),
    (['in', '$host_ip', '10.0.0.7', '10.0.0.8'], False),
    (['<', '$host_ip', '10.0.0.9'], False),
    (['not', ['=', '$host_ip', '10.0.0.7']], True),
    (['=', '$host_ip', '$host_ip'], True),
])
def test_host_ip_is_an_address_object(query, expected):
    # Issue 11, case 7.
    host = fake_hosts.host('h1', host_ip='10.0.0.7')
    assert _passes(query, host) is expected
