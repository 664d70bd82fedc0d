"""Policies of the network proxy's server actions (Nova's rule names and
defaults: the owner's members, or an administrator)."""

from oslo_policy import policy

from nova_lite.policies import base

ADD_FIXED_IP = 'os_compute_api:os-multinic:add'
REMOVE_FIXED_IP = 'os_compute_api:os-multinic:remove'
ADD_FLOATING_IP = 'os_compute_api:os-floating-ips:add'
REMOVE_FLOATING_IP = 'os_compute_api:os-floating-ips:remove'

_PATH = '/servers/{server_id}/action (%s)'


def _rule(name, action, description):
    return policy.DocumentedRuleDefault(
        name=name, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description=description + ' Nova removed this action at '
        'microversion 2.44; nova_lite has no network service, so an '
        'allowed caller learns that the network or address named does '
        'not exist.',
        operations=[{'method': 'POST', 'path': _PATH % action}],
        scope_types=['project'])


rules = [
    _rule(ADD_FIXED_IP, 'addFixedIp', 'Add a fixed IP address to a server.'),
    _rule(REMOVE_FIXED_IP, 'removeFixedIp',
          'Remove a fixed IP address from a server.'),
    _rule(ADD_FLOATING_IP, 'addFloatingIp',
          'Associate a floating IP address with a server.'),
    _rule(REMOVE_FLOATING_IP, 'removeFloatingIp',
          'Disassociate a floating IP address from a server.'),
]


def list_rules():
    return rules
