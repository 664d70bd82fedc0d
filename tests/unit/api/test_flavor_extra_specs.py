"""/flavors/{id}/os-extra_specs writes: validation, policy and shapes."""

import pytest
from tempest.lib.api_schema.response.compute.v2_1 import (
    flavors_extra_specs as schemas)

from nova_lite import exception
from nova_lite.objects import flavor as flavor_obj
from tests.unit.api import conftest
from tests.unit.api.shapes import conftest as shapes
from tests.unit.api.test_flavors import store  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


@pytest.fixture
def writes(monkeypatch, store):  # noqa: F811
    """Writes land in the fake store's flavors; the list records them."""
    done = []

    def update(context, flavorid, specs):
        if flavorid not in store['flavors']:
            raise exception.FlavorNotFound(flavor_id=flavorid)
        done.append(('set', flavorid, dict(specs)))

    def delete(context, flavorid, key):
        specs = store['flavors'][flavorid].extra_specs
        if key not in specs:
            raise exception.FlavorExtraSpecsNotFound(flavor_id=flavorid,
                                                     key=key)
        done.append(('delete', flavorid, key))
    monkeypatch.setattr(flavor_obj, 'update_extra_specs', update)
    monkeypatch.setattr(flavor_obj, 'delete_extra_spec', delete)
    return done


def test_create_stores_strings(api, writes):
    resp = api(ADMIN)('POST', '/flavors/1/os-extra_specs', {'extra_specs': {
        'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': 2,
        'hw_rng:allowed': True, 'custom:anything': 'goes',
        'hw:future_key': 'accepted as at 2.1'}})
    assert resp.status_int == 200, resp.body
    specs = {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2',
             'hw_rng:allowed': 'True', 'custom:anything': 'goes',
             'hw:future_key': 'accepted as at 2.1'}
    assert resp.json == {'extra_specs': specs}
    assert writes == [('set', '1', specs)]
    shapes.check_shape(resp, schemas.set_get_flavor_extra_specs)


def test_update_one_key(api, writes):
    resp = api(ADMIN)('PUT', '/flavors/1/os-extra_specs/hw:numa_nodes',
                      {'hw:numa_nodes': '4'})
    assert resp.status_int == 200
    assert resp.json == {'hw:numa_nodes': '4'}
    shapes.check_shape(resp, schemas.set_get_flavor_extra_specs_key)


def test_delete(api, writes):
    resp = api(ADMIN)('DELETE', '/flavors/5/os-extra_specs/hw:numa_nodes')
    assert resp.status_int == 200
    shapes.check_shape(resp, schemas.unset_flavor_extra_specs)
    assert writes == [('delete', '5', 'hw:numa_nodes')]
    assert api(ADMIN)('DELETE', '/flavors/5/os-extra_specs/nope'
                      ).status_int == 404


@pytest.mark.parametrize('key,value', [
    ('hw:cpu_policy', 'exclusive'), ('hw:numa_nodes', '0'),
    ('hw:numa_nodes', 'two'), ('hw:mem_page_size', 'huge'),
    ('hw:numa_cpus.0', 'a-b'), ('hw_rng:rate_bytes', '-1'),
    ('hw:watchdog_action', 'explode'), ('quota:cpu_shares', 'lots'),
    ('trait:HW_CPU_X86_AVX2', 'preferred'),
    ('trait:NOT_A_TRAIT', 'required'), ('resources:VCPU', 'x'),
    ('resources:WIDGETS', '1'), ('resources1:CUSTOM_GPU', '-2'),
    ('hw:boot_menu', 'maybe'), ('group_policy', 'spread'),
])
def test_bad_values_of_known_keys_are_400(api, writes, key, value):
    resp = api(ADMIN)('POST', '/flavors/1/os-extra_specs',
                      {'extra_specs': {'ok:key': 'v', key: value}})
    assert resp.status_int == 400, resp.body
    assert key in resp.json['badRequest']['message']
    assert writes == []


