"""/os-aggregates: host aggregates and availability zones (administrators).

Nova's shapes: an aggregate shows its availability_zone, created_at,
deleted, deleted_at, hosts, id, metadata, name and updated_at, and from
2.41 its uuid (create answers without hosts and metadata, as Nova
does). Changes to hosts and metadata are POST .../action with one of
add_host, remove_host, set_metadata. From 2.81 POST .../images asks the
aggregate's hosts to cache images (``aggregate_images``).
"""

from nova_lite.api import common
from nova_lite.api.schemas import aggregates as schema
from nova_lite.api.schemas import parameter_types
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import aggregate_api
from nova_lite import exception
from nova_lite.policies import aggregates as policies

api = aggregate_api.AggregateAPI()


def aggregate_view(req, aggregate, members=True):
    """Nova's aggregate, with its ``uuid`` from 2.41."""
    view = {
        'availability_zone': aggregate.availability_zone,
        'created_at': common.isotime_usec(aggregate.created_at),
        'deleted': False,
        'deleted_at': None,
        'id': aggregate.id,
        'name': aggregate.name,
        'updated_at': common.isotime_usec(aggregate.updated_at),
    }
    if members:
        view['hosts'] = list(aggregate.hosts)
        view['metadata'] = dict(aggregate.metadata)
    if req.api_version_request.matches('2.41'):
        view['uuid'] = aggregate.uuid
    return view


def _response(req, aggregate, members=True):
    return wsgi.json_response(
        {'aggregate': aggregate_view(req, aggregate, members)})


def _can(req, action):
    req.context.can(policies.AGGREGATES % action, target={})
    return req.context


def parse_aggregate_id(value):
    """The id of the URL as an int; 400 unless it is one the database can
    hold (as Nova, which validates it before looking it up)."""
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not 0 <= number <= parameter_types.MAX_INT:
        raise exception.ValidationError(
            detail='Aggregate id %s must be an integer from 0 to %d.'
                   % (value, parameter_types.MAX_INT))
    return number


def index(req):
    """200 {"aggregates": [aggregate, ...]}."""
    context = _can(req, 'index')
    return wsgi.json_response({'aggregates': [
        aggregate_view(req, a) for a in api.get_all(context)]})


@validation.body(schema.CREATE)
def create(req, body):
    """200 {"aggregate": ...} without hosts and metadata; 409 when the
    name is taken, 400 for a reserved zone name."""
    context = _can(req, 'create')
    values = body['aggregate']
    aggregate = api.create(context, values['name'],
                           values.get('availability_zone'))
    return _response(req, aggregate, members=False)


def show(req, aggregate_id):
    """200 {"aggregate": ...}; 404 for an unknown id."""
    context = _can(req, 'show')
    return _response(req, api.get(context, parse_aggregate_id(aggregate_id)))


@validation.body(schema.UPDATE)
def update(req, aggregate_id, body):
    """200 {"aggregate": ...}: renamed and/or re-zoned; 409 for a taken
    name, 400 when the zone would conflict."""
    context = _can(req, 'update')
    return _response(req, api.update(
        context, parse_aggregate_id(aggregate_id), body['aggregate']))


def delete(req, aggregate_id):
    """200 with no body; 400 while the aggregate has hosts."""
    context = _can(req, 'delete')
    api.delete(context, parse_aggregate_id(aggregate_id))
    return wsgi.json_response(status=200)


@validation.body(schema.ADD_HOST)
def _add_host(req, aggregate_id, body):
    context = _can(req, 'add_host')
    return _response(req, api.add_host(
        context, parse_aggregate_id(aggregate_id), body['add_host']['host']))


@validation.body(schema.REMOVE_HOST)
def _remove_host(req, aggregate_id, body):
    context = _can(req, 'remove_host')
    return _response(req, api.remove_host(
        context, parse_aggregate_id(aggregate_id),
        body['remove_host']['host']))


@validation.body(schema.SET_METADATA)
def _set_metadata(req, aggregate_id, body):
    context = _can(req, 'set_metadata')
    return _response(req, api.update_metadata(
        context, parse_aggregate_id(aggregate_id),
        body['set_metadata']['metadata']))


_ACTIONS = {'add_host': _add_host, 'remove_host': _remove_host,
            'set_metadata': _set_metadata}


def action(req, aggregate_id):
    """200 {"aggregate": ...} after add_host (404 unknown host, 409 already
    there, 400 zone conflict), remove_host (404 not there) or
    set_metadata (null removes a key)."""
    body = validation.parse_json_body(req)
    # Any JSON may arrive here (a number, a list): only a one-key object
    # names an action.
    name = next(iter(body), None) if isinstance(body, dict) else None
    if not isinstance(body, dict) or len(body) != 1 or name not in _ACTIONS:
        raise exception.ValidationError(
            detail='the body must have exactly one of %s'
                   % ', '.join(sorted(_ACTIONS)))
    return _ACTIONS[name](req, aggregate_id)


action.body_schemas = [handler.body_schema for handler in _ACTIONS.values()]
