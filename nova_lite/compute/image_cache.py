"""The compute side of the aggregate image pre-cache (compute RPC 1.9, API
microversion 2.81): fetch each asked image into the driver's cache.

Each image is tried on its own: one that fails is logged and the others
are still fetched, as Nova's compute does; a driver without an image
cache logs that once and does nothing.
"""

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


def cache_images(driver, context, host, image_ids):
    """Ask ``driver`` to cache each of ``image_ids``; return
    {image_id: 'cached' | 'existing' | 'error' | 'unsupported'}."""
    results = {}
    for image_id in image_ids:
        try:
            fetched = driver.cache_image(context, image_id)
        except NotImplementedError:
            LOG.warning('The virt driver of %s has no image cache; image '
                        'pre-cache of %s ignored', host, ', '.join(image_ids))
            return dict.fromkeys(image_ids, 'unsupported')
        except Exception:
            LOG.exception('Caching image %s on %s failed', image_id, host)
            results[image_id] = 'error'
            continue
        results[image_id] = 'cached' if fetched else 'existing'
    LOG.info('Image pre-cache on %s: %s', host, ', '.join(
        '%s %s' % (image_id, result) for image_id, result in results.items()))
    return results
