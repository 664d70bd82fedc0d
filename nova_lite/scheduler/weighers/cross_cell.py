"""CrossCellWeigher: prefer the instance's own cell when it moves."""

from nova_lite.scheduler.weighers import rules


class CrossCellWeigher(rules.NumbersWeigher):
    """Weighs hosts in the moving instance's own cell above hosts in
    other cells (seed 000, Ussuri).

    nova_lite has a single cell, so every host is in the instance's cell
    and weighs the same, 0: this weigher changes no order. It exists so
    configurations naming it load, and so
    ``cross_cell_move_weight_multiplier`` (with its per-aggregate
    override) keeps its meaning once there are cells.
    """

    multiplier_key = 'cross_cell_move_weight_multiplier'

    @staticmethod
    def weight():
        return 0.0
