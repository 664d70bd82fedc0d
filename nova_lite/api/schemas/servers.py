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
    'user_data': {'type': 'string'},
    'config_drive': types.boolean,
    'accessIPv4': {'type': 'string'},
    'accessIPv6': {'type': 'string'},
    'adminPass': {'type': 'string'},
    'personality': {'type': 'array'},
    # 2.63 (server_checks.check_trusted_certs checks the version).
    'trusted_image_certificates': types.trusted_certs,
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

# Unknown parameters are ignored, as Nova 2.1 does; these are checked.
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
    },
    'additionalProperties': True,
}

DETAIL_QUERY = copy.deepcopy(INDEX_QUERY)

# PUT /servers/{id}. description is 2.19's (the handler refuses it
# before). accessIPv4/6 and diskConfig are accepted and ignored, as at
# create.
UPDATE = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': types.name,
                'description': {'type': ['string', 'null'],
                                'maxLength': 255},
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
