"""Built-in weigher rules, each stated once.

``NumbersWeigher``: the raw weight is ``weight(*numbers)`` of the host
numbers named by ``reads`` (``population.NUMERIC``), written once with
operators that work on one host's numbers and on the population's
columns alike; ``_weigh_object`` and ``weigh_population`` both derive
from it.

``InputsWeigher``: the raw weight is ``weight(request, *values)`` of the
host inputs ``reads(request)`` (``host_inputs.HostInput``, each read one
way for one host and for a column), the request parsed once by
``parse_request``; a host the rule cannot weigh (``refuses``) makes
``refusal`` raise, on both paths for the same first host.

``AggregateMultiplier``: the multiplier is the option named
``multiplier_key`` with its per-aggregate override (the smallest value
in the host's aggregates' metadata), passed through
``adjust_multiplier``; ``weight_multiplier`` and
``multiplier_population`` both derive from it.
"""

import numpy as np
from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite.scheduler import host_inputs
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

    # A host's weight depends on that host alone (see
    # BaseHostWeigher.incremental).
    incremental = True

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


class MultiplierOf(host_inputs.HostInput):
    """A weigher's multiplier as a host input: ``weight_multiplier`` of
    one host, ``multiplier_population`` of the rows."""

    __slots__ = ('weigher',)

    def __init__(self, weigher):
        self.weigher = weigher

    def of_host(self, host_state):
        return self.weigher.weight_multiplier(host_state)

    def of_population(self, population):
        return self.weigher.multiplier_population(population)


def _number(value):
    # A rule written with numpy operators gives a 0-d array for one
    # host: the per-host path returns plain numbers, as Nova's do.
    return value.item() if isinstance(value, np.ndarray) else value


class InputsWeigher(AggregateMultiplier):
    """A weigher whose raw weight is ``weight(request, *values)`` of the
    host inputs ``reads(request)`` (module docstring).

    ``parse_request(spec_obj)`` returns the request, or None when it
    weighs every host 0.0; ``refuses(request, *values)``, when
    overridden, says which hosts cannot be weighed at all, and
    ``refusal(request, host_state)`` is the exception raised for the
    first of them.
    """

    # A host's weight depends on that host alone (see
    # BaseHostWeigher.incremental).
    incremental = True

    def parse_request(self, spec_obj):
        raise NotImplementedError()

    def reads(self, request):
        raise NotImplementedError()

    def weight(self, request, *values):
        raise NotImplementedError()

    def refuses(self, request, *values):
        return False

    def refusal(self, request, host_state):
        raise NotImplementedError()

    def _weigh_host(self, request, reads, host_state):
        values = [read.of_host(host_state) for read in reads]
        if self.refuses(request, *values):
            raise self.refusal(request, host_state)
        return _number(self.weight(request, *values))

    def weight_objects(self, weighed_obj_list, weight_properties):
        # The request is parsed once, not once per host.
        request = self.parse_request(weight_properties)
        if request is None:
            return [0.0] * len(weighed_obj_list)
        reads = self.reads(request)
        weights = [self._weigh_host(request, reads, w.obj)
                   for w in weighed_obj_list]
        if self.minval is not None:
            weights = [max(w, self.minval) for w in weights]
        if self.maxval is not None:
            weights = [min(w, self.maxval) for w in weights]
        return weights

    def _weigh_object(self, host_state, weight_properties):
        request = self.parse_request(weight_properties)
        if request is None:
            return 0.0
        return self._weigh_host(request, self.reads(request), host_state)

    def weigh_population(self, population, spec_obj, among=None):
        request = self.parse_request(spec_obj)
        if request is None:
            return 0.0
        values = [read.of_population(population)
                  for read in self.reads(request)]
        refused = self.refuses(request, *values)
        if refused is not False:
            if among is None:
                among = population.mask()
            refused = np.logical_and(among, refused)
            if refused.any():
                first = population.hosts[int(np.flatnonzero(refused)[0])]
                raise self.refusal(request, first)
        return self.weight(request, *values)
