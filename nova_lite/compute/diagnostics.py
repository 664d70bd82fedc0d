"""Server diagnostics on the compute (RPC 1.7), for
``GET /servers/{id}/diagnostics``.

As in Nova, only a running server has diagnostics: anything else raises
InstanceInvalidState naming its power state (the API's 409). The driver
produces the data: ``get_diagnostics`` its own flat dict (what the API
shows below microversion 2.48), ``get_instance_diagnostics`` Nova's
standardized fields (2.48 on); the host's uptime is the driver's too.
"""

from nova_lite import exception
from nova_lite.objects import fields

_P = fields.PowerState
# Nova's names of the power states (the diagnostics' ``state``).
POWER_STATE_NAMES = {
    _P.NOSTATE: 'pending', _P.RUNNING: 'running', _P.PAUSED: 'paused',
    _P.SHUTDOWN: 'shutdown', _P.CRASHED: 'crashed',
    _P.SUSPENDED: 'suspended',
}


def _check_running(driver, instance, method):
    try:
        power_state = driver.get_info(instance)
    except exception.InstanceNotFound:
        # No VM here (yet, or any more): Nova's "no state", pending.
        power_state = _P.NOSTATE
    if power_state != _P.RUNNING:
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr='power_state',
            state=POWER_STATE_NAMES.get(power_state, 'pending'),
            method=method)


def driver_diagnostics(driver, instance):
    """The driver's diagnostics of the running ``instance`` (a flat dict
    whose keys are the driver's own)."""
    _check_running(driver, instance, 'get_diagnostics')
    return driver.get_diagnostics(instance)


def instance_diagnostics(driver, instance):
    """The standardized diagnostics of the running ``instance``: a dict
    of Nova's fields (state, driver, hypervisor, hypervisor_os, uptime,
    config_drive, num_cpus, num_disks, num_nics, memory_details,
    cpu_details, disk_details, nic_details)."""
    _check_running(driver, instance, 'get_instance_diagnostics')
    return driver.get_instance_diagnostics(instance)
