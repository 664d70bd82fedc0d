"""Server actions of Nova's network proxy: ``addFixedIp``,
``removeFixedIp``, ``addFloatingIp`` and ``removeFloatingIp``.

nova_lite has no network service, so there is no network, fixed or
floating IP to name: each answers as Nova does when the one named does
not exist (404 for a network or floating IP, 400 for a fixed IP the
server lacks). Nova removed them at 2.44, where they are 404 before
their body is read (``REMOVED_AT``, see server_actions).
"""

from nova_lite.api.schemas import server_network_actions as schema
from nova_lite import exception

REMOVED_AT = '2.44'


def add_fixed_ip(req, instance, body):
    """404: no network here."""
    raise exception.NetworkNotFound(
        network_id=body['addFixedIp']['networkId'])


def remove_fixed_ip(req, instance, body):
    """400: a server here has no fixed IP."""
    raise exception.FixedIpNotFoundForInstance(
        instance_uuid=instance.uuid,
        address=body['removeFixedIp']['address'])


def add_floating_ip(req, instance, body):
    """404: no floating IP here."""
    raise exception.FloatingIpNotFoundForAddress(
        address=body['addFloatingIp']['address'])


def remove_floating_ip(req, instance, body):
    """404: no floating IP here."""
    raise exception.FloatingIpNotFoundForAddress(
        address=body['removeFloatingIp']['address'])


ACTIONS = {
    'addFixedIp': (schema.ADD_FIXED_IP, add_fixed_ip),
    'removeFixedIp': (schema.REMOVE_FIXED_IP, remove_fixed_ip),
    'addFloatingIp': (schema.ADD_FLOATING_IP, add_floating_ip),
    'removeFloatingIp': (schema.REMOVE_FLOATING_IP, remove_floating_ip),
}
