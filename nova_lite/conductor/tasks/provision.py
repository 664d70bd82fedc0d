"""Provisioning: the records of a boot request, written in one transaction.

Quota first: reserve for max_count, shrinking to what fits (never below
min_count, else OverQuota, a 403 naming each resource). Then every
instance row, its RequestSpec and the commit of the reservation go in one
transaction, so the records and the usage that accounts for them appear
together or not at all; a failure before that commit rolls the
reservation back, and one the conductor did not live to roll back expires
(see ``nova_lite.quota.reservations``).

A request the API may send again (``request_key``, conductor RPC 1.7)
writes its key in that transaction too, so an attempt after a lost
answer returns the first attempt's servers (``request_keys``).
"""

import re
import time

from oslo_log import log as logging
from oslo_utils import excutils
from oslo_utils import uuidutils

from nova_lite.conductor.tasks import ownership
from nova_lite.conductor.tasks import request_keys
from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import reservations as quota_reservations
from nova_lite.quota import resources as quota_resources
from nova_lite.quota import usages as quota_usages

LOG = logging.getLogger(__name__)

_HOSTNAME_BAD = re.compile(r'[^a-z0-9-]+')
# ``provision``'s "owned" for the servers of an earlier attempt of the
# same request: not this call's to build.
EARLIER = 'earlier'


def _hostname(display_name, uuid):
    """A DNS-safe hostname from the display name (Nova's sanitising)."""
    name = _HOSTNAME_BAD.sub('-', (display_name or '').lower()).strip('-')
    return name[:63].rstrip('-') or 'server-%s' % uuid


def _display_name(template, name, index, count, uuid):
    if count == 1 or not name:
        return name
    try:
        return CONF.multi_instance_display_name_template % {
            'name': name, 'count': index + 1, 'uuid': uuid}
    except (KeyError, TypeError, ValueError):
        LOG.warning('Bad multi_instance_display_name_template %r; using '
                    '"name-index"', CONF.multi_instance_display_name_template)
        return '%s-%d' % (name, index + 1)


def _new_instance(context, template, index, count):
    instance = template.obj_clone()
    instance._context = context
    instance.uuid = uuidutils.generate_uuid()
    instance.launch_index = index
    instance.display_name = _display_name(template, template.display_name,
                                          index, count, instance.uuid)
    # A hostname the user asked for (API 2.90, one server only) is kept.
    requested = (template.hostname if template.obj_attr_is_set('hostname')
                 else None)
    instance.hostname = requested or _hostname(instance.display_name,
                                                instance.uuid)
    return instance


def how_many(min_count, max_count):
    """How many instances to create; the quota engine narrows this later."""
    if min_count < 1 or max_count < min_count:
        raise exception.InvalidInput(
            reason='min_count must be at least 1 and at most max_count')
    return max_count


def check_metadata_items(context, template):
    """Raise MetadataLimitExceeded (403) if the server carries more
    metadata items than the caller's quota allows."""
    requested = len(template.metadata or {})
    if not requested:
        return
    _project, user = quota_limits.get_limits(
        context, template.project_id, template.user_id,
        context.quota_class)
    allowed = user['metadata_items']
    if allowed != -1 and requested > allowed:
        raise exception.MetadataLimitExceeded(requested=requested,
                                              allowed=allowed)


def reserve_quota(context, template, min_count, max_count):
    """Reserve instances, cores and ram for as many servers as fit."""
    flavor = template.flavor
    per_instance = quota_resources.instance_deltas(
        template.vcpus if template.obj_attr_is_set('vcpus')
        else flavor.vcpus,
        template.memory_mb if template.obj_attr_is_set('memory_mb')
        else flavor.memory_mb,
        flavor.extra_specs)
    return quota_reservations.reserve(
        context, template.project_id, template.user_id, per_instance,
        min_count=min_count, max_count=max_count,
        quota_class=context.quota_class)


