"""HostManager: the scheduler's in-memory host states, kept current.

Nova rebuilds every host's state from the database for every request.
Here the states live in memory between requests and are kept current
incrementally:

* the scheduler's own claims (``HostState.consume``);
* change notices: every write they depend on (placement's generation
  moves, compute node, compute service and host aggregate records)
  publishes an ``update_provider_states`` fanout once it commits, from
  one hook (``nova_lite.placement.changes``); a notice marks providers
  dirty, and the next request reloads only those (``mark_dirty`` /
  ``apply_notices``): their compute nodes, services, provider summaries
  and instances. A notice may also carry the uuid of a host aggregate
  that changed: that aggregate is re-read and the zone and aggregates of
  its old and new hosts follow. A notice may also carry instances' new
  vm and task states on their nodes (an instance saved ACTIVE, a move's
  task states): those are applied to the nodes' states in memory, not
  re-read (``note_instance_states``), so a host's I/O ops fall when its
  builds end even when nothing else about it is re-read;
* compute services (heartbeats going silent, which no write tells of)
  re-read every ``min(report_interval, 5)`` seconds by a periodic task,
  off the decision path (``sync_services``), reading only the services
  not plainly up and enabled and applying only the hosts whose service
  changed;
* a periodic catch-up (``[scheduler] host_state_resync_interval``)
  compares every host's provider generation and node update time with
  the database and re-reads only the hosts that differ (``catch_up``):
  what a lost notice left stale is current again within that period.
  Nothing re-reads every host after the start-up load.

A stale view is never unsafe: claims compare-and-swap on the provider
generation the view was read at, and a lost swap refreshes that host.

The states are also held as columns (``population``, a Population the
states tell of their changes), which the scheduling core filters and
weighs as a whole.

The reads go through a loader (``DatabaseLoader`` by default) so tests
give a fake one and touch no database.
"""

import contextlib
import gc
import threading
import time

import os_traits
from oslo_log import log as logging
from oslo_utils import timeutils

from nova_lite import availability_zones
from nova_lite.conf import CONF
from nova_lite.placement import changes
from nova_lite.scheduler import host_compact
from nova_lite.scheduler import host_loader
from nova_lite.scheduler import host_services
from nova_lite.scheduler import host_state as host_state_mod
from nova_lite.scheduler import population as population_mod

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = host_loader.COMPUTE_BINARY
# Re-exported: the default loader.
DatabaseLoader = host_loader.DatabaseLoader

# The services' entries (see host_services.split).
_split = host_services.split
_entries = host_services.entries
_service_key = host_services.service_key
_unsettled_hosts = host_services.unsettled_hosts
_changed_hosts = host_services.changed_hosts

# Upper bound on how stale the service (up/disabled) view may be.
_MAX_SERVICE_CACHE_SECONDS = 5

# How many instances' last applied notice stamps are kept: notices of
# one instance arrive out of order within moments, not hours.
_STAMPS_KEPT = 10000


