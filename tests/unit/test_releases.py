"""releases.json agrees with itself and with the code."""

from oslo_utils import versionutils

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.objects import base
from nova_lite.objects import service
from nova_lite import releases
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

RPC_VERSIONS = {'conductor': conductor_rpcapi.RPC_VERSION,
                'scheduler': scheduler_rpcapi.RPC_VERSION,
                'compute': compute_rpcapi.RPC_VERSION}


def _v(version):
    return versionutils.convert_version_to_tuple(version)


def _current_objects():
    return {name: classes[0].VERSION for name, classes in
            base.NovaLiteObjectRegistry.obj_classes().items()}


def test_each_release_is_complete_and_named_once():
    names = releases.names()
    assert len(names) == len(set(names))
    for release in releases.all_releases():
        assert set(release) >= {'name', 'commit', 'service_version', 'rpc',
                                'objects'}
        assert set(release['rpc']) == set(RPC_VERSIONS)


def test_versions_never_go_backwards():
    all_releases = releases.all_releases()
    for older, newer in zip(all_releases, all_releases[1:],
                            strict=False):
        assert newer['service_version'] > older['service_version']
        for svc, version in older['rpc'].items():
            assert _v(newer['rpc'][svc]) >= _v(version)
        for name, version in older['objects'].items():
            assert _v(newer['objects'][name]) >= _v(version), name


def test_released_ones_name_a_commit():
    for release in releases.all_releases()[:-1]:
        assert release['commit'] and len(release['commit']) == 40


def test_service_version_history_matches():
    for release in releases.all_releases():
        history = service.SERVICE_VERSION_HISTORY[release['service_version']]
        assert {svc: history['%s_rpc' % svc] for svc in RPC_VERSIONS} == \
            release['rpc'], release['name']


def test_the_code_is_the_newest_release_or_newer():
    newest = releases.all_releases()[-1]
    current = {'service_version': service.SERVICE_VERSION,
               'rpc': RPC_VERSIONS, 'objects': _current_objects()}
    if newest['commit'] is None:
        # In development: the entry describes the working tree exactly.
        assert current == {k: newest[k] for k in current}
        return
    assert current['service_version'] >= newest['service_version']
    for svc, version in newest['rpc'].items():
        assert _v(current['rpc'][svc]) >= _v(version)
    for name, version in newest['objects'].items():
        assert _v(current['objects'][name]) >= _v(version), name


def test_rpc_aliases_name_every_release():
    assert set(releases.rpc_aliases('conductor')) == set(releases.names())
    assert conductor_rpcapi.VERSION_ALIASES['acorn'] == '1.0'
