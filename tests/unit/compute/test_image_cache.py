"""The compute side of the aggregate image pre-cache (compute RPC 1.9):
each image tried on its own, a driver without a cache tolerated, and the
fake driver recording what it was asked."""

from nova_lite.compute import image_cache
from nova_lite.compute import manager
from nova_lite.virt import driver as driver_base
from nova_lite.virt import fake

IMAGES = ['70a599e0-31e7-49b7-b260-868f441e862b',
          '155d900f-4e14-4e4c-a73d-069cbf4541e6']


def test_the_fake_driver_records_the_images():
    drv = fake.FakeDriver()
    results = image_cache.cache_images(drv, None, 'c1', IMAGES)
    assert results == dict.fromkeys(IMAGES, 'cached')
    assert drv.cached_images() == sorted(IMAGES)
    again = image_cache.cache_images(drv, None, 'c1', IMAGES[:1])
    assert again == {IMAGES[0]: 'existing'}


def test_one_failing_image_does_not_stop_the_others():
    class Flaky(fake.FakeDriver):
        def cache_image(self, context, image_id):
            if image_id == IMAGES[0]:
                raise RuntimeError('download failed')
            return super().cache_image(context, image_id)
    drv = Flaky()
    results = image_cache.cache_images(drv, None, 'c1', IMAGES)
    assert results == {IMAGES[0]: 'error', IMAGES[1]: 'cached'}
    assert drv.cached_images() == [IMAGES[1]]


def test_a_driver_without_a_cache_is_tolerated():
    class NoCache(driver_base.ComputeDriver):
        pass
    results = image_cache.cache_images(NoCache(), None, 'c1', IMAGES)
    assert results == dict.fromkeys(IMAGES, 'unsupported')


def test_the_manager_endpoint_uses_its_driver():
    compute = manager.ComputeManager.__new__(manager.ComputeManager)
    compute.driver = fake.FakeDriver()
    compute.host = 'c1'
    compute.cache_images(None, image_ids=IMAGES)
    assert compute.driver.cached_images() == sorted(IMAGES)
