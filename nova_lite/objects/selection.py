"""Selection: one host the scheduler chose, and how to claim it again.

``select_destinations`` answers with a list per instance: the first
Selection was claimed by the scheduler, the rest are alternates whose
``allocation_request`` the conductor claims if the build on the first
fails.
"""

from oslo_serialization import jsonutils

from nova_lite.objects import base
from nova_lite.objects import fields


@base.NovaLiteObjectRegistry.register
class Selection(base.NovaLiteObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'service_host': fields.StringField(),
        'nodename': fields.StringField(),
        'compute_node_uuid': fields.UUIDField(),
        'allocation_request': fields.StringField(nullable=True),
        'allocation_request_version': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
    }

    @classmethod
    def from_host_state(cls, host_state, resources):
        """The Selection of ``host_state`` for an instance needing
        ``resources`` ({resource_class: amount})."""
        request = {'allocations': {
            host_state.uuid: {'resources': dict(resources)}}}
        return cls(service_host=host_state.host,
                   nodename=host_state.nodename,
                   compute_node_uuid=host_state.uuid,
                   allocation_request=jsonutils.dumps(request),
                   allocation_request_version='1.0',
                   availability_zone=host_state.availability_zone)

    @property
    def allocations(self):
        """{provider_uuid: {resource_class: amount}} to claim."""
        request = jsonutils.loads(self.allocation_request or '{}')
        return {uuid: alloc['resources']
                for uuid, alloc in request.get('allocations', {}).items()}
