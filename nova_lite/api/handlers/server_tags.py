"""/servers/{id}/tags[/{tag}]: a server's tags (microversion 2.26).

Reading answers for a server in any state; changing the tags needs the
server ACTIVE, PAUSED, SUSPENDED or STOPPED (409 otherwise), as Nova.
A lock does not protect tags (Nova does not check it either). At most
``MAX_TAG_COUNT`` tags per server (400 past it); a tag is 1 to 60
characters without '/' or ','.
"""

from urllib import parse

from nova_lite.api import common
from nova_lite.api.schemas import server_tags as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import api as compute_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.policies import server_tags as policies

compute = compute_api.API()
VERSION = '2.26'
_WRITABLE_STATES = (fields.VMState.ACTIVE, fields.VMState.PAUSED,
                    fields.VMState.SUSPENDED, fields.VMState.STOPPED)
_TAG_VALIDATOR = validation._validator(schema.TAG)


def _instance(req, server_id, action):
    instance = compute.get(req.context, server_id)
    req.context.can(policies.TAGS % action,
                    target={'project_id': instance.project_id,
                            'user_id': instance.user_id})
    return instance


def _writable(req, server_id, action, method):
    instance = _instance(req, server_id, action)
    if instance.vm_state not in _WRITABLE_STATES:
        raise exception.InstanceInvalidState(
            attr='vm_state', instance_uuid=instance.uuid,
            state=instance.vm_state, method=method)
    return instance


def _names(tags):
    return [tag.tag for tag in tags]


@common.added_at(VERSION)
def index(req, server_id):
    """200 {"tags": [...]}."""
    instance = _instance(req, server_id, 'index')
    return wsgi.json_response({'tags': _names(
        objects.TagList.get_by_resource_id(req.context, instance.uuid))})


@common.added_at(VERSION)
def show(req, server_id, tag):
    """204 if the server has the tag, 404 if not."""
    instance = _instance(req, server_id, 'show')
    if not objects.Tag.exists(req.context, instance.uuid, tag):
        raise exception.InstanceTagNotFound(server_id=server_id, tag=tag)
    return wsgi.json_response(status=204)


@common.added_at(VERSION)
@validation.body(schema.UPDATE_ALL)
def update_all(req, server_id, body):
    """200 {"tags": [...]}: the given tags replace all others."""
    instance = _writable(req, server_id, 'update_all', 'update tags')
    tags = objects.TagList.create(req.context, instance.uuid, body['tags'])
    return wsgi.json_response({'tags': _names(tags)})


@common.added_at(VERSION)
def delete_all(req, server_id):
    """204: the server has no tags any more."""
    instance = _writable(req, server_id, 'delete_all', 'delete tags')
    objects.TagList.destroy(req.context, instance.uuid)
    return wsgi.json_response(status=204)


def _check_tag(tag):
    error = next(_TAG_VALIDATOR.iter_errors(tag), None)
    if error is not None:
        raise exception.ValidationError(detail=(
            "Tag '%s' is invalid: it must be a string of 1 to %d "
            "characters without '/' or ','. %s"
            % (tag, schema.TAG['maxLength'], error.message)))


@common.added_at(VERSION)
def update(req, server_id, tag):
    """201 with a Location if the tag is new, 204 if the server had it;
    400 for a bad tag or past the per-server limit."""
    instance = _writable(req, server_id, 'update', 'update tag')
    _check_tag(tag)
    added = objects.Tag(req.context, resource_id=instance.uuid,
                        tag=tag).create()
    if not added:
        return wsgi.json_response(status=204)
    # Quoted: a tag may hold any character, a header only Latin-1.
    location = '%s/servers/%s/tags/%s' % (common.self_base(req),
                                           instance.uuid,
                                           parse.quote(tag, safe=''))
    return wsgi.json_response(status=201, headers={'Location': location})


# For the OpenAPI document: the other success of the docstring.
update.also_answers = ('204',)


@common.added_at(VERSION)
def delete(req, server_id, tag):
    """204; 404 if the server has no such tag."""
    instance = _writable(req, server_id, 'delete', 'delete tag')
    objects.Tag.destroy(req.context, instance.uuid, tag)
    return wsgi.json_response(status=204)
