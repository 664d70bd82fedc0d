"""An operator's plug-ins, loaded both ways the seeds describe.

``dist_root`` stands for a site-packages directory where the operator
installed the ``acmefilter`` distribution: its package holds seed 000's
AcmeFilter (imports changed only) and two custom weighers, and its
``.dist-info`` registers them as entry points in nova_lite's namespaces,
as ``setup(entry_points=...)`` would. With it on ``sys.path`` a plug-in
can be named by class path or by entry point name; ``all_filters`` and
``all_weighers`` still mean nova_lite's own built-ins only.
"""

import logging
import pathlib

import pytest
from stevedore import extension

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler import filter_scheduler
from nova_lite.scheduler import filters
from nova_lite.scheduler import weighers

from .. import fake_hosts
from .. import fakes

DIST_ROOT = pathlib.Path(__file__).parent / 'dist_root'


@pytest.fixture
def installed(monkeypatch):
    """acmefilter "installed": importable, and its entry points visible.
    stevedore caches entry points per namespace for the process (and on
    disk per sys.path): a fresh in-process cache makes it rescan, and the
    old one is back after the test."""
    monkeypatch.syspath_prepend(str(DIST_ROOT))
    monkeypatch.setattr(extension.ExtensionManager, 'ENTRY_POINT_CACHE', {})


def _run_filters(loaded, hosts, specs):
    return filters.HostFilterHandler().get_filtered_objects(
        loaded, hosts, fake_hosts.spec(extra_specs=specs))


@pytest.mark.parametrize('name', ['acmefilter.AcmeFilter', 'AcmeFilter'],
                         ids=['class path', 'entry point'])
def test_acme_filter_is_available_and_runs(installed, conf, caplog, name):
    # [filter_scheduler]
    # available_filters = nova_lite.scheduler.filters.all_filters
    # available_filters = <name>
    # enabled_filters = ComputeFilter,AcmeFilter
    conf.config(group='filter_scheduler',
                available_filters=['nova_lite.scheduler.filters.all_filters',
                                   name],
                enabled_filters=['ComputeFilter', 'AcmeFilter'])
    loaded = filters.HostFilterHandler().load_enabled_filters()
    assert [type(f).__name__ for f in loaded] == ['ComputeFilter',
                                                  'AcmeFilter']
    assert type(loaded[1]).__module__ == 'acmefilter'
    hosts = [fakes.host('up'), fakes.host('down', up=False)]
    with caplog.at_level(logging.INFO, logger='acmefilter'):
        kept = _run_filters(loaded, hosts, {'acme:foo': 'bar'})
    assert fake_hosts.names(kept) == ['up']
    assert "Extra spec value was 'bar'" in caplog.text


def test_all_filters_means_the_built_ins_only(installed, conf):
    names = {cls.__name__ for cls in filters.all_filters()}
    assert 'AcmeFilter' not in names and 'ComputeFilter' in names
    conf.config(group='filter_scheduler', enabled_filters=['AcmeFilter'])
    with pytest.raises(exception.SchedulerHostFilterNotFound) as info:
        filters.HostFilterHandler().load_enabled_filters()
    assert 'AcmeFilter' in str(info.value)


@pytest.mark.parametrize('names', [
    ['acmefilter.weighers.AcmeWeigher', 'acmefilter.weighers.AcmeRackWeigher'],
    ['AcmeWeigher', 'AcmeRackWeigher'],
], ids=['class path', 'entry point'])
def test_acme_weighers_load_and_weigh(installed, names):
    loaded = weighers.HostWeightHandler().load_weighers(names)
    assert [type(w).__name__ for w in loaded] == ['AcmeWeigher',
                                                  'AcmeRackWeigher']
    hosts = [fakes.host('r1-a', stats={'acme_score': '1'}),
             fakes.host('r1-b', stats={'acme_score': '3'}),
             fakes.host('r2-a', stats={'acme_score': '2'})]
    weighed = weighers.HostWeightHandler().get_weighed_objects(
        loaded, hosts, fake_hosts.spec())
    # AcmeWeigher (x2): 0, 2, 1; AcmeRackWeigher: 0, 0, 1; a tie keeps
    # the hosts' order.
    assert [(w.obj.host, w.weight) for w in weighed] == [
        ('r1-b', 2.0), ('r2-a', 2.0), ('r1-a', 0.0)]


def test_all_weighers_means_the_built_ins_only(installed):
    names = {cls.__name__ for cls in weighers.all_weighers()}
    assert 'AcmeWeigher' not in names and 'RAMWeigher' in names


def test_a_scheduler_runs_with_the_plug_ins(installed, conf):
    conf.config(group='filter_scheduler',
                available_filters=['nova_lite.scheduler.filters.all_filters',
                                   'AcmeFilter'],
                enabled_filters=['ComputeFilter', 'AcmeFilter'],
                weight_classes=['AcmeWeigher'])
    scheduler = filter_scheduler.FilterScheduler.from_config()
    hosts = [fakes.host('low', stats={'acme_score': '1'}),
             fakes.host('high', stats={'acme_score': '9'})]
    result = scheduler.select_destinations(
        fakes.spec(), hosts, ['00000000-0000-4000-8000-000000000001'],
        fakes.FakeClaimer())
    assert [s.service_host for s in result[0]][0] == 'high'
    assert CONF.filter_scheduler.weight_classes == ['AcmeWeigher']
