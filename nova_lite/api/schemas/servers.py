"""Schemas of /servers (microversion 2.1)."""

import copy

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_tags
from nova_lite.objects import tag as tag_obj

_NETWORK = {
    'type': 'object',
    'properties': {
        'fixed_ip': types.ip_address,
        'port': {'oneOf': [types.uuid, {'type': 'null'}]},
        'uuid': {'type': 'string'},
        'tag': {'type': 'string'},
    },
    'additionalProperties': False,
}

_HOSTNAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
             'pattern': '^[a-zA-Z0-9-._]*$'}

_SERVER_PROPERTIES = {
    'name': types.name,
    # 2.19 (the handler refuses it before).
    'description': {'type': ['string', 'null'], 'maxLength': 255},
    'imageRef': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
    'min_count': types.positive_integer,
    'max_count': types.positive_integer,
    'return_reservation_id': types.boolean,
    'metadata': types.metadata,
    'availability_zone': {'type': 'string', 'minLength': 1,
                          'maxLength': 255},
    'key_name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    # 2.90 as a hostname, 2.94 as an FQDN (server_checks.check_hostname
    # checks the version).
    'hostname': types.fqdn,
    # 2.52 (server_checks refuses them before).
    'tags': {'type': 'array', 'items': server_tags.TAG,
             'maxItems': tag_obj.MAX_TAG_COUNT},
    # Accepted for client compatibility and not acted on: nova_lite has
    # no networking, volumes, config drives or file injection.
    # networks: a list of Nova's network items (uuid strictly a UUID from
    # 2.37; tag at 2.32 to 2.36 and from 2.42), or from 2.37 "auto" or
    # "none" (server_checks.check_networks checks the versions).
    'networks': {
        'oneOf': [
            {'type': 'array', 'items': _NETWORK},
            {'type': 'string', 'enum': ['auto', 'none']},
        ],
    },
    'security_groups': {
        'type': 'array',
        'items': {'type': 'object',
                  'properties': {'name': {'type': 'string'}}},
    },
    # Kept and shown (2.3): base64, as Nova checks it.
    'user_data': {'type': 'string', 'format': 'base64',
                  'maxLength': 65535},
    'config_drive': types.boolean,
    'accessIPv4': {'type': 'string'},
    'accessIPv6': {'type': 'string'},
    'adminPass': {'type': 'string'},
    'personality': {'type': 'array'},
    # 2.63 (server_checks.check_trusted_certs checks the version).
    'trusted_image_certificates': types.trusted_certs,
    # 2.74 (server_checks.requested_destination checks the version).
    'host': _HOSTNAME,
    'hypervisor_hostname': _HOSTNAME,
    'OS-DCF:diskConfig': {'type': 'string', 'enum': ['AUTO', 'MANUAL']},
    # The openstack CLI describes the image root disk this way too; only
    # that form is accepted (see handlers.servers._image_ref).
    'block_device_mapping_v2': {
        'type': 'array',
        'items': {
            'type': 'object',
            'properties': {
                'uuid': {'type': 'string'},
                'source_type': {'type': 'string',
                                'enum': ['image', 'volume', 'snapshot',
                                         'blank']},
                'destination_type': {'type': 'string',
                                     'enum': ['local', 'volume']},
                'boot_index': {'type': ['integer', 'string', 'null']},
                'delete_on_termination': types.boolean,
                'volume_size': {'type': ['integer', 'string', 'null']},
                'device_name': {'type': 'string'},
                'device_type': {'type': 'string'},
                'disk_bus': {'type': 'string'},
                'guest_format': {'type': 'string'},
                # 2.32 and from 2.42 (the handler checks the version).
                'tag': {'type': 'string'},
                # 2.67 (server_checks.check_volume_type).
                'volume_type': {'type': ['string', 'null'],
                                'maxLength': 255},
            },
            'additionalProperties': False,
        },
    },
}

_HINTS = {
    'type': 'object',
    # Hints are free-form (the scheduler's filters define them): a string
    # or a list of strings each.
    'additionalProperties': {
        'oneOf': [{'type': 'string'},
                  {'type': 'array', 'items': {'type': 'string'}}],
    },
}

CREATE = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': _SERVER_PROPERTIES,
            # An image is required (imageRef, or an image root disk in
            # block_device_mapping_v2): nova_lite cannot boot from volume.
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _HINTS,
        'OS-SCH-HNT:scheduler_hints': _HINTS,
    },
    'required': ['server'],
    'additionalProperties': False,
}

_SORT_KEYS = ['created_at', 'display_name', 'updated_at', 'launched_at',
              'uuid', 'host', 'node', 'vm_state', 'task_state']

# Unknown parameters are ignored, as Nova 2.1 does (until 2.75); these
# are checked. changes-since is parsed by the handler (400 for one that is
# no date-time).
INDEX_QUERY = {
    'type': 'object',
    'properties': {
        'name': types.multi(types.query_string),
        'status': types.multi(types.query_string),
        'host': types.multi(types.query_string),
        'ip': types.multi(types.query_string),
        'ip6': types.multi(types.query_string),
        'all_tenants': types.multi(types.query_string),
        'project_id': types.multi(types.query_string),
        'tenant_id': types.multi(types.query_string),
        'limit': types.multi(types.query_non_negative_int),
        'marker': types.multi(types.query_string),
        'sort_key': types.multi({'type': 'string', 'enum': _SORT_KEYS}),
        'sort_dir': types.multi(types.query_sort_dir),
        # 2.26: comma-separated tags (ignored before).
        'tags': types.multi(types.query_string),
        'tags-any': types.multi(types.query_string),
        'not-tags': types.multi(types.query_string),
        'not-tags-any': types.multi(types.query_string),
        'changes-since': types.multi(types.query_string),
        # Administrators', and everyone's from 2.83 (server_list_filters).
        'availability_zone': types.multi(types.query_string),
        'config_drive': types.multi(types.query_string),
        'key_name': types.multi(types.query_string),
        'created_at': types.multi(types.query_string),
        'launched_at': types.multi(types.query_string),
        'terminated_at': types.multi(types.query_string),
        'power_state': types.multi(types.query_string),
        'task_state': types.multi(types.query_string),
        'vm_state': types.multi(types.query_string),
        'progress': types.multi(types.query_string),
        'user_id': types.multi(types.query_string),
    },
    'additionalProperties': True,
}

