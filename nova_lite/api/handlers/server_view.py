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
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.policies import flavor_extra_specs as extra_spec_policies
from nova_lite.policies import servers as policies

COMPUTE_BINARY = 'nova-lite-compute'

_V = fields.VMState
_T = fields.TaskState
STATUS_BY_VM_STATE = {
    _V.BUILDING: 'BUILD',
    _V.ACTIVE: 'ACTIVE',
    _V.STOPPED: 'SHUTOFF',
    _V.PAUSED: 'PAUSED',
    _V.SUSPENDED: 'SUSPENDED',
    _V.RESCUED: 'RESCUE',
    _V.RESIZED: 'VERIFY_RESIZE',
    _V.SHELVED: 'SHELVED',
    _V.SHELVED_OFFLOADED: 'SHELVED_OFFLOADED',
    _V.ERROR: 'ERROR',
    _V.DELETED: 'DELETED',
}
VM_STATE_BY_STATUS = {v: k for k, v in STATUS_BY_VM_STATE.items()}
# Nova's statuses that a task shows over an active (or stopped) server.
STATUS_BY_TASK_STATE = {
    _T.REBOOTING: 'REBOOT',
    _T.REBOOTING_HARD: 'HARD_REBOOT',
    _T.REBUILDING: 'REBUILD',
    _T.REBUILD_BLOCK_DEVICE_MAPPING: 'REBUILD',
    _T.REBUILD_SPAWNING: 'REBUILD',
    _T.RESIZE_PREP: 'RESIZE',
    _T.RESIZE_MIGRATING: 'RESIZE',
    _T.RESIZE_MIGRATED: 'RESIZE',
    _T.RESIZE_FINISH: 'RESIZE',
    _T.RESIZE_REVERTING: 'REVERT_RESIZE',
    _T.MIGRATING: 'MIGRATING',
}
# Every status Nova's API knows (a ``status`` filter naming none of them
# is a 400 from 2.38); PASSWORD and SOFT_DELETED never show here but are
# not invalid.
KNOWN_STATUSES = frozenset(STATUS_BY_VM_STATE.values()).union(
    STATUS_BY_TASK_STATE.values(), ('PASSWORD', 'SOFT_DELETED'))
# (A revert shows over VERIFY_RESIZE too, as Nova's REVERT_RESIZE.)
_TASK_STATUS_VM_STATES = (_V.ACTIVE, _V.STOPPED, _V.RESIZED)
# A server in ERROR shows REBUILD while rebuilt or evacuated (Nova's map).
_REBUILD_TASK_STATES = (_T.REBUILDING, _T.REBUILD_BLOCK_DEVICE_MAPPING,
                        _T.REBUILD_SPAWNING)
_PROGRESS_STATUSES = ('ACTIVE', 'BUILD', 'REBUILD', 'RESIZE',
                      'VERIFY_RESIZE', 'MIGRATING')
_FAULT_STATUSES = ('ERROR', 'DELETED')
# The keys of Nova's answer to PUT /servers/{id} and rebuild at 2.1.
_UPDATE_KEYS = frozenset((
    'id', 'name', 'status', 'image', 'flavor', 'user_id', 'tenant_id',
    'created', 'updated', 'progress', 'metadata', 'links', 'addresses',
    'hostId', 'fault', 'OS-DCF:diskConfig', 'accessIPv4', 'accessIPv6'))


def server_status(instance):
    """The API status of an instance (Nova's map): its vm_state's, or
    for an active or stopped server in a reboot, rebuild, resize or
    migration, that task's (REBOOT, HARD_REBOOT, RESIZE, ...). Other tasks
    (deleting included) do not change it."""
    task_status = STATUS_BY_TASK_STATE.get(instance.task_state)
    if task_status and instance.vm_state in _TASK_STATUS_VM_STATES:
        return task_status
    if (instance.vm_state == _V.ERROR
            and instance.task_state in _REBUILD_TASK_STATES):
        return task_status
    return STATUS_BY_VM_STATE.get(instance.vm_state, 'UNKNOWN')


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


def detail_view(req, instance, show_admin_fields, host_statuses=None,
                tags=None):
    """Nova's server detail, with the admin-only fields if allowed,
    ``host_status`` when ``host_statuses`` ({host: status}) is given and
    ``tags`` when ``tags`` ({uuid: [tag, ...]}) is."""
    status = server_status(instance)
    server = basic_view(req, instance)
    server.update({
        'status': status,
        'tenant_id': instance.project_id,
        'user_id': instance.user_id,
        'metadata': dict(instance.metadata or {}),
        'hostId': host_id(instance.host, instance.project_id),
        'image': ({'id': instance.image_ref,
                   'links': common.bookmark_link(req, 'images',
                                                 instance.image_ref)}
                  if instance.image_ref else ''),
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


def core_view(req, instance):
    """Nova's answer to an update or a rebuild: no extended attributes
    (OS-EXT-*), key name, security groups or volumes."""
    shown_tags = tags(req, [instance])
    view = detail_view(req, instance, show_admin_fields=False,
                       tags=shown_tags)
    keys = _UPDATE_KEYS.union(core_fields(req, instance))
    if shown_tags is not None:
        keys = keys.union(['tags'])
    return {key: value for key, value in view.items() if key in keys}


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
