"""What each microversion adds to the server view (see servers.py for
Nova's 2.1 view and doc/microversions.rst for the table).

``core_fields`` are shown wherever a server is shown (show, list detail,
update, rebuild); ``extended_attributes`` only where Nova shows the
administrators' OS-EXT-SRV-ATTR fields.
"""

from nova_lite.api.schemas import server_tags as tag_schema
from nova_lite.api import validation
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import servers as policies

COMPUTE_BINARY = 'nova-lite-compute'


def _at(req, version):
    return req.api_version_request.matches(version)


def extended_attributes(req, instance):
    """OS-EXT-SRV-ATTR:* of 2.3. nova_lite has no kernel/ramdisk images
    or root device names and does not keep user data: those show as
    Nova shows them for a server without any."""
    if not _at(req, '2.3'):
        return {}
    prefix = 'OS-EXT-SRV-ATTR:'
    return {prefix + 'reservation_id': instance.reservation_id,
            prefix + 'launch_index': instance.launch_index or 0,
            prefix + 'hostname': instance.hostname or '',
            prefix + 'kernel_id': '',
            prefix + 'ramdisk_id': '',
            prefix + 'root_device_name': None,
            prefix + 'user_data': None}


def core_fields(req, instance):
    """The keys later versions add to every server view."""
    fields = {}
    if _at(req, '2.9'):
        fields['locked'] = bool(instance.locked)
    if _at(req, '2.19'):
        fields['description'] = instance.description
    return fields


def check_description(req, values):
    """A ``description`` is 2.19's: 400 before."""
    if 'description' in values and not _at(req, '2.19'):
        raise exception.ValidationError(
            detail='description needs microversion 2.19')


def _host_status(service):
    """Nova's host_status of a compute service."""
    if service is None:
        return ''
    if service.forced_down:
        return 'DOWN'
    if service.disabled:
        return 'MAINTENANCE'
    return 'UP' if service.is_up else 'UNKNOWN'


def host_statuses(req, instances):
    """{host: host_status} for the instances' hosts from 2.16 when the
    caller may see them (policy ``servers:show:host_status``), else
    None: the view then has no ``host_status``."""
    context = req.context
    if not _at(req, '2.16') or not context.can(
            policies.SERVERS % 'show:host_status', fatal=False):
        return None
    hosts = {instance.host for instance in instances if instance.host}
    if not hosts:
        return {}
    services = objects.ServiceList.get_all(context, binary=COMPUTE_BINARY)
    by_host = {service.host: service for service in services}
    return {host: _host_status(by_host.get(host)) for host in hosts}


def tags(req, instances):
    """{uuid: [tag, ...]} of the instances from 2.26 (shown in show and
    list detail), else None: the view then has no ``tags``."""
    if not _at(req, '2.26'):
        return None
    return objects.TagList.get_names_by_resource_ids(
        req.context, [instance.uuid for instance in instances])


TAG_FILTERS = ('tags', 'tags-any', 'not-tags', 'not-tags-any')


def tag_filters(req):
    """The list filters of 2.26: each a comma-separated list of tags
    (ignored before 2.26)."""
    if not _at(req, '2.26'):
        return {}
    filters = {}
    for key in TAG_FILTERS:
        values = req.GET.getall(key)
        if values:
            tags = [tag for tag in values[-1].split(',') if tag]
            if tags:
                filters[key] = tags
    return filters


_TAG_VALIDATOR = validation._validator(tag_schema.TAG)


def _check_tag(tag, where):
    error = next(_TAG_VALIDATOR.iter_errors(tag), None)
    if error is not None:
        raise exception.ValidationError(
            detail='Invalid input for field/attribute tag of %s. %s'
            % (where, error.message))


def check_device_tags(req, server):
    """Device ``tag``s at create: in ``networks`` items from 2.32, in
    ``block_device_mapping_v2`` items at 2.32 and from 2.42 (Nova lost
    them from 2.33 to 2.41); 400 elsewhere. They are accepted and kept
    nowhere: nova_lite has no metadata service or config drive to show
    them in (and no networks or volumes to tag)."""
    networks = server.get('networks')
    for item in networks if isinstance(networks, list) else ():
        if isinstance(item, dict) and 'tag' in item:
            if not _at(req, '2.32'):
                raise exception.ValidationError(
                    detail='a tag in networks needs microversion 2.32')
            _check_tag(item['tag'], 'networks')
    bdm_tags = _at(req, '2.32') and (
        not _at(req, '2.33') or _at(req, '2.42'))
    for bdm in server.get('block_device_mapping_v2') or ():
        if 'tag' in bdm:
            if not bdm_tags:
                raise exception.ValidationError(
                    detail='a tag in block_device_mapping_v2 needs '
                           'microversion 2.32 or 2.42 and later')
            _check_tag(bdm['tag'], 'block_device_mapping_v2')
