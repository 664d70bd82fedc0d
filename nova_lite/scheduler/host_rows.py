"""Compute nodes and services read as rows for the start-up load: the
columns a host state is built from, without a ComputeNode or Service
object per node.

Making a versioned object per node (every field coerced through its
setter, then read back) cost about as much as building the host state
from it, and at a million hosts the load is bound by such per-host
steps. The bulk load (``HostManager.load_all`` with a loader that has
``compute_node_rows``) reads these rows instead; every other read of a
node (a change notice, the catch-up) still goes through ComputeNode.

A row holds the values the ComputeNode would: ``stats`` values strings
(None kept), the JSON columns decoded, ``updated_at`` aware of UTC,
``hypervisor_version`` and ``running_vms`` ints. A service is read as
its ServiceRecord and ``created_at`` (what ``is_up`` needs besides). The
functional tests compare the two reads on the database.

    rows = get_rows(ctxt, uuids)
    state = HostState.from_row(rows[0], service, up, summary, instances)
"""

import collections
import datetime

from oslo_serialization import jsonutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.scheduler import host_compact
from nova_lite.scheduler import host_records

# The compute node columns a host state reads, in a NodeRow's order.
NODE_ROW_FIELDS = ('uuid', 'host', 'hypervisor_hostname', 'hypervisor_type',
                   'hypervisor_version', 'cpu_info', 'host_ip', 'updated_at',
                   'stats', 'metrics', 'pci_device_pools', 'numa_topology',
                   'running_vms')


class NodeRow(collections.namedtuple('NodeRow', NODE_ROW_FIELDS)):
    """One compute node's columns, with the values its ComputeNode
    would hold (see the module's docstring)."""

    __slots__ = ()


def _json(raw):
    return jsonutils.loads(raw) if raw else None


def _stats(raw):
    # As DictOfNullableStringsField coerces them.
    stats = jsonutils.loads(raw) if raw else {}
    return {key: None if value is None else str(value)
            for key, value in stats.items()}


def _aware(value):
    # As DateTimeField coerces a naive time: UTC.
    if value is None or value.utcoffset() is not None:
        return value
    return value.replace(tzinfo=datetime.UTC)


def row_of(values):
    """The NodeRow of a database row's ``values`` (in NODE_ROW_FIELDS'
    order, the JSON columns still text)."""
    (uuid, host, nodename, hv_type, hv_version, cpu_info, host_ip,
     updated_at, stats, metrics, pci_pools, numa_cells, running_vms) = values
    return NodeRow(uuid, host, nodename, hv_type, int(hv_version), cpu_info,
                   host_ip, _aware(updated_at), _stats(stats), _json(metrics),
                   _json(pci_pools), _json(numa_cells), int(running_vms or 0))


@db_api.reader
def get_rows(context, uuids=None):
    """[NodeRow] of the compute nodes of ``uuids`` (all when None), in
    the order of their ids."""
    node = models.ComputeNode
    query = sa.select(*[getattr(node, name) for name in NODE_ROW_FIELDS])
    if uuids is not None:
        if not uuids:
            return []
        query = query.where(node.uuid.in_(sorted(uuids)))
    query = query.order_by(node.id)
    return [row_of(values) for values in context.session.execute(query)]


# What a ServiceRecord holds, then created_at.
_SERVICE_COLUMNS = host_records.ServiceView._FIELDS + ('created_at',)


def service_of(values):
    """(ServiceRecord, created_at) of a database row's ``values`` (in
    _SERVICE_COLUMNS' order), with the values a Service would hold."""
    (id_, uuid, host, binary, disabled, reason, forced_down, version,
     last_seen_up, updated_at, created_at) = values
    record = host_records.ServiceRecord(
        id_, uuid, host_records.host_name(host), host_compact.shared(binary),
        bool(disabled), reason, bool(forced_down), version,
        _aware(last_seen_up), _aware(updated_at))
    return record, _aware(created_at)


@db_api.reader
def get_service_rows(context, binary, hosts=None):
    """[(ServiceRecord, created_at)] of the services of ``binary`` (on
    ``hosts`` only, when given), in the order of their ids."""
    service = models.Service
    query = (sa.select(*[getattr(service, name)
                         for name in _SERVICE_COLUMNS])
             .where(service.binary == binary).order_by(service.id))
    if hosts is not None:
        if not hosts:
            return []
        query = query.where(service.host.in_(sorted(hosts)))
    return [service_of(values) for values in context.session.execute(query)]
