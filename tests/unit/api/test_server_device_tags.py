"""Device tags at server create (2.32; again from 2.42 after Nova lost
them at 2.33 for block devices and at 2.37 for networks)."""

import pytest

from nova_lite.api import api_version
from tests.unit.api import fakes
from tests.unit.api.test_servers import catalogue  # noqa: F401
from tests.unit.api.test_servers import compute  # noqa: F401

IMAGE = fakes.image()['id']


def _create(api, at_version, version, **server):
    body = {'server': dict({'name': 'vm', 'imageRef': IMAGE,
                            'flavorRef': '1'}, **server)}
    if api_version.APIVersionRequest(version).matches('2.37'):
        body['server'].setdefault('networks', 'none')
    return at_version(api(), version)('POST', '/servers', body)


@pytest.fixture
def up_to_2_42(monkeypatch):
    monkeypatch.setattr(api_version, 'VERSIONS', api_version.VERSIONS + [
        '2.%d' % n for n in range(
            api_version.max_version().ver_minor + 1, 43)])


_BDM = [{'uuid': IMAGE, 'source_type': 'image',
         'destination_type': 'local', 'boot_index': 0, 'tag': 'root'}]


@pytest.mark.parametrize('version, status', [
    ('2.31', 400), ('2.32', 202), ('2.33', 400), ('2.41', 400),
    ('2.42', 202)])
def test_block_device_tags(api, at_version, compute,  # noqa: F811
                           up_to_2_42, version, status):
    resp = _create(api, at_version, version, block_device_mapping_v2=_BDM)
    assert resp.status_int == status, resp.text
    assert len(compute.created) == (1 if status == 202 else 0)


@pytest.mark.parametrize('version, status', [
    ('2.31', 400), ('2.32', 202), ('2.36', 202), ('2.37', 400),
    ('2.41', 400), ('2.42', 202)])
def test_network_tags(api, at_version, compute,  # noqa: F811
                      up_to_2_42, version, status):
    resp = _create(api, at_version, version,
                   networks=[{'uuid': IMAGE, 'tag': 'nic1'}])
    assert resp.status_int == status, resp.text


@pytest.mark.parametrize('server', [
    {'networks': [{'uuid': IMAGE, 'tag': 'a,b'}]},
    {'networks': [{'uuid': IMAGE, 'tag': 'x' * 61}]},
    {'block_device_mapping_v2': [dict(_BDM[0], tag='a/b')]}])
def test_bad_device_tags(api, at_version, compute, server):  # noqa: F811
    resp = _create(api, at_version, '2.32', **server)
    assert resp.status_int == 400, resp.text
    assert 'tag' in resp.text
    assert compute.created == []
