"""The server views: Nova's 2.1 detail (``detail_view``), the core view
of update and rebuild answers (``core_view``), and what each later
microversion adds to them (doc/microversions.rst has the table).

Fields nova_lite has nothing behind (addresses, access IPs, volumes,
config drive) are present and empty. ``core_fields`` are shown wherever a
server is shown (show, list detail, update, rebuild);
``extended_attributes`` only where Nova shows the administrators'
OS-EXT-SRV-ATTR fields.
"""

import hashlib

from nova_lite.api import common
from nova_lite.api.handlers import server_view_requested
from nova_lite.api import server_states
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import flavor_extra_specs as extra_spec_policies
from nova_lite.policies import servers as policies

COMPUTE_BINARY = 'nova-lite-compute'
# Show, update and rebuild answers name the server's group from here.
SERVER_GROUPS_VERSION = '2.71'
# Every server view shows locked_reason, and lists filter on locked.
LOCKED_REASON_VERSION = '2.73'
# Update and rebuild answer the whole view of show.
FULL_UPDATE_VIEW_VERSION = '2.75'

_PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE',
                      'VERIFY_RESIZE', 'MIGRATING')
_FAULT_STATUSES = ('ERROR', 'DELETED')
# The keys of Nova's answer to PUT /servers/{id} and rebuild at 2.1.
_UPDATE_KEYS = frozenset((
    'id', 'name', 'status', 'image', 'flavor', 'user_id', 'tenant_id',
    'created', 'updated', 'progress', 'metadata', 'links', 'addresses',
    'hostId', 'fault', 'OS-DCF:diskConfig', 'accessIPv4', 'accessIPv6'))


def server_status(instance):
    """The API status of an instance (Nova's map, api/server_states.py):
    its vm_state's, or the one a task in progress shows over it (REBOOT,
    HARD_REBOOT, RESIZE, REBUILD, MIGRATING, REVERT_RESIZE)."""
    return server_states.status_of(instance.vm_state, instance.task_state)


def host_id(host, project_id):
    """Nova's opaque host id: the same for the same host and project,
    "" without a host."""
    if not host:
        return ''
    data = (str(project_id) + host).encode('utf-8')
    return hashlib.sha224(data).hexdigest()


def _fault_view(instance, show_details):
    fault = instance.fault if instance.obj_attr_is_set('fault') else None
    if fault is None:
        return None
    view = {'code': fault.code, 'message': fault.message,
            'created': common.isotime(fault.created_at)}
    # Details of a 500 can reveal internals: administrators only.
    if fault.details and (show_details or fault.code != 500):
        view['details'] = fault.details
    return view


def basic_view(req, instance):
    return {'id': instance.uuid, 'name': instance.display_name,
            'links': common.links(req, 'servers', instance.uuid)}


def requested(req, instances):
    """What the views of ``instances`` show of their requests (2.96
    pinned zone, 2.98 image properties, 2.100 hints), read once."""
    return server_view_requested.Requested(req, instances)


def _image_view(req, instance, shown):
    if not instance.image_ref:
        return ''
    image = {'id': instance.image_ref,
             'links': common.bookmark_link(req, 'images',
                                           instance.image_ref)}
    properties = shown.image_properties(instance.image_ref)
    if properties is not None:
        image['properties'] = properties
    return image


def detail_view(req, instance, show_admin_fields, host_statuses=None,
                tags=None, shown=None):
    """Nova's server detail, with the admin-only fields if allowed,
    ``host_status`` when ``host_statuses`` ({host: status}) is given,
    ``tags`` when ``tags`` ({uuid: [tag, ...]}) is, and what ``shown``
    (``requested``; read for this server if None) holds of its
    request."""
    if shown is None:
        shown = requested(req, [instance])
    status = server_status(instance)
    server = basic_view(req, instance)
    server.update({
        'status': status,
        'tenant_id': instance.project_id,
        'user_id': instance.user_id,
        'metadata': dict(instance.metadata or {}),
        'hostId': host_id(instance.host, instance.project_id),
        'image': _image_view(req, instance, shown),
        'flavor': flavor_view(req, instance),
        'created': common.isotime(instance.created_at),
        'updated': common.isotime(instance.updated_at or
                                  instance.created_at),
        'addresses': {}, 'accessIPv4': '', 'accessIPv6': '',
        'OS-DCF:diskConfig': 'MANUAL',
        'OS-EXT-AZ:availability_zone': instance.availability_zone or '',
        'OS-EXT-STS:vm_state': instance.vm_state,
        'OS-EXT-STS:task_state': instance.task_state,
        'OS-EXT-STS:power_state': instance.power_state,
        'OS-SRV-USG:launched_at': common.isotime_usec(instance.launched_at),
        'OS-SRV-USG:terminated_at': common.isotime_usec(
            instance.terminated_at),
        'key_name': instance.key_name,
        'config_drive': '',
        'security_groups': [{'name': 'default'}],
        'os-extended-volumes:volumes_attached': [],
    })
    if status in _PROGRESS_STATUSES:
        server['progress'] = 0
    if show_admin_fields:
        server['OS-EXT-SRV-ATTR:host'] = instance.host
        server['OS-EXT-SRV-ATTR:hypervisor_hostname'] = instance.node
        server['OS-EXT-SRV-ATTR:instance_name'] = instance.name
        server.update(extended_attributes(req, instance))
    server.update(core_fields(req, instance))
    server.update(shown.fields(instance))
    if host_statuses is not None:
        server['host_status'] = host_statuses.get(instance.host, '')
    if tags is not None:
        server['tags'] = tags.get(instance.uuid, [])
    if status in _FAULT_STATUSES:
        fault = _fault_view(instance, show_admin_fields)
        if fault:
            server['fault'] = fault
    return server


