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

The publisher is a callable ``(provider_uuids, aggregate_uuids)``. By
default it queues the notice for a sender thread that casts it to the
schedulers, once this process has an RPC transport, and does nothing
without one (a command-line tool): a
scheduler that misses a notice that way, or through a lost message,
still converges at its next catch-up (``[scheduler]
host_state_resync_interval``). Tests set their own with ``set_publisher``.
"""

import os
import queue
import threading

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import orm

from nova_lite import context as nl_context
from nova_lite.db import models
from nova_lite import rpc

LOG = logging.getLogger(__name__)

_KEY = 'nova_lite.scheduler_changes'

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


def note(session, providers=(), aggregates=()):
    """Record, in ``session``'s transaction, that these providers (or
    compute nodes, which share their uuids) and host aggregates changed;
    published once it commits."""
    providers, aggregates = set(providers), set(aggregates)
    if not providers and not aggregates:
        return
    pending = session.info.setdefault(_KEY, (set(), set()))
    pending[0].update(providers)
    pending[1].update(aggregates)


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
    if pending is not None:
        publish(*pending)


@event.listens_for(orm.Session, 'after_transaction_end')
def _after_end(session, transaction):
    # The whole transaction is over without a commit (after one, the
    # notes are gone already): they go too. A rolled-back savepoint's
    # notes stay with the rest: a spurious notice costs one re-read.
    if transaction.parent is None:
        session.info.pop(_KEY, None)


def publish(providers, aggregates=()):
    """Tell the schedulers; never raises (a lost notice is caught up
    with later, a failed write is not what the writer should see)."""
    providers, aggregates = set(providers), set(aggregates)
    if not providers and not aggregates:
        return
    try:
        (_publisher or _cast)(providers, aggregates)
    except Exception:
        LOG.warning('Could not tell the schedulers that providers %s and '
                    'aggregates %s changed; they catch up later',
                    sorted(providers), sorted(aggregates), exc_info=True)


def _cast(providers, aggregates):
    """Hand the notice to this process's sender thread: the writer (a
    scheduler's claim holds its decision lock) does not wait for the
    broker, and notices queued meanwhile go out as one fanout."""
    if rpc.TRANSPORT is None:
        return
    _sender().put((providers, aggregates))


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
        providers, aggregates = pending.get()
        while not pending.empty():
            more_providers, more_aggregates = pending.get()
            providers |= more_providers
            aggregates |= more_aggregates
        transport = rpc.TRANSPORT
        if transport is None:
            continue
        try:
            _scheduler_api(transport).update_provider_states(
                nl_context.get_admin_context(), providers,
                aggregate_uuids=aggregates)
        except Exception:
            LOG.warning('Could not tell the schedulers that providers %s '
                        'and aggregates %s changed; they catch up later',
                        sorted(providers), sorted(aggregates),
                        exc_info=True)


def _scheduler_api(transport):
    global _client
    with _client_lock:
        if _client[0] is not transport:
            # Imported here: the scheduler client's pins read services,
            # whose objects import this layer.
            from nova_lite.scheduler import rpcapi
            _client = (transport, rpcapi.SchedulerAPI())
        return _client[1]
