"""Built-in filter rules, each stated once.

A built-in filter whose answer for a host depends on a few of the host's
properties (its aggregates, capabilities, PCI pools, NUMA cells...) and
on the request states its rule once, as a ``RuleFilter``:

* ``parse_request(spec_obj)``: what the rule reads of the request, or
  ``EVERY_HOST`` when the request does not concern the filter, or a
  ``Refused`` when the request itself is bad (every host fails, with its
  reason);
* ``failure(host_state, request)``: why the host fails the request (a
  short phrase), or None when it passes;
* ``partition(request)``: (name, key_fn), ``key_fn(host_state)`` giving
  all that ``failure`` reads of a host, so hosts with equal keys get
  equal answers.

``host_passes`` (Nova's plug-in contract, the reference),
``rejection_reason``, ``summarize_rejections`` and ``filter_population``
(answered once per distinct key, the answers kept across requests with
an equal ``cache_key``) all derive from those, so they cannot disagree.
A subclass that overrides ``failure`` without ``partition`` is filtered
host by host (``population_twins``).

A built-in filter whose rule reads a host property no partition key
suits (which instances the host runs, its name among a request's list)
states it as an ``InputsFilter``:

* ``parse_request(spec_obj)``: as above (``EVERY_HOST`` or the request);
* ``reads(request)``: the ``host_inputs.HostInput`` values the rule
  reads of a host, each read one way for one host and for a column;
* ``fails(request, *values)``: whether a host with those values fails,
  written with operators that work on one value and on columns alike;
* ``reason(request, *values)``: why one failing host fails.
"""

import collections

import numpy as np

from nova_lite.scheduler import filters

# parse_request: the request does not concern the filter.
EVERY_HOST = object()


class Refused:
    """parse_request: a bad request, which fails every host."""

    __slots__ = ('reason',)

    def __init__(self, reason):
        self.reason = reason


class RuleFilter(filters.BaseHostFilter):
    """A filter whose rule is ``failure(host_state, request)``; see the
    module docstring."""

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('failure', 'partition'),)

    def parse_request(self, spec_obj):
        raise NotImplementedError()

    def failure(self, host_state, request):
        raise NotImplementedError()

    def partition(self, request):
        raise NotImplementedError()

    def cache_key(self, request):
        """A hashable naming all of ``request`` that ``failure`` reads."""
        return request

    def rejection_reason(self, host_state, spec_obj):
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST:
            return None
        if isinstance(request, Refused):
            return request.reason
        return self.failure(host_state, request)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST:
            return True
        if isinstance(request, Refused):
            return np.zeros(population.size, bool)
        name, key_fn = self.partition(request)
        failure = self.failure
        try:
            return population.evaluate(
                name, key_fn, lambda host: failure(host, request) is None,
                cache=self.cache_key(request))
        except TypeError:
            # A host value that cannot key a partition (a JSON query's
            # variable holding a list): answered host by host.
            return None

    def summarize_rejections(self, host_states, spec_obj):
        # The request is read once, and hosts alike are answered once.
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST:
            return ''
        if isinstance(request, Refused):
            return filters.format_counts(
                collections.Counter({request.reason: len(host_states)}))
        _name, key_fn = self.partition(request)
        known, counts = {}, collections.Counter()
        for host in host_states:
            try:
                key = key_fn(host)
                reason = known[key] if key in known else known.setdefault(
                    key, self.failure(host, request))
            except TypeError:
                # A key that cannot be hashed: this host alone.
                reason = self.failure(host, request)
            counts[reason] += 1
        counts.pop(None, None)
        return filters.format_counts(counts)

    def summarize_population(self, population, rejected, spec_obj):
        """``summarize_rejections`` of the rows of ``rejected`` (a bool
        mask over ``population``'s rows), one host per key of the
        partition the filter ran on; None when it has none."""
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST or isinstance(request, Refused):
            return None
        name, key_fn = self.partition(request)
        # Hosts changed since the filter ran (the claims of a request's
        # earlier instances) are re-keyed first.
        population.sync()
        try:
            part = population.partition(name, key_fn)
        except TypeError:
            return None
        rows = np.flatnonzero(rejected)
        _codes, first, sizes = np.unique(
            part.codes[rows], return_index=True, return_counts=True)
        counts = collections.Counter()
        for at, size in zip(first, sizes, strict=True):
            host = population.hosts[rows[at]]
            counts[self.failure(host, request)] += int(size)
        counts.pop(None, None)
        return filters.format_counts(counts)


class InputsFilter(filters.BaseHostFilter):
    """A filter whose rule is ``fails(request, *values)`` of the host
    inputs ``reads(request)``; see the module docstring."""

    # Its answer for a host depends on that host alone (see
    # BaseHostFilter.incremental).
    incremental = True

    population_twins = filters.BaseHostFilter.population_twins + (
        ('rejection_reason', 'filter_population'),)

    def parse_request(self, spec_obj):
        raise NotImplementedError()

    def reads(self, request):
        raise NotImplementedError()

    def fails(self, request, *values):
        raise NotImplementedError()

    def reason(self, request, *values):
        raise NotImplementedError()

    def rejection_reason(self, host_state, spec_obj):
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST:
            return None
        values = [read.of_host(host_state) for read in self.reads(request)]
        if not self.fails(request, *values):
            return None
        return self.reason(request, *values)

    def host_passes(self, host_state, spec_obj):
        return self.rejection_reason(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj, among=None):
        request = self.parse_request(spec_obj)
        if request is EVERY_HOST:
            return True
        values = [read.of_population(population)
                  for read in self.reads(request)]
        return np.logical_not(self.fails(request, *values))
