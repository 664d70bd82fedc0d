"""Host filters: Nova's plug-in contract, and the handler that runs them.

A filter subclasses ``BaseHostFilter`` and implements
``host_passes(host_state, spec_obj) -> bool``; that per-host method is the
reference of what the filter means. A filter that can say why a host was
rejected also implements ``rejection_reason`` (and, for a better summary,
``summarize_rejections``), which is how a NoValidHost explains itself:
"RamFilter: 30 -> 0 (30 need 32768 MB, best has 16384 MB)".

An operator's filter (seed 000, "writing your own filter")::

    from nova_lite.scheduler import filters

    class AcmeFilter(filters.BaseHostFilter):
        def host_passes(self, host_state, spec_obj):
            return spec_obj.flavor.extra_specs.get('acme:foo') != 'no'

    # [filter_scheduler]
    # available_filters = nova_lite.scheduler.filters.all_filters
    # available_filters = acmefilter.AcmeFilter
    # enabled_filters = ComputeFilter,AcmeFilter

A filter may also offer a whole-population fast path,
``filter_population(population, spec_obj, among)``, answering for every
host at once from the columns of a ``population.Population`` (``among``:
the rows still in play). The scheduler uses it when present and falls
back to ``host_passes`` host by host when it is absent or answers None;
both kinds mix freely in one pipeline. The built-ins state each rule
once and derive both answers and the rejection reason from it (see
``filters.rules``).
"""

import collections
import time

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler import loadables
from nova_lite.scheduler import utils

LOG = logging.getLogger(__name__)

NAMESPACE = 'nova_lite.scheduler.filters'

# How many distinct reasons a step's summary names before "N other".
_MAX_REASONS = 3


class BaseHostFilter:
    """Base of host filters.

    ``host_passes`` returns True to keep a host. ``filter_all`` returns the
    list of hosts of ``host_states`` that pass, in their order; a filter
    may override it with a faster whole-population version that must keep
    exactly the hosts ``host_passes`` keeps. A filter whose answer cannot
    change within one request sets ``run_filter_once_per_request``: it then
    runs for the first instance only (later instances of the request start
    from the hosts the first one kept).
    """

    run_filter_once_per_request = False

    # Whether the filter runs when a rebuild asks if the instance's host
    # still suits it (scheduler hint ``_nova_check_type`` "rebuild"): the
    # policy filters of the image do, those of usage and of the flavor
    # (unchanged by a rebuild) do not, as in Nova; a filter that does not
    # run passes every host.
    RUN_ON_REBUILD = False

    # (per-host method, its whole-population twin): a subclass that
    # overrides the first without the second is filtered host by host,
    # so a port of a built-in that changes its rule stays correct.
    population_twins = (('host_passes', 'filter_population'),
                        ('filter_all', 'filter_population'))

    # Whether the answer for a host depends only on that host's state and
    # on what stays fixed across the instances of one request (not
    # ``instance_uuid``, nor the server group's members and hosts, which
    # change as its instances are placed). When it does, a claim for one
    # instance can change only the claimed host's answer, and the next
    # instance asks this filter about that host alone. Trusted only when
    # declared by a class at least as derived as those defining
    # ``host_passes`` and ``filter_all``; plug-ins that do not declare it
    # are asked about every host for every instance. It may also be a
    # method of the request (``incremental(spec_obj)``).
    incremental = False
    incremental_twins = (('host_passes', 'incremental'),
                         ('filter_all', 'incremental'))

    @property
    def step_name(self):
        """How this filter is named in logs and NoValidHost messages."""
        return type(self).__name__

    def host_passes(self, host_state, spec_obj):
        raise NotImplementedError()

    def filter_all(self, host_states, spec_obj):
        host_passes = self.host_passes
        return [host for host in host_states if host_passes(host, spec_obj)]

    def filter_population(self, population, spec_obj, among=None):
        """The whole-population twin of ``host_passes`` (optional).

        Returns a numpy bool array over ``population``'s rows, True
        where ``host_passes`` would keep the host; or True, keeping every
        host; or None when it cannot answer for this request (the
        scheduler then asks ``host_passes`` per host). Only the rows of
        ``among`` (a bool mask over the rows; None: every present row)
        matter. It must agree with ``host_passes`` on every host: the
        per-host method is the reference, and the scheduler's tests
        compare the two.
        """
        return None

    def run_filter_for_index(self, index):
        """Whether to run for the ``index``-th instance of a request."""
        return index == 0 or not self.run_filter_once_per_request

    def rejection_reason(self, host_state, spec_obj):
        """A short phrase saying why ``host_state`` does not pass (e.g.
        "down"), or None when unknown. Only called for rejected hosts,
        after the fact, so it may cost more than host_passes."""
        return None

    def summarize_rejections(self, host_states, spec_obj):
        """One short string on why ``host_states`` (all rejected) failed.

        The default counts the hosts per ``rejection_reason``, commonest
        first ("10 down, 2 disabled"); '' when no reason is known.
        """
        counts = collections.Counter(
            self.rejection_reason(host, spec_obj) for host in host_states)
        counts.pop(None, None)
        return format_counts(counts)


