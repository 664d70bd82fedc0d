"""SimpleCIDRAffinityFilter: hosts in a subnet (hints ``build_near_host_ip``
and ``cidr``)."""

import ipaddress

import numpy as np

from nova_lite.scheduler.filters import rules


def requested_network(spec_obj):
    """The network the hints name, or None without ``build_near_host_ip``.

    ``cidr`` defaults to "/24" and may be given with or without the
    slash ("24" as the seeds' API example has it). Raises ValueError for
    a malformed address or prefix.
    """
    address = spec_obj.get_scheduler_hint('build_near_host_ip')
    if not address:
        return None
    prefix = str(spec_obj.get_scheduler_hint('cidr', '/24')).strip()
    return ipaddress.ip_network('%s/%s' % (address, prefix.lstrip('/')),
                                strict=False)


def ipv4_of(host_state):
    """The host's IPv4 address as an integer, -1 when it has none."""
    try:
        address = ipaddress.ip_address(str(host_state.host_ip))
    except ValueError:
        return -1
    return int(address) if address.version == 4 else -1


def in_ipv4_network(address, network):
    """Whether ``address`` (ipv4_of's integer, or a column of them) is in
    IPv4 ``network``; the rule for IPv4 networks, for one host and for
    every row alike."""
    return (address >= 0) & (
        (address & int(network.netmask)) == int(network.network_address))


def host_ip_key(host_state):
    return str(host_state.host_ip)


class SimpleCIDRAffinityFilter(rules.RuleFilter):
    """Passes hosts whose ``host_ip`` is in the network of the
    ``build_near_host_ip`` and ``cidr`` scheduler hints; without
    ``build_near_host_ip``, every host. A host with no (valid) address,
    and every host when the hints are malformed, are rejected. Rejection
    reasons: "outside <network>", "have no host_ip", "bad cidr hints".
    """

    # A host's address does not change within a request.
    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        try:
            network = requested_network(spec_obj)
        except ValueError:
            return rules.Refused('bad cidr hints')
        return rules.EVERY_HOST if network is None else network

    def failure(self, host_state, network):
        try:
            address = ipaddress.ip_address(str(host_state.host_ip))
        except ValueError:
            return 'have no host_ip'
        if network.version == 4:
            inside = in_ipv4_network(ipv4_of(host_state), network)
        else:
            inside = address in network
        return None if inside else 'outside %s' % network

    def partition(self, network):
        return 'host_ip', host_ip_key

    def cache_key(self, network):
        return str(network)

    def filter_population(self, population, spec_obj, among=None):
        network = self.parse_request(spec_obj)
        if not isinstance(network, ipaddress.IPv4Network):
            return super().filter_population(population, spec_obj, among)
        # One address per host: a column, rather than answers per key.
        address = population.derived('ipv4', ipv4_of, np.int64)
        return in_ipv4_network(address, network)
