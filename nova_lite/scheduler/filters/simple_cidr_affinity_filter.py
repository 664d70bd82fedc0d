"""SimpleCIDRAffinityFilter: hosts in a subnet (hints ``build_near_host_ip``
and ``cidr``)."""

import ipaddress

import numpy as np

from nova_lite.scheduler import filters


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


def host_ip_key(host_state):
    return str(host_state.host_ip)


class SimpleCIDRAffinityFilter(filters.BaseHostFilter):
    """Passes hosts whose ``host_ip`` is in the network of the
    ``build_near_host_ip`` and ``cidr`` scheduler hints; without
    ``build_near_host_ip``, every host. A host with no (valid) address,
    and every host when the hints are malformed, are rejected. Rejection
    reasons: "outside <network>", "have no host_ip", "bad cidr hints".
    """

    # A host's address does not change within a request.
    run_filter_once_per_request = True

    def _failure(self, host_state, spec_obj):
        try:
            network = requested_network(spec_obj)
        except ValueError:
            return 'bad cidr hints'
        if network is None:
            return None
        try:
            address = ipaddress.ip_address(str(host_state.host_ip))
        except ValueError:
            return 'have no host_ip'
        return None if address in network else 'outside %s' % network

    def host_passes(self, host_state, spec_obj):
        return self._failure(host_state, spec_obj) is None

    def filter_population(self, population, spec_obj):
        try:
            network = requested_network(spec_obj)
        except ValueError:
            return np.zeros(population.size, bool)
        if network is None:
            return True
        if network.version != 4:
            return population.evaluate(
                'host_ip', host_ip_key,
                lambda host: self.host_passes(host, spec_obj),
                cache=str(network))
        address = population.derived('ipv4', ipv4_of, np.int64)
        netmask = int(network.netmask)
        return (address >= 0) & (
            (address & netmask) == int(network.network_address))

    def rejection_reason(self, host_state, spec_obj):
        return self._failure(host_state, spec_obj)
