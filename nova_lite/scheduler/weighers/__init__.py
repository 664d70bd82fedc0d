"""Host weighers: Nova's plug-in contract, normalisation and ordering.

A weigher returns raw numbers (``_weigh_object`` per host, or
``weight_objects`` for all at once); the handler normalises each
weigher's numbers to 0..1, multiplies them by ``weight_multiplier`` and
sums, so a host's weight is

    w1_multiplier * norm(w1) + w2_multiplier * norm(w2) + ...

and hosts are ordered by it, heaviest first (seed 000, "weights").

A weigher may also offer whole-population twins of ``_weigh_object`` and
``weight_multiplier`` (``weigh_population``, ``multiplier_population``),
answering for every host at once from a ``population.Population``; the
scheduler falls back to the per-host methods where they are absent.
"""

import time

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.scheduler import loadables

LOG = logging.getLogger(__name__)

NAMESPACE = 'nova_lite.scheduler.weighers'


class WeighedHost:
    """A host state and its combined weight."""

    __slots__ = ('obj', 'weight')

    def __init__(self, obj, weight):
        self.obj = obj
        self.weight = weight

    def to_dict(self):
        return {'weight': self.weight, 'host': self.obj.host}

    def __repr__(self):
        return 'WeighedHost [host: %r, weight: %s]' % (self.obj, self.weight)


class BaseHostWeigher:
    """Base of host weighers.

    ``_weigh_object(host_state, weight_properties)`` returns a raw number
    (bigger means preferred before the multiplier's sign);
    ``weight_multiplier(host_state)`` scales the normalised number.
    ``minval``/``maxval``, when set, are fixed bounds: raw numbers are
    clamped to them and normalisation uses them instead of the observed
    minimum/maximum. Unlike Nova's, they are never changed by weighing,
    so one request's numbers do not leak into the next one's.
    """

    minval = None
    maxval = None

    # (per-host method, its whole-population twin): a subclass overriding
    # the first without the second is weighed host by host.
    population_twins = (('_weigh_object', 'weigh_population'),
                        ('weight_objects', 'weigh_population'),
                        ('weigh_objects', 'weigh_population'))
    multiplier_twins = (('weight_multiplier', 'multiplier_population'),)

    # Whether a host's raw weight depends only on that host's state and on
    # what stays fixed across the instances of one request (not
    # ``instance_uuid``, nor the server group's members and hosts), and its
    # multiplier on nothing a claim changes. When it does, a claim for one
    # instance changes only the claimed host's raw weight, and the next
    # instance re-weighs that host alone (normalising again over every
    # host only when the minimum or maximum moved). Trusted only when
    # declared by a class at least as derived as those defining the
    # per-host methods; plug-ins that do not declare it weigh every host
    # for every instance. It may also be a method of the request
    # (``incremental(spec_obj)``) when that depends on the request.
    incremental = False
    incremental_twins = (('_weigh_object', 'incremental'),
                         ('weight_objects', 'incremental'),
                         ('weigh_objects', 'incremental'),
                         ('weight_multiplier', 'incremental'))

    def weight_multiplier(self, host_state):
        return 1.0

    def multiplier_population(self, population):
        """``weight_multiplier`` of every row of ``population``: a float
        array over its rows, or one float for all, or None (asked per
        host). The base multiplier is 1.0 everywhere."""
        return 1.0

    def weigh_population(self, population, spec_obj, among=None):
        """Raw weights of every row of ``population`` (optional): a float
        array over its rows, one float for all, or None when it cannot
        answer (``weigh_objects`` is then asked for the candidates). The
        numbers are ``_weigh_object``'s, before clamping to minval/maxval
        (the scheduler clamps); only the rows of ``among`` (a bool mask
        over the rows; None: every present row) matter, and it must
        agree with the per-host method, which stays the reference."""
        return None

    def _weigh_object(self, host_state, weight_properties):
        raise NotImplementedError()

    def weight_objects(self, weighed_obj_list, weight_properties):
        """Raw weights of ``weighed_obj_list`` (WeighedHosts), in order.

        Override to weigh all hosts at once; do not modify the objects.
        """
        weigh = self._weigh_object
        weights = [weigh(w.obj, weight_properties) for w in weighed_obj_list]
        if self.minval is not None:
            weights = [max(w, self.minval) for w in weights]
        if self.maxval is not None:
            weights = [min(w, self.maxval) for w in weights]
        return weights

    def weigh_objects(self, weighed_obj_list, weight_properties):
        # Nova spells the method weigh_objects: the handler calls this
        # name, so a weigher ported from Nova that overrides it works, as
        # does one overriding weight_objects.
        return self.weight_objects(weighed_obj_list, weight_properties)


def normalize(weights, minval=None, maxval=None):
    """``weights`` scaled to 0..1 by (x - min) / (max - min).

    min and max are ``minval``/``maxval`` when given, else the observed
    ones; when they are equal every weight becomes 0.
    """
    if not weights:
        return []
    low = min(weights) if minval is None else minval
    high = max(weights) if maxval is None else maxval
    if high == low:
        return [0.0] * len(weights)
    span = float(high - low)
    return [(w - low) / span for w in weights]


class HostWeightHandler:
    """Loads weighers by name and orders hosts by their combined weight."""

    namespace = NAMESPACE

    def get_all_classes(self):
        """The built-in weigher classes (the entry points)."""
        return loadables.builtin_classes(self.namespace)

    def get_matching_classes(self, names):
        """Classes designated by ``weight_classes`` values (entry point
        names, class paths, or the path of a function such as
        ``nova_lite.scheduler.weighers.all_weighers``).

        Raises SchedulerWeigherNotFound for a name that designates none.
        """
        return loadables.load_classes(names, self.namespace, BaseHostWeigher,
                                      exception.SchedulerWeigherNotFound)

    def load_weighers(self, names):
        """One instance of each weigher ``names`` designates."""
        return [cls() for cls in self.get_matching_classes(names)]

    def get_weighed_objects(self, weighers, hosts, weight_properties):
        """WeighedHosts of ``hosts``, heaviest first.

        Equal weights keep the order of ``hosts`` (the sort is stable).
        """
        weighed = [WeighedHost(host, 0.0) for host in hosts]
        if len(weighed) <= 1:
            return weighed
        for weigher in weighers:
            start = time.perf_counter()
            raw = weigher.weigh_objects(weighed, weight_properties)
            norm = normalize(raw, weigher.minval, weigher.maxval)
            multiplier = weigher.weight_multiplier
            for obj, value in zip(weighed, norm, strict=True):
                obj.weight += multiplier(obj.obj) * value
            LOG.debug('Weigher %s weighed %d hosts in %.2f ms',
                      type(weigher).__name__, len(weighed),
                      (time.perf_counter() - start) * 1000)
        weighed.sort(key=lambda w: w.weight, reverse=True)
        return weighed


def all_weighers():
    """Every built-in weigher class (``weight_classes`` default)."""
    return HostWeightHandler().get_all_classes()
