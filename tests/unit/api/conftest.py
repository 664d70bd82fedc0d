"""Fixtures of the API tests: contexts, an app with a given caller, and a
fresh policy enforcer per test. Nothing here touches a database or a bus:
handlers' collaborators are replaced by fakes (see fakes.py)."""

import json

import pytest
import webob

from nova_lite.api.handlers import server_view_requested
from nova_lite.api import router
from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import tag as tag_obj
from nova_lite import policy
from tests.unit.api import fakes


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
def image_backend_apart(monkeypatch):
    """The images the tests read are fakes, not in a database: no handler
    opens a transaction to share with them."""
    monkeypatch.setattr(image_api, 'reads_database', lambda: False)


@pytest.fixture(autouse=True)
def server_groups_of(monkeypatch):
    """{instance uuid: group uuid} that InstanceGroup.get_by_instance_uuid
    answers from (the server views name the group from 2.71) instead of
    the database; none by default."""
    groups = {}

    def get_by_instance_uuid(cls, context, instance_uuid):
        if instance_uuid not in groups:
            raise exception.InstanceGroupNotFound(group_uuid=instance_uuid)
        return objects.InstanceGroup(uuid=groups[instance_uuid])
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_instance_uuid',
                        classmethod(get_by_instance_uuid))
    return groups


@pytest.fixture(autouse=True)
def request_specs(monkeypatch):
    """What the server views read of request specs (2.96 pinned zone,
    2.100 hints): ``{uuid: {'availability_zone': ..., 'scheduler_hints':
    {name: [values]}}}``, empty by default, instead of the database."""
    store = {}

    def get_shown_fields(cls, context, instance_uuids, names=None):
        return {uuid: dict(store[uuid]) for uuid in instance_uuids
                if uuid in store}
    monkeypatch.setattr(objects.RequestSpec, 'get_shown_fields',
                        classmethod(get_shown_fields))
    return store


@pytest.fixture(autouse=True)
def view_images(monkeypatch):
    """The images the server views read properties of (2.98), by id,
    instead of the image service: fakes.image() by default; an
    exception as a value is raised."""
    image = fakes.image()
    store = {image['id']: image}

    def read_image(context, image_ref):
        found = store.get(image_ref)
        if found is None:
            raise exception.ImageNotFound(image_id=image_ref)
        if isinstance(found, Exception):
            raise found
        return found
    monkeypatch.setattr(server_view_requested, 'read_image', read_image)
    return store


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