class HostManager:
    """Holds {compute node uuid: HostState}.

    ``lock`` (reentrant) serialises changes to the states with decisions
    made on them: a caller deciding and claiming holds it, and every
    update here is applied under it. Reads from the database happen
    outside it, so requests are not blocked for their duration.
    """

    def __init__(self, loader=None, clock=time.monotonic):
        self.loader = loader or DatabaseLoader()
        self.lock = threading.RLock()
        self._clock = clock
        self._states = {}
        # The same states, in the same order, as columns.
        self.population = population_mod.Population(owned=True)
        # {uuid: the generation its notices told, None when any did not}
        self._dirty = {}
        # {node uuid: {instance uuid: (vm_state, task_state, stamp)}}
        # noticed, applied with the dirty providers.
        self._instance_notes = {}
        # {instance uuid: the stamp of the state last applied}, the
        # newest _STAMPS_KEPT: a notice that arrives after a newer one of
        # the same instance (from another writer process) is ignored.
        self._stamps = {}
        self._dirty_lock = threading.Lock()
        # Held while notices taken from _dirty are being applied, so a
        # request does not decide on a view another request has taken
        # the notices of but not yet refreshed (at start-up that view
        # can be empty: "No compute nodes are known").
        self._refresh_lock = threading.Lock()
        # host -> the service's record when it is up, (record, False)
        # when not (see _split), re-read when older than
        # _service_cache_seconds().
        self._services = {}
        # Hosts whose service is not plainly up and enabled.
        self._unsettled = set()
        self._services_read_at = None
        self._full_load_at = None
        # Host aggregates: {uuid: AggregateView}, and per host the views
        # of the aggregates it is in.
        self._aggregates = {}
        self._host_aggregates = {}
        # Hosts whose disabled trait and service flag disagree.
        self._mismatched_hosts = set()

    # Change notices

    def mark_dirty(self, uuids, generations=None):
        """Record that these providers changed; reloaded before the next
        request is decided. Cheap and never blocked by a decision.
        ``generations``: {uuid: generation} the writer knew it moved a
        provider to; a host whose state is already at it is not re-read
        (``apply_notices``)."""
        generations = generations or {}
        with self._dirty_lock:
            for uuid in uuids:
                _merge_note(self._dirty, uuid, generations.get(uuid))

    def note_instance_states(self, notes):
        """Record instances' new states ({node uuid: {instance uuid:
        (vm_state, task_state, stamp)}}), applied to the nodes' states
        before the next request is decided. Cheap and never blocked by a
        decision."""
        with self._dirty_lock:
            changes.merge_instances(self._instance_notes, notes)

    def _take_dirty(self):
        with self._dirty_lock:
            dirty, self._dirty = self._dirty, {}
        return dirty

    def _take_instance_notes(self):
        with self._dirty_lock:
            notes, self._instance_notes = self._instance_notes, {}
        return notes

    def _drop_instance_notes(self, uuids):
        """Take the instance notes of the nodes ``uuids`` (about to be
        re-read) out of the pending ones; returns them."""
        with self._dirty_lock:
            return {uuid: self._instance_notes.pop(uuid) for uuid in uuids
                    if uuid in self._instance_notes}

    def _apply_instance_notes(self, notes, reread):
        """Apply the instance notes to the states of their nodes, but for
        the nodes just re-read (``reread``: the read is newer than the
        notes) and the instances whose newer state was applied already.
        Under the lock."""
        stamps = self._stamps
        for node, instances in notes.items():
            state = self._states.get(node)
            if state is None or node in reread:
                continue
            fresh = {}
            for uuid, (vm_state, task_state, stamp) in instances.items():
                if stamps.get(uuid, stamp) > stamp:
                    continue
                stamps.pop(uuid, None)
                stamps[uuid] = stamp
                fresh[uuid] = (vm_state, task_state)
            if fresh:
                state.apply_instance_states(fresh)
        while len(stamps) > _STAMPS_KEPT:
            del stamps[next(iter(stamps))]

    def _to_read(self, dirty):
        """The dirty uuids to re-read: all but the hosts whose state is
        at least at the generation their notices told.

        Such a state's generation was set by this scheduler's own
        successful compare-and-swap claim (made on a state equal to the
        database at the generation expected) or by a re-read, which reads
        the generation before the usages and instances: either way the
        state reflects every change up to it.
        """
        states = self._states
        return {uuid for uuid, generation in dirty.items()
                if not _at_least(states.get(uuid), generation)}

    # Loading

    @property
    def loaded(self):
        return self._full_load_at is not None

    def load_all(self, ctxt):
        """(Re)load every host state: the start-up load (and ``catch_up``
        with a loader that has no digest).

        Providers marked dirty before the read began are covered by it;
        notices arriving during the read stay pending. With a loader that
        has ``compute_node_rows`` and ``service_rows`` (``host_rows``),
        the nodes and services are read as rows, not as objects.
        """
        with _young_collections() as collect:
            self._load_all(ctxt, collect)

    def _load_all(self, ctxt, collect_young):
        pending = self._take_dirty()
        # The load reads every instance after these notes arrived.
        pending_instances = self._take_instance_notes()
        try:
            services = self._load_services(ctxt, collect_young)
            aggregates = self.loader.aggregates(ctxt)
            batches = self._node_batches(ctxt)
        except Exception:
            self.mark_dirty(pending, pending)
            self.note_instance_states(pending_instances)
            raise
        with self.lock:
            self._set_services(services)
            self._aggregates = {}
            self._apply_aggregates(aggregates, ())
        states, count = {}, 0
        build = (self._build_row if getattr(batches, 'rows', False)
                 else self._build)
        zones = {}
        try:
            for nodes, provider_summaries, instances, listed in batches:
                count += len(nodes)
                with self.lock:
                    for node in nodes:
                        state = build(node, provider_summaries,
                                      instances.get(node.uuid, ()), zones)
                        if state is not None:
                            # The listing's uuid string, kept for the
                            # whole load anyway, rather than the node
                            # record's copy.
                            state.uuid = listed.get(node.uuid, node.uuid)
                            states[state.uuid] = state
                # Dropped before the next batch is read.
                del nodes, provider_summaries, instances, listed
                collect_young()
        except Exception:
            self.mark_dirty(pending, pending)
            self.note_instance_states(pending_instances)
            raise
        with self.lock:
            self._states = states
            self.population.reset(states.values())
            self._full_load_at = self._clock()
        LOG.info('Loaded %d host states (%d compute nodes, %d aggregates)',
                 len(states), count, len(aggregates))

    def _load_services(self, ctxt, collect_young):
        """The services' entries at load: from the loader's rows when it
        has them (no Service object per host)."""
        rows = getattr(self.loader, 'service_rows', None)
        if rows is not None:
            return host_services.entries_of_rows(rows(ctxt))
        return _entries(_collecting(self.loader.services(ctxt),
                                    collect_young))

    def _node_batches(self, ctxt):
        """(nodes, summaries, instances, {uuid: uuid}) of every compute
        node, in batches of ``[scheduler] host_state_load_batch`` nodes
        when the loader can list the nodes first (``digest``), else at
        once; the last, the listed uuids of the batch."""
        size = CONF.scheduler.host_state_load_batch
        digest = getattr(self.loader, 'digest', None)
        if not size or digest is None:
            return [(self.loader.compute_nodes(ctxt),
                     self.loader.summaries(ctxt),
                     self.loader.instances(ctxt), {})]
        uuids = sorted(digest(ctxt))
        return _Batches(self.loader, ctxt, uuids, size)

    def refresh(self, ctxt, uuids):
        """Reload the states of ``uuids`` only.

        A node that is gone, or has no resource provider, is dropped; a
        new one is added. Existing HostState objects are updated in place.
        A uuid that is no compute node may be a host aggregate: it is
        re-read (or forgotten, if deleted).
        """
        uuids = set(uuids)
        if not uuids:
            return
        # Their instances are read after these notes arrived.
        dropped = self._drop_instance_notes(uuids)
        try:
            self._refresh(ctxt, uuids)
        except Exception:
            self.note_instance_states(dropped)
            raise

    def _refresh(self, ctxt, uuids):
        nodes = getattr(self.loader, 'compute_node_rows',
                        self.loader.compute_nodes)(ctxt, uuids)
        found = {node.uuid for node in nodes}
        # Not set(self._states): at 100,000 hosts copying it costs more
        # than the rest of a notice's re-read.
        others = {uuid for uuid in uuids - found if uuid not in self._states}
        # The providers before the instances on them (their
        # allocations): a state then reflects every change up to its
        # generation, which a notice's generation is compared with
        # (_to_read).
        provider_summaries = self.loader.summaries(ctxt, found)
        instances = self.loader.instances(ctxt, found)
        services = self._read_services_of(ctxt,
                                          {node.host for node in nodes})
        aggregates = self.loader.aggregates(ctxt, others) if others else []
        with self.lock:
            if services:
                self._services.update(services)
                self._unsettled.difference_update(services)
                self._unsettled.update(_unsettled_hosts(services))
            if any(node.host not in self._services for node in nodes):
                # A compute we have not seen yet: its service is new too.
                self._set_services(self._read_services(ctxt))
            gone = (others & set(self._aggregates)) - {
                agg.uuid for agg in aggregates}
            if aggregates or gone:
                self._apply_aggregates(aggregates, gone)
            kept = set()
            for node in nodes:
                state = self._build(node, provider_summaries,
                                    instances.get(node.uuid, ()))
                if state is not None:
                    self._states[node.uuid] = state
                    self.population.add(state)
                    kept.add(node.uuid)
            if not services:
                # Their services were not re-read with them.
                self._follow_disabled_traits(
                    ctxt, [self._states[uuid] for uuid in kept])
            for uuid in uuids - kept - others:
                state = self._states.pop(uuid, None)
                if state is not None:
                    self.population.discard(state)
                    LOG.info('Compute node %s is gone from the host states',
                             uuid)
        LOG.debug('Refreshed host states of %s', sorted(uuids))

    def _build(self, node, provider_summaries, instances, zones=None):
        """The updated or new HostState of ``node``, None without
        provider."""
        summary = _summary_of(node, provider_summaries)
        if summary is None:
            return None
        service, up = _split(self._services.get(node.host))
        state = self._states.get(node.uuid)
        if state is None:
            state = host_state_mod.HostState.from_records(
                node, service, summary, up, instances)
        else:
            state.update(compute_node=node, summary=summary,
                         instances=instances)
            state.update_service(service, up)
        aggregates = self._host_aggregates.get(node.host, ())
        # The same shared list: a change of its aggregates was given to
        # every host of it when applied (_apply_aggregates).
        if state.aggregates is not aggregates:
            state.set_aggregates(aggregates)
        return state

    def _build_row(self, row, provider_summaries, instances, zones):
        """The new HostState of the NodeRow ``row`` (the bulk load),
        None without provider. ``zones`` remembers, for this load, the
        zone of each list of aggregates."""
        summary = _summary_of(row, provider_summaries)
        if summary is None:
            return None
        service, up = _split(self._services.get(row.host))
        aggregates = self._host_aggregates.get(row.host, ())
        # Keyed by identity and holding the list, so that a list made
        # by a notice between two batches is never taken for another.
        known = zones.get(id(aggregates))
        if known is None or known[0] is not aggregates:
            known = zones[id(aggregates)] = (
                aggregates, availability_zones.zone_of(aggregates))
        zone = known[1]
        return host_state_mod.HostState.from_row(
            row, service, up, summary, instances, aggregates, zone)

    # Aggregates

    def aggregates(self):
        """Every host aggregate (AggregateView), for the prefilters."""
        return list(self._aggregates.values())

    def _apply_aggregates(self, aggregates, gone):
        """Update the views of ``aggregates``, forget those of ``gone``
        uuids, and give every host they touch its new aggregates."""
        touched = set()
        for uuid in gone:
            touched.update(self._aggregates.pop(uuid).hosts)
        for aggregate in aggregates:
            view = self._aggregates.get(aggregate.uuid)
            if view is None:
                view = host_state_mod.AggregateView(aggregate)
                self._aggregates[aggregate.uuid] = view
            else:
                touched.update(view.hosts)
                view.update(aggregate)
            touched.update(view.hosts)
        index = {}
        for view in self._aggregates.values():
            for host in view.hosts:
                index.setdefault(host, []).append(view)
        # One list per combination of aggregates, not one per host.
        shared = host_compact.shared_list
        self._host_aggregates = index = {host: shared(views)
                                         for host, views in index.items()}
        self.population.aggregates_changed()
        for state in self._states.values():
            if state.host in touched:
                state.set_aggregates(index.get(state.host, ()))

    def _follow_disabled_traits(self, ctxt, states):
        """Re-read the services when a refreshed provider's
        COMPUTE_STATUS_DISABLED disagrees with its cached service.

        An administrator's disable or enable sets the trait and notifies
        at once; without this, ComputeFilter would go on seeing the old
        flag until the service cache expires. A disagreement that
        outlives a re-read (a trait sync that failed) is not re-read
        again until it resolves.
        """
        def mismatched():
            return {state.host for state in states
                    if _disabled_trait(state) != _service_disabled(state)}

        others = self._mismatched_hosts - {state.host for state in states}
        if mismatched() - self._mismatched_hosts:
            self._set_services(self._read_services(ctxt))
            for state in self._states.values():
                service, up = _split(self._services.get(state.host))
                state.update_service(service, up)
        self._mismatched_hosts = others | mismatched()

    # Services

    def _service_cache_seconds(self):
        return min(CONF.report_interval, _MAX_SERVICE_CACHE_SECONDS)

    def _read_services(self, ctxt):
        return _entries(self.loader.services(ctxt))

    def _read_services_of(self, ctxt, hosts):
        """{host: (service, up)} of ``hosts``: a notice about a node may
        be its service's (disabled, forced down, back up). Empty with a
        loader that cannot read them by host."""
        if not hosts:
            return {}
        rows = getattr(self.loader, 'service_rows', None)
        if rows is not None:
            return host_services.entries_of_rows(rows(ctxt, hosts))
        read = getattr(self.loader, 'services_of_hosts', None)
        if read is None:
            return {}
        return _entries(read(ctxt, hosts))

    def _set_services(self, services):
        self._services = services
        self._unsettled = _unsettled_hosts(services)
        self._services_read_at = self._clock()

    def service_sync_seconds(self):
        """How often ``sync_services`` should run (the periodic task)."""
        return self._service_cache_seconds()

    def sync_services(self, ctxt):
        """Re-read the compute services and apply what changed: the hosts
        whose service went up or down, was disabled, enabled, forced down
        or replaced. Read without the lock; only the changed hosts are
        updated under it. The scheduler runs it as a periodic task, off
        the decision path; does nothing before the first load.

        With a loader that can (``services_to_recheck``), only the
        services not plainly up and enabled now, or not at the last look,
        are read: the others cannot have changed what filters see.
        """
        if not self.loaded:
            return
        recheck = getattr(self.loader, 'services_to_recheck', None)
        if recheck is None:
            fresh, complete = self._read_services(ctxt), True
        else:
            now = timeutils.utcnow().replace(tzinfo=None)
            fresh = _entries(recheck(ctxt, now, CONF.service_down_time,
                                     set(self._unsettled)), now)
            complete = False
        # The comparison is the costly part at scale: outside the lock,
        # against the services as they were; redone under it in the rare
        # case another thread replaced them meanwhile.
        old = self._services
        changed = _changed_hosts(old, fresh, complete)
        with self.lock:
            if self._services is not old:
                changed = _changed_hosts(self._services, fresh, complete)
            if complete:
                self._set_services(fresh)
            else:
                self._services.update(fresh)
                self._unsettled.difference_update(fresh)
                self._unsettled.update(_unsettled_hosts(fresh))
                self._services_read_at = self._clock()
            if not changed:
                return
            for state in self._states.values():
                if state.host in changed:
                    service, up = _split(self._services.get(state.host))
                    state.update_service(service, up)
        LOG.debug('Services changed on %d hosts', len(changed))

    def _services_overdue(self):
        # The periodic sync is late (a stuck task runner, or none, as in
        # a test): read on the decision path rather than go on deciding
        # with heartbeats older than a few periods.
        age = (None if self._services_read_at is None
               else self._clock() - self._services_read_at)
        return age is None or age >= 4 * self._service_cache_seconds()

    # The request path

    def get_host_states(self, ctxt):
        """Every schedulable HostState, current as of now.

        Loads everything on first use, then reloads the providers marked
        dirty (see ``get_population``).
        """
        return list(self.get_population(ctxt))

    def get_population(self, ctxt):
        """``get_host_states`` as the Population of those states.

        The reads happen before the lock is taken (it is held only to
        apply what they found), so a caller that takes the lock after
        this for its decision holds it only for the decision and its
        claims. Notices that arrive meanwhile wait for the next request:
        a stale view is safe (claims compare-and-swap). The services are
        kept current by ``sync_services``, read here only when it is
        overdue.
        """
        if not self.loaded:
            with self.lock:
                if not self.loaded:
                    self.load_all(ctxt)
            return self.population
        self.apply_notices(ctxt)
        if self._services_overdue():
            self.sync_services(ctxt)
        return self.population

    def apply_notices(self, ctxt):
        """Re-read the providers marked dirty (reads without the lock),
        then apply the instances' states noticed to the other nodes."""
        with self._refresh_lock:
            dirty = self._take_dirty()
            notes = self._take_instance_notes()
            stale = self._to_read(dirty)
            if stale:
                try:
                    self.refresh(ctxt, stale)
                except Exception:
                    self.mark_dirty(dirty, dirty)
                    self.note_instance_states(notes)
                    raise
            if notes:
                with self.lock:
                    self._apply_instance_notes(notes, stale)

    # Catching up with lost notices

    def catch_up(self, ctxt):
        """Find what changed without a notice reaching us (a lost message,
        a writer with no RPC transport) and re-read only that.

        Compares every host state's provider generation and node
        ``updated_at`` with the database's digest of them, and every host
        aggregate with its view, without the lock and off the decision
        path; marks those that differ dirty and applies them. Returns the
        uuids found stale. Before the first load, does nothing; with a
        loader that has no digest, reloads everything.
        """
        if not self.loaded:
            return set()
        digest = getattr(self.loader, 'digest', None)
        if digest is None:
            self.load_all(ctxt)
            return set()
        # What the notices told first: the rest is what they missed.
        self.apply_notices(ctxt)
        fresh = digest(ctxt)
        aggregates = self.loader.aggregates(ctxt)
        # Copies: requests add and drop states meanwhile.
        stale = _stale_hosts(dict(self._states), fresh)
        stale.update(_stale_aggregates(dict(self._aggregates), aggregates))
        if stale:
            LOG.info('Catching up with %d changes no notice told of: %s',
                     len(stale), sorted(stale)[:20])
            self.mark_dirty(stale)
            self.apply_notices(ctxt)
        return stale


