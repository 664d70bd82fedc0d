"""CrossCellWeigher: prefer the instance's own cell when it moves."""

from nova_lite.conf import CONF
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers


class CrossCellWeigher(weighers.BaseHostWeigher):
    """Weighs hosts in the moving instance's own cell above hosts in
    other cells (seed 000, Ussuri).

    nova_lite has a single cell, so every host is in the instance's cell
    and weighs the same, 0: this weigher changes no order. It exists so
    configurations naming it load, and so
    ``cross_cell_move_weight_multiplier`` (with its per-aggregate
    override) keeps its meaning once there are cells.
    """

    def weight_multiplier(self, host_state):
        return utils.get_weight_multiplier(
            host_state, 'cross_cell_move_weight_multiplier',
            CONF.filter_scheduler.cross_cell_move_weight_multiplier)

    def _weigh_object(self, host_state, weight_properties):
        return 0.0

    def weight_objects(self, weighed_obj_list, weight_properties):
        return [0.0] * len(weighed_obj_list)

    def multiplier_population(self, population):
        return population.aggregate_min(
            'cross_cell_move_weight_multiplier',
            CONF.filter_scheduler.cross_cell_move_weight_multiplier)

    def weigh_population(self, population, spec_obj):
        return 0.0
