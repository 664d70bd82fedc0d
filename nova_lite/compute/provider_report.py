"""What a compute tells placement about a node: inventories and traits.

Trait ownership follows seed 000 ("compute capability traits"): the
compute owns every standard ``COMPUTE_*`` trait and the capability traits
its driver reports, adds them on every report, removes those it no longer
supports, and leaves every other trait on the provider alone. The driver
traits it reported last are remembered in
``$state_path/compute/<host>.json``, so a trait dropped from the driver
while the compute was down is still removed after the restart.
"""

import os_traits
from oslo_log import log as logging

from nova_lite.compute import claims
from nova_lite import exception
from nova_lite.virt import local_state

LOG = logging.getLogger(__name__)

STATE_SUBDIR = 'compute'

# Standard traits whose presence on a node's provider the compute decides.
COMPUTE_OWNED_TRAITS = frozenset(os_traits.get_traits(prefix='COMPUTE_'))


def inventories(resources):
    """Inventory records for a node whose driver reported ``resources``.

    {resource_class: {total, reserved, min_unit, max_unit, step_size,
    allocation_ratio, initial_allocation_ratio}}, the format of
    ConductorAPI.update_compute_provider. A class with no total is left
    out (placement cannot hold an empty inventory). ``allocation_ratio``
    is the forced [DEFAULT] *_allocation_ratio or None, which keeps the
    ratio an administrator set in placement.
    """
    reserved = claims.reserved_amounts()
    forced = claims.forced_ratios()
    initial = claims.initial_ratios()
    result = {}
    for rc, key in claims.TOTAL_KEYS.items():
        total = int(resources.get(key) or 0)
        if total <= 0:
            continue
        result[rc] = {
            'total': total,
            # A reservation above the total means "all of it".
            'reserved': min(reserved[rc], total),
            'min_unit': 1,
            'max_unit': total,
            'step_size': 1,
            'allocation_ratio': forced[rc],
            'initial_allocation_ratio': initial[rc],
        }
    return result


def reported_traits(driver_traits, disabled):
    """The traits a node's provider must have, as a frozenset.

    The driver's capability traits, COMPUTE_NODE (which marks every
    compute node provider, as in Nova) and COMPUTE_STATUS_DISABLED while
    the compute service is disabled.
    """
    traits = set(driver_traits)
    traits.add(os_traits.COMPUTE_NODE)
    if disabled:
        traits.add(os_traits.COMPUTE_STATUS_DISABLED)
    return frozenset(traits)


def owned_traits(driver_traits, previously_reported):
    """The traits the compute may add or remove on a node's provider."""
    return (COMPUTE_OWNED_TRAITS | frozenset(driver_traits)
            | frozenset(previously_reported))


class ReportedTraitsStore:
    """The driver traits last reported per node uuid, kept on disk.

    ``get(uuid)`` returns a frozenset (empty when unknown); ``set(uuid,
    traits)`` records a successful report. A broken file is logged and
    treated as empty: the worst outcome is a dropped trait that lingers.
    """

    def __init__(self, host):
        self.path = local_state.state_file(STATE_SUBDIR, host)
        self._traits = None

    def _load(self):
        if self._traits is None:
            try:
                data = local_state.load(self.path)
            except exception.ConfigInvalid as exc:
                LOG.warning('Ignoring reported traits: %s',
                            exc.format_message())
                data = {}
            stored = data.get('reported_traits')
            if not isinstance(stored, dict):
                stored = {}
            self._traits = {uuid: frozenset(names)
                            for uuid, names in stored.items()
                            if isinstance(names, list)}
        return self._traits

    def get(self, node_uuid):
        return self._load().get(node_uuid, frozenset())

    def set(self, node_uuid, traits):
        known = self._load()
        traits = frozenset(traits)
        if known.get(node_uuid) == traits:
            return
        known[node_uuid] = traits
        try:
            local_state.save(self.path, {'reported_traits': {
                uuid: sorted(names) for uuid, names in known.items()}})
        except OSError:
            LOG.exception('Cannot record reported traits in %s', self.path)
