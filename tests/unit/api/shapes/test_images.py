"""/images against tempest.lib's schemas (up to 2.35; gone from 2.36)."""

from nova_lite.api.handlers import images
from tests.unit.api import fakes
from tests.unit.api.test_images import registry  # noqa: F401


def test_every_answer(api, registry, assert_shape,  # noqa: F811
                      microversion, monkeypatch, schemas):
    if tuple(map(int, microversion.split('.'))) >= (2, 36):
        for path in ('/images', '/images/detail',
                     '/images/' + fakes.image()['id']):
            assert api()('GET', path).status_int == 404
        return
    schemas = schemas('images')
    assert_shape(api()('GET', '/images'), schemas.list_images)
    assert_shape(api()('GET', '/images?limit=1'), schemas.list_images)
    assert_shape(api()('GET', '/images/detail'),
                 schemas.list_images_details)
    assert_shape(api()('GET', '/images/' + fakes.image()['id']),
                 schemas.get_image)
    monkeypatch.setattr(images.image_api, 'delete',
                        lambda context, image_id: True)
    assert_shape(api()('DELETE', '/images/' + fakes.image()['id']),
                 schemas.delete)
