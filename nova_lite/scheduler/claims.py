"""Claims: how the scheduling core takes and gives back resources.

The core (``filter_scheduler``) sees only the small ``Claimer`` interface,
so it is tested with an in-memory claimer; ``PlacementClaimer`` is the
real one, over placement's compare-and-swap on provider generations.
"""

from oslo_db import exception as db_exc

from nova_lite import exception
from nova_lite.placement import allocations


class Claimer:
    """Takes resources for a consumer on a host, and gives them back.

    ``claim`` allocates ``resources`` ({resource_class: amount}) to
    ``consumer_uuid`` on ``host_state``'s provider, provided the
    provider's generation is still ``host_state.generation``, and returns
    the provider's new generation. It raises ClaimConflict, having
    written nothing, when the provider changed (the caller refreshes the
    host and tries another). ``release`` removes every allocation of
    ``consumer_uuid``.
    """

    def claim(self, host_state, consumer_uuid, spec_obj, resources):
        raise NotImplementedError()

    def release(self, consumer_uuid):
        raise NotImplementedError()


class PlacementClaimer(Claimer):
    """Claims in nova_lite's placement tables, as ``context``.

    The consumer's project and user are the request's (``spec_obj``).
    """

    def __init__(self, context):
        self.context = context

    def claim(self, host_state, consumer_uuid, spec_obj, resources):
        uuid = host_state.uuid
        try:
            generations = allocations.claim(
                self.context, consumer_uuid, spec_obj.project_id,
                spec_obj.user_id, {uuid: dict(resources)},
                expected_generations={uuid: host_state.generation})
        except (exception.ResourceProviderNotFound, db_exc.DBDeadlock):
            # Deleted since it was read, or the claim was the victim of a
            # deadlock with a concurrent write (MariaDB's gap locks on
            # the allocations, under deletes): rolled back, nothing
            # written; to the caller, a provider that changed under the
            # claim like any other, refreshed and claimed again or passed
            # over for the next candidate.
            raise exception.ClaimConflict(uuid=uuid,
                                          generation=host_state.generation)
        return generations[uuid]

    def release(self, consumer_uuid):
        return allocations.remove(self.context, consumer_uuid)
