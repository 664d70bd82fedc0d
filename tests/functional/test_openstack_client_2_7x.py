"""The stock ``openstack`` client against the daemons (RabbitMQ,
PostgreSQL) with the options of microversions 2.66 to 2.75: a server
created on a named host (2.74), locked with a reason and listed by the
``locked`` filter (2.73), listed by a change window (2.66) that keeps
showing it once deleted."""

import datetime

import pytest

from tests.functional import conftest
from tests.functional.test_openstack_client_actions import _openstack
from tests.functional.test_openstack_client_actions import FLAVOR
from tests.functional.test_openstack_client_actions import identity  # noqa
from tests.functional.test_openstack_client_actions import images  # noqa
from tests.functional.test_openstack_client_actions import pytestmark  # noqa


@pytest.fixture(scope='module')
def deploy(request, module_tmp):
    with conftest.deployed(
        module_tmp / 'postgresql', request, backend='postgresql',
        computes={'compute1': {'node_count': 1},
                  'compute2': {'node_count': 1}}) as d:
        yield d


def _iso(moment):
    return moment.strftime('%Y-%m-%dT%H:%M:%SZ')


def test_requested_host_lock_reason_and_change_windows(
        deploy, identity, images):  # noqa: F811
    def cli(*args, **kwargs):
        return _openstack(deploy, identity, *args, **kwargs)

    start = datetime.datetime.now(datetime.timezone.utc).replace(
        microsecond=0) - datetime.timedelta(seconds=2)
    image = deploy.register_image('placed-image')
    assert deploy.admin_api.post('/flavors', FLAVOR)[0] == 200
    for host in ('compute1', 'compute2'):
        server = cli('server', 'create', '--wait', '--flavor', 'small',
                     '--image', image, '--host', host, 'on-' + host,
                     '-f', 'json', images=images)
        assert server['status'] == 'ACTIVE', server
        assert server['OS-EXT-SRV-ATTR:host'] == host, server
    uuid = server['id']

    cli('server', 'lock', '--reason', 'maintenance', uuid)
    shown = cli('server', 'show', uuid, '-f', 'json')
    assert shown['locked_reason'] == 'maintenance', shown
    locked = cli('server', 'list', '--locked', '-f', 'json')
    assert [s['ID'] for s in locked] == [uuid]
    unlocked = cli('server', 'list', '--unlocked', '-f', 'json')
    assert [s['Name'] for s in unlocked] == ['on-compute1']

    later = _iso(datetime.datetime.now(datetime.timezone.utc)
                 + datetime.timedelta(hours=1))
    window = cli('server', 'list', '--changes-since', _iso(start),
                 '--changes-before', later, '-f', 'json')
    assert sorted(s['Name'] for s in window) == ['on-compute1',
                                                 'on-compute2']
    assert cli('server', 'list', '--changes-before', _iso(start),
               '-f', 'json') == []

    cli('server', 'unlock', uuid)
    cli('server', 'delete', '--wait', uuid)
    # The change window still lists it, as deleted; the plain list not.
    window = cli('server', 'list', '--changes-since', _iso(start),
                 '-f', 'json')
    assert {s['Name']: s['Status'] for s in window} == {
        'on-compute1': 'ACTIVE', 'on-compute2': 'DELETED'}
    assert [s['Name'] for s in cli('server', 'list', '-f', 'json')] == [
        'on-compute1']
    status, _, body = deploy.admin_api.get(
        '/servers?bogus=1', headers={'OpenStack-API-Version':
                                     'compute 2.75'})
    assert status == 400, body
