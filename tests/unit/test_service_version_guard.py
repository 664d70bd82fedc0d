"""A service refuses to start next to one too old to talk to it."""

from unittest import mock

import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite import releases
from nova_lite import service


def _svc(binary, host, version, up=True):
    svc = mock.Mock(binary=binary, host=host, version=version, is_up=up)
    return svc


@pytest.fixture
def services(monkeypatch):
    rows = []
    monkeypatch.setattr(objects.ServiceList, 'get_all',
                        mock.Mock(side_effect=lambda ctxt: rows))
    monkeypatch.setattr(releases, 'oldest_supported',
                        lambda: {'name': 'bramble', 'service_version': 2})
    return rows


def test_too_old_service_is_named(services):
    services.append(_svc('nova-lite-compute', 'c1', 1))
    with pytest.raises(exception.ServiceTooOld) as err:
        service.check_service_versions(None, 'nova-lite-conductor', 'h')
    message = err.value.format_message()
    assert 'nova-lite-compute on host c1' in message
    assert 'version 1' in message and 'bramble' in message


def test_own_row_down_services_and_override_are_ignored(services, conf):
    services.append(_svc('nova-lite-conductor', 'h', 1))   # ourselves
    services.append(_svc('nova-lite-compute', 'c2', 1, up=False))
    service.check_service_versions(None, 'nova-lite-conductor', 'h')
    services.append(_svc('nova-lite-compute', 'c3', 1))
    conf.config(skip_service_version_check=True, group='upgrade_levels')
    service.check_service_versions(None, 'nova-lite-conductor', 'h')
