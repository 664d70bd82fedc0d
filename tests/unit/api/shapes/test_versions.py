"""Version discovery against tempest.lib's versions schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import versions as schemas
import webob

from nova_lite.api import versions


def _get(app, path, script_name=''):
    req = webob.Request.blank(path)
    req.script_name = script_name
    return req.get_response(app)


def test_list_and_one(assert_shape):
    assert_shape(_get(versions.Versions(), '/'), schemas.list_versions)
    assert_shape(_get(versions.VersionV21(), '', '/v2.1'),
                 schemas.get_one_version)
