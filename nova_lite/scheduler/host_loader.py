"""The reads host states are built from, by default from the database.

The host manager reads through a loader so that tests give it a fake
one and touch no database; ``DatabaseLoader`` is the real one.
"""

from nova_lite import objects
from nova_lite.placement import summaries
from nova_lite.scheduler import host_digest
from nova_lite.scheduler import host_instances
from nova_lite.scheduler import host_rows
from nova_lite.scheduler import host_services

COMPUTE_BINARY = 'nova-lite-compute'


class DatabaseLoader:
    """Reads the records host states are built from.

    ``compute_nodes`` returns ComputeNode objects (all, or those of
    ``uuids``), ``services`` the compute Service objects, ``summaries``
    {provider uuid: ProviderSummary}, ``aggregates`` Aggregate objects
    (all, or those among ``uuids``), ``instances`` {node uuid:
    [HostInstance]} (of every node, or of ``uuids``). A fake with the
    same five methods stands in for it in tests.
    """

    def compute_nodes(self, ctxt, uuids=None):
        if uuids is None:
            return objects.ComputeNodeList.get_all(ctxt)
        return objects.ComputeNodeList.get_all_by_uuids(ctxt, sorted(uuids))

    def compute_node_rows(self, ctxt, uuids=None):
        """[NodeRow] of the compute nodes (optional: the load and change
        notices read these rather than ComputeNode objects when they
        can)."""
        return host_rows.get_rows(ctxt, uuids)

    def service_rows(self, ctxt, hosts=None):
        """[(ServiceRecord, created_at)] of the compute services (of
        ``hosts``, when given) (optional: the load and change notices
        read these rather than Service objects when they can)."""
        return host_rows.get_service_rows(ctxt, COMPUTE_BINARY, hosts)

    def services(self, ctxt):
        return objects.ServiceList.get_all(ctxt, binary=COMPUTE_BINARY)

    def services_to_recheck(self, ctxt, now, down_time, hosts):
        """The compute services not plainly up and enabled as of ``now``,
        and those of ``hosts`` (optional: without it the host manager
        re-reads every service)."""
        return host_services.services_to_recheck(
            ctxt, COMPUTE_BINARY, now, down_time, hosts)

    def services_of_hosts(self, ctxt, hosts):
        """The compute services of ``hosts`` (optional: without it a
        change notice leaves the services to ``sync_services``)."""
        return host_services.services_of_hosts(ctxt, COMPUTE_BINARY, hosts)

    def digest(self, ctxt):
        """{node uuid: (node updated_at, provider generation)} (optional:
        without it ``catch_up`` reloads everything)."""
        return host_digest.get_digest(ctxt)

    def summaries(self, ctxt, uuids=None):
        return summaries.get_summaries(
            ctxt, None if uuids is None else sorted(uuids))

    def aggregates(self, ctxt, uuids=None):
        if uuids is None:
            return objects.AggregateList.get_all(ctxt)
        return objects.AggregateList.get_by_uuids(ctxt, sorted(uuids))

    def instances(self, ctxt, uuids=None):
        return host_instances.get_host_instances(
            ctxt, None if uuids is None else sorted(uuids))
