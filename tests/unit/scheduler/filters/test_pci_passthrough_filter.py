"""PciPassthroughFilter: [pci] alias definitions, flavor requests, pools."""

import json

import pytest

from nova_lite import exception
from nova_lite.scheduler.filters import pci_passthrough_filter as pci

from .. import fake_hosts

QAT = {'name': 'qat', 'vendor_id': '8086', 'product_id': '0443',
       'device_type': 'type-PCI'}
GPU_A = {'name': 'gpu', 'vendor_id': '10de', 'product_id': '1db4'}
GPU_B = {'name': 'gpu', 'vendor_id': '10de', 'product_id': '1eb8'}


def _pool(vendor, product, count, dev_type='type-PCI', numa_node=0):
    return {'vendor_id': vendor, 'product_id': product, 'count': count,
            'dev_type': dev_type, 'numa_node': numa_node}


@pytest.fixture
def aliases(conf):
    conf.config(group='pci', alias=[json.dumps(a)
                                    for a in (QAT, GPU_A, GPU_B)])


def _passes(request, pools):
    spec = fake_hosts.spec(extra_specs={'pci_passthrough:alias': request}
                           if request else {})
    return pci.PciPassthroughFilter().host_passes(
        fake_hosts.host(pci_stats=pools), spec)


def test_flavor_without_request_passes_any_host():
    assert _passes(None, [])


@pytest.mark.parametrize('request_,pools,expected', [
    ('qat:1', [_pool('8086', '0443', 1)], True),
    ('qat:2', [_pool('8086', '0443', 1)], False),
    ('qat:2', [_pool('8086', '0443', 1), _pool('8086', '0443', 1, 'type-PCI',
                                               1)], True),
    ('qat', [_pool('8086', '0443', 1)], True),          # count defaults 1
    ('qat:1', [_pool('8086', '9999', 4)], False),       # other product
    ('qat:1', [_pool('8086', '0443', 4, 'type-VF')], False),
    ('qat:1', [], False),
    # Several aliases named gpu: any of their specs matches.
    ('gpu:2', [_pool('10de', '1db4', 1), _pool('10de', '1eb8', 1)], True),
    # Two requests never count the same device.
    ('qat:1, gpu:1', [_pool('8086', '0443', 1), _pool('10de', '1db4', 1)],
     True),
    ('gpu:1,gpu:1', [_pool('10de', '1db4', 1)], False),
])
def test_requests_against_pools(aliases, request_, pools, expected):
    assert _passes(request_, pools) is expected


def test_rejection_reasons(aliases):
    flt = pci.PciPassthroughFilter()
    host = fake_hosts.host(pci_stats=[_pool('8086', '0443', 1)])
    spec = fake_hosts.spec(extra_specs={'pci_passthrough:alias': 'qat:3'})
    assert flt.rejection_reason(host, spec) == 'lack PCI qat x3'
    spec = fake_hosts.spec(extra_specs={'pci_passthrough:alias': 'fpga:1'})
    assert not flt.host_passes(host, spec)
    assert flt.rejection_reason(host, spec) == 'PCI alias fpga is not defined'
    spec = fake_hosts.spec(extra_specs={'pci_passthrough:alias': 'qat:x'})
    assert flt.rejection_reason(host, spec) == (
        'bad pci_passthrough:alias')


def test_wildcard_product(conf):
    conf.config(group='pci', alias=[json.dumps(
        {'name': 'intel', 'vendor_id': '8086', 'product_id': '*'})])
    assert _passes('intel:2', [_pool('8086', '0443', 1),
                               _pool('8086', '1520', 1, 'type-VF')])


@pytest.mark.parametrize('alias', [
    'not json',
    json.dumps({'vendor_id': '8086'}),                   # no name
    json.dumps(dict(QAT, device_type='type-XYZ')),
    json.dumps(dict(QAT, numa_policy='sometimes')),
    json.dumps(dict(QAT, product_id='04430')),
])
def test_malformed_alias_is_a_config_error(conf, alias):
    conf.config(group='pci', alias=[alias])
    with pytest.raises(exception.PciInvalidAlias):
        _passes('qat:1', [_pool('8086', '0443', 1)])


def test_aliases_of_one_name_must_agree(conf):
    conf.config(group='pci', alias=[
        json.dumps(QAT), json.dumps(dict(QAT, device_type='type-VF'))])
    with pytest.raises(exception.PciInvalidAlias):
        pci.parse_aliases(conf.conf.pci.alias)


def test_pools_are_not_modified(aliases):
    pools = [_pool('8086', '0443', 2)]
    assert _passes('qat:2', pools)
    assert pools[0]['count'] == 2
