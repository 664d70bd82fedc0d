"""The image API: what the rest of nova_lite calls for images.

An image is a plain dict, whichever backend holds it::

    {'id', 'name', 'status', 'disk_format', 'container_format', 'size',
     'min_disk', 'min_ram', 'owner', 'visibility', 'properties': {},
     'created_at', 'updated_at'}

Statuses are Glance's (queued, saving, active, killed, ...). Each call is
delegated to the backend ``[image] backend`` names (``registry``, the
default, or ``glance``), loaded once per process from the
``nova_lite.image.backends`` entry points. Every backend raises
ImageNotFound for an unknown or invisible image, MarkerNotFound for a bad
list marker and ImageServiceUnavailable when it cannot be reached.

    from nova_lite.image import api as image_api
    image = image_api.get(context, image_id)
"""

import threading

from stevedore import driver

from nova_lite import conf
from nova_lite import exception
from nova_lite.image import registry

CONF = conf.CONF
NAMESPACE = 'nova_lite.image.backends'
DISK_FORMATS = registry.DISK_FORMATS
CONTAINER_FORMATS = registry.CONTAINER_FORMATS

_lock = threading.Lock()
_backend = {}


def backend():
    """The configured backend (one instance per process and name)."""
    name = CONF.image.backend
    with _lock:
        if name not in _backend:
            try:
                _backend[name] = driver.DriverManager(
                    NAMESPACE, name, invoke_on_load=True).driver
            except Exception as exc:
                raise exception.ConfigInvalid(
                    reason='[image] backend %r cannot be loaded: %s'
                          % (name, exc))
        return _backend[name]


def reset():
    """Forget the loaded backends (tests, and a SIGHUP that changed the
    configuration)."""
    with _lock:
        _backend.clear()


def reads_database():
    """Whether the configured backend reads nova_lite's own database, so
    that a caller may read it inside a transaction it already holds.
    False for a backend that does not say (a connection must not be held
    across another service's answer)."""
    return bool(getattr(backend(), 'reads_database', False))


def get(context, image_id, cached=True):
    """The image ``image_id`` as the caller sees it; ImageNotFound.

    ``cached=False`` asks the image service itself (the API's /images,
    which must show a snapshot's progress as it happens)."""
    return backend().get(context, image_id, cached=cached)


def get_all(context, limit=None, marker=None, filters=None):
    """Visible images, newest first, at most ``limit`` after ``marker``.

    ``filters``: name, status, visibility, owner (exact), min_disk and
    min_ram (images needing at least that much), properties (a dict of
    property values an image must all have).
    """
    return backend().get_all(context, limit=limit, marker=marker,
                             filters=filters)


def create(context, name, **kwargs):
    """Register an image (keywords as ``registry.create``); its dict."""
    return backend().create(context, name, **kwargs)


def set_status(context, image_id, status, size=None):
    """Move a snapshot to ``status`` (saving, active with its ``size`` in
    bytes, or killed); ImageNotFound if it is gone."""
    return backend().set_status(context, image_id, status, size=size)


def delete(context, image_id):
    """Delete an image; False if there was none."""
    return backend().delete(context, image_id)
