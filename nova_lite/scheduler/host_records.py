"""The records a HostState keeps besides its own fields: host aggregates
(shared by their hosts), the compute service (a small record, and the
view filters read), and how fields are read from versioned objects.
"""

import collections
import sys

from nova_lite.scheduler import host_compact


class AggregateView:
    """A host aggregate as the scheduler holds it (Nova's attributes).

    Shared by the HostStates of its hosts and updated in place, so every
    host sees a change at once.
    """

    __slots__ = ('id', 'uuid', 'name', 'hosts', 'metadata')

    def __init__(self, aggregate):
        self.id = None
        self.uuid = aggregate.uuid
        self.update(aggregate)

    def update(self, aggregate):
        self.id = read_field(aggregate, 'id')
        self.name = aggregate.name
        self.hosts = [host_name(host) for host in aggregate.hosts]
        self.metadata = dict(aggregate.metadata)

    @property
    def availability_zone(self):
        return self.metadata.get('availability_zone')

    def __repr__(self):
        return '<Aggregate %s %s>' % (self.name, self.uuid)


class ServiceView(dict):
    """The fields of a compute service that filters read.

    A plain dict snapshot, so Nova-style ``host_state.service['disabled']``
    works, with attribute access (``host_state.service.disabled``) too.
    """

    __slots__ = ()

    _FIELDS = ('id', 'uuid', 'host', 'binary', 'disabled', 'disabled_reason',
               'forced_down', 'version', 'last_seen_up', 'updated_at')

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def from_service(cls, service):
        """Snapshot a Service object (or anything with its attributes)."""
        if isinstance(service, dict):
            return cls(service)
        return cls((name, read_field(service, name))
                   for name in cls._FIELDS)


class ServiceRecord(collections.namedtuple('ServiceRecord',
                                           ServiceView._FIELDS)):
    """What the scheduler keeps of a compute service: the fields of
    ServiceView, a tenth of the size of a Service object (which a
    million hosts would hold for a gigabyte)."""

    __slots__ = ()

    @classmethod
    def of(cls, service):
        """The record of a Service object (or anything with its
        attributes); None, a dict or a record is returned as it is."""
        if service is None or isinstance(service, (cls, dict)):
            return service
        values = read_fields(service, ServiceView._FIELDS)
        values[2] = host_name(values[2])
        values[3] = host_compact.shared(values[3])
        return cls._make(values)


def host_name(name):
    """One string object per host name: the node, its service and its
    aggregates name it in three records, and a million hosts would
    otherwise keep three copies."""
    return sys.intern(name) if type(name) is str else name


def read_fields(obj, names):
    """[``read_field(obj, name)`` for each of ``names`` (a tuple)], read
    straight from a versioned object's attributes when it is one (unset:
    None)."""
    values = getattr(obj, '__dict__', None)
    if values is not None and '_changed_fields' in values:
        attrs = _ATTRS.get(names)
        if attrs is None:
            attrs = _ATTRS[names] = tuple('_obj_' + name for name in names)
        return list(map(values.get, attrs))
    return [read_field(obj, name) for name in names]


# {names: the attributes a versioned object keeps their values in}: a
# few tuples of names, read for every host at load.
_ATTRS = {}


def read_field(obj, name, default=None):
    """``obj.name``, or ``default`` when unset (versioned objects raise)."""
    values = getattr(obj, '__dict__', None)
    if values is not None and '_obj_' + name in values:
        # A set field of a versioned object, read without its property
        # (this runs for every field of every host at load).
        return values['_obj_' + name]
    is_set = getattr(obj, 'obj_attr_is_set', None)
    if is_set is not None and name in getattr(obj, 'fields', ()):
        return getattr(obj, name) if is_set(name) else default
    return getattr(obj, name, default)


def metrics(raw):
    """{name: float} of a ComputeNode's metrics (non-numbers skipped)."""
    result = {}
    for name, value in (raw or {}).items():
        try:
            result[name] = float(value)
        except (TypeError, ValueError):
            continue
    return result


def int_stat(stats, key):
    """``stats[key]`` as an int (0 when absent or not a number)."""
    try:
        return int(stats.get(key) or 0)
    except (TypeError, ValueError):
        return 0
