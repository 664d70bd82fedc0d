"""ComputeCapabilitiesFilter: flavor extra specs against host capabilities."""

import functools
import json

from oslo_log import log as logging

from nova_lite.scheduler import filters
from nova_lite.scheduler.filters import extra_specs_ops
from nova_lite.scheduler import utils

LOG = logging.getLogger(__name__)

SCOPE = 'capabilities'


def _step(cap, name):
    """One step of a capability path: into JSON text, a dict, or an
    attribute of the host (falling back to its ``stats``)."""
    if isinstance(cap, str):
        try:
            cap = json.loads(cap)
        except ValueError:
            return None
    if isinstance(cap, dict):
        return cap.get(name)
    value = getattr(cap, name, None)
    if value is None:
        stats = getattr(cap, 'stats', None) or {}
        value = stats.get(name)
    return value


def get_capability(host_state, path):
    """The capability ``path`` (a list of names) designates, or None."""
    cap = host_state
    for name in path:
        cap = _step(cap, name)
        if cap is None:
            return None
    return cap


def _requirements(host_state, specs):
    """(key, path, requirement) of the extra specs this filter checks."""
    for key, req in specs.items():
        path = key.split(':')
        if len(path) == 1:
            # An unscoped key is checked only when the host has such an
            # attribute or stat (backward compatibility; it clashes with
            # AggregateInstanceExtraSpecsFilter, as the seed warns).
            stats = getattr(host_state, 'stats', None) or {}
            if not (hasattr(host_state, key) or key in stats):
                continue
        elif path[0] != SCOPE:
            continue
        else:
            path = path[1:]
        yield key, path, req


def _checked(key):
    """Whether this filter may read extra spec ``key``."""
    scope, sep, _rest = key.partition(':')
    return not sep or scope == SCOPE


def capability_key(keys, host_state):
    """What ``_first_failure`` reads of a host for extra specs ``keys``:
    per key, whether an unscoped one applies and the capability as
    text."""
    stats = getattr(host_state, 'stats', None) or {}
    key = []
    for name in keys:
        path = name.split(':')
        if len(path) == 1:
            applies = hasattr(host_state, name) or name in stats
        else:
            applies, path = True, path[1:]
        cap = get_capability(host_state, path) if applies else None
        key.append((applies, None if cap is None else str(cap)))
    return tuple(key)


class ComputeCapabilitiesFilter(filters.BaseHostFilter):
    """Passes hosts whose capabilities satisfy every flavor extra spec in
    the ``capabilities:`` scope (and every unscoped one naming a host
    attribute or stat).

    The key after the scope is a path: ``capabilities:hypervisor_type``
    reads ``host_state.hypervisor_type`` (or ``stats['hypervisor_type']``
    when the host has no such attribute); ``capabilities:cpu_info:arch``
    walks into the ``cpu_info`` JSON. The value is a requirement with an
    operator (see ``extra_specs_ops``), matched against the capability as
    a string. A capability the host lacks fails the host. Other scopes
    (``hw:``, ``trait:``, ``aggregate_instance_extra_specs:``...) are
    ignored. Rejection reason: "fail <key>=<requirement>".
    """

    # The flavor and the host's capabilities do not change within a
    # request (as in Nova, even the numeric ones).
    run_filter_once_per_request = True

    def _first_failure(self, host_state, spec_obj):
        specs = utils.extra_specs(spec_obj)
        for key, path, req in _requirements(host_state, specs):
            cap = get_capability(host_state, path)
            if cap is None or not extra_specs_ops.match(str(cap), req):
                LOG.debug('%s fails extra spec %s=%s (has %s)', host_state,
                          key, req, cap)
                return key, req
        return None

    def host_passes(self, host_state, spec_obj):
        return self._first_failure(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        specs = utils.extra_specs(spec_obj)
        keys = tuple(sorted(key for key in specs if _checked(key)))
        if not keys:
            return True
        return population.evaluate(
            ('capabilities', keys), functools.partial(capability_key, keys),
            lambda host: self.host_passes(host, spec_obj),
            cache=tuple(specs[key] for key in keys))

    def rejection_reason(self, host_state, spec_obj):
        failure = self._first_failure(host_state, spec_obj)
        return None if failure is None else 'fail %s=%s' % failure
