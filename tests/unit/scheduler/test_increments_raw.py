"""The raw weights the Reweigher asks of the claimed hosts: a weigher
whose request makes it weigh every host 0.0 is not asked host by host,
and gives what asking it would."""

from nova_lite.scheduler import increments
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import affinity
from nova_lite.scheduler.weighers import anti_affinity
from nova_lite.scheduler.weighers import metrics

from . import fakes


def _asked(weigher, hosts, spec_obj):
    """The clamped raw weights, the weigher asked host by host."""
    raw = [float(value) for value in weigher.weigh_objects(
        [weighers.WeighedHost(host, 0.0) for host in hosts], spec_obj)]
    if weigher.minval is not None:
        raw = [max(value, weigher.minval) for value in raw]
    if weigher.maxval is not None:
        raw = [min(value, weigher.maxval) for value in raw]
    return raw


class _Floor(affinity.ServerGroupSoftAffinityWeigher):
    minval = 2.0


class _Own(affinity.ServerGroupSoftAffinityWeigher):
    """Weighs its own way: it must be asked."""

    def weight_objects(self, weighed_obj_list, weight_properties):
        return [7.0 for _w in weighed_obj_list]


def test_weighers_of_nothing_for_the_request_give_what_asking_gives(conf):
    hosts = [fakes.host('h1'), fakes.host('h2')]
    spec_obj = fakes.spec()
    for weigher in (affinity.ServerGroupSoftAffinityWeigher(),
                    anti_affinity.ServerGroupSoftAntiAffinityWeigher(),
                    metrics.MetricsWeigher(), _Floor()):
        assert increments._weighs_zero(weigher, spec_obj)
        assert (increments._raw_of(weigher, hosts, spec_obj)
                == _asked(weigher, hosts, spec_obj))
    assert increments._raw_of(_Floor(), hosts, spec_obj) == [2.0, 2.0]


def test_a_weigher_of_its_own_or_with_a_request_is_asked(conf):
    hosts = [fakes.host('h1')]
    spec_obj = fakes.spec()
    assert not increments._weighs_zero(_Own(), spec_obj)
    assert increments._raw_of(_Own(), hosts, spec_obj) == [7.0]
    conf.config(group='metrics', weight_setting=['mem.free=1'])
    assert not increments._weighs_zero(metrics.MetricsWeigher(), spec_obj)
