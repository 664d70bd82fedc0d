"""Built-in weigher rules, each stated once.

``NumbersWeigher``: the raw weight is ``weight(*numbers)`` of the host
numbers named by ``reads`` (``population.NUMERIC``), written once with
operators that work on one host's numbers and on the population's
columns alike; ``_weigh_object`` and ``weigh_population`` both derive
from it.

``AggregateMultiplier``: the multiplier is the option named
``multiplier_key`` with its per-aggregate override (the smallest value
in the host's aggregates' metadata), passed through
``adjust_multiplier``; ``weight_multiplier`` and
``multiplier_population`` both derive from it.
"""

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import population as population_mod
from nova_lite.scheduler import utils
from nova_lite.scheduler import weighers

LOG = logging.getLogger(__name__)


class AggregateMultiplier(weighers.BaseHostWeigher):
    """The multiplier rule of the built-in weighers (module docstring)."""

    multiplier_key = None

    def default_multiplier(self):
        """The option's value (``[filter_scheduler] <multiplier_key>``)."""
        return getattr(CONF.filter_scheduler, self.multiplier_key)

    def adjust_multiplier(self, value):
        """The multiplier from the option or aggregate value (one number,
        or a column of them)."""
        return value

    def weight_multiplier(self, host_state):
        return self.adjust_multiplier(utils.get_weight_multiplier(
            host_state, self.multiplier_key, self.default_multiplier()))

    def multiplier_population(self, population):
        return self.adjust_multiplier(population.aggregate_min(
            self.multiplier_key, self.default_multiplier()))


class PositiveMultiplier(AggregateMultiplier):
    """A multiplier that only makes sense positive: the option refuses
    negative values, and a negative one from aggregate metadata counts as
    0.0 (the weigher off for that host), with a warning once."""

    _warned = False

    def adjust_multiplier(self, value):
        if np.ndim(value) == 0:
            negative = value < 0
            clamped = 0.0 if negative else value
        else:
            negative = bool((value < 0).any())
            clamped = np.maximum(value, 0.0) if negative else value
        if negative and not self._warned:
            self._warned = True
            LOG.warning('Ignoring negative %s of some hosts\' aggregates',
                        self.multiplier_key)
        return clamped


class NumbersWeigher(AggregateMultiplier):
    """A weigher whose raw weight is ``weight(*numbers)`` of the host
    numbers ``reads`` (module docstring)."""

    reads = ()

    @staticmethod
    def weight(*numbers):
        return numbers[0]

    def _weigh_object(self, host_state, weight_properties):
        return self.weight(*(population_mod.host_number(host_state, name)
                             for name in self.reads))

    def weigh_population(self, population, spec_obj, among=None):
        return self.weight(*(population.column(name)
                             for name in self.reads))
