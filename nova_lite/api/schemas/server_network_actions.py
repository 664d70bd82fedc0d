"""Schemas of the network actions of POST /servers/{id}/action (Nova's
bodies, until 2.43)."""

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_actions

ADD_FIXED_IP = server_actions._action('addFixedIp', {
    'type': 'object',
    'properties': {
        'networkId': {'type': ['string', 'number'], 'minLength': 1,
                      'maxLength': 255},
    },
    'required': ['networkId'],
    'additionalProperties': False,
})
REMOVE_FIXED_IP = server_actions._action('removeFixedIp', {
    'type': 'object',
    'properties': {'address': types.ip_address},
    'required': ['address'],
    'additionalProperties': False,
})
ADD_FLOATING_IP = server_actions._action('addFloatingIp', {
    'type': 'object',
    'properties': {'address': types.ip_address,
                   'fixed_address': types.ip_address},
    'required': ['address'],
    'additionalProperties': False,
})
REMOVE_FLOATING_IP = server_actions._action('removeFloatingIp', {
    'type': 'object',
    'properties': {'address': types.ip_address},
    'required': ['address'],
    'additionalProperties': False,
})
