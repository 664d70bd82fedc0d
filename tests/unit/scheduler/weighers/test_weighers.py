"""The weigher contract: normalisation, multipliers, ordering, loading."""

import pytest

from nova_lite import exception
from nova_lite.scheduler import weighers
from nova_lite.scheduler.weighers import cpu
from nova_lite.scheduler.weighers import ram

from .. import fakes


class ByNumber(weighers.BaseHostWeigher):
    """Weighs a host by the number ending its name ('h7' -> 7)."""

    def __init__(self, multiplier=1.0):
        self.multiplier = multiplier

    def weight_multiplier(self, host_state):
        return self.multiplier

    def _weigh_object(self, host_state, weight_properties):
        return int(host_state.host[1:])


class PortedFromNova(weighers.BaseHostWeigher):
    """Overrides Nova's spelling, weigh_objects, to weigh all at once."""

    def weigh_objects(self, weighed_obj_list, weight_properties):
        return [-int(w.obj.host[1:]) for w in weighed_obj_list]


class AllAtOnce(weighers.BaseHostWeigher):
    def weight_objects(self, weighed_obj_list, weight_properties):
        return [len(weighed_obj_list)] * len(weighed_obj_list)


def _hosts(*numbers):
    return [fakes.host('h%d' % n) for n in numbers]


def _order(weighed):
    return [w.obj.host for w in weighed]


def _weigh(weigher_list, hosts):
    return weighers.HostWeightHandler().get_weighed_objects(
        weigher_list, hosts, fakes.spec())


def test_normalize():
    assert weighers.normalize([10, 20, 15]) == [0.0, 1.0, 0.5]
    assert weighers.normalize([3, 3, 3]) == [0.0, 0.0, 0.0]
    assert weighers.normalize([]) == []
    assert weighers.normalize([5, 10], minval=0) == [0.5, 1.0]
    assert weighers.normalize([5, 10], minval=0, maxval=20) == [0.25, 0.5]


def test_heaviest_first():
    weighed = _weigh([ByNumber()], _hosts(2, 9, 5))
    assert _order(weighed) == ['h9', 'h5', 'h2']
    assert [w.weight for w in weighed] == [1.0, 3 / 7, 0.0]


def test_negative_multiplier_reverses():
    assert _order(_weigh([ByNumber(-1.0)], _hosts(2, 9, 5))) == [
        'h2', 'h5', 'h9']


def test_weights_are_normalised_then_multiplied_and_summed():
    # ByNumber: 0, 0.5, 1 (x2); PortedFromNova: 1, 0.5, 0 (x1).
    weighed = _weigh([ByNumber(2.0), PortedFromNova()], _hosts(1, 2, 3))
    weights = {w.obj.host: w.weight for w in weighed}
    assert weights == {'h1': 1.0, 'h2': 1.5, 'h3': 2.0}
    assert _order(weighed) == ['h3', 'h2', 'h1']


def test_equal_weights_keep_host_order():
    weighed = _weigh([AllAtOnce()], _hosts(4, 1, 3))
    assert _order(weighed) == ['h4', 'h1', 'h3']
    assert {w.weight for w in weighed} == {0.0}


def test_single_host_gets_zero_weight_without_weighing():
    class Exploding(weighers.BaseHostWeigher):
        def _weigh_object(self, host_state, weight_properties):
            raise AssertionError('not needed for one host')

    weighed = _weigh([Exploding()], _hosts(1))
    assert [w.weight for w in weighed] == [0.0]


def test_minval_clamps_and_anchors_normalisation():
    class Signed(ByNumber):
        minval = 0

        def _weigh_object(self, host_state, weight_properties):
            return {'h1': -50, 'h2': 50, 'h3': 100}[host_state.host]

    weigher = Signed()
    raw = weigher.weigh_objects(
        [weighers.WeighedHost(h, 0.0) for h in _hosts(1, 2, 3)], None)
    assert raw == [0, 50, 100]
    weights = {w.obj.host: w.weight for w in _weigh([weigher],
                                                    _hosts(1, 2, 3))}
    assert weights == {'h1': 0.0, 'h2': 0.5, 'h3': 1.0}
    # Hints are bounds, not state: weighing never moves them.
    assert weigher.minval == 0 and weigher.maxval is None


def test_multiplier_is_asked_per_host():
    class PerHost(ByNumber):
        def weight_multiplier(self, host_state):
            return -1.0 if host_state.host == 'h9' else 1.0

    assert _order(_weigh([PerHost()], _hosts(1, 9, 5))) == [
        'h5', 'h1', 'h9']


def test_weighed_host_repr_and_dict():
    weighed = weighers.WeighedHost(fakes.host('h1'), 0.5)
    assert weighed.to_dict() == {'weight': 0.5, 'host': 'h1'}
    assert 'weight: 0.5' in repr(weighed)


# Loading

BUILT_INS = {'RAMWeigher', 'CPUWeigher', 'DiskWeigher', 'MetricsWeigher',
             'IoOpsWeigher', 'PCIWeigher', 'ServerGroupSoftAffinityWeigher',
             'ServerGroupSoftAntiAffinityWeigher', 'BuildFailureWeigher',
             'CrossCellWeigher', 'HypervisorVersionWeigher',
             'NumInstancesWeigher', 'ImagePropertiesWeigher'}


def test_all_weighers_are_the_built_ins():
    names = {cls.__name__ for cls in weighers.all_weighers()}
    assert names == BUILT_INS


def test_default_config_loads_every_built_in(conf):
    from nova_lite.conf import CONF
    loaded = weighers.HostWeightHandler().load_weighers(
        CONF.filter_scheduler.weight_classes)
    assert {type(w).__name__ for w in loaded} == BUILT_INS


def test_every_built_in_states_its_ordering():
    for cls in weighers.all_weighers():
        assert cls.__doc__ and len(cls.__doc__) > 60, cls
        assert cls.__module__.startswith('nova_lite.scheduler.weighers.')


def test_load_by_entry_point_name_and_class_path():
    loaded = weighers.HostWeightHandler().load_weighers(
        ['RAMWeigher', 'nova_lite.scheduler.weighers.cpu.CPUWeigher',
         __name__ + '.ByNumber'])
    assert [type(w) for w in loaded] == [ram.RAMWeigher, cpu.CPUWeigher,
                                         ByNumber]


@pytest.mark.parametrize('name', ['RAMWeighr', 'nowhere.Weigher',
                                  'nova_lite.scheduler.filters.all_filters'])
def test_unknown_weigher_is_an_error(name):
    with pytest.raises(exception.SchedulerWeigherNotFound) as info:
        weighers.HostWeightHandler().load_weighers([name])
    assert name in info.value.format_message()
