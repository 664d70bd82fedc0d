"""The glance image backend: images live in a Glance v2 API.

Selected by ``[image] backend = glance``. Every call carries the caller's
token (``glance_client``), so Glance decides visibility and ownership.
Images read are cached briefly per token (``[glance] cache_ttl``).
Glance's images become the dicts of ``nova_lite.image.api``: the core
attributes by name, every other attribute in ``properties`` (as strings).

Glance has no "set status": a snapshot is created queued, its data upload
(``PUT /v2/images/{id}/file``) makes it active, and a failed snapshot
(killed) is deleted, as Nova does.
"""

import re

from oslo_utils import timeutils

from nova_lite import conf
from nova_lite import exception
from nova_lite.image import cache
from nova_lite.image import glance_client

CONF = conf.CONF
# Attributes of a Glance v2 image that are not user properties.
CORE = frozenset((
    'id', 'name', 'status', 'disk_format', 'container_format', 'size',
    'virtual_size', 'checksum', 'min_disk', 'min_ram', 'owner',
    'visibility', 'protected', 'os_hidden', 'os_hash_algo',
    'os_hash_value', 'tags', 'created_at', 'updated_at', 'self', 'file',
    'schema', 'direct_url', 'locations', 'stores', 'member_status'))
_PAGE = 1000
_TAGS = re.compile(r'<[^>]*>')


def _time(value):
    if not value:
        return None
    return timeutils.normalize_time(timeutils.parse_isotime(value))


def from_glance(image):
    """The image dict of a Glance v2 image document."""
    return {
        'id': image['id'],
        'name': image.get('name'),
        'status': image.get('status'),
        'disk_format': image.get('disk_format'),
        'container_format': image.get('container_format'),
        'size': image.get('size') or 0,
        'min_disk': image.get('min_disk') or 0,
        'min_ram': image.get('min_ram') or 0,
        'owner': image.get('owner'),
        'visibility': image.get('visibility'),
        'properties': {k: v if isinstance(v, str) else str(v)
                       for k, v in image.items()
                       if k not in CORE and v is not None},
        'created_at': _time(image.get('created_at')),
        'updated_at': _time(image.get('updated_at')),
    }


def _matches(image, filters):
    """min_disk/min_ram are "at least" filters Glance's list lacks; the
    properties are checked again (Glance ignores a filter on a property
    it does not index)."""
    properties = image.get('properties') or {}
    return all(image[key] >= int(filters[key])
               for key in ('min_disk', 'min_ram')
               if filters.get(key) is not None) and all(
        properties.get(name) == value
        for name, value in (filters.get('properties') or {}).items())


class GlanceBackend:
    """The image API over Glance v2 (see ``nova_lite.image.api``)."""

    def __init__(self, client=None, clock=None):
        self.client = client or glance_client.GlanceClient()
        kwargs = {'clock': clock} if clock else {}
        self.cache = cache.TTLCache(CONF.glance.cache_ttl,
                                    CONF.glance.cache_size, **kwargs)

    def _call(self, context, method, url, **kwargs):
        return self.client.request(context, method, url, **kwargs)

    def get(self, context, image_id, cached=True):
        key = (context.auth_token, image_id)
        image = self.cache.get(key) if cached else None
        if image is None:
            resp = self._call(context, 'GET', '/v2/images/%s' % image_id)
            if resp.status_code in (400, 403, 404):
                # Glance answers 404 for an invisible image; 400 for an
                # id that is not a UUID (Nova's proxy: not found too).
                raise exception.ImageNotFound(image_id=image_id)
            image = from_glance(resp.json())
            self.cache.put(key, image)
        return dict(image, properties=dict(image['properties']))

    def get_all(self, context, limit=None, marker=None, filters=None):
        filters = filters or {}
        params = {k: filters[k] for k in ('name', 'status', 'visibility',
                                          'owner') if filters.get(k)}
        # Glance filters on any property given as a query parameter.
        params.update(filters.get('properties') or {})
        params.update(sort_key='created_at', sort_dir='desc',
                      limit=min(limit or _PAGE, _PAGE))
        if marker is not None:
            params['marker'] = marker
        wanted = limit if limit is not None else _PAGE
        images, url = [], '/v2/images'
        while url and len(images) < wanted:
            resp = self._call(context, 'GET', url, params=params)
            if resp.status_code == 400 and marker is not None:
                raise exception.MarkerNotFound(marker=marker)
            if resp.status_code >= 400:
                raise exception.InvalidInput(reason=_glance_message(resp))
            body = resp.json()
            images.extend(i for i in map(from_glance, body['images'])
                          if _matches(i, filters))
            # "next" already holds every query parameter.
            url, params = body.get('next'), None
        return images[:wanted]

    def create(self, context, name, disk_format='raw',
               container_format='bare', properties=None, min_disk=0,
               min_ram=0, visibility='private', image_id=None, **_ignored):
        """A queued image in Glance; size, status and owner are Glance's
        to set (the owner is the token's project)."""
        body = {str(k): str(v) for k, v in (properties or {}).items()}
        body.update(name=name, disk_format=disk_format,
                    container_format=container_format,
                    min_disk=int(min_disk), min_ram=int(min_ram),
                    visibility=visibility)
        if image_id:
            body['id'] = image_id
        resp = self._call(context, 'POST', '/v2/images', json=body)
        if resp.status_code == 409:
            raise exception.ImageExists(image_id=image_id)
        if resp.status_code >= 400:
            raise exception.InvalidInput(reason=_glance_message(resp))
        return from_glance(resp.json())

    def set_status(self, context, image_id, status, size=None):
        self.cache.forget(image_id)
        if status == 'killed':
            image = self.get(context, image_id)
            self.delete(context, image_id)
            return dict(image, status='killed')
        if status == 'active':
            resp = self._call(
                context, 'PUT', '/v2/images/%s/file' % image_id,
                # The fake driver's snapshot has a size but no bytes:
                # send that many zeros, with a Content-Length (a chunked
                # body is not understood by every WSGI server Glance runs
                # under).
                data=b'\0' * int(size or 0),
                headers={'Content-Type': 'application/octet-stream'})
            if resp.status_code == 404:
                raise exception.ImageNotFound(image_id=image_id)
            if resp.status_code >= 400:
                raise exception.InvalidInput(reason=_glance_message(resp))
            self.cache.forget(image_id)
        # "saving" is Glance's own doing during an upload.
        return self.get(context, image_id)

    def delete(self, context, image_id):
        self.cache.forget(image_id)
        resp = self._call(context, 'DELETE', '/v2/images/%s' % image_id)
        if resp.status_code in (400, 404):
            return False
        if resp.status_code == 403:
            raise exception.Forbidden(
                message='Not allowed to delete image %s: %s'
                        % (image_id, _glance_message(resp)))
        if resp.status_code >= 400:
            raise exception.InvalidInput(reason=_glance_message(resp))
        return True


def _glance_message(resp):
    """Glance's explanation of a 4xx (an HTML page), as one line."""
    text = ' '.join(_TAGS.sub(' ', resp.text).split())
    return 'Glance answered %s: %s' % (resp.status_code, text[:300])
