"""Host aggregates, API side: Nova's AggregateAPI rules.

Checks a change against the zones and services it touches, hands the
write to the conductor (the Aggregate object's remotable methods run
there, placement mirroring included); those writes tell the schedulers
(``placement.changes``): the uuids of the providers whose placement
aggregates moved, plus the aggregate's own uuid, so they re-read its
hosts and metadata.

Zone rules (Nova's): a zone name is neither empty nor the internal
services' zone; a host is in one zone only, so adding it to a zoned
aggregate, or zoning an aggregate, fails when one of the hosts is already
in another zone; and a zone does not change under hosts that run
instances (their servers would be in a zone that no longer exists).
"""

from oslo_log import log as logging

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import aggregate as aggregate_obj

LOG = logging.getLogger(__name__)

COMPUTE_BINARY = 'nova-lite-compute'
AZ_KEY = aggregate_obj.AZ_KEY

ADD = 'add_host_to_aggregate'
UPDATE = 'update_aggregate'
UPDATE_META = 'update_aggregate_metadata'
_ACTION_ERRORS = {
    'create_aggregate': exception.InvalidAggregateAction,
    ADD: exception.InvalidAggregateActionAdd,
    UPDATE: exception.InvalidAggregateActionUpdate,
    UPDATE_META: exception.InvalidAggregateActionUpdateMeta,
}


def _invalid(action, aggregate_id, reason):
    return _ACTION_ERRORS[action](action=action, aggregate_id=aggregate_id,
                                  reason=reason)


class AggregateAPI:
    """What the os-aggregates handlers ask; each method returns the
    Aggregate as it now is, or raises the nova_lite exception the
    handler turns into a 400, 404 or 409."""

    @staticmethod
    def get(context, aggregate_id):
        """The aggregate; AggregateNotFound (404)."""
        try:
            return objects.Aggregate.get_by_id(context, int(aggregate_id))
        except (TypeError, ValueError):
            raise exception.AggregateNotFound(aggregate_id=aggregate_id)

    @staticmethod
    def get_all(context):
        return objects.AggregateList.get_all(context)

    def create(self, context, name, availability_zone=None):
        aggregate = objects.Aggregate(context=context, name=name)
        if availability_zone is not None:
            self._check_zone_name('create_aggregate', name,
                                  availability_zone)
            aggregate.metadata = {AZ_KEY: availability_zone}
        aggregate.create()
        return aggregate

    def update(self, context, aggregate_id, values):
        """Rename and/or re-zone (``availability_zone`` None unzones)."""
        aggregate = self.get(context, aggregate_id)
        values = dict(values)
        if 'name' in values:
            aggregate.name = values.pop('name')
            aggregate.save()
        if AZ_KEY in values:
            self._check_zone_change(context, UPDATE, aggregate, values)
            aggregate.update_metadata(values)
        return aggregate

    def update_metadata(self, context, aggregate_id, metadata):
        """Set keys; a None value removes one."""
        aggregate = self.get(context, aggregate_id)
        if AZ_KEY in metadata:
            self._check_zone_change(context, UPDATE_META, aggregate,
                                    metadata)
        aggregate.update_metadata(metadata)
        return aggregate

    def delete(self, context, aggregate_id):
        """Delete an empty aggregate (InvalidAggregateActionDelete)."""
        aggregate = self.get(context, aggregate_id)
        aggregate.destroy()

    def add_host(self, context, aggregate_id, host):
        """Put a compute host (ComputeHostNotFound) in the aggregate."""
        self._check_compute_host(context, host)
        aggregate = self.get(context, aggregate_id)
        zone = aggregate.availability_zone
        if zone:
            self._check_hosts_zone(context, ADD, aggregate, zone, [host])
        aggregate.add_host(host)
        LOG.info('Added host %s to aggregate %s (%s)', host, aggregate.name,
                 aggregate.uuid)
        return aggregate

    def remove_host(self, context, aggregate_id, host):
        self._check_compute_host(context, host)
        aggregate = self.get(context, aggregate_id)
        aggregate.delete_host(host)
        LOG.info('Removed host %s from aggregate %s (%s)', host,
                 aggregate.name, aggregate.uuid)
        return aggregate

    # Checks

    @staticmethod
    def _check_compute_host(context, host):
        try:
            objects.Service.get_by_host_and_binary(context, host,
                                                   COMPUTE_BINARY)
        except exception.ServiceNotFound:
            raise exception.ComputeHostNotFound(host=host)

    @staticmethod
    def _check_zone_name(action, aggregate_id, zone):
        if zone == CONF.internal_service_availability_zone:
            raise _invalid(action, aggregate_id,
                           'the availability zone %s is reserved for '
                           'internal services' % zone)

    def _check_zone_change(self, context, action, aggregate, metadata):
        zone = metadata[AZ_KEY]
        if zone == '':
            raise _invalid(action, aggregate.id, 'Aggregate %s does not '
                           'support empty named availability zone'
                           % aggregate.name)
        if zone == aggregate.availability_zone:
            return
        if zone is not None:
            self._check_zone_name(action, aggregate.id, zone)
            self._check_hosts_zone(context, action, aggregate, zone,
                                   aggregate.hosts)
        if aggregate.hosts and objects.InstanceList.get_by_filters(
                context, {'host': list(aggregate.hosts)}, limit=1):
            raise _invalid(action, aggregate.id, 'One or more hosts '
                           'contain instances in this zone')

    @staticmethod
    def _check_hosts_zone(context, action, aggregate, zone, hosts):
        """No host of ``hosts`` may be in another zone already."""
        conflicting = set()
        for host in hosts:
            for other in objects.AggregateList.get_by_host(context, host,
                                                           key=AZ_KEY):
                if other.id != aggregate.id and (other.availability_zone
                                                 != zone):
                    conflicting.add(other.availability_zone)
        if conflicting:
            raise _invalid(action, aggregate.id, 'One or more hosts '
                           'already in availability zone(s) %s'
                           % sorted(conflicting))
