"""Per-phase figures of a drill: requests, failures, latency, and what
the new daemons saw on the bus (message versions sent, objects
backported), from the statistics they log every few seconds."""

import ast
import collections
import datetime
import re

_STATS = re.compile(r'^(\S+ \S+) .* RPC statistics: (\{.*\})\s*$')


def read_stats(log_path):
    """[(datetime, {category: {key: n}})] logged by one daemon, in order."""
    points = []
    with open(log_path, errors='replace') as log:
        for line in log:
            match = _STATS.match(line)
            if match:
                when = datetime.datetime.strptime(match.group(1),
                                                  '%Y-%m-%d %H:%M:%S.%f')
                points.append((when, ast.literal_eval(match.group(2))))
    return points


def _at(points, when):
    latest = {}
    for stamp, stats in points:
        if stamp > when:
            break
        latest = stats
    return latest


def delta(daemon_logs, category, start, end):
    """Sum over daemons of how much ``category`` grew in [start, end]."""
    total = collections.Counter()
    for log_path in daemon_logs:
        points = read_stats(log_path)
        before = _at(points, start).get(category, {})
        after = _at(points, end).get(category, {})
        for key, count in after.items():
            grown = count - before.get(key, 0)
            if grown > 0:
                total[key] += grown
    return total


def percentile(values, pct):
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(pct / 100.0 * (len(ordered) - 1))))
    return ordered[index]


class Phase:
    def __init__(self, name):
        self.name = name
        self.start = None
        self.end = None
        self.sent = collections.Counter()
        self.backported = collections.Counter()


def _short(counter, limit=6):
    if not counter:
        return '-'
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    text = ', '.join('%s x%d' % kv for kv in items[:limit])
    if len(items) > limit:
        text += ', ... (%d more)' % (len(items) - limit)
    return text


def render(phases, records):
    """The drill's report, a text table per phase."""
    by_phase = collections.defaultdict(list)
    for record in records:
        by_phase[record.phase].append(record)
    lines = ['%-20s %8s %7s %9s %9s' % ('phase', 'requests', 'failed',
                                        'p50 ms', 'p99 ms')]
    for phase in phases:
        recs = by_phase.get(phase.name, [])
        seconds = [r.seconds * 1000 for r in recs]
        lines.append('%-20s %8d %7d %9.0f %9.0f' % (
            phase.name, len(recs), sum(r.failed for r in recs),
            percentile(seconds, 50), percentile(seconds, 99)))
        lines.append('    objects backported: %s' % _short(phase.backported))
        versions = collections.Counter()
        for key, count in phase.sent.items():
            versions['@' + key.rsplit('@', 1)[-1]] += count
        lines.append('    messages sent by new daemons, by version: %s' %
                     _short(versions))
        lines.append('    ... by method: %s' % _short(phase.sent, 4))
    failures = [r for r in records if r.failed]
    if failures:
        lines.append('failed requests:')
        for record in failures[:20]:
            lines.append('    %s %s -> %s' % (record.phase, record.op,
                                              record.status))
    return '\n'.join(lines)
