"""nova-lite-status upgrade check: each check's verdict."""

from unittest import mock

from oslo_upgradecheck import upgradecheck
import pytest

from nova_lite.cmd import status
from nova_lite import objects
from nova_lite.objects import service as service_obj

Code = upgradecheck.Code


def _svc(binary, version, up=True, host='h'):
    return mock.Mock(binary=binary, version=version, is_up=up, host=host)


@pytest.fixture
def services(monkeypatch):
    rows = []
    monkeypatch.setattr(objects.ServiceList, 'get_all',
                        mock.Mock(side_effect=lambda ctxt: rows))
    monkeypatch.setattr(service_obj, 'SERVICE_VERSION', 2)
    return rows


def test_schema_check_lists_pending_migrations(monkeypatch):
    monkeypatch.setattr(status.migration, 'pending',
                        lambda: ['0002_quotas'])
    result = status.Checks()._check_schema()
    assert result.code == Code.FAILURE and '0002_quotas' in result.details
    monkeypatch.setattr(status.migration, 'pending', lambda: [])
    monkeypatch.setattr(status.migration, 'db_version', lambda: '0003')
    assert status.Checks()._check_schema().code == Code.SUCCESS


def test_service_versions_name_too_old_services(services, monkeypatch):
    monkeypatch.setattr(status.releases, 'oldest_supported',
                        lambda: {'name': 'acorn', 'service_version': 1})
    services.extend([_svc('nova-lite-compute', 2),
                     _svc('nova-lite-compute', 0, host='old'),
                     _svc('nova-lite-compute', 0, up=False)])
    result = status.Checks()._check_service_versions()
    assert result.code == Code.FAILURE
    assert 'nova-lite-compute on old runs version 0' in result.details


def test_pins_should_be_set_while_old_services_run(services, conf):
    services.append(_svc('nova-lite-compute', 1))
    result = status.Checks()._check_pins()
    assert result.code == Code.WARNING
    assert 'pin [upgrade_levels] compute' in result.details
    conf.config(compute='acorn', group='upgrade_levels')
    assert status.Checks()._check_pins().code == Code.SUCCESS


def test_pins_can_be_lifted_once_everything_is_current(services, conf):
    services.append(_svc('nova-lite-compute', 2))
    conf.config(compute='acorn', group='upgrade_levels')
    result = status.Checks()._check_pins()
    assert result.code == Code.WARNING and 'can be lifted' in result.details


def test_placement_check_warns_on_findings(monkeypatch):
    from nova_lite.placement import audit
    findings = audit.Findings(orphans=['o1', 'o2'], missing=['m1'])
    monkeypatch.setattr(status.placement_audit, 'find',
                        lambda ctxt: findings)
    result = status.Checks()._check_placement()
    assert result.code == Code.WARNING
    assert '2 orphaned allocation(s) and 1 instance(s)' in result.details
    monkeypatch.setattr(status.placement_audit, 'find',
                        lambda ctxt: audit.Findings([], []))
    result = status.Checks()._check_placement()
    assert result.code == Code.SUCCESS
    assert 'moves in progress' in result.details
