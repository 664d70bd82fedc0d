"""What the built-in rules read of hosts, each read stated once for one
host and for a whole population.

A rule that depends on a host property that no numeric column holds
("runs one of these instances", "is one of these hosts") names it as a
``HostInput``: ``of_host(host_state)`` reads it from one host (the
per-host path, the reference) and ``of_population(population)`` gives
the column of it over every row (the whole-population path). A filter
or weigher then writes its condition once on the values, with
operators that work on one value and on a column alike
(``filters.rules.InputsFilter``, ``weighers.rules.InputsWeigher``). The
two reads of each input are compared on random fleets by the unit
tests, so a rule cannot answer differently on the two paths.

    runs = host_inputs.RunsAny(['uuid-1'])
    runs.of_host(host_state)          # True / False
    runs.of_population(population)    # bool array over the rows
"""

import functools

import numpy as np


class HostInput:
    """One property of a host, read for one host and for every row."""

    __slots__ = ()

    def of_host(self, host_state):
        raise NotImplementedError()

    def of_population(self, population):
        raise NotImplementedError()

    def __repr__(self):
        return '%s(%s)' % (type(self).__name__, ', '.join(
            repr(getattr(self, name)) for name in self.__slots__))


def _instances(host_state):
    return getattr(host_state, 'instances', None) or {}


class RunsAny(HostInput):
    """Whether the host runs any of the instances ``uuids``."""

    __slots__ = ('uuids',)

    def __init__(self, uuids):
        self.uuids = frozenset(uuids)

    def of_host(self, host_state):
        instances = _instances(host_state)
        return any(uuid in instances for uuid in self.uuids)

    def of_population(self, population):
        return population.index.any_per_row(self.uuids)


class CountRunning(HostInput):
    """How many of the instances ``uuids`` (each counted once) the host
    runs."""

    __slots__ = ('uuids',)

    def __init__(self, uuids):
        self.uuids = frozenset(uuids)

    def of_host(self, host_state):
        instances = _instances(host_state)
        return sum(1 for uuid in self.uuids if uuid in instances)

    def of_population(self, population):
        return population.index.count_per_row(self.uuids)


class HostNamed(HostInput):
    """Whether the host's name (``host_state.host``) is one of
    ``names``."""

    __slots__ = ('names',)

    def __init__(self, names):
        self.names = frozenset(names)

    def of_host(self, host_state):
        return host_state.host in self.names

    def of_population(self, population):
        return population.hosts_named(self.names)


class NodeNamed(HostInput):
    """Whether the host's (host, node) pair is one of ``pairs``."""

    __slots__ = ('pairs',)

    def __init__(self, pairs):
        self.pairs = frozenset(pairs)

    def of_host(self, host_state):
        return (host_state.host, host_state.nodename) in self.pairs

    def of_population(self, population):
        found = np.zeros(population.size, bool)
        for pair in self.pairs:
            if len(pair) == 2:
                found |= (population.hosts_named([pair[0]])
                          & population.nodes_named([pair[1]]))
        return found


def _metrics(host_state):
    return getattr(host_state, 'metrics', None) or {}


def has_metric(name, host_state):
    """Whether the host reports metric ``name``."""
    return name in _metrics(host_state)


def metric_value(name, host_state):
    """The host's metric ``name``, 0.0 when it reports none."""
    return _metrics(host_state).get(name, 0.0)


class HasMetric(HostInput):
    """Whether the host reports metric ``name``."""

    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def of_host(self, host_state):
        return has_metric(self.name, host_state)

    def of_population(self, population):
        return population.derived(('has metric', self.name),
                                  functools.partial(has_metric, self.name),
                                  bool)


class MetricValue(HostInput):
    """The host's metric ``name`` (0.0 when it reports none)."""

    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def of_host(self, host_state):
        return metric_value(self.name, host_state)

    def of_population(self, population):
        return population.derived(('metric', self.name),
                                  functools.partial(metric_value, self.name))
