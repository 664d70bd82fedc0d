"""Server actions of Nova's network proxy: ``addFixedIp``,
``removeFixedIp``, ``addFloatingIp`` and ``removeFloatingIp``.

nova_lite has no network service, so there is no network, fixed or
floating IP to name: each answers as Nova does when the one named does
not exist (404 for a network or floating IP, 400 for a fixed IP the
server lacks). Nova removed them at 2.44, where they are 404 before
their body is read (``REMOVED_AT``, see server_actions). Each checks
Nova's policy first (``os-multinic`` for the fixed IPs, ``os-floating-ips``
for the floating ones): another project's server is a 404 (the dispatcher
does not find it), a reader of its own project gets a 403.
"""

from nova_lite.api.schemas import server_network_actions as schema
from nova_lite import exception
from nova_lite.policies import server_network_actions as policies

REMOVED_AT = '2.44'


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})


def add_fixed_ip(req, instance, body):
    """404: no network here."""
    _can(req, policies.ADD_FIXED_IP, instance)
    raise exception.NetworkNotFound(
        network_id=body['addFixedIp']['networkId'])


def remove_fixed_ip(req, instance, body):
    """400: a server here has no fixed IP."""
    _can(req, policies.REMOVE_FIXED_IP, instance)
    raise exception.FixedIpNotFoundForInstance(
        instance_uuid=instance.uuid,
        address=body['removeFixedIp']['address'])


def add_floating_ip(req, instance, body):
    """404: no floating IP here."""
    _can(req, policies.ADD_FLOATING_IP, instance)
    raise exception.FloatingIpNotFoundForAddress(
        address=body['addFloatingIp']['address'])


def remove_floating_ip(req, instance, body):
    """404: no floating IP here."""
    _can(req, policies.REMOVE_FLOATING_IP, instance)
    raise exception.FloatingIpNotFoundForAddress(
        address=body['removeFloatingIp']['address'])


ACTIONS = {
    'addFixedIp': (schema.ADD_FIXED_IP, add_fixed_ip),
    'removeFixedIp': (schema.REMOVE_FIXED_IP, remove_fixed_ip),
    'addFloatingIp': (schema.ADD_FLOATING_IP, add_floating_ip),
    'removeFloatingIp': (schema.REMOVE_FLOATING_IP, remove_floating_ip),
}
