"""Helpers the resource handlers share: links, pagination, times."""

import functools
import re
from urllib import parse

from oslo_utils import strutils
from oslo_utils import timeutils

from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import exception

_VERSION_SUFFIX = re.compile(r'/v\d+(\.\d+)?/?$')


def isotime(value):
    """A datetime as Nova shows created/updated: 2024-01-31T12:00:00Z."""
    if value is None:
        return None
    return value.strftime('%Y-%m-%dT%H:%M:%SZ')


def isotime_usec(value):
    """A datetime as Nova's JSON serializer writes it (microseconds)."""
    if value is None:
        return None
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f')


def _project_prefix(req):
    project_id = req.environ.get(wsgi.URL_PROJECT_KEY)
    return '/' + project_id if project_id else ''


def self_base(req):
    """The versioned root for links: http://host/v2.1[/{project_id}]."""
    return req.application_url.rstrip('/') + _project_prefix(req)


def bookmark_base(req):
    """The unversioned root for bookmark links: http://host[/{project}]."""
    root = _VERSION_SUFFIX.sub('', req.application_url.rstrip('/'))
    return root + _project_prefix(req)


def links(req, collection, item_id):
    """Nova's self and bookmark links of one item."""
    return [
        {'rel': 'self',
         'href': '%s/%s/%s' % (self_base(req), collection, item_id)},
        {'rel': 'bookmark',
         'href': '%s/%s/%s' % (bookmark_base(req), collection, item_id)},
    ]


def bookmark_link(req, collection, item_id):
    return [{'rel': 'bookmark',
             'href': '%s/%s/%s' % (bookmark_base(req), collection, item_id)}]


def last_param(req, name, default=None):
    """The last value of a repeated query parameter."""
    values = req.GET.getall(name)
    return values[-1] if values else default


def get_limit_and_marker(req):
    """(limit, marker) of a list request.

    ``limit`` is capped by ``[api] max_limit``; absent or 0 means the cap.
    """
    limit = last_param(req, 'limit')
    limit = int(limit) if limit is not None else 0
    limit = min(CONF.api.max_limit, limit or CONF.api.max_limit)
    return limit, last_param(req, 'marker')


def list_response(req, key, items, collection):
    """200 {key: items}, plus "<key>_links" (the next page) when the page
    is full; ``collection`` is the path the links point at."""
    body = {key: items}
    links = collection_links(req, items, collection)
    if links:
        body['%s_links' % key] = links
    return wsgi.json_response(body)


def collection_links(req, items, collection, id_key='id'):
    """[{"rel": "next", ...}] when ``items`` fill the page, else [].

    The next link repeats the request's parameters with the marker set to
    the last item.
    """
    limit, _marker = get_limit_and_marker(req)
    if not items or len(items) < limit:
        return []
    params = [(k, v) for k, v in req.GET.items() if k != 'marker']
    params.append(('marker', items[-1][id_key]))
    params.sort()
    href = '%s/%s?%s' % (self_base(req), collection, parse.urlencode(params))
    return [{'rel': 'next', 'href': href}]


def changes_since_param(req, name='changes-since'):
    """The naive UTC datetime of an ISO 8601 query parameter, or None;
    400 if it is not one."""
    value = last_param(req, name)
    if value is None:
        return None
    try:
        # An offset that moves it past year 1 or 9999 overflows.
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except (ValueError, OverflowError):
        raise exception.ValidationError(
            detail="Invalid input for query parameters %s. Value: %s. "
                   "'%s' is not a 'date-time'" % (name, value, value))


def changes_window(req, before_version='2.66'):
    """(changes-since, changes-before) of a list request as naive UTC
    datetimes (None when absent); changes-before only from
    ``before_version`` (2.66; ignored before). 400 for a value that is
    no date-time, or a changes-before earlier than changes-since."""
    since = changes_since_param(req)
    if not req.api_version_request.matches(before_version):
        return since, None
    before = changes_since_param(req, 'changes-before')
    if since is not None and before is not None and before < since:
        raise exception.ValidationError(
            detail='The value of changes-since must be less than or equal '
                   'to changes-before.')
    return since, before


def bool_param(req, name, default=None):
    """A boolean query parameter ("true", "1", "" ...); 400 if not one."""
    value = last_param(req, name)
    if value is None:
        return default
    if value == '':
        return True
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.ValidationError(
            detail='Invalid value %r for %s: expected a boolean'
                   % (value, name))


def to_bool(value):
    """A schema-checked boolean body value (True, "true", "1" ...)."""
    if isinstance(value, bool):
        return value
    return strutils.bool_from_string(value)


def id_from_href(href):
    """The id at the end of a link, or the value itself if not a link."""
    href = str(href)
    return parse.urlsplit(href).path.rstrip('/').rsplit('/', 1)[-1] or href



def removed_at(version):
    """Decorate a handler of an API Nova removed at microversion
    ``version``: from it on the handler answers 404, as for an unknown
    resource."""
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(req, *args, **kwargs):
            if req.api_version_request.matches(version):
                raise exception.NotFound()
            return fn(req, *args, **kwargs)
        # For the OpenAPI document (api/openapi.py): not listed from it.
        wrapper.removed_at = version
        return wrapper
    return decorator


def added_at(version):
    """Decorate a handler of an API Nova added at microversion
    ``version``: before it the handler answers 404, as Nova does for a
    method no handler of the version serves."""
    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(req, *args, **kwargs):
            if not req.api_version_request.matches(version):
                raise exception.NotFound()
            return fn(req, *args, **kwargs)
        # For the OpenAPI document (api/openapi.py): not listed before.
        wrapper.added_at = version
        return wrapper
    return decorator
