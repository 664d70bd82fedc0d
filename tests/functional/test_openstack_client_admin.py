"""The stock ``openstack`` client against the daemons (RabbitMQ,
PostgreSQL) at the microversions that changed the administrator's
resources: compute services and hypervisors by uuid (2.53), a service
disabled and deleted by id, and flavor descriptions (2.55)."""

import pytest

from tests.functional import conftest
from tests.functional.test_openstack_client_actions import _openstack
from tests.functional.test_openstack_client_actions import identity  # noqa
from tests.functional.test_openstack_client_actions import pytestmark  # noqa


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'compute1': {'node_count': 1},
                  'compute2': {'node_count': 1}}) as d:
        yield d


def _computes(cli):
    return {s['Host']: s for s in cli(
        'compute', 'service', 'list', '--service', 'nova-compute',
        '-f', 'json')}


def test_services_and_hypervisors_by_uuid(deploy, identity):  # noqa: F811
    def cli(*args):
        return _openstack(deploy, identity, '--os-compute-api-version',
                          '2.53', *args)

    computes = _computes(cli)
    assert set(computes) == {'compute1', 'compute2'}
    assert all(len(str(s['ID'])) == 36 for s in computes.values())
    cli('compute', 'service', 'set', '--disable', '--disable-reason',
        'maintenance', 'compute1', 'nova-compute')
    shown = _computes(cli)['compute1']
    assert (shown['Status'], shown['ID']) == (
        'disabled', computes['compute1']['ID'])
    cli('compute', 'service', 'set', '--enable', 'compute1', 'nova-compute')
    assert _computes(cli)['compute1']['Status'] == 'enabled'

    hypervisors = cli('hypervisor', 'list', '-f', 'json')
    assert len(hypervisors) == 2
    assert all(len(h['ID']) == 36 for h in hypervisors)
    first = hypervisors[0]
    shown = cli('hypervisor', 'show', first['ID'], '-f', 'json')
    assert shown['hypervisor_hostname'] == first['Hypervisor Hostname']

    # Retire compute2: stop its daemon, then delete its service; its
    # node goes with it.
    daemon = deploy.daemon('compute2')
    assert daemon.stop() == 0
    deploy.daemons.remove(daemon)
    cli('compute', 'service', 'delete', computes['compute2']['ID'])
    assert set(_computes(cli)) == {'compute1'}
    status, _, body = deploy.admin_api.get(
        '/os-hypervisors', headers={'OpenStack-API-Version':
                                    'compute 2.53'})
    assert status == 200, body
    assert [h['hypervisor_hostname'] for h in body['hypervisors']] == [
        h['Hypervisor Hostname'] for h in hypervisors
        if h['Hypervisor Hostname'].startswith('compute1')]


def test_flavor_descriptions(deploy, identity):  # noqa: F811
    def cli(*args):
        return _openstack(deploy, identity, '--os-compute-api-version',
                          '2.55', *args)

    cli('flavor', 'create', '--ram', '512', '--vcpus', '1', '--disk', '1',
        '--description', 'for tests', 'described')
    assert cli('flavor', 'show', 'described', '-f', 'json')[
        'description'] == 'for tests'
    cli('flavor', 'set', '--description', 'changed', 'described')
    assert cli('flavor', 'show', 'described', '-f', 'json')[
        'description'] == 'changed'
    # The client's flavor list has no description column; the API's
    # list shows it.
    status, _, body = deploy.admin_api.get(
        '/flavors', headers={'OpenStack-API-Version': 'compute 2.55'})
    assert status == 200, body
    assert {f['name']: f['description'] for f in body['flavors']}[
        'described'] == 'changed'
