"""JSON-schema validation of request bodies and query strings.

Handlers declare their schemas with decorators::

    @validation.body(schemas.servers.CREATE)
    def create(req, body): ...

    @validation.query(schemas.servers.INDEX_QUERY)
    def index(req): ...

A body that is not JSON (or nested too deeply to parse) is a 400
"Malformed request body"; a schema violation is a 400 whose message names
the field. Query strings are validated as a dict of lists (every parameter
may repeat).

Both decorators leave the schema on the handler (``body_schema``,
``query_schema``), where ``api/openapi.py`` reads it. A handler that
validates again with the schema of the request's microversion lists
those as ``body_schema_versions`` or ``query_schema_versions``, pairs of
(first version, schema) that ``for_version`` chooses from, so the
document of a version shows what that version takes.

Three extensions to Draft 4, all because Nova's schemas rely on them:
``minimum`` and ``maximum`` also bound strings of digits (integers may be
given as strings, and a string beyond the database's integer range must be
a 400, not an overflow in the driver); and the ``name`` format refuses
control and non-printable characters, as Nova's names do; the ``uuid``
format is oslo.utils' (dashes optional), not jsonschema's.
"""

import base64
import binascii
import functools
import re
import unicodedata

import jsonschema
from jsonschema import exceptions as js_exc
from oslo_serialization import jsonutils
from oslo_utils import uuidutils

from nova_lite.api import api_version
from nova_lite import exception

_JSON_TYPES = ('application/json', 'application/vnd.openstack.compute+json')
_DIGITS = re.compile(r'^-?[0-9]+$')


def _as_number(instance):
    """The number a schema bound applies to: numbers, and strings of
    digits (how Nova's integer parameters may arrive); else None."""
    if isinstance(instance, bool):
        return None
    if isinstance(instance, (int, float)):
        return instance
    if isinstance(instance, str) and _DIGITS.match(instance):
        return int(instance)
    return None


def _bound(keyword, exclusive_key, beyond, word):
    def check(validator, bound, instance, schema):
        number = _as_number(instance)
        if number is None:
            return
        exclusive = schema.get(exclusive_key, False)
        if beyond(number, bound) or (exclusive and number == bound):
            yield js_exc.ValidationError(
                '%r is %s the %s of %s' % (
                    instance, word, keyword, bound))
    return check


def _printable(char):
    # Letters, marks, numbers, punctuation, symbols and plain spaces;
    # not control/format/unassigned characters nor line or paragraph
    # separators.
    category = unicodedata.category(char)
    return not category.startswith('C') and (
        not category.startswith('Z') or category == 'Zs')


FORMAT_CHECKER = jsonschema.FormatChecker()


@FORMAT_CHECKER.checks('name', raises=ValueError)
def _check_name(instance):
    if not isinstance(instance, str):
        return True
    bad = [c for c in instance if not _printable(c)]
    if bad:
        raise ValueError('a name may only hold printable characters; '
                         'found %s' % ', '.join(sorted({'U+%04X' % ord(c)
                                                        for c in bad})))
    return True


@FORMAT_CHECKER.checks('description', raises=ValueError)
def _check_description(instance):
    """Nova's descriptions: printable characters (as names), or empty."""
    if not isinstance(instance, str):
        return True
    bad = [c for c in instance if not _printable(c)]
    if bad:
        raise ValueError('a description may only hold printable '
                         'characters; found %s' % ', '.join(
                             sorted({'U+%04X' % ord(c) for c in bad})))
    return True


@FORMAT_CHECKER.checks('base64', raises=ValueError)
def _check_base64(instance):
    """Nova's ``base64`` format (user_data): strict base64."""
    if not isinstance(instance, str):
        return True
    try:
        base64.b64decode(instance, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError('not valid base64')
    return True


@FORMAT_CHECKER.checks('uuid', raises=ValueError)
def _check_uuid(instance):
    """Nova's ``uuid`` format: what oslo.utils calls UUID-like (dashes
    optional, any case)."""
    if isinstance(instance, str) and not uuidutils.is_uuid_like(instance):
        raise ValueError('%r is not a UUID' % instance)
    return True


_Validator = jsonschema.validators.extend(jsonschema.Draft4Validator, {
    'minimum': _bound('minimum', 'exclusiveMinimum',
                      lambda n, b: n < b, 'less than'),
    'maximum': _bound('maximum', 'exclusiveMaximum',
                      lambda n, b: n > b, 'greater than'),
})


def for_version(versions, version):
    """The schema of ``versions`` (pairs of (first version, schema), in
    any order) that applies at ``version`` (an APIVersionRequest): the
    one of the latest first version not above it; None if there is
    none."""
    chosen = None
    for first, schema in versions:
        first = api_version.APIVersionRequest(first)
        if first <= version and (chosen is None or first > chosen[0]):
            chosen = (first, schema)
    return chosen[1] if chosen else None


def _validator(schema):
    _Validator.check_schema(schema)
    return _Validator(schema, format_checker=FORMAT_CHECKER)


def _error_message(error):
    # The innermost named field: a repeated query parameter's path ends
    # with the index of the value, which names nothing.
    names = [part for part in error.path if isinstance(part, str)]
    if names:
        field = names[-1]
        return ('Invalid input for field/attribute %s. Value: %s. %s'
                % (field, jsonutils.dumps(error.instance), _reason(error)))
    return _reason(error)


def _reason(error):
    # A format checker's own explanation says more than "is not a 'name'".
    if error.validator == 'format' and error.cause is not None:
        return str(error.cause)
    return error.message


def validate(validator, value):
    """Raise ValidationError (400) if ``value`` breaks the schema."""
    try:
        error = js_exc.best_match(validator.iter_errors(value))
    except RecursionError:
        raise exception.ValidationError(
            detail='The request is nested too deeply to validate.')
    if error is not None:
        raise exception.ValidationError(detail=_error_message(error))


def _holds_nul(data):
    """Whether a string of ``data`` (a key or a value, at any depth)
    holds a NUL character. Iterative: a body may nest as deeply as the
    parser allows."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if '\x00' in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def parse_json_body(req):
    """The request body as JSON; raises 400/415 when it is not, and 400
    when one of its strings holds a NUL character ("\\u0000"): no name,
    tag or value may, and PostgreSQL refuses to store one (a 500 the
    fuzzing run found, as ``faultwrap`` refuses one in the URL)."""
    content_type = (req.content_type or '').lower()
    if content_type and content_type not in _JSON_TYPES:
        raise exception.InvalidContentType(content_type=content_type)
    raw = req.body
    if not raw:
        raise exception.MalformedRequestBody()
    try:
        data = jsonutils.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise exception.MalformedRequestBody()
    except RecursionError:
        # The parser recurses once per level of nesting; no API body
        # comes near the interpreter's limit, so this is an attack.
        raise exception.MalformedRequestBody(
            message='Malformed request body: nested too deeply')
    if _holds_nul(data):
        raise exception.ValidationError(
            detail='The request body holds a NUL character (U+0000), '
                   'which no name, tag or value may contain.')
    return data


def body(schema):
    """Validate the JSON body and pass it to the handler as ``body``."""
    validator = _validator(schema)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(req, *args, **kwargs):
            data = parse_json_body(req)
            validate(validator, data)
            return fn(req, *args, body=data, **kwargs)
        # For the OpenAPI document (api/openapi.py).
        wrapper.body_schema = schema
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
        wrapper.query_schema = schema
        return wrapper
    return decorator
