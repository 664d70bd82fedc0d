"""The one hook through which writes tell the schedulers what changed.

Every write the schedulers' host states depend on notes, inside its
transaction, what it changed: the placement write layer notes each
provider whose generation it moves (``generation.bump`` and ``touch``)
or that it creates, the compute node and compute service records note
their host's nodes, and host aggregate writes note the aggregate.
Nothing is sent while the transaction runs: once it commits, the noted
uuids go out in one ``update_provider_states`` fanout; a rollback drops
them. A new writer that goes through these layers cannot forget to tell
the schedulers, and no caller sends notices by hand.

A writer that knows the generation it moved a provider to
(``generation.bump``) notes it: a scheduler whose state of that host is
already at it (its own claim's notice) need not re-read it. A provider
noted without one in the same transaction, or in the same batch of the
sender thread (``touch``, the compute node and service records, a new
provider), is unknown and always re-read; two known ones merge to the
newer.

An instance's save that changes its vm_state or task_state on a node
notes it too (``note_instance``): the notice carries, per node, the
instance's new (vm_state, task_state) and the time of the save, which a
scheduler applies to its state of that node in memory (its I/O ops, the
instances filters see) without re-reading the host. A later note of the
same instance replaces an earlier one.

The publisher is a callable ``(provider_uuids, aggregate_uuids,
generations, instances)``: the {uuid: generation} of the providers
known, and {node uuid: {instance uuid: (vm_state, task_state,
stamp)}} of the instances noted (``note_instance``). By
default it queues the notice for a sender thread that casts it to the
schedulers, once this process has an RPC transport, and does nothing
without one (a command-line tool): a
scheduler that misses a notice that way, or through a lost message,
still converges at its next catch-up (``[scheduler]
host_state_resync_interval``). Tests set their own with
``set_publisher``.

The boots' own stream of notes (their claims' generations,
``claimed=True``, and their instances' states) may wait: the sender
thread holds such a notice for up to ``[scheduler]
change_notice_delay`` and sends everything queued by then as one
fanout, since each notice costs every scheduler a message and a steady
stream of boots would otherwise send one or two per boot. Any other
change (a service disabled, traits, inventories, aggregates, a delete's
freed resources) is sent at once, with whatever waits.
"""

import os
import queue
import threading
import time

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import orm

from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import models
from nova_lite import rpc

LOG = logging.getLogger(__name__)

_KEY = 'nova_lite.scheduler_changes'
_INSTANCES_KEY = 'nova_lite.scheduler_instance_changes'
# Set when the transaction noted something that must not wait.
_PROMPT_KEY = 'nova_lite.scheduler_changes_prompt'

_publisher = None
# (transport, SchedulerAPI): a new transport (tests re-initialise it)
# needs a new client.
_client = (None, None)
_client_lock = threading.Lock()
# (pid, queue) of the thread that sends the notices.
_queue = None


def set_publisher(publisher):
    """Route the notices of this process to ``publisher`` (None: the
    default, a fanout cast to the schedulers). Returns the previous one."""
    global _publisher
    previous, _publisher = _publisher, publisher
    return previous


def note(session, providers=(), aggregates=(), generations=None,
         claimed=False):
    """Record, in ``session``'s transaction, that these providers (or
    compute nodes, which share their uuids) and host aggregates changed;
    published once it commits. ``generations``: {uuid: generation} of
    the providers the writer knows the new generation of; ``claimed``:
    the change is a claim's (it may wait, see above)."""
    providers, aggregates = set(providers), set(aggregates)
    if not providers and not aggregates:
        return
    if not claimed:
        session.info[_PROMPT_KEY] = True
    pending = session.info.setdefault(_KEY, ({}, set()))
    merge(pending[0], notes_of(providers, generations))
    pending[1].update(aggregates)


def note_instance(session, node_uuid, instance_uuid, vm_state, task_state,
                  stamp):
    """Record, in ``session``'s transaction, that the instance
    ``instance_uuid`` on the compute node ``node_uuid`` is now in
    ``vm_state`` and ``task_state``, as of ``stamp`` (its updated_at, in
    seconds): published with the rest once it commits."""
    if not node_uuid:
        return
    pending = session.info.setdefault(_INSTANCES_KEY, {})
    merge_instances(pending, {node_uuid: {
        instance_uuid: (vm_state, task_state, stamp)}})


def merge_instances(into, notes):
    """Merge the instance notes ``notes`` into ``into`` (both {node
    uuid: {instance uuid: (vm_state, task_state, stamp)}}): the later
    stamp of an instance wins, the later note on a tie."""
    for node, instances in notes.items():
        known_here = into.setdefault(node, {})
        for uuid, note_ in instances.items():
            before = known_here.get(uuid)
            if before is None or before[2] <= note_[2]:
                known_here[uuid] = tuple(note_)


def notes_of(providers, generations):
    """{uuid: generation, None when unknown} of ``providers``."""
    generations = generations or {}
    return {uuid: generations.get(uuid) for uuid in providers}


def merge(into, notes):
    """Merge the provider notes ``notes`` into ``into`` (both {uuid:
    generation or None}): unknown wins, else the newer generation."""
    for uuid, generation in notes.items():
        if uuid not in into:
            into[uuid] = generation
        elif into[uuid] is not None:
            into[uuid] = (None if generation is None
                          else max(into[uuid], generation))


