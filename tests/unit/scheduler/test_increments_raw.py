"""The raw weights the Reweigher asks of the claimed hosts: a weigher
whose request makes it weigh every host 0.0 is not asked host by host,
and gives what asking it would."""

import numpy as np

from nova_lite.scheduler import increments
from nova_lite.scheduler.weighers import affinity
from nova_lite.scheduler.weighers import anti_affinity
from nova_lite.scheduler.weighers import metrics

from . import fakes


def _asked(weigher, hosts, spec_obj, monkeypatch):
    """The clamped raw weights, the weigher asked host by host (the
    shortcut turned off)."""
    with monkeypatch.context() as patch:
        patch.setattr(increments, '_weighs_zero', lambda *args: False)
        return increments._raw_of(weigher, hosts, spec_obj)


class _Floor(affinity.ServerGroupSoftAffinityWeigher):
    minval = 2.0


class _Own(affinity.ServerGroupSoftAffinityWeigher):
    """Weighs its own way: it must be asked."""

    def weight_objects(self, weighed_obj_list, weight_properties):
        return [7.0 for _w in weighed_obj_list]


def test_weighers_of_nothing_for_the_request_give_what_asking_gives(
        conf, monkeypatch):
    hosts = [fakes.host('h1'), fakes.host('h2')]
    spec_obj = fakes.spec()
    for weigher in (affinity.ServerGroupSoftAffinityWeigher(),
                    anti_affinity.ServerGroupSoftAntiAffinityWeigher(),
                    metrics.MetricsWeigher(), _Floor()):
        assert increments._weighs_zero(weigher, spec_obj)
        assert (increments._raw_of(weigher, hosts, spec_obj)
                == _asked(weigher, hosts, spec_obj, monkeypatch))
    assert increments._raw_of(_Floor(), hosts, spec_obj) == [2.0, 2.0]


def test_a_weigher_of_its_own_or_with_a_request_is_asked(conf):
    hosts = [fakes.host('h1')]
    spec_obj = fakes.spec()
    assert not increments._weighs_zero(_Own(), spec_obj)
    assert increments._raw_of(_Own(), hosts, spec_obj) == [7.0]
    conf.config(group='metrics', weight_setting=['mem.free=1'])
    assert not increments._weighs_zero(metrics.MetricsWeigher(), spec_obj)


class _NoHosts:
    @staticmethod
    def hosts_at(rows):
        return []


def test_rows_in_play_are_read_without_gathering_only_when_all_are():
    base = np.array([1, 3, 4, 7])
    total = np.array([0.5, 0.25, 1.0, 0.75])
    reweigher = increments.Reweigher([], base, [], total.copy())
    among = np.zeros(8, bool)
    among[base] = True
    live = reweigher._in_play(among, base.copy())
    assert live is reweigher._everyone and live.all()
    weights = reweigher.reweigh([], _NoHosts(), base.copy(), None, [], among,
                                [])
    assert weights.tolist() == total.tolist()
    # The caller writes into the weights: never the kept ones.
    weights[:] = -np.inf
    among[3] = False
    rows = np.flatnonzero(among)
    live = reweigher._in_play(among, rows)
    assert live is not reweigher._everyone
    assert live.tolist() == [True, False, True, True]
    weights = reweigher.reweigh([], _NoHosts(), rows, None, [], among, [])
    assert weights.tolist() == [0.5, 1.0, 0.75]
