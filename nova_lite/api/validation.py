"""JSON-schema validation of request bodies and query strings.

Handlers declare their schemas with decorators::

    @validation.body(schemas.servers.CREATE)
    def create(req, body): ...

    @validation.query(schemas.servers.INDEX_QUERY)
    def index(req): ...

A body that is not JSON is a 400 "Malformed request body"; a schema
violation is a 400 whose message names the field. Query strings are
validated as a dict of lists (every parameter may repeat).
"""

import functools

import jsonschema
from jsonschema import exceptions as js_exc
from oslo_serialization import jsonutils

from nova_lite import exception

_JSON_TYPES = ('application/json', 'application/vnd.openstack.compute+json')


def _validator(schema):
    cls = jsonschema.validators.validator_for(
        schema, default=jsonschema.Draft4Validator)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _error_message(error):
    if error.path:
        field = error.path[-1]
        return ('Invalid input for field/attribute %s. Value: %s. %s'
                % (field, jsonutils.dumps(error.instance), error.message))
    return error.message


def validate(validator, value):
    """Raise ValidationError (400) if ``value`` breaks the schema."""
    error = js_exc.best_match(validator.iter_errors(value))
    if error is not None:
        raise exception.ValidationError(detail=_error_message(error))


def parse_json_body(req):
    """The request body as JSON; raises 400/415 when it is not."""
    content_type = (req.content_type or '').lower()
    if content_type and content_type not in _JSON_TYPES:
        raise exception.InvalidContentType(content_type=content_type)
    raw = req.body
    if not raw:
        raise exception.MalformedRequestBody()
    try:
        return jsonutils.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise exception.MalformedRequestBody()


def body(schema):
    """Validate the JSON body and pass it to the handler as ``body``."""
    validator = _validator(schema)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(req, *args, **kwargs):
            data = parse_json_body(req)
            validate(validator, data)
            return fn(req, *args, body=data, **kwargs)
        return wrapper
    return decorator


def query_dict(req):
    """The query string as {name: [values]}."""
    result = {}
    for key, value in req.GET.items():
        result.setdefault(key, []).append(value)
    return result


def query(schema):
    """Validate the query string (as ``query_dict``) against ``schema``."""
    validator = _validator(schema)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(req, *args, **kwargs):
            validate(validator, query_dict(req))
            return fn(req, *args, **kwargs)
        return wrapper
    return decorator
