"""The fake driver's image cache (compute RPC 1.9, API microversion
2.81): what the aggregate image pre-cache asked this host to keep.

Nothing is downloaded: the cache is the set of image ids asked for, kept
in memory for the life of the process, so tests and operators can see
that a request reached the host (``cached_images``).
"""

import threading


class ImageCacheMixin:
    """``cache_image`` of the driver contract, recording the ids."""

    def _image_cache(self):
        # Created on first use: the driver's __init__ stays as it is.
        cache = self.__dict__.get('_cached_images')
        if cache is None:
            cache = self.__dict__.setdefault(
                '_cached_images', (threading.Lock(), set()))
        return cache

    def cache_image(self, context, image_id):
        """Record ``image_id`` as cached here; True if it was not yet."""
        lock, cached = self._image_cache()
        with lock:
            if image_id in cached:
                return False
            cached.add(image_id)
            return True

    def cached_images(self):
        """The ids of the images cached here, sorted."""
        lock, cached = self._image_cache()
        with lock:
            return sorted(cached)
