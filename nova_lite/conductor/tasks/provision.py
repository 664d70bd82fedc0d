"""Provisioning: the records of a boot request, written in one transaction.

Every instance row and its RequestSpec commit together or not at all, so a
failure halfway never leaves a server the user cannot see the reason for.
"""

import re

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_lite.conf import CONF
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import objects

LOG = logging.getLogger(__name__)

_HOSTNAME_BAD = re.compile(r'[^a-z0-9-]+')


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
    instance.hostname = _hostname(instance.display_name, instance.uuid)
    return instance


def how_many(min_count, max_count):
    """How many instances to create; the quota engine narrows this later."""
    if min_count < 1 or max_count < min_count:
        raise exception.InvalidInput(
            reason='min_count must be at least 1 and at most max_count')
    return max_count


def provision_instances(context, template, request_spec, min_count,
                        max_count):
    """Create up to max_count instances and their RequestSpecs.

    Returns the InstanceList created, in launch order.
    """
    count = how_many(min_count, max_count)
    instances = []
    with db_api.writer.using(context):
        for index in range(count):
            instance = _new_instance(context, template, index, count)
            instance.create()
            spec = request_spec.copy_for_instance(instance.uuid)
            spec._context = context
            spec.create()
            instances.append(instance)
    LOG.info('Provisioned %d instance(s) for project %s: %s', count,
             template.project_id, ', '.join(i.uuid for i in instances))
    return objects.InstanceList(context, objects=instances)