class _Batches:
    """The load's batches of (nodes, summaries, instances, {uuid:
    uuid}) of ``uuids``, ``size`` nodes each; ``rows`` tells whether the
    nodes are NodeRows (the loader has ``compute_node_rows``) rather
    than ComputeNode objects."""

    def __init__(self, loader, ctxt, uuids, size):
        self.loader, self.ctxt, self.uuids, self.size = (
            loader, ctxt, uuids, size)
        self.rows = hasattr(loader, 'compute_node_rows')

    def __iter__(self):
        loader, ctxt, uuids = self.loader, self.ctxt, self.uuids
        read_nodes = (loader.compute_node_rows if self.rows
                      else loader.compute_nodes)
        for start in range(0, len(uuids), self.size):
            batch = {uuid: uuid for uuid in uuids[start:start + self.size]}
            yield (read_nodes(ctxt, batch), loader.summaries(ctxt, batch),
                   loader.instances(ctxt, batch), batch)


def _merge_note(dirty, uuid, generation):
    """Note ``generation`` (None: unknown) of ``uuid`` in ``dirty``:
    unknown wins, else the newer (as placement's changes merge them)."""
    if uuid not in dirty:
        dirty[uuid] = generation
    elif dirty[uuid] is not None:
        dirty[uuid] = (None if generation is None
                       else max(dirty[uuid], generation))


