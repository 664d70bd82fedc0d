"""Diagnostics and host uptime of the fake driver.

The numbers are made up but consistent with the VM: one cpu entry per
vCPU, one disk per disk the flavor gives (root, ephemeral, swap), no NIC
(nova_lite has no network service), the memory its flavor gives, and
counters that grow with the time since the server was launched. The
host's uptime is that of the compute process, in the format of the
``uptime`` command, with the machine's load averages.
"""

import datetime
import os
import time

from oslo_utils import timeutils

from nova_lite.objects import fields

# When this compute process started (close enough: when it loaded the
# driver).
_STARTED = time.monotonic()
_P = fields.PowerState
_STATE_NAMES = {_P.RUNNING: 'running', _P.PAUSED: 'paused',
                _P.SHUTDOWN: 'shutdown', _P.CRASHED: 'crashed',
                _P.SUSPENDED: 'suspended'}
# Made-up rates per second of uptime, so the counters move.
_CPU_NS_PER_S = 100000000
_READ_BYTES_PER_S = 4096
_WRITE_BYTES_PER_S = 2048


def _uptime_seconds(instance):
    launched = instance.launched_at
    if launched is None:
        return 0
    now = timeutils.utcnow()
    if launched.tzinfo is None:
        now = now.replace(tzinfo=None)
    else:
        now = now.replace(tzinfo=datetime.timezone.utc)
    return max(0, int((now - launched).total_seconds()))


def _disks(flavor):
    """The names of the VM's disks, as libvirt would call them."""
    names = ['vda']
    if flavor.ephemeral_gb:
        names.append('vdb')
    if flavor.swap:
        names.append('vd' + 'abc'[len(names)])
    return names


def format_uptime(seconds, now=None, load=None):
    """``seconds`` of uptime as the ``uptime`` command prints it."""
    now = now or time.localtime()
    load = load if load is not None else os.getloadavg()
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        span = '%d day%s, %2d:%02d' % (days, '' if days == 1 else 's',
                                       hours, minutes)
    elif hours:
        span = '%2d:%02d' % (hours, minutes)
    else:
        span = '%d min' % minutes
    return ' %s up %s,  0 users,  load average: %.2f, %.2f, %.2f' % (
        time.strftime('%H:%M:%S', now), span, *load)


class DiagnosticsMixin:
    """get_diagnostics, get_instance_diagnostics and get_host_uptime for
    the FakeDriver (which checks the VM exists through ``get_info``)."""

    def get_diagnostics(self, instance):
        self.get_info(instance)
        uptime = _uptime_seconds(instance)
        flavor = instance.flavor
        found = {'memory': flavor.memory_mb * 1024}
        for cpu in range(flavor.vcpus):
            found['cpu%d_time' % cpu] = uptime * _CPU_NS_PER_S
        for disk in _disks(flavor):
            found.update({
                disk + '_read': uptime * _READ_BYTES_PER_S,
                disk + '_read_req': uptime,
                disk + '_write': uptime * _WRITE_BYTES_PER_S,
                disk + '_write_req': uptime // 2,
                disk + '_errors': 0})
        return found

    def get_instance_diagnostics(self, instance):
        power_state = self.get_info(instance)
        uptime = _uptime_seconds(instance)
        flavor = instance.flavor
        node = self._nodes.get(instance.node)
        disks = _disks(flavor)
        return {
            'state': _STATE_NAMES.get(power_state, 'pending'),
            # Nova's fake driver claims libvirt too: the API's schema (and
            # tempest's) only know the real drivers.
            'driver': 'libvirt',
            'hypervisor': node.hypervisor_type if node else None,
            'hypervisor_os': 'linux',
            'uptime': uptime,
            'config_drive': False,
            'num_cpus': flavor.vcpus,
            'num_disks': len(disks),
            'num_nics': 0,
            'memory_details': {'maximum': flavor.memory_mb,
                               'used': flavor.memory_mb // 2},
            'cpu_details': [{'id': cpu, 'time': uptime * _CPU_NS_PER_S,
                             'utilisation': 10}
                            for cpu in range(flavor.vcpus)],
            'disk_details': [{'read_bytes': uptime * _READ_BYTES_PER_S,
                              'read_requests': uptime,
                              'write_bytes': uptime * _WRITE_BYTES_PER_S,
                              'write_requests': uptime // 2,
                              'errors_count': 0} for _disk in disks],
            'nic_details': [],
        }

    def get_host_uptime(self):
        return format_uptime(time.monotonic() - _STARTED)
