"""Did every pinned daemon of a drill stay at or below its pin?

Each daemon logs what it sent, by ``topic.method@version``, every few
seconds (``rpc_stats``). A daemon of the new side started with the pins
must not have sent a message to a service above the old release's RPC
version of that service:

* pinned by release name or version, never;
* pinned to ``auto``, not while a daemon of that service from the old side
  still ran. Once the last old one is gone the pin rises by design, so
  what was sent after that is not checked. The statistics are snapshots,
  so a snapshot interval is checked only if an old daemon of the service
  ran from its start to its end; an interval that straddles the stop of
  the last one is not (the pin may have risen inside it).

``violations()`` returns one line per offending (daemon, message); the
drill fails when there is any.
"""

import collections

from oslo_utils import versionutils

from tests.upgrade import report

SERVICES = ('conductor', 'scheduler', 'compute')


def _above(version, cap):
    return (versionutils.convert_version_to_tuple(version) >
            versionutils.convert_version_to_tuple(cap))


def _split(key):
    """('scheduler', 'select_destinations', '1.1') from the stats key."""
    wire, _sep, version = key.rpartition('@')
    topic, _sep, method = wire.partition('.')
    return topic, method, version


class DaemonRun:
    """What the check needs of one daemon: its role, side, whether it was
    pinned, when it ran, and where its log is."""

    def __init__(self, name, role, old_side, pinned, started, stopped, log):
        self.name = name
        self.role = role
        self.old_side = old_side
        self.pinned = pinned
        self.started = started
        self.stopped = stopped       # None: still running
        self.log = log

    def ran_throughout(self, start, end):
        return (self.started <= start and
                (self.stopped is None or self.stopped >= end))


def _intervals(run, points):
    """[(start, end, {key: count sent in between})] of one daemon."""
    previous_at, previous = run.started, {}
    for stamp, stats in points:
        sent = stats.get('sent', {})
        grown = {key: count - previous.get(key, 0)
                 for key, count in sent.items()
                 if count > previous.get(key, 0)}
        yield previous_at, stamp, grown
        previous_at, previous = stamp, sent


def _cap(service, start, end, old_rpc, mode, runs):
    """The version ``service`` may receive in [start, end], or None when
    the pin may legitimately be above the old release's."""
    if mode != 'auto':
        return old_rpc[service]
    if any(r.old_side and r.role == service and r.ran_throughout(start, end)
           for r in runs):
        return old_rpc[service]
    return None


def violations(runs, old_rpc, mode, read=report.read_stats):
    """Lines naming each message a pinned new daemon sent above its pin.

    ``runs``: DaemonRun of every daemon of the drill (old and new);
    ``old_rpc``: {service: RPC version} of the old side; ``mode``:
    'release' (pins by name or version) or 'auto'.
    """
    found = collections.Counter()
    for run in runs:
        if run.old_side or not run.pinned:
            continue
        for start, end, sent in _intervals(run, read(run.log)):
            for key, count in sent.items():
                service, method, version = _split(key)
                if service not in SERVICES or version == '?':
                    continue
                cap = _cap(service, start, end, old_rpc, mode, runs)
                if cap is not None and _above(version, cap):
                    found['%s sent %s.%s@%s above its pin %s' % (
                        run.name, service, method, version, cap)] += count
    return ['%s (x%d)' % item for item in sorted(found.items())]
