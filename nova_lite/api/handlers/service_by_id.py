"""/os-services/{id}: a service named by its id (uuid from 2.53).

PUT (2.53) sets a compute service's ``status`` (with an optional
``disabled_reason`` when disabling) and ``forced_down`` in one request;
only ``nova-compute`` services can be updated, as in Nova. DELETE (every
version) removes a service; for a compute, also its host's aggregate
memberships, its compute nodes and their resource providers, in one
transaction run by the conductor (``conductor.tasks.service_delete``),
which refuses (409) while the host still has servers or moves in
progress.
"""

from oslo_utils import uuidutils

from nova_lite.api import common
from nova_lite.api.schemas import services as schema
from nova_lite.api import service_names
from nova_lite.api import validation
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import services as policies


def _by_uuid(context, service_id):
    if not uuidutils.is_uuid_like(service_id):
        raise exception.ValidationError(detail='Invalid uuid %s' % service_id)
    try:
        return objects.Service.get_by_uuid(context, service_id)
    except exception.ServiceNotFound:
        raise exception.ServiceNotFound(service_id=service_id)


def _by_id(context, service_id):
    try:
        number = int(service_id)
    except ValueError:
        number = None
    if number is None or not 0 <= number <= schema.MAX_ID:
        raise exception.ValidationError(
            detail='Invalid input for field/attribute id. Value: %s. '
                   'id must be an integer' % service_id)
    try:
        return objects.Service.get_by_id(context, number)
    except exception.ServiceNotFound:
        raise exception.ServiceNotFound(service_id=service_id)


def _apply_status(service, body):
    if body['status'] == 'enabled':
        if body.get('disabled_reason'):
            raise exception.ValidationError(
                detail="Specifying 'disabled_reason' with status 'enabled' "
                       "is invalid.")
        service.disabled = False
        service.disabled_reason = None
    else:
        service.disabled = True
        service.disabled_reason = body.get('disabled_reason')


@validation.body(schema.SERVICE_UPDATE_V253)
def update(req, service_id, body):
    """The updated Service (the caller shows it); 400 for an id that is
    not a uuid, a service that is not a compute, a reason given with
    "enabled", or a body with neither status nor forced_down; 404 for no
    such service."""
    context = req.context
    context.can(policies.SERVICES % 'update', target={})
    service = _by_uuid(context, service_id)
    binary = service_names.to_api(service.binary)
    if binary != 'nova-compute':
        raise exception.ValidationError(
            detail='Updating a %s service is not supported. Only '
                   'nova-compute services can be updated.' % binary)
    if 'status' in body:
        _apply_status(service, body)
    if 'forced_down' in body:
        service.forced_down = common.to_bool(body['forced_down'])
    if not service.obj_what_changed():
        raise exception.ValidationError(
            detail="No updates were requested. Fields 'status' or "
                   "'forced_down' should be specified.")
    service.save()
    return service


def delete(req, service_id, by_uuid):
    """Delete the service named by ``service_id`` (a uuid when
    ``by_uuid``, else an integer id). Raises ValidationError (400),
    ServiceNotFound (404), ServiceHasServers or ServiceHasMoves (409)."""
    context = req.context
    context.can(policies.SERVICES % 'delete', target={})
    service = (_by_uuid if by_uuid else _by_id)(context, service_id)
    service.destroy()