@quota_usages.retry
def _create_records(context, template, request_spec, reservation,
                    request_key=None):
    count = reservation.count
    track_owner = ownership.enabled(context)
    with db_api.writer.using(context) as session:
        if request_key is not None:
            # First, so a second attempt waits here for this one.
            request_keys.claim_in_session(session, request_key,
                                          template.project_id,
                                          template.reservation_id)
        instances = [_new_instance(context, template, index, count)
                     for index in range(count)]
        # This conductor owns the builds until one takes their cast.
        objects.Instance.create_all_in_session(
            session, instances,
            build_owner=ownership.token() if track_owner else None)
        # As Nova, a server's history starts with its create.
        objects.InstanceAction.create_all_in_session(session, [
            objects.InstanceAction.for_request(context, i.uuid, 'create')
            for i in instances])
        objects.RequestSpec.create_all_in_session(session, [
            request_spec.copy_for_instance(i.uuid) for i in instances])
        _join_server_group(context, request_spec, instances)
        quota_reservations.commit_in_session(session, reservation)
    return instances, track_owner


def _join_server_group(context, request_spec, instances):
    """Make the instances members of the request's server group (the
    scheduler hint ``group``), in the caller's transaction."""
    group = (request_spec.instance_group
             if request_spec.obj_attr_is_set('instance_group') else None)
    if group is not None:
        objects.InstanceGroup.add_members(context, group.uuid,
                                          [i.uuid for i in instances])


def provision_instances(context, template, request_spec, min_count,
                        max_count, request_key=None):
    """Create between min_count and max_count instances (as many as the
    quota allows) and their RequestSpecs.

    Returns the InstanceList created, in launch order (or, for a
    ``request_key`` already provisioned, the one its first attempt
    created). Raises OverQuota or MetadataLimitExceeded (403) and
    creates nothing when over quota.
    """
    return provision(context, template, request_spec, min_count,
                     max_count, request_key)[0]


def provision(context, template, request_spec, min_count, max_count,
              request_key=None):
    """As ``provision_instances``; returns (InstanceList, owned): owned
    is True when the records name this conductor process as the owner
    of their builds (see ownership.py), and EARLIER for the servers of
    an earlier attempt of ``request_key``, which this call must not
    build."""
    how_many(min_count, max_count)
    check_metadata_items(context, template)
    # No look for an earlier attempt first: nearly every request is the
    # first, and the records' transaction finds one anyway (its key is
    # the transaction's first write), after which the reservation is
    # given back; so a boot spends no read and no transaction on it.
    try:
        reservation = reserve_quota(context, template, min_count, max_count)
    except exception.OverQuota:
        if request_key is None:
            raise
        # The servers of an attempt still writing may be what is over.
        earlier = request_keys.earlier_or_none_after_waiting(
            context, request_key, template.project_id)
        if earlier is None:
            raise
        return _answer_again(request_key, earlier)
    try:
        if CONF.quota.reservation_commit_delay:
            # Fault injection ([quota] reservation_commit_delay): a window
            # in which a test kills this conductor.
            time.sleep(CONF.quota.reservation_commit_delay)
        instances, owned = _create_records(context, template,
                                           request_spec, reservation,
                                           request_key)
    except request_keys.AlreadyProvisioned:
        quota_reservations.rollback(context, reservation.uuid)
        return _answer_again(request_key, request_keys.earlier(
            context, request_key, template.project_id))
    except Exception:
        with excutils.save_and_reraise_exception():
            quota_reservations.rollback(context, reservation.uuid)
    LOG.info('Provisioned %d instance(s) for project %s: %s',
             len(instances), template.project_id,
             ', '.join(i.uuid for i in instances))
    return objects.InstanceList(context, objects=instances), owned


def _answer_again(request_key, instances):
    LOG.info('Request %s was provisioned by an earlier attempt: %s',
             request_key, ', '.join(i.uuid for i in instances))
    return instances, EARLIER
