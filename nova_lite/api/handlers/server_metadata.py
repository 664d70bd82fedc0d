"""/servers/{id}/metadata[/{key}]: a server's metadata (Nova's 2.1).

Changes count against the ``metadata_items`` quota (403 past it) and
follow Nova's rules: not while the server is building, in error or busy
with a task (409), nor while it is locked, unless by an administrator
(409).
"""

from nova_lite.api.schemas import server_metadata as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import action_api
from nova_lite.compute import api as compute_api
from nova_lite import exception
from nova_lite.policies import server_metadata as policies

compute = compute_api.API()
api = action_api.ActionAPI()


def _instance(req, server_id, action):
    instance = compute.get(req.context, server_id)
    req.context.can(policies.METADATA % action,
                    target={'project_id': instance.project_id,
                            'user_id': instance.user_id})
    return instance


def index(req, server_id):
    """200 {"metadata": {...}}."""
    instance = _instance(req, server_id, 'index')
    return wsgi.json_response({'metadata': dict(instance.metadata or {})})


@validation.body(schema.METADATA)
def create(req, server_id, body):
    """200 {"metadata": all items} after merging the given ones."""
    instance = _instance(req, server_id, 'create')
    merged = api.update_metadata(
        req.context, instance, body['metadata'])
    return wsgi.json_response({'metadata': merged})


@validation.body(schema.METADATA)
def update_all(req, server_id, body):
    """200 {"metadata": the given items}, which replace all others."""
    instance = _instance(req, server_id, 'update_all')
    merged = api.update_metadata(
        req.context, instance, body['metadata'], replace=True)
    return wsgi.json_response({'metadata': merged})


def show(req, server_id, key):
    """200 {"meta": {key: value}}; 404 for a key the server lacks."""
    instance = _instance(req, server_id, 'show')
    metadata = instance.metadata or {}
    if key not in metadata:
        raise exception.MetadataItemNotFound(key=key)
    return wsgi.json_response({'meta': {key: metadata[key]}})


@validation.body(schema.META_ITEM)
def update(req, server_id, key, body):
    """200 {"meta": {key: value}}; 400 if the body's key is not the
    URL's."""
    if key not in body['meta']:
        raise exception.ValidationError(
            detail='Request body and URI mismatch')
    instance = _instance(req, server_id, 'update')
    api.update_metadata(req.context, instance, body['meta'])
    return wsgi.json_response({'meta': body['meta']})


def delete(req, server_id, key):
    """204; 404 for a key the server lacks."""
    instance = _instance(req, server_id, 'delete')
    api.delete_metadata_item(req.context, instance, key)
    return wsgi.json_response(status=204)
