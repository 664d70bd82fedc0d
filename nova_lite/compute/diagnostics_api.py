"""Diagnostics and host uptime, API side: checks, then a call to the
compute (RPC 1.7, ``compute/diagnostics.py`` there).

Nova's answers: a server with no host is not ready (409); one not running
has no diagnostics (the compute's InstanceInvalidState, 409); a driver
without the call is a 501. While the computes are pinned below 1.7 (a
rolling upgrade), the standardized diagnostics of 2.48 are Nova's 400
("compute node is too old"), and the others, which such a compute cannot
give either, the 501 of a driver without them. The uptime of a host whose
compute service is down is Nova's 400; a compute that does not answer in
time is a 503 naming its host.
"""

import oslo_messaging as messaging

from nova_lite.compute import rpc_clients
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception

GET_DIAGNOSTICS = 'get_diagnostics'


class DiagnosticsAPI(rpc_clients.RPCClients):
    """Ask a server's compute for its diagnostics, or a host's for its
    uptime; RPC clients made on first use, so tests can replace them."""

    def get_diagnostics(self, context, instance, standard):
        """The diagnostics of ``instance``: Nova's standardized fields
        (a dict) if ``standard``, else the driver's own flat dict."""
        if not instance.host:
            raise exception.InstanceNotReady(instance_id=instance.uuid)
        if not self.compute_rpcapi.can_send_diagnostics():
            if standard:
                raise exception.ComputeTooOldForDiagnostics(
                    version=compute_rpcapi.DIAGNOSTICS_VERSION)
            raise exception.DiagnosticsNotSupported(
                instance_uuid=instance.uuid,
                reason='the computes are pinned below RPC version %s'
                       % compute_rpcapi.DIAGNOSTICS_VERSION)
        method = (self.compute_rpcapi.get_instance_diagnostics if standard
                  else self.compute_rpcapi.get_diagnostics)
        try:
            return method(context, instance)
        except messaging.MessagingTimeout:
            raise _no_answer(instance.host)
        except exception.InstanceInvalidState as exc:
            raise exception.InstanceActionInvalidState(
                action=GET_DIAGNOSTICS, instance_uuid=instance.uuid,
                attr=exc.kwargs.get('attr'), state=exc.kwargs.get('state'))
        except NotImplementedError:
            raise exception.DiagnosticsNotSupported(
                instance_uuid=instance.uuid,
                reason='its virt driver has no such call')

    def get_host_uptime(self, context, service, hypervisor_id):
        """The uptime line of the compute ``service`` (a Service) of
        hypervisor ``hypervisor_id``."""
        if not service.is_up:
            raise exception.ComputeServiceUnavailable(host=service.host)
        if not self.compute_rpcapi.can_send_diagnostics():
            raise exception.HypervisorUptimeNotAvailable(
                hypervisor_id=hypervisor_id,
                reason='the computes are pinned below RPC version %s'
                       % compute_rpcapi.DIAGNOSTICS_VERSION)
        try:
            return self.compute_rpcapi.get_host_uptime(context,
                                                       service.host)
        except messaging.MessagingTimeout:
            raise _no_answer(service.host)
        except NotImplementedError:
            raise exception.HypervisorUptimeNotAvailable(
                hypervisor_id=hypervisor_id,
                reason='its virt driver has no such call')


def _no_answer(host):
    return exception.ServiceUnavailable(
        what='The compute service of host %s' % host)
