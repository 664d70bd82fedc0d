"""Population: the scheduler's host states as columns, for filters and
weighers that look at every host at once.

A Population holds HostStates in rows (their order is the order in
which a per-host pipeline would see them) and, beside them, numpy
arrays indexed by row of what the built-in filters and weighers read:

* ``column(name)``: float64 copies of the numeric attributes
  (``free_ram_mb``, ``vcpus_used``, ``num_io_ops``, ...; see NUMERIC);
* ``service_ok``: the compute service is known, enabled and up;
* ``resource(rc)``: the placement limits and usage of one resource class;
* ``derived(name, fn)``: any other per-host value, ``fn(host)``,
  computed once and kept current (a trait's presence, a metric);
* ``partition(name, key_fn)``: rows grouped by a key of their host, so a
  per-host rule that depends only on that key runs once per distinct key
  (``evaluate``), not once per host -- the hosts' aggregates, their
  capabilities, their NUMA cells.

Rows are kept current incrementally: a HostState of an *owned*
population (the host manager's) tells it when it changes, and the
scheduling core tells any population of the hosts it claims on or
refreshes. ``sync()`` re-reads only the rows that changed, so a decision
does no per-host Python work unless a host changed or a request needs a
value no cached column has yet.

    population = Population(host_states)
    population.sync()
    fits = population.column('free_ram_mb') >= 2048
"""

import collections
import itertools
import operator

import numpy as np

from nova_lite.scheduler import evaluation
from nova_lite.scheduler.filters import compute_filter
from nova_lite.scheduler import partitions
from nova_lite.scheduler import population_aggregates
from nova_lite.scheduler import population_index
from nova_lite.scheduler import population_resources
from nova_lite.scheduler import utils

# HostState attributes kept as float64 columns (float so that an integer
# and a ratio combine exactly as Python would combine them).
NUMERIC = ('total_usable_ram_mb', 'free_ram_mb', 'ram_allocation_ratio',
           'vcpus_total', 'vcpus_used', 'cpu_allocation_ratio',
           'total_usable_disk_gb', 'free_disk_mb', 'disk_allocation_ratio',
           'num_instances', 'num_io_ops', 'failed_builds',
           'hypervisor_version', 'pci_free')
_NUMERIC_INDEX = {name: i for i, name in enumerate(NUMERIC)}

# Bounds on the caches of request-specific columns (rebuilt on demand).
MAX_DERIVED = 64
MAX_PARTITIONS = 32
# Rows read at a time by reset().
_RESET_SLICE = 8192
# Re-read rows remembered at least (``rows_changed_since``).
_MAX_CHANGES = 65536
# Discarded rows are compacted away once they are this share of rows.
_COMPACT_SHARE = 0.25


def _pci_free(host):
    stats = getattr(host, 'pci_stats', None)
    if type(stats) is tuple and not stats:
        # A host without PCI devices (most of them): no pools to read.
        return 0
    return sum(pool.get('count', 0) for pool in utils.pci_pools(host))


def host_number(host, name):
    """What column ``name`` (NUMERIC) holds for ``host``, read from the
    host alone: a per-host rule reads its numbers as the columns do."""
    if name == 'pci_free':
        return _pci_free(host)
    return getattr(host, name, 0) or 0


# Every attribute of NUMERIC but the last, in one call.
_NUMBERS = operator.attrgetter(*NUMERIC[:-1])


def _numeric(host):
    try:
        values = [value or 0 for value in _NUMBERS(host)]
    except AttributeError:
        # A host without some of them (0 for those).
        values = [getattr(host, name, 0) or 0 for name in NUMERIC[:-1]]
    values.append(_pci_free(host))
    return values