# 2.66: changes-before (parsed by the handler; ignored before).
INDEX_QUERY_V266 = copy.deepcopy(INDEX_QUERY)
INDEX_QUERY_V266['properties']['changes-before'] = types.multi(
    types.query_string)

# 2.73: the locked filter (a boolean, checked by the handler) and sort key.
INDEX_QUERY_V273 = copy.deepcopy(INDEX_QUERY_V266)
INDEX_QUERY_V273['properties'].update({
    'locked': types.multi(types.query_string),
    'sort_key': types.multi({'type': 'string',
                             'enum': _SORT_KEYS + ['locked']}),
})

# The other filters Nova's list knows. Before 2.75 they are accepted (and,
# as for Nova's non-administrators, ignored here); from 2.75 anything
# outside this list is a 400.
_NOVA_FILTERS = (
    'user_id', 'launch_index', 'image_ref', 'image', 'kernel_id',
    'ramdisk_id', 'hostname', 'key_name', 'power_state', 'vm_state',
    'task_state', 'node', 'flavor', 'reservation_id', 'launched_at',
    'terminated_at', 'availability_zone', 'display_name', 'description',
    'display_description', 'locked_by', 'uuid', 'root_device_name',
    'config_drive', 'access_ip_v4', 'access_ip_v6', 'auto_disk_config',
    'progress', 'soft_deleted', 'deleted', 'created_at')

# 2.75: strict; unknown parameters are a 400.
INDEX_QUERY_V275 = copy.deepcopy(INDEX_QUERY_V273)
for _name in _NOVA_FILTERS:
    INDEX_QUERY_V275['properties'].setdefault(
        _name, types.multi(types.query_string))
INDEX_QUERY_V275['additionalProperties'] = False

# What the list handlers' decorator checks first: what any version takes
# (the sort keys of 2.73 included); the handler then validates again with
# the schema of the request's version.
LIST_QUERY_ANY = copy.deepcopy(INDEX_QUERY_V273)

# (first version, query schema), oldest first.
LIST_QUERY_VERSIONS = (
    ('2.1', INDEX_QUERY),
    ('2.66', INDEX_QUERY_V266),
    ('2.73', INDEX_QUERY_V273),
    ('2.75', INDEX_QUERY_V275),
)

# PUT /servers/{id}. description is 2.19's and hostname 2.90's (the
# handler refuses them before). accessIPv4/6 and diskConfig are accepted
# and ignored, as at create.
UPDATE = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'description': {'type': ['string', 'null'],
                                'maxLength': 255},
                'hostname': types.fqdn,
                'accessIPv4': {'type': 'string'},
                'accessIPv6': {'type': 'string'},
                'OS-DCF:diskConfig': {'type': 'string',
                                      'enum': ['AUTO', 'MANUAL']},
            },
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}


# -- responses (for the OpenAPI document; server_view builds them)

_LINKS = types.links

# server_view.basic_view.
_BASIC_VIEW = {
    'type': 'object',
    'properties': {'id': {'type': 'string'}, 'name': {'type': 'string'},
                   'links': _LINKS},
    'required': ['id', 'name', 'links'],
    'additionalProperties': False,
}

# server_view.detail_view: the fields of every version (the others,
# which vary with the version and the caller, are not described).
_DETAIL_VIEW = {
    'type': 'object',
    'properties': {
        'id': {'type': 'string'},
        'name': {'type': 'string'},
        'links': _LINKS,
        'status': {'type': 'string'},
        'tenant_id': {'type': 'string'},
        'user_id': {'type': 'string'},
        'metadata': {'type': 'object',
                     'additionalProperties': {'type': 'string'}},
        'hostId': {'type': 'string'},
        # "" for a server booted from a volume (Nova's answer).
        'image': {'type': ['object', 'string']},
        'flavor': {'type': 'object'},
        'created': {'type': 'string'},
        'updated': {'type': 'string'},
        'addresses': {'type': 'object'},
    },
    'required': ['id', 'name', 'links', 'status', 'tenant_id', 'user_id',
                 'metadata', 'hostId', 'image', 'flavor', 'created',
                 'updated', 'addresses'],
}


def _servers_response(view):
    return {'type': 'object',
            'properties': {'servers': {'type': 'array', 'items': view},
                           'servers_links': _LINKS},
            'required': ['servers'], 'additionalProperties': False}


def index_response(version):
    """200 {"servers": [basic view], "servers_links"?}."""
    return _servers_response(_BASIC_VIEW)


def detail_response(version):
    """200 {"servers": [detail view], "servers_links"?}."""
    return _servers_response(_DETAIL_VIEW)


def show_response(version):
    """200 {"server": detail view}."""
    return {'type': 'object', 'properties': {'server': _DETAIL_VIEW},
            'required': ['server'], 'additionalProperties': False}
