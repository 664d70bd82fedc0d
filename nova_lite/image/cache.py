"""A small time-to-live cache of images read from an image service.

A boot looks its image up in the API, then in the conductor; a list of
servers may show the same image many times. Entries are keyed by the
caller's token and the image id, so one caller never sees what another
was allowed to see, and live ``ttl`` seconds.
"""

import collections
import threading
import time


class TTLCache:
    """``get``/``put``/``forget`` under one lock; ``ttl`` 0 keeps nothing.

    ``clock`` (seconds, monotonic) is injectable for tests.
    """

    def __init__(self, ttl, size, clock=time.monotonic):
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._lock = threading.Lock()
        self._items = collections.OrderedDict()

    def get(self, key):
        """The value stored under ``key`` if still fresh, else None."""
        with self._lock:
            entry = self._items.get(key)
            if entry is None:
                return None
            expires, value = entry
            if expires <= self._clock():
                del self._items[key]
                return None
            return value

    def put(self, key, value):
        if self.ttl <= 0:
            return
        with self._lock:
            self._items.pop(key, None)
            self._items[key] = (self._clock() + self.ttl, value)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def forget(self, image_id):
        """Drop ``image_id`` for every caller (it changed or is gone)."""
        with self._lock:
            for key in [k for k in self._items if k[1] == image_id]:
                del self._items[key]

    def clear(self):
        with self._lock:
            self._items.clear()