def _at_least(state, generation):
    """Whether ``state`` is at ``generation`` or later (False when
    either is unknown)."""
    return (generation is not None and state is not None
            and state.generation is not None
            and state.generation >= generation)


def _summary_of(node, provider_summaries):
    summary = provider_summaries.get(node.uuid)
    if summary is None:
        LOG.debug('Compute node %s (%s) has no resource provider yet; '
                  'not schedulable', node.uuid, node.hypervisor_hostname)
    return summary


@contextlib.contextmanager
def _young_collections():
    """Collect only young objects during a bulk load: the automatic
    collector is paused, and the caller calls what this yields after
    each batch to collect what the batch left in cycles.

    Left automatic, the growth of the heap sets off full collections,
    each walking every object made so far: at 100,000 hosts, 26 of them
    took about a third of the load's CPU time. Paused without the young
    collections, the reads' records left in cycles stay until the end,
    and the memory they held stays with the process (its resident set
    grew by 3.9 kB a host instead of 2.5).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield (lambda: gc.collect(1)) if enabled else (lambda: None)
    finally:
        if enabled:
            gc.enable()


def _collecting(items, collect, every=1000):
    """``items``, calling ``collect()`` after every ``every`` of them
    (the records read are left in cycles: see _young_collections)."""
    for count, item in enumerate(items, 1):
        yield item
        if not count % every:
            collect()


def _naive(value):
    return None if value is None else value.replace(tzinfo=None)


def _stale_hosts(states, digest):
    """Uuids of host states the digest ({uuid: (updated_at, generation)})
    disagrees with, and of nodes only one of them has."""
    stale = set(states).symmetric_difference(digest)
    for uuid, (updated_at, generation) in digest.items():
        state = states.get(uuid)
        if state is not None and (
                state.generation != generation
                or _naive(state.updated) != _naive(updated_at)):
            stale.add(uuid)
    return stale


def _stale_aggregates(views, aggregates):
    """Uuids of aggregates new, gone, or unlike their view."""
    stale = set(views).symmetric_difference(a.uuid for a in aggregates)
    for aggregate in aggregates:
        view = views.get(aggregate.uuid)
        if view is not None and (
                view.name != aggregate.name
                or set(view.hosts) != set(aggregate.hosts)
                or view.metadata != dict(aggregate.metadata)):
            stale.add(aggregate.uuid)
    return stale


def _disabled_trait(state):
    return os_traits.COMPUTE_STATUS_DISABLED in state.traits


def _service_disabled(state):
    return bool(state.service is not None and state.service['disabled'])
