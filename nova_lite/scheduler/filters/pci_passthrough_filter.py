"""PciPassthroughFilter: hosts with the PCI devices the flavor asks for.

A flavor asks with ``pci_passthrough:alias`` = "<alias>:<count>,...";
each alias is defined by ``[pci] alias`` (see nova_lite/conf/pci.py).
A host offers free devices in pools (``host_state.pci_stats``), each
{'vendor_id', 'product_id', 'dev_type', 'numa_node', 'count'}.
"""

import json

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import partitions
from nova_lite.scheduler import utils

EXTRA_SPEC = 'pci_passthrough:alias'
_SPEC_KEYS = ('vendor_id', 'product_id', 'dev_type')
_DEVICE_TYPES = ('type-PCI', 'type-PF', 'type-VF')
_NUMA_POLICIES = ('required', 'legacy', 'preferred', 'socket')


def _alias_entry(text):
    try:
        entry = json.loads(text)
    except ValueError as exc:
        raise exception.PciInvalidAlias(reason='not JSON (%s)' % exc)
    if not isinstance(entry, dict) or not str(entry.get('name', '')).strip():
        raise exception.PciInvalidAlias(reason='%s has no "name"' % text)
    if entry.get('device_type', 'type-PCI') not in _DEVICE_TYPES:
        raise exception.PciInvalidAlias(reason='bad device_type in %s' % text)
    if entry.get('numa_policy', 'legacy') not in _NUMA_POLICIES:
        raise exception.PciInvalidAlias(reason='bad numa_policy in %s' % text)
    for key in ('vendor_id', 'product_id'):
        value = str(entry.get(key, '*'))
        if value != '*' and not (len(value) <= 4 and all(
                c in '0123456789abcdefABCDEF' for c in value)):
            raise exception.PciInvalidAlias(reason='bad %s in %s'
                                            % (key, text))
    return entry


def parse_aliases(values):
    """{name: [device spec]} from ``[pci] alias`` values; a spec has the
    vendor_id, product_id and dev_type it requires. Raises
    PciInvalidAlias for a malformed value or aliases of one name that
    disagree on device_type or numa_policy."""
    aliases, kinds = {}, {}
    for text in values:
        entry = _alias_entry(text)
        name = entry['name'].strip()
        kind = (entry.get('device_type'), entry.get('numa_policy', 'legacy'))
        if kinds.setdefault(name, kind) != kind:
            raise exception.PciInvalidAlias(
                reason='aliases named %s differ in device_type or '
                       'numa_policy' % name)
        spec = {key: str(entry[key]).lower() for key in ('vendor_id',
                                                         'product_id')
                if entry.get(key, '*') != '*'}
        if entry.get('device_type'):
            spec['dev_type'] = entry['device_type']
        aliases.setdefault(name, []).append(spec)
    return aliases


def alias_numa_policies(values):
    """{alias name: numa_policy} of ``[pci] alias`` (legacy when unset);
    raises PciInvalidAlias as parse_aliases does."""
    return {entry['name'].strip(): entry.get('numa_policy', 'legacy')
            for entry in map(_alias_entry, values)}


def requested_devices(spec_obj):
    """[(alias name, count)] of the flavor's ``pci_passthrough:alias``."""
    text = utils.extra_specs(spec_obj).get(EXTRA_SPEC)
    wanted = []
    for item in (text or '').split(','):
        if item.strip():
            name, _sep, count = item.partition(':')
            wanted.append((name.strip(), int(count or 1)))
    return wanted


def _matches(pool, specs):
    return any(all(str(pool.get(key, '')).lower() == str(value).lower()
                   for key, value in spec.items()) for spec in specs)


def first_shortfall(pools, wanted, aliases):
    """The first (alias, count) the pools cannot supply, or None; each
    request takes its devices from the matching pools in order, so two
    requests never count the same device."""
    free = [dict(pool) for pool in pools]
    for name, count in wanted:
        specs = aliases.get(name)
        if specs is None:
            return name, count
        need = count
        for pool in free:
            if need and _matches(pool, specs):
                taken = min(need, pool.get('count', 0))
                pool['count'] = pool.get('count', 0) - taken
                need -= taken
        if need:
            return name, count
    return None


def pools_key(host_state):
    """What ``PciPassthroughFilter`` reads of a host: its free pools."""
    return partitions.freeze(utils.pci_pools(host_state))


class PciPassthroughFilter(rules.RuleFilter):
    """Passes every host for a flavor without ``pci_passthrough:alias``;
    otherwise hosts whose free PCI pools supply every requested
    "<alias>:<count>" together. A pool supplies an alias when it matches
    one of the alias' device specs (vendor_id, product_id, device_type).
    An alias missing from ``[pci] alias`` fails every host; a malformed
    ``[pci] alias`` raises PciInvalidAlias. Rejection reasons: "lack PCI
    <alias> x<count>", "PCI alias <name> is not defined", "bad
    pci_passthrough:alias".
    """

    def parse_request(self, spec_obj):
        """(wanted, aliases); raises PciInvalidAlias for a malformed
        ``[pci] alias``."""
        try:
            wanted = requested_devices(spec_obj)
        except ValueError:
            return rules.Refused('bad %s' % EXTRA_SPEC)
        if not wanted:
            return rules.EVERY_HOST
        return wanted, parse_aliases(CONF.pci.alias)

    def failure(self, host_state, request):
        wanted, aliases = request
        short = first_shortfall(utils.pci_pools(host_state), wanted,
                                aliases)
        if short is None:
            return None
        if short[0] not in aliases:
            return 'PCI alias %s is not defined' % short[0]
        return 'lack PCI %s x%d' % short

    def partition(self, request):
        return 'pci', pools_key

    def cache_key(self, request):
        return partitions.freeze(request)