def _numeric_rows(hosts):
    """The NUMERIC values of ``hosts`` as a (len(NUMERIC), len(hosts))
    array: ``_numeric`` of each, read in one pass at C speed when every
    host has every attribute as a number (a million hosts are read at
    load), else host by host."""
    width = len(NUMERIC) - 1
    try:
        flat = np.fromiter(itertools.chain.from_iterable(
            map(_NUMBERS, hosts)), float, count=width * len(hosts))
    except (AttributeError, TypeError, ValueError):
        flat = None
    # NaN: a None (read as NaN, where _numeric reads 0), or a NaN, which
    # the host by host path gives alike.
    if flat is None or np.isnan(flat).any():
        return np.array([_numeric(host) for host in hosts]).T
    # -0.0 + 0.0 is 0.0, as ``-0.0 or 0`` is; every other value stays.
    np.add(flat, 0.0, out=flat)
    block = np.empty((len(NUMERIC), len(hosts)))
    block[:width] = flat.reshape(len(hosts), width).T
    block[width] = [_pci_free(host) for host in hosts]
    return block


def _service_ok(host):
    # ComputeFilter's rule: its whole-population answer is this column.
    return compute_filter.service_failure(
        *compute_filter.service_of(host)) is None


class Population:
    """Host states in rows, with the columns described in the module
    docstring. ``len()`` and iteration give the present hosts in row
    order; ``hosts[row]`` is None for a row whose host was discarded.

    ``owned``: the population registers itself with its HostStates so
    their changes mark their rows (one owner per HostState).
    """

    def __init__(self, host_states=(), owned=False):
        self.owned = owned
        # One bound method shared by every host watched (not one each).
        self._hook = self.mark_changed
        self.index = population_index.InstanceIndex(self)
        # The rows ``sync`` re-read, in order (``rows_changed_since``);
        # the first is number ``_changes_base`` of every row re-read.
        self._changes = []
        self._changes_base = 0
        self.reset(host_states)

    # Membership

    def reset(self, host_states):
        """Replace every row by ``host_states``, in their order."""
        hosts = list(host_states)
        self.hosts = hosts
        self._rows = {id(host): row for row, host in enumerate(hosts)}
        self.size = len(hosts)
        self._absent = 0
        self._dirty = set()
        self._dirty_service = set()
        capacity = max(16, self.size)
        self.present = np.zeros(capacity, bool)
        self.present[:self.size] = True
        self._num = np.zeros((len(NUMERIC), capacity))
        self.service_ok = np.zeros(capacity, bool)
        self._rc = population_resources.ResourceColumns(capacity)
        # A slice of rows at a time: the Python values gathered for one
        # array write are freed before the next slice, so a million rows
        # do not leave their memory behind.
        for start in range(0, self.size, _RESET_SLICE):
            part = hosts[start:start + _RESET_SLICE]
            end = start + len(part)
            self._num[:, start:end] = _numeric_rows(part)
            self.service_ok[start:end] = [_service_ok(h) for h in part]
            self._rc.fill_new(part, start)
        self._derived = collections.OrderedDict()
        self._partitions = collections.OrderedDict()
        self._aggregate_keys = None
        self.index.reset()
        for host in hosts:
            self._watch(host)

    def _watch(self, host):
        if self.owned:
            host._on_change = self._hook

    def add(self, host):
        """Append ``host`` as a new row."""
        if id(host) in self._rows:
            return
        row = self.size
        if row >= len(self.present):
            self._grow(2 * len(self.present))
        self.hosts.append(host)
        self._rows[id(host)] = row
        self.size += 1
        self.present[row] = True
        self._dirty.add(row)
        self._watch(host)

    def discard(self, host):
        """Drop ``host``'s row (kept empty until the next compaction)."""
        row = self._rows.pop(id(host), None)
        if row is None:
            return
        if self.owned and host._on_change == self._hook:
            host._on_change = None
        self.hosts[row] = None
        self.present[row] = False
        self._absent += 1
        self._dirty.add(row)

    def _grow(self, capacity):
        # np.resize repeats the data: new rows are dirty, so they are
        # written before they are read.
        old = len(self.present)
        self.present = np.resize(self.present, capacity)
        self.present[old:] = False
        self.service_ok = np.resize(self.service_ok, capacity)
        num = np.zeros((len(NUMERIC), capacity))
        num[:, :old] = self._num
        self._num = num
        self._rc.grow(capacity)
        for name, (fn, values) in list(self._derived.items()):
            self._derived[name] = (fn, np.resize(values, capacity))
        for part in self._partitions.values():
            part.grow(capacity)

    @property
    def nbytes(self):
        """Bytes held in columns (the arrays, not the host states)."""
        arrays = [self.present, self.service_ok, self._num]
        arrays.extend(self._rc.arrays())
        arrays.extend(values for _fn, values in self._derived.values())
        arrays.extend(part.codes for part in self._partitions.values())
        return sum(array.nbytes for array in arrays)

    def __len__(self):
        return self.size - self._absent

    def __iter__(self):
        return (host for host in self.hosts[:self.size] if host is not None)

    def __getitem__(self, index):
        return list(self)[index]

    def hosts_at(self, rows):
        hosts = self.hosts
        return [hosts[row] for row in rows]

    def row_of(self, host):
        """The row of ``host``, or None when it has none."""
        return self._rows.get(id(host))

    # Change tracking

    def mark_changed(self, host, what=None):
        """Note that ``host`` changed (``what`` 'service': only its
        service); its row is re-read by the next ``sync``."""
        row = self._rows.get(id(host))
        if row is None:
            return
        if what == 'service':
            self._dirty_service.add(row)
        else:
            self._dirty.add(row)

    def aggregates_changed(self):
        """Note that host aggregates' metadata changed (in place): what
        was worked out per set of aggregates is forgotten."""
        self._aggregate_keys = None
        for name in AGGREGATE_PARTITIONS:
            part = self._partitions.get(name)
            if part is not None:
                part.results.clear()

    def sync(self, compact=False):
        """Re-read the rows that changed since the last sync; with
        ``compact``, drop the empty rows of discarded hosts when they
        are many (which renumbers the rows)."""
        if compact and self._absent > _COMPACT_SHARE * max(self.size, 1):
            self.reset(list(self))
            return
        if self._dirty_service:
            rows, self._dirty_service = self._dirty_service, set()
            self._sync_service(rows - self._dirty)
        if self._dirty:
            rows, self._dirty = self._dirty, set()
            for row in rows:
                self._sync_row(row)
            self._note_changes(rows)

    def _note_changes(self, rows):
        changes = self._changes
        changes.extend(rows)
        if len(changes) > max(_MAX_CHANGES, self.size):
            # Forgotten: a reader further behind reads every row again.
            self._changes_base += len(changes)
            self._changes = []

    def change_position(self):
        """Where the record of re-read rows stands now (for
        ``rows_changed_since``)."""
        return self._changes_base + len(self._changes)

    def rows_changed_since(self, position):
        """The rows ``sync`` re-read since ``change_position()`` gave
        ``position`` (a row may come more than once), or None when that is
        forgotten. Rows are renumbered by ``reset`` (``hosts`` is then a
        new list): positions taken before it say nothing."""
        start = position - self._changes_base
        if start < 0:
            return None
        return self._changes[start:]

    def _sync_service(self, rows):
        hosts = self.hosts
        if len(rows) > self.size // 4:
            self.service_ok[:self.size] = [
                host is not None and _service_ok(host)
                for host in hosts[:self.size]]
            return
        for row in rows:
            host = hosts[row]
            self.service_ok[row] = host is not None and _service_ok(host)

    def _sync_row(self, row):
        host = self.hosts[row]
        if host is None:
            self.service_ok[row] = False
            self._num[:, row] = 0.0
            self._rc.fill(self.hosts, (row,))
        else:
            self.service_ok[row] = _service_ok(host)
            self._num[:, row] = _numeric(host)
            self._rc.fill(self.hosts, (row,))
        for fn, values in self._derived.values():
            values[row] = fn(host) if host is not None else 0
        for part in self._partitions.values():
            part.assign(row, host)
        self.index.update(row, host)

    # Columns

    def column(self, name):
        """The float64 column of numeric attribute ``name`` (NUMERIC)."""
        return self._num[_NUMERIC_INDEX[name], :self.size]

    def resource(self, rc):
        """Resource arrays of class ``rc`` (``Resource``), or None when
        no host has it."""
        return self._rc.resource(rc, self.size)

    def mask(self):
        """The present rows."""
        return self.present[:self.size]

    def derived(self, name, fn, dtype=float):
        """The column of ``fn(host)`` per row, cached under ``name``.

        ``fn`` must depend on the host state only; the column is kept
        current as rows change, until evicted by newer ones.
        """
        entry = self._derived.get(name)
        if entry is None:
            values = np.zeros(len(self.present), dtype)
            values[:self.size] = [fn(h) if h is not None else 0
                                  for h in self.hosts[:self.size]]
            entry = self._derived[name] = (fn, values)
            if len(self._derived) > MAX_DERIVED:
                self._derived.popitem(last=False)
        else:
            self._derived.move_to_end(name)
        return entry[1][:self.size]

    def partition(self, name, key_fn):
        """The Partition of the rows by ``key_fn``, cached under ``name``
        (built on first use: ``key_fn`` may raise, e.g. TypeError for an
        unhashable key, and nothing is cached then)."""
        part = self._partitions.get(name)
        if part is not None and not part.bloated:
            self._partitions.move_to_end(name)
            return part
        part = partitions.Partition(key_fn, len(self.present))
        for row, host in enumerate(self.hosts[:self.size]):
            if host is not None:
                part.assign(row, host)
        self._partitions[name] = part
        if len(self._partitions) > MAX_PARTITIONS:
            self._partitions.popitem(last=False)
        return part

    def evaluate(self, name, key_fn, fn, default=False, dtype=bool,
                 cache=None, among=None):
        """Per row, ``fn(host)`` once per distinct ``key_fn(host)``,
        for the keys of the rows of ``among`` (every present row when
        None): see ``evaluation.evaluate``."""
        return evaluation.evaluate(self, self.partition(name, key_fn), fn,
                                   default, dtype, cache, among)

    def codes_of(self, name, key_fn, keys):
        """Bool rows whose ``key_fn`` key is one of ``keys``."""
        part = self.partition(name, key_fn)
        table = np.zeros(len(part.keys) + 1, bool)
        for key in keys:
            code = part.index.get(key)
            if code is not None:
                table[code] = True
        return table[part.codes[:self.size]]

    def hosts_named(self, names):
        """Bool rows whose ``host`` is one of ``names``."""
        return self.codes_of('host', host_name, names)

    def nodes_named(self, names):
        """Bool rows whose ``nodename`` is one of ``names``."""
        return self.codes_of('node', node_name, names)

    # Aggregates (see population_aggregates)

    def aggregate_keys(self):
        """Every metadata key of the hosts' aggregates."""
        return population_aggregates.aggregate_keys(self)

    def aggregate_min(self, key, default, cast_to=float):
        """Per row, the smallest ``key`` of the host's aggregates, else
        ``default``: see ``population_aggregates.aggregate_min``."""
        return population_aggregates.aggregate_min(self, key, default,
                                                   cast_to)


# Re-exported: filters key their partitions by it, the capacity step
# reads Resource.
Resource = population_resources.Resource
AGGREGATE_PARTITIONS = population_aggregates.AGGREGATE_PARTITIONS
aggregates_key = population_aggregates.aggregates_key


def both(passed, rows):
    """``passed & rows`` for bool rows, ``passed`` being True (no step
    yet) or bool rows: ``True & rows`` takes numpy's slow path for a
    Python scalar (about 100 us over 100,000 rows, 20 times an
    array's), so the first term is copied instead (the result is the
    caller's to keep, never a cached column)."""
    if passed is True:
        return np.array(rows, dtype=bool)
    return passed & rows


def host_name(host):
    return host.host


def node_name(host):
    return host.nodename