def known(notes):
    """{uuid: generation} of the provider notes whose generation is
    known."""
    return {uuid: generation for uuid, generation in notes.items()
            if generation is not None}


def note_provider_ids(session, provider_ids):
    """``note`` for providers known by their database ids."""
    if not provider_ids:
        return
    note(session, session.scalars(
        sa.select(models.ResourceProvider.uuid).where(
            models.ResourceProvider.id.in_(sorted(provider_ids)))).all())


def note_host(session, host):
    """``note`` the compute nodes of ``host`` (a compute service or its
    record changed)."""
    note(session, session.scalars(
        sa.select(models.ComputeNode.uuid).where(
            models.ComputeNode.host == host)).all())


# Listeners on every session (class-wide, once): a session with nothing
# noted costs a dictionary look-up per transaction.
@event.listens_for(orm.Session, 'after_commit')
def _after_commit(session):
    pending = session.info.pop(_KEY, None)
    instances = session.info.pop(_INSTANCES_KEY, None)
    prompt = session.info.pop(_PROMPT_KEY, False)
    if pending is not None or instances:
        notes, aggregates = pending or ({}, set())
        publish(set(notes), aggregates, known(notes), instances,
                prompt=prompt)


@event.listens_for(orm.Session, 'after_transaction_end')
def _after_end(session, transaction):
    # The whole transaction is over without a commit (after one, the
    # notes are gone already): they go too. A rolled-back savepoint's
    # notes stay with the rest: a spurious notice costs one re-read.
    if transaction.parent is None:
        session.info.pop(_KEY, None)
        session.info.pop(_INSTANCES_KEY, None)
        session.info.pop(_PROMPT_KEY, None)


def publish(providers, aggregates=(), generations=None, instances=None,
            prompt=True):
    """Tell the schedulers; never raises (a lost notice is caught up
    with later, a failed write is not what the writer should see).
    ``generations``: {uuid: generation} of the providers known;
    ``instances``: the instance notes (see ``note_instance``);
    ``prompt``: False if the notice may wait (see above)."""
    providers, aggregates = set(providers), set(aggregates)
    instances = {node: dict(notes) for node, notes in
                 (instances or {}).items() if notes}
    if not providers and not aggregates and not instances:
        return
    generations = known(notes_of(providers, generations))
    try:
        if _publisher is not None:
            _publisher(providers, aggregates, generations, instances)
        else:
            _cast(providers, aggregates, generations, instances, prompt)
    except Exception:
        LOG.warning('Could not tell the schedulers that providers %s and '
                    'aggregates %s changed; they catch up later',
                    sorted(providers), sorted(aggregates), exc_info=True)


def _cast(providers, aggregates, generations, instances, prompt=True):
    """Hand the notice to this process's sender thread: the writer (a
    scheduler's claim holds its decision lock) does not wait for the
    broker, and notices queued meanwhile go out as one fanout."""
    if rpc.TRANSPORT is None:
        return
    _sender().put((notes_of(providers, generations), aggregates,
                   instances, prompt))


def _sender():
    global _queue
    with _client_lock:
        if _queue is None or _queue[0] != os.getpid():
            # One per process (a forked worker starts its own).
            _queue = (os.getpid(), queue.SimpleQueue())
            threading.Thread(target=_send_forever, args=(_queue[1],),
                             name='scheduler-notices', daemon=True).start()
        return _queue[1]


def _send_forever(pending):
    while True:
        notes, aggregates, instances, _prompt = _batch(pending)
        transport = rpc.TRANSPORT
        if transport is None:
            continue
        providers = set(notes)
        try:
            _scheduler_api(transport).update_provider_states(
                nl_context.get_admin_context(), providers,
                aggregate_uuids=aggregates, generations=known(notes),
                instance_states=instances)
        except Exception:
            LOG.warning('Could not tell the schedulers that providers %s '
                        'and aggregates %s changed; they catch up later',
                        sorted(providers), sorted(aggregates),
                        exc_info=True)


def _batch(pending):
    """The next notice to send, merged from the queue: a notice that may
    wait is held up to ``[scheduler] change_notice_delay`` for what
    comes after it; a prompt one, first or arriving meanwhile, ends the
    wait. What is queued by then goes with it."""
    notes, aggregates, instances, prompt = pending.get()
    deadline = time.monotonic() + CONF.scheduler.change_notice_delay
    while True:
        wait = 0 if prompt else deadline - time.monotonic()
        try:
            more = (pending.get(timeout=wait) if wait > 0
                    else pending.get_nowait())
        except queue.Empty:
            return notes, aggregates, instances, prompt
        merge(notes, more[0])
        aggregates |= more[1]
        merge_instances(instances, more[2])
        prompt = prompt or more[3]


def _scheduler_api(transport):
    global _client
    with _client_lock:
        if _client[0] is not transport:
            # Imported here: the scheduler client's pins read services,
            # whose objects import this layer.
            from nova_lite.scheduler import rpcapi
            _client = (transport, rpcapi.SchedulerAPI())
        return _client[1]
