"""os-hosts against tempest.lib's schemas, until 2.43 removed it.

Its update, startup, shutdown and reboot are not checked: with no virt
driver call behind them they answer 501 here, as Nova does for drivers
without one."""

from nova_lite.api import api_version
from tests.unit.api import conftest
from tests.unit.api.test_hosts import cloud  # noqa: F401

ADMIN = conftest.make_context('admin', 'ops')


def test_every_answer(api, cloud, assert_shape, schemas,  # noqa: F811
                      microversion):
    admin = api(ADMIN)
    if api_version.APIVersionRequest(microversion).matches('2.43'):
        for path in ('/os-hosts', '/os-hosts/c1'):
            assert admin('GET', path).status_int == 404
        return
    hosts = schemas('hosts')
    assert_shape(admin('GET', '/os-hosts'), hosts.list_hosts)
    assert_shape(admin('GET', '/os-hosts?zone=az1'), hosts.list_hosts)
    assert_shape(admin('GET', '/os-hosts/c1'), hosts.get_host_detail)
