"""``networks`` at server create, on both sides of 2.37 (required, and
"auto" or "none"; nova_lite has no network service, so each form boots
a server without ports)."""

import pytest

from tests.unit.api import fakes
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

IMAGE = fakes.image()['id']
NET = '3cb9bc59-5699-4588-a4b1-b87f96708bc6'
ABSENT = object()


def _create(api, at_version, version, networks=ABSENT):
    server = {'name': 'vm', 'imageRef': IMAGE, 'flavorRef': '1'}
    if networks is not ABSENT:
        server['networks'] = networks
    return at_version(api(), version)('POST', '/servers', {'server': server})


@pytest.mark.parametrize('version, networks, status', [
    # Before 2.37: optional, a list only, any string as a network id.
    ('2.36', ABSENT, 202),
    ('2.36', [], 202),
    ('2.36', [{'uuid': 'net-name'}], 202),
    ('2.36', 'auto', 400),
    ('2.36', 'none', 400),
    # From 2.37: required; a list of UUIDs, "auto" or "none".
    ('2.37', ABSENT, 400),
    ('2.37', 'auto', 202),
    ('2.37', 'none', 202),
    ('2.37', [], 202),
    ('2.37', [{'uuid': NET}], 202),
    ('2.37', [{'uuid': NET.replace('-', '')}], 202),
    ('2.37', [{'uuid': 'net-name'}], 400),
    ('2.37', 'any', 400),
    ('2.37', None, 400),
])
def test_networks_by_version(api, at_version, compute,  # noqa: F811
                             version, networks, status):
    resp = _create(api, at_version, version, networks)
    assert resp.status_int == status, resp.text
    assert len(compute.created) == (1 if status == 202 else 0)


def test_missing_networks_names_the_field(api, at_version,
                                          compute):  # noqa: F811
    resp = _create(api, at_version, '2.37')
    assert 'networks' in resp.json['badRequest']['message']


@pytest.mark.parametrize('version', ['2.1', '2.36', '2.37'])
@pytest.mark.parametrize('item', [
    {'uuid': NET, 'bogus': 1},
    {'uuid': NET, 'port': 'not-a-port-uuid'},
    {'uuid': NET, 'fixed_ip': '10.0.0.300'},
])
def test_bad_network_items_are_400_at_every_version(
        api, at_version, compute, version, item):  # noqa: F811
    """An item with a key Nova does not know (Nova refuses them at every
    version) or a malformed port or address is a 400, not ignored."""
    resp = _create(api, at_version, version, [item])
    assert resp.status_int == 400, resp.text
    assert compute.created == []


@pytest.mark.parametrize('item', [
    {'uuid': NET, 'fixed_ip': '10.0.0.3'},
    {'uuid': NET, 'fixed_ip': 'fe80::1'},
    {'port': NET}, {'port': None, 'uuid': NET}])
def test_good_network_items(api, at_version, compute,  # noqa: F811
                            item):
    assert _create(api, at_version, '2.37', [item]).status_int == 202
