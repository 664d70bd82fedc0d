"""Every built-in filter's ``filter_all`` keeps exactly the hosts its
``host_passes`` keeps, on a random fleet and a request that makes the
filter discriminate. A whole-population (vectorised) ``filter_all`` must
keep passing this."""

import json
import random

import pytest

from nova_lite.scheduler import filters

from .. import fake_hosts

PCI_ALIAS = json.dumps({'name': 'qat', 'vendor_id': '8086',
                        'product_id': '0443', 'device_type': 'type-PCI'})
CAPACITY = dict(vcpus=2, memory_mb=1024, root_gb=10, swap=512)

# Filter name -> (RequestSpec arguments, [filter_scheduler] / group options).
SCENARIOS = {
    'AllHostsFilter': ({}, {}),
    'ComputeFilter': ({}, {}),
    'ComputeCapabilitiesFilter': (dict(extra_specs={
        'capabilities:cpu_info:arch': 'x86_64',
        'capabilities:hypervisor_version': '>= 7000'}), {}),
    'ImagePropertiesFilter': (dict(image={'hw_architecture': 'aarch64'}),
                              {}),
    'AggregateInstanceExtraSpecsFilter': (dict(extra_specs={
        'aggregate_instance_extra_specs:ssd': 'true'}), {}),
    'AggregateImagePropertiesIsolation': (dict(image={
        'os_distro': 'linux'}), {}),
    'AggregateMultiTenancyIsolation': (dict(project_id='Y'), {}),
    'AggregateTypeAffinityFilter': (dict(flavor_name='m1.large'), {}),
    'AggregateIoOpsFilter': ({}, {}),
    'AggregateNumInstancesFilter': ({}, {}),
    'IoOpsFilter': ({}, {}),
    'NumInstancesFilter': ({}, {}),
    'IsolatedHostsFilter': (dict(image_id=fake_hosts.MEMBERS[0]), {
        'isolated_hosts': ['h%d' % i for i in range(0, 200, 3)],
        'isolated_images': [fake_hosts.MEMBERS[0]]}),
    'JsonFilter': (dict(hints={'query': json.dumps(
        ['and', ['>=', '$free_ram_mb', 1024],
         ['not', ['=', '$hypervisor_type', 'xen']]])}), {}),
    'MetricsFilter': ({}, {('metrics', 'weight_setting'): [
        'cpu.percent=1.0']}),
    'NUMATopologyFilter': (dict(extra_specs={'hw:numa_nodes': '2'}), {}),
    'PciPassthroughFilter': (dict(extra_specs={
        'pci_passthrough:alias': 'qat:2'}), {('pci', 'alias'): [PCI_ALIAS]}),
    'SameHostFilter': (dict(hints={'same_host': fake_hosts.MEMBERS[:3]}),
                       {}),
    'DifferentHostFilter': (dict(hints={
        'different_host': fake_hosts.MEMBERS[:3]}), {}),
    'SimpleCIDRAffinityFilter': (dict(hints={
        'build_near_host_ip': '192.168.1.1', 'cidr': '/24'}), {}),
    'ServerGroupAffinityFilter': (dict(instance_group=fake_hosts.Group(
        'affinity', hosts=['h%d' % i for i in range(0, 200, 2)])), {}),
    'ServerGroupAntiAffinityFilter': (dict(instance_group=fake_hosts.Group(
        'anti-affinity', members=fake_hosts.MEMBERS[:6],
        rules={'max_server_per_host': 2})), {}),
    'RamFilter': ({}, {}),
    'CoreFilter': ({}, {}),
    'DiskFilter': ({}, {}),
    'AggregateRamFilter': ({}, {}),
    'AggregateCoreFilter': ({}, {}),
    'AggregateDiskFilter': ({}, {}),
    'AvailabilityZoneFilter': (dict(availability_zone='az1'), {}),
    'RetryFilter': (dict(retry=fake_hosts.Retry(
        [['h%d' % i, 'h%d' % i] for i in range(0, 200, 5)])), {}),
    'GroupAffinityFilter': (dict(instance_group=fake_hosts.Group(
        'affinity', hosts=['h%d' % i for i in range(0, 200, 2)])), {}),
    'GroupAntiAffinityFilter': (dict(instance_group=fake_hosts.Group(
        'anti-affinity', hosts=['h%d' % i for i in range(0, 200, 2)])), {}),
}


def test_every_built_in_has_a_scenario():
    assert {cls.__name__ for cls in filters.all_filters()} == set(SCENARIOS)


@pytest.mark.parametrize('cls', filters.all_filters(),
                         ids=lambda cls: cls.__name__)
def test_filter_all_keeps_exactly_what_host_passes_keeps(conf, cls):
    spec_args, options = SCENARIOS[cls.__name__]
    for key, value in options.items():
        group, name = key if isinstance(key, tuple) else (
            'filter_scheduler', key)
        conf.config(group=group, **{name: value})
    hosts = fake_hosts.random_fleet(random.Random(7))
    spec = fake_hosts.spec(**dict(CAPACITY, **spec_args))
    flt = cls()
    expected = [h for h in hosts if flt.host_passes(h, spec)]
    if cls.__name__ != 'AllHostsFilter':
        assert 0 < len(expected) < len(hosts)
    assert flt.filter_all(hosts, spec) == expected
    # Each rejected host has a reason to show in a NoValidHost.
    rejected = [h for h in hosts if h not in expected]
    assert all(flt.rejection_reason(h, spec) for h in rejected)
    assert all(flt.rejection_reason(h, spec) is None for h in expected)
