"""What this process sent and did on the bus.

Logged when a service stops (and every ``[DEFAULT] rpc_stats_log_interval``
seconds) as ``<binary> RPC statistics: {...}``, with these categories:

* ``user`` / ``service``: messages by kind (call, cast, fanout), sent on
  behalf of an API request (the context has a user) or of the service's
  own work (start-up, heartbeats, periodic tasks); tools/bench_boot.py sums
  the ``user`` part per boot;
* ``sent``: messages by ``topic.method@version``, the versions on the wire
  during a rolling upgrade (tools/upgrade-drill reports them);
* ``backported``: objects sent or answered at an older version, by
  ``Name@version``.
"""

import collections
import threading

_STATS = collections.defaultdict(collections.Counter)
_LOCK = threading.Lock()


def record(category, key):
    """Count one event of ``category`` under ``key``."""
    with _LOCK:
        _STATS[category][key] += 1


def count_sent(context, kind, target, method):
    """Count a message of ``kind`` for ``method`` to ``target``."""
    origin = 'user' if getattr(context, 'user_id', None) else 'service'
    wire = '%s.%s@%s' % (target.topic, method, target.version or '?')
    with _LOCK:
        _STATS[origin][kind] += 1
        _STATS['sent'][wire] += 1


def stats():
    """{category: {key: count}} so far."""
    with _LOCK:
        return {category: dict(counts)
                for category, counts in sorted(_STATS.items())}