def format_counts(counts):
    """'60 lack MEMORY_MB, 5 lack VCPU, 2 other' from a reason Counter."""
    ranked = counts.most_common()
    parts = ['%d %s' % (n, reason) for reason, n in ranked[:_MAX_REASONS]]
    rest = sum(n for _reason, n in ranked[_MAX_REASONS:])
    if rest:
        parts.append('%d other' % rest)
    return ', '.join(parts)


def format_shortfall(count, needed, best, unit):
    """'30 need 32768 MB, best has 16384 MB'."""
    return '%d need %s %s, best has %s %s' % (
        count, _number(needed), unit, _number(max(best, 0)), unit)


def summarize_capacity(host_states, requested, verdict, free, unit,
                       too_small):
    """Summarise hosts a capacity filter rejected.

    Hosts the filter's rule finds too small (``verdict(host)``: the
    rule's ``(too_small, short)``) are counted with the ``too_small``
    wording ('%d have less than %d MB in all'); the others are short
    now, reported with the best ``free(host)`` among them.
    """
    small, short = [], []
    for host in host_states:
        (small if verdict(host)[0] else short).append(host)
    parts = []
    if short:
        best = max(free(h) for h in short)
        parts.append(format_shortfall(len(short), requested, best, unit))
    if small:
        parts.append(too_small % (len(small), requested))
    return ', '.join(parts)


def _number(value):
    return int(value) if float(value).is_integer() else round(value, 1)


class FilterStep:
    """What one filter did for one instance of a request.

    ``describe`` gives "Name: 40 -> 30 (10 down)"; reasons are computed
    only then, on failure, so recording a step costs two list references.
    A step of the whole-population pipeline (``fast_path.MaskStep``)
    keeps two masks instead of two lists.
    """

    __slots__ = ('filter_obj', 'hosts_in', 'hosts_out', 'seconds')

    def __init__(self, filter_obj, hosts_in, hosts_out, seconds=0.0):
        self.filter_obj = filter_obj
        self.hosts_in = hosts_in
        self.hosts_out = hosts_out
        self.seconds = seconds

    @property
    def name(self):
        return self.filter_obj.step_name

    def count_in(self):
        return len(self.hosts_in)

    def count_out(self):
        return len(self.hosts_out)

    def rejected(self):
        kept = set(map(id, self.hosts_out))
        return [host for host in self.hosts_in if id(host) not in kept]

    def summarize(self, spec_obj):
        """The filter's summary of the hosts it rejected."""
        return self.filter_obj.summarize_rejections(self.rejected(),
                                                    spec_obj)

    def describe(self, spec_obj):
        count_in, count_out = self.count_in(), self.count_out()
        text = '%s: %d -> %d' % (self.name, count_in, count_out)
        if count_out < count_in:
            try:
                reasons = self.summarize(spec_obj)
            except Exception:
                # An explanation must never hide the NoValidHost itself.
                LOG.exception('Summarizing rejections of %s failed',
                              self.name)
                reasons = None
            if reasons:
                text += ' (%s)' % reasons
        return text


class HostFilterHandler:
    """Loads host filters by name and runs them in order."""

    namespace = NAMESPACE

    def get_all_classes(self):
        """The built-in filter classes (the entry points)."""
        return loadables.builtin_classes(self.namespace)

    def get_matching_classes(self, names):
        """Classes designated by ``available_filters`` values.

        Raises SchedulerHostFilterNotFound for a name that designates none.
        """
        return loadables.load_classes(names, self.namespace, BaseHostFilter,
                                      exception.SchedulerHostFilterNotFound)

    def load_enabled_filters(self, available=None, enabled=None):
        """Instances of the ``enabled_filters``, in their order.

        Each must be the class name of an available filter; raises
        SchedulerHostFilterNotFound otherwise, so a typo stops the
        scheduler at start rather than silently not filtering.
        """
        opts = CONF.filter_scheduler
        if available is None:
            available = opts.available_filters
        if enabled is None:
            enabled = opts.enabled_filters
        classes = {cls.__name__: cls
                   for cls in self.get_matching_classes(available)}
        result = []
        for name in enabled:
            cls = classes.get(name)
            if cls is None:
                raise exception.SchedulerHostFilterNotFound(
                    name=name,
                    reason='not among available_filters (%s)'
                           % ', '.join(sorted(classes)))
            result.append(cls())
        return result

    def get_filtered_objects(self, filters, objs, spec_obj, index=0,
                             trace=None):
        """The hosts of ``objs`` passing every filter, in order.

        Stops at the first filter leaving no host. When ``trace`` (a list)
        is given, a FilterStep per filter run is appended to it.
        """
        hosts = list(objs)
        for filter_obj in utils.steps_for_request(filters, spec_obj):
            if not filter_obj.run_filter_for_index(index):
                continue
            start = time.perf_counter()
            passed = list(filter_obj.filter_all(hosts, spec_obj))
            elapsed = time.perf_counter() - start
            LOG.debug('Filter %s: %d -> %d hosts in %.2f ms',
                      filter_obj.step_name, len(hosts), len(passed),
                      elapsed * 1000)
            if trace is not None:
                trace.append(FilterStep(filter_obj, hosts, passed, elapsed))
            hosts = passed
            if not hosts:
                break
        return hosts


def all_filters():
    """Every built-in filter class (``available_filters`` default)."""
    return HostFilterHandler().get_all_classes()
