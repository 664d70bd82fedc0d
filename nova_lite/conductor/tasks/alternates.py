"""Rescheduling to an alternate: the first one still usable.

A step that failed on its host (a build, a move's preparation, an
unshelve, an evacuation's rebuild) hands back the alternates the
scheduler chose along with that host. Each carries an allocation request
that is claimed when it is taken; one that filled up or changed meanwhile
is skipped for the next.

    rest = alternates.claim_first(context, instance, host_list,
                                  'the move')
    if rest is None:
        raise MaxRetriesExceeded(reason='... %s' % alternates.tried(spec))
"""

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.placement import allocations

LOG = logging.getLogger(__name__)

# Claiming an alternate fails this way when it filled up or changed.
GONE = (exception.InsufficientCapacity, exception.ClaimConflict,
        exception.ResourceProviderNotFound)


def claim_first(context, instance, host_list, what):
    """Move ``instance``'s allocations to the first alternate of
    ``host_list`` that can still be claimed (the write tells the
    schedulers); returns the list from that alternate on, or None if
    none is usable.
    ``what`` names the operation in the log ("the move", ...)."""
    for index, selection in enumerate(host_list or ()):
        try:
            released, claimed = allocations.replace(
                context, instance.uuid, instance.project_id,
                instance.user_id, selection.allocations)
        except GONE as exc:
            LOG.info('Alternate %s for %s of %s is no longer usable: %s',
                     selection.service_host, what, instance.uuid,
                     exc.format_message())
            continue
        return list(host_list[index:])
    return None


def tried(request_spec):
    """The hosts (and nodes) the spec records as tried, or 'none'."""
    retry = (request_spec.retry if request_spec is not None
             and request_spec.obj_attr_is_set('retry') else None)
    return ', '.join('%s (%s)' % tuple(pair)
                     for pair in (retry.hosts if retry else ())) or 'none'
