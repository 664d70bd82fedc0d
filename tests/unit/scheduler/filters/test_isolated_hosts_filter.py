"""IsolatedHostsFilter: both result matrices of seed 000."""

import pytest

from nova_lite.scheduler.filters import isolated_hosts_filter

from .. import fake_hosts

ISO_IMAGE = '342b492c-128f-4a42-8d3a-c5088cf27d13'
OTHER_IMAGE = '11111111-2222-4333-8444-555555555555'


def _passes(host, image_id):
    spec = (fake_hosts.spec(image_id=image_id) if image_id
            else fake_hosts.spec())
    return isolated_hosts_filter.IsolatedHostsFilter().host_passes(
        fake_hosts.host(host), spec)


@pytest.mark.parametrize('restrict,host,image,expected', [
    (True, 'server1', ISO_IMAGE, True),
    (True, 'server1', OTHER_IMAGE, False),
    (True, 'server1', None, False),          # volume-backed
    (True, 'plain', ISO_IMAGE, False),
    (True, 'plain', OTHER_IMAGE, True),
    (True, 'plain', None, True),
    (False, 'server1', ISO_IMAGE, True),
    (False, 'server1', OTHER_IMAGE, True),
    (False, 'server1', None, True),
    (False, 'plain', ISO_IMAGE, False),
    (False, 'plain', OTHER_IMAGE, True),
])
def test_matrix(conf, restrict, host, image, expected):
    conf.config(group='filter_scheduler',
                isolated_hosts=['server1', 'server2'],
                isolated_images=[ISO_IMAGE],
                restrict_isolated_hosts_to_isolated_images=restrict)
    assert _passes(host, image) is expected


@pytest.mark.parametrize('restrict,expected', [(True, False),
                                               (False, True)])
def test_without_isolated_images_only_the_restriction_applies(
        conf, restrict, expected):
    conf.config(group='filter_scheduler', isolated_hosts=['server1'],
                restrict_isolated_hosts_to_isolated_images=restrict)
    assert _passes('server1', OTHER_IMAGE) is expected
    assert _passes('plain', OTHER_IMAGE)


def test_unconfigured_filter_passes_everything():
    assert _passes('server1', ISO_IMAGE)


def test_rejection_reasons(conf):
    conf.config(group='filter_scheduler', isolated_hosts=['server1'],
                isolated_images=[ISO_IMAGE])
    flt = isolated_hosts_filter.IsolatedHostsFilter()
    assert flt.rejection_reason(fake_hosts.host('server1'),
                                fake_hosts.spec(image_id=OTHER_IMAGE)) == (
        'isolated host')
    assert flt.rejection_reason(fake_hosts.host('plain'),
                                fake_hosts.spec(image_id=ISO_IMAGE)) == (
        'not an isolated host')
