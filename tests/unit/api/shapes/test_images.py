"""/images at 2.1 against tempest.lib's schemas."""

from tempest.lib.api_schema.response.compute.v2_1 import images as schemas

from tests.unit.api import fakes
from tests.unit.api.test_images import registry  # noqa: F401


def test_every_answer(api, registry, assert_shape):  # noqa: F811
    assert_shape(api()('GET', '/images'), schemas.list_images)
    assert_shape(api()('GET', '/images?limit=1'), schemas.list_images)
    assert_shape(api()('GET', '/images/detail'),
                 schemas.list_images_details)
    assert_shape(api()('GET', '/images/' + fakes.image()['id']),
                 schemas.get_image)
