"""/servers/{id}/shares[/{share_id}]: shares attached to a server
(microversion 2.97; 404 before, as Nova's routes).

nova_lite has no share service (Manila), so no server has a share: the
list is empty, a share is never attached (404), and an attachment finds
no share to attach (404), as Nova answers for a share its share service
does not know. The server is looked up and the policy checked first, and
attaching needs the server stopped (409 otherwise), as in Nova.
"""

from nova_lite.api import common
from nova_lite.api.schemas import server_shares as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import exception
from nova_lite.objects import fields
from nova_lite.policies import server_shares as policies

compute = compute_api.API()
VERSION = '2.97'


def _instance(req, server_id, action):
    instance = compute.get(req.context, server_id)
    req.context.can(policies.SHARES % action,
                    target={'project_id': instance.project_id,
                            'user_id': instance.user_id})
    return instance


@common.added_at(VERSION)
def index(req, server_id):
    """200 {"shares": []}: no share is ever attached here."""
    _instance(req, server_id, 'index')
    return wsgi.json_response({'shares': []})


@common.added_at(VERSION)
@validation.body(schema.CREATE)
def create(req, server_id, body):
    """Never succeeds here: 409 unless the server is stopped, then 404
    for the share (no share service knows it)."""
    instance = _instance(req, server_id, 'create')
    if instance.vm_state != fields.VMState.STOPPED:
        raise exception.InstanceInvalidState(
            attr='vm_state', instance_uuid=instance.uuid,
            state=instance.vm_state, method='attach a share')
    raise exception.ShareNotFound(share_id=body['share']['share_id'])


@common.added_at(VERSION)
def show(req, server_id, share_id):
    """404: the server has no share attached."""
    _instance(req, server_id, 'show')
    raise exception.ShareMappingNotFound(share_id=share_id,
                                         server_id=server_id)


@common.added_at(VERSION)
def delete(req, server_id, share_id):
    """404: the server has no share attached."""
    _instance(req, server_id, 'delete')
    raise exception.ShareMappingNotFound(share_id=share_id,
                                         server_id=server_id)
