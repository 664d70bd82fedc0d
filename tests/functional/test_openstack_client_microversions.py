"""The stock ``openstack`` client against the daemons (RabbitMQ,
PostgreSQL) at the microversions from 2.76 to 2.88 it negotiates: the
2.88 hypervisor views, the 2.81 image pre-cache reaching a compute, the
2.80 migration filters and the 2.86 extra spec validation (which the
client, speaking at most 2.61 for flavors, does not reach)."""

import os
import subprocess

import pytest

from tests.functional import conftest
from tests.functional import deployment
from tests.functional.test_openstack_client_actions import _openstack
from tests.functional.test_openstack_client_actions import identity  # noqa
from tests.functional.test_openstack_client_actions import OPENSTACK
from tests.functional.test_openstack_client_actions import pytestmark  # noqa


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'compute1': {'node_count': 1},
                  'compute2': {'node_count': 1}}) as d:
        yield d


def _refused(deploy, identity, *args):  # noqa: F811
    """Run the CLI expecting it to fail; its stderr."""
    argv = [OPENSTACK, '--os-auth-type', 'admin_token', '--os-token',
            'admin:admin', '--os-endpoint',
            'http://127.0.0.1:%d/v2.1' % deploy.port, *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    env['OS_IDENTITY_ENDPOINT_OVERRIDE'] = identity
    env['OS_IDENTITY_API_VERSION'] = '3'
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode != 0, (args, done.stdout)
    return done.stderr


def test_hypervisors_at_2_88(deploy, identity):  # noqa: F811
    hypervisors = _openstack(deploy, identity, 'hypervisor', 'list',
                             '-f', 'json')
    assert len(hypervisors) == 2
    shown = _openstack(deploy, identity, 'hypervisor', 'show',
                       hypervisors[0]['ID'], '-f', 'json')
    # The client parses show's uptime line (2.88) into these.
    assert shown['uptime'] and shown['host_time'], shown
    headers = {'OpenStack-API-Version': 'compute 2.88'}
    status, _, body = deploy.admin_api.get(
        '/os-hypervisors/%s' % hypervisors[0]['ID'], headers=headers)
    assert status == 200, body
    assert 'load average' in body['hypervisor']['uptime']
    assert 'vcpus' not in body['hypervisor']
    status, _, _ = deploy.admin_api.get('/os-hypervisors/statistics',
                                        headers=headers)
    assert status == 404


def test_aggregate_image_cache_reaches_the_compute(deploy,
                                                   identity):  # noqa: F811
    image = deploy.register_image('precached')
    _openstack(deploy, identity, 'aggregate', 'create', 'fast')
    _openstack(deploy, identity, 'aggregate', 'add', 'host', 'fast',
               'compute1')
    _openstack(deploy, identity, 'aggregate', 'cache', 'image', 'fast',
               image)
    deployment.wait_for(
        lambda: 'Image pre-cache on compute1: %s cached' % image in open(
            deploy.daemon('compute1').log).read(),
        timeout=30, message='the pre-cache on compute1')
    assert image not in open(deploy.daemon('compute2').log).read()
    unknown = '11111111-2222-3333-4444-555555555555'
    status, _, body = deploy.admin_api.post(
        '/os-aggregates/%s/images' % _aggregate_id(deploy, 'fast'),
        {'cache': [{'id': unknown}]},
        headers={'OpenStack-API-Version': 'compute 2.81'})
    assert status == 400, body


def _aggregate_id(deploy, name):
    _, _, body = deploy.admin_api.get('/os-aggregates')
    return {a['name']: a['id'] for a in body['aggregates']}[name]


def test_migration_list_filters(deploy, identity):  # noqa: F811
    found = _openstack(deploy, identity, 'server', 'migration', 'list',
                       '--user', 'nobody', '--project', 'nowhere',
                       '-f', 'json')
    assert found == []


def test_unknown_extra_spec_keys_are_refused(deploy,
                                             identity):  # noqa: F811
    _openstack(deploy, identity, 'flavor', 'create', '--ram', '512',
               '--vcpus', '1', '--disk', '1', 'strict')
    _openstack(deploy, identity, 'flavor', 'set', '--property',
               'hw:cpu_policy=dedicated', '--property', 'custom:x=1',
               'strict')
    # openstacksdk's flavors speak at most 2.61, so through the client
    # an unknown key is still accepted, as Nova accepts it below 2.86.
    _openstack(deploy, identity, 'flavor', 'set', '--property',
               'hw:old_style=1', 'strict')
    flavor_id = _openstack(deploy, identity, 'flavor', 'show', 'strict',
                           '-f', 'json')['id']
    status, _, body = deploy.admin_api.post(
        '/flavors/%s/os-extra_specs' % flavor_id,
        {'extra_specs': {'hw:no_such_key': '1'}},
        headers={'OpenStack-API-Version': 'compute 2.86'})
    assert status == 400 and 'hw:no_such_key' in str(body), body
    # A bad value is refused whatever the version.
    error = _refused(deploy, identity, 'flavor', 'set', '--property',
                     'hw:cpu_policy=sometimes', 'strict')
    assert 'hw:cpu_policy' in error
    specs = _openstack(deploy, identity, 'flavor', 'show', 'strict',
                       '-f', 'json')['properties']
    assert specs == {'hw:cpu_policy': 'dedicated', 'custom:x': '1',
                     'hw:old_style': '1'}
