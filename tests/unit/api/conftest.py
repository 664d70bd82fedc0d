"""Fixtures of the API tests: contexts, an app with a given caller, and a
fresh policy enforcer per test. Nothing here touches a database or a bus:
handlers' collaborators are replaced by fakes (see fakes.py)."""

import json

import pytest
import webob

from nova_lite.api import router
from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import tag as tag_obj
from nova_lite import policy


@pytest.fixture(autouse=True)
def fresh_policy(conf):
    # The conf fixture's cleanup (CONF.reset) un-parses CONF, and
    # oslo.policy looks for its file next to the parsed config files.
    CONF([], project='nova_lite', default_config_files=[])
    policy.reset()
    yield
    policy.reset()


def make_context(user_id='demo', project_id='proj1', roles=None):
    if roles is None:
        roles = (['admin', 'member', 'reader'] if user_id == 'admin'
                 else ['member', 'reader'])
    return nl_context.RequestContext(user_id=user_id, project_id=project_id,
                                     roles=roles, overwrite=False)


class WithContext:
    """Stands in for the auth filter: puts ``context`` in the environ."""

    def __init__(self, app, context):
        self.app = app
        self.context = context

    def __call__(self, environ, start_response):
        if self.context is not None:
            environ[wsgi.CONTEXT_KEY] = self.context
        return self.app(environ, start_response)


def call(app, method, path, body=None, headers=None, script_name='/v2.1'):
    """Send a request to ``app`` mounted at ``script_name``."""
    req = webob.Request.blank(path, method=method)
    req.script_name = script_name
    for name, value in (headers or {}).items():
        req.headers[name] = value
    if body is not None:
        req.body = (body if isinstance(body, bytes)
                    else json.dumps(body).encode())
        if 'Content-Type' not in (headers or {}):
            req.content_type = 'application/json'
    return req.get_response(app)


@pytest.fixture(autouse=True)
def tag_store(monkeypatch):
    """Server tags in a dict ({uuid: set of tags}) instead of the
    database; the objects' own checks (the per-server limit) still run."""
    store = {}

    def add(context, resource_id, tag):
        tags = store.setdefault(resource_id, set())
        if tag in tags:
            return False
        tag_obj._check_count(len(tags) + 1)
        tags.add(tag)
        return True

    def destroy(context, resource_id, tag):
        if tag not in store.get(resource_id, ()):
            raise tag_obj.exception.InstanceTagNotFound(
                server_id=resource_id, tag=tag)
        store[resource_id].discard(tag)

    def replace(context, resource_id, tags):
        wanted = sorted(set(tags))
        tag_obj._check_count(len(wanted))
        store[resource_id] = set(wanted)
        return wanted

    patches = {
        (objects.Tag, '_add_in_db'): add,
        (objects.Tag, '_destroy_in_db'): destroy,
        (objects.Tag, '_exists_in_db'):
            lambda context, resource_id, tag: tag in store.get(
                resource_id, ()),
        (objects.TagList, '_get_in_db'):
            lambda context, ids: {i: sorted(store.get(i, ())) for i in ids},
        (objects.TagList, '_replace_in_db'): replace,
    }
    for (cls, name), fake in patches.items():
        monkeypatch.setattr(cls, name, staticmethod(fake))
    return store


@pytest.fixture
def api():
    """``api(context)`` -> a function calling the router as that caller."""
    def make(context=None):
        app = WithContext(router.APIRouter(), context or make_context())

        def request(method, path, body=None, headers=None):
            return call(app, method, path, body=body, headers=headers)
        return request
    return make


@pytest.fixture
def at_version():
    """``at_version(api(ctx), '2.9')`` -> a caller sending that version."""
    def bind(caller, version):
        def send(method, path, body=None, headers=None):
            headers = dict(headers or {}, **{
                'OpenStack-API-Version': 'compute %s' % version})
            return caller(method, path, body, headers=headers)
        return send
    return bind