def show_admin_fields(context):
    return context.can(policies.EXTENDED_ATTRIBUTES, fatal=False)


def show_view(req, instance):
    """The view of GET /servers/{id}: the detail with what the caller
    may see, and from 2.71 ``server_groups``."""
    view = detail_view(req, instance, show_admin_fields(req.context),
                       host_statuses(req, [instance]),
                       tags(req, [instance]))
    add_server_groups(req, instance, view)
    return view


def update_view(req, instance):
    """Nova's answer to an update or a rebuild: before 2.75 the core
    view (``core_view``), from 2.75 that of show; from 2.71 with
    ``server_groups``."""
    if _at(req, FULL_UPDATE_VIEW_VERSION):
        return show_view(req, instance)
    view = core_view(req, instance)
    add_server_groups(req, instance, view)
    return view


def add_server_groups(req, instance, view):
    """From 2.71 ``server_groups``: the uuid of the server's group, if it
    is in one (a server is in one group at most)."""
    if not _at(req, SERVER_GROUPS_VERSION):
        return
    try:
        group = objects.InstanceGroup.get_by_instance_uuid(req.context,
                                                           instance.uuid)
    except exception.InstanceGroupNotFound:
        view['server_groups'] = []
    else:
        view['server_groups'] = [group.uuid]


def core_view(req, instance):
    """Nova's answer to an update or a rebuild before 2.75: no extended
    attributes (OS-EXT-*), key name, security groups or volumes."""
    shown_tags = tags(req, [instance])
    shown = requested(req, [instance])
    view = detail_view(req, instance, show_admin_fields=False,
                       tags=shown_tags, shown=shown)
    keys = _UPDATE_KEYS.union(core_fields(req, instance),
                              shown.fields(instance))
    if shown_tags is not None:
        keys = keys.union(['tags'])
    return {key: value for key, value in view.items() if key in keys}


def _at(req, version):
    return req.api_version_request.matches(version)


def extended_attributes(req, instance):
    """OS-EXT-SRV-ATTR:* of 2.3. nova_lite has no kernel/ramdisk images
    or root device names: those show as Nova shows them for a server
    without any."""
    if not _at(req, '2.3'):
        return {}
    prefix = 'OS-EXT-SRV-ATTR:'
    return {prefix + 'reservation_id': instance.reservation_id,
            prefix + 'launch_index': instance.launch_index or 0,
            prefix + 'hostname': instance.hostname or '',
            prefix + 'kernel_id': '',
            prefix + 'ramdisk_id': '',
            prefix + 'root_device_name': None,
            prefix + 'user_data': user_data(instance)}


def user_data(instance):
    """The server's user data as it was given (base64), or None; an
    instance read before it had the field (an older peer's) has none."""
    return (instance.user_data if instance.obj_attr_is_set('user_data')
            else None)


def flavor_view(req, instance):
    """The server's flavor: its id and link, or from 2.47 what the
    server was built with (its name as ``original_name``), with its
    ``extra_specs`` for callers allowed to list a flavor's extra specs
    (as Nova: policy ``os-flavor-extra-specs:index``)."""
    flavor = instance.flavor
    if not _at(req, '2.47'):
        return {'id': flavor.flavorid,
                'links': common.bookmark_link(req, 'flavors',
                                              flavor.flavorid)}
    view = {'vcpus': flavor.vcpus, 'ram': flavor.memory_mb,
            'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
            'swap': flavor.swap, 'original_name': flavor.name}
    if req.context.can(extra_spec_policies.EXTRA_SPECS % 'index',
                       target={'project_id': instance.project_id},
                       fatal=False):
        view['extra_specs'] = (dict(flavor.extra_specs)
                               if flavor.obj_attr_is_set('extra_specs')
                               else {})
    return view


def core_fields(req, instance):
    """The keys later versions add to every server view."""
    fields = {}
    if _at(req, '2.9'):
        fields['locked'] = bool(instance.locked)
    if _at(req, '2.19'):
        fields['description'] = instance.description
    if _at(req, '2.63'):
        fields['trusted_image_certificates'] = (
            instance.trusted_certs
            if instance.obj_attr_is_set('trusted_certs') else None)
    if _at(req, LOCKED_REASON_VERSION):
        fields['locked_reason'] = instance.locked_reason
    if _at(req, '2.90'):
        # Shown to every reader from 2.90 (administrators only before).
        fields['OS-EXT-SRV-ATTR:hostname'] = instance.hostname or ''
    return fields


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