@pytest.mark.parametrize('key,value', [
    ('hw:cpu_policy', 'mixed'), ('hw:mem_page_size', '2MB'),
    ('hw:mem_page_size', 'large'), ('hw:numa_cpus.1', '0-3,^2'),
    ('hw:numa_mem.0', '1024'), ('trait:CUSTOM_FAST', 'required'),
    ('trait1:HW_CPU_X86_AVX2', 'forbidden'), ('resources:CUSTOM_GPU', '1'),
    ('resources_g1:VCPU', '2'), ('quota:disk_read_bytes_sec', '10240'),
    ('capabilities:cpu_info:arch', 'x86_64'),
    ('aggregate_instance_extra_specs:ssd', 'true'),
    ('pci_passthrough:alias', 'a1:2'), ('hw:pmu', 'false'),
])
def test_good_values_pass(api, writes, key, value):
    resp = api(ADMIN)('POST', '/flavors/1/os-extra_specs',
                      {'extra_specs': {key: value}})
    assert resp.status_int == 200, resp.body


@pytest.mark.parametrize('method,path,body', [
    ('POST', '/flavors/1/os-extra_specs', {'extra_specs': {'a b!': 'x'}}),
    ('POST', '/flavors/1/os-extra_specs', {'extra_specs': {'k': 'x' * 256}}),
    ('POST', '/flavors/1/os-extra_specs', {'extra_specs': {'k': None}}),
    ('POST', '/flavors/1/os-extra_specs', {'specs': {}}),
    ('PUT', '/flavors/1/os-extra_specs/k', {'other': 'x'}),
    ('PUT', '/flavors/1/os-extra_specs/k', {'k': 'x', 'j': 'y'}),
    ('PUT', '/flavors/1/os-extra_specs/k', {}),
])
def test_bad_bodies_are_400(api, writes, method, path, body):
    assert api(ADMIN)(method, path, body).status_int == 400
    assert writes == []


def test_unknown_flavor_is_404(api, writes):
    resp = api(ADMIN)('POST', '/flavors/99/os-extra_specs',
                      {'extra_specs': {'k': 'v'}})
    assert resp.status_int == 404


@pytest.mark.parametrize('method,path,body', [
    ('POST', '/flavors/1/os-extra_specs', {'extra_specs': {'k': 'v'}}),
    ('PUT', '/flavors/1/os-extra_specs/k', {'k': 'v'}),
    ('DELETE', '/flavors/5/os-extra_specs/hw:numa_nodes', None),
])
def test_writes_are_for_administrators(api, writes, method, path, body):
    assert api()(method, path, body).status_int == 403
    assert writes == []


# -- 2.86: unknown keys in the namespaces checked here ---------------------

UNKNOWN_IN_KNOWN = ['hw:future_key', 'hw_rng:speed', 'hw_video:colour',
                    'os:favourite', 'quota:cpu_mood']


@pytest.mark.parametrize('key', UNKNOWN_IN_KNOWN)
def test_unknown_keys_in_checked_namespaces_are_400_from_2_86(
        api, at_version, writes, key):
    body = {'extra_specs': {'hw:numa_nodes': '2', key: 'x'}}
    old = at_version(api(ADMIN), '2.85')('POST', '/flavors/1/os-extra_specs',
                                         body)
    assert old.status_int == 200, old.text
    new = at_version(api(ADMIN), '2.86')
    resp = new('POST', '/flavors/1/os-extra_specs', body)
    assert resp.status_int == 400, resp.text
    assert key in resp.text
    resp = new('PUT', '/flavors/1/os-extra_specs/' + key, {key: 'x'})
    assert resp.status_int == 400, resp.text
    # Only the 2.85 write happened: nothing half-written.
    assert len(writes) == 1


@pytest.mark.parametrize('key, value', [
    ('custom:anything', 'goes'), ('aggregate_instance_extra_specs:ssd',
                                  'true'),
    ('capabilities:cpu_info:arch', 'x86_64'), ('no_namespace', 'x'),
    ('hw:sound_model', 'ich6'), ('hw:cpu_policy', 'dedicated'),
    ('quota:cpu_shares_level', 'high'), ('quota:disk_read_bytes_sec', '5'),
    ('resources:VCPU', '2'), ('trait:HW_CPU_X86_AVX2', 'required')])
def test_other_keys_pass_at_2_86(api, at_version, writes, key, value):
    resp = at_version(api(ADMIN), '2.86')(
        'POST', '/flavors/1/os-extra_specs', {'extra_specs': {key: value}})
    assert resp.status_int == 200, resp.text


def test_bad_values_stay_400_at_2_86(api, at_version, writes):
    resp = at_version(api(ADMIN), '2.86')(
        'POST', '/flavors/1/os-extra_specs',
        {'extra_specs': {'hw:cpu_policy': 'sometimes'}})
    assert resp.status_int == 400
    assert writes == []
