"""What the server views show of what a server was asked for, from the
microversions that brought it (doc/microversions.rst has the table):

* 2.96 ``pinned_availability_zone``: the zone its request spec pins it
  to (the one asked for at create, or given at unshelve), null if none;
* 2.98 the ``properties`` of its image;
* 2.100 ``scheduler_hints``: the hints given at create, as given.

A list reads every server's request spec in one query and each image
once. ``Requested(req, instances)`` holds them for one answer.
"""

from oslo_log import log as logging

from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects

LOG = logging.getLogger(__name__)

PINNED_AZ_VERSION = '2.96'
IMAGE_PROPERTIES_VERSION = '2.98'
SCHEDULER_HINTS_VERSION = '2.100'
# Image attributes Nova keeps with a server's image properties.
_IMAGE_BASE_KEYS = ('min_ram', 'min_disk', 'disk_format', 'container_format')
# Hints nova_lite's own steps add (a rebuild's check type): never the
# user's.
_INTERNAL_HINT_PREFIX = '_nova'
# Nova's image property values are at most 255 characters.
_MAX_VALUE = 255


def _at(req, version):
    return req.api_version_request.matches(version)


def _hints_view(hints):
    """The hints as given: a one-value hint as its value, else the
    list (nova_lite keeps every hint as a list of strings)."""
    shown = {}
    for name, values in (hints or {}).items():
        if name.startswith(_INTERNAL_HINT_PREFIX):
            continue
        values = list(values or ())
        shown[name] = values[0] if len(values) == 1 else values
    return shown


def _properties_view(image):
    """Nova's image properties of a server: the image's own, and its
    min_ram, min_disk, disk_format and container_format, as strings."""
    values = dict(image.get('properties') or {})
    for key in _IMAGE_BASE_KEYS:
        if image.get(key) is not None:
            values[key] = image[key]
    return {str(key): (None if value is None else str(value)[:_MAX_VALUE])
            for key, value in values.items()}


def read_image(context, image_ref):
    """The image dict of ``image_ref`` as the caller sees it."""
    return image_api.get(context, image_ref)


class Requested:
    """The request-derived fields of ``instances`` for one answer at the
    request's microversion (nothing is read below the versions)."""

    def __init__(self, req, instances):
        self._req = req
        self._specs = {}
        self._images = {}
        if _at(req, PINNED_AZ_VERSION) and instances:
            self._specs = objects.RequestSpec.get_shown_fields(
                req.context, [i.uuid for i in instances])

    def fields(self, instance):
        """The top-level keys to add to ``instance``'s view."""
        shown = {}
        spec = self._specs.get(instance.uuid, {})
        if _at(self._req, PINNED_AZ_VERSION):
            shown['pinned_availability_zone'] = spec.get('availability_zone')
        if _at(self._req, SCHEDULER_HINTS_VERSION):
            shown['scheduler_hints'] = _hints_view(spec.get('scheduler_hints'))
        return shown

    def image_properties(self, image_ref):
        """The properties to show in the view's ``image``, or None (no
        key) below 2.98. An image the caller cannot see (or gone, or an
        image service that does not answer) shows none."""
        if not _at(self._req, IMAGE_PROPERTIES_VERSION):
            return None
        if image_ref not in self._images:
            self._images[image_ref] = self._read_image(image_ref)
        return self._images[image_ref]

    def _read_image(self, image_ref):
        try:
            return _properties_view(read_image(self._req.context,
                                               image_ref))
        except (exception.ImageNotFound,
                exception.ImageServiceUnavailable) as exc:
            LOG.debug('No properties shown for image %s: %s', image_ref,
                      exc)
            return {}
