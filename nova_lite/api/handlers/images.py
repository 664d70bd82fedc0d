"""/images: the image backend in the shape of Nova's image proxy.

With the embedded registry (the default) images are registered with
``nova-lite-manage image create``; with ``[image] backend = glance`` this
lists, shows and deletes Glance's images with the caller's token.
From 2.36 every route here is 404, as Nova's image proxy API is then
(clients use the image service itself).
"""


from nova_lite.api import common
from nova_lite.api.schemas import images as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite.policies import images as policies

# Registry status -> (API status, progress), as Nova maps Glance's.
_STATUS = {
    'active': ('ACTIVE', 100),
    'queued': ('SAVING', 25),
    'saving': ('SAVING', 50),
    'importing': ('SAVING', 50),
    'deleted': ('DELETED', 0),
    'pending_delete': ('DELETED', 0),
    'killed': ('ERROR', 0),
}
# ?status= -> registry status.
_FILTER_STATUS = {'ACTIVE': 'active', 'SAVING': 'saving',
                  'DELETED': 'deleted', 'ERROR': 'killed'}


# Nova's image proxy API is gone from 2.36: 404 there.
_proxy = common.removed_at('2.36')


def basic_view(req, image):
    return {'id': image['id'], 'name': image['name'],
            'links': common.links(req, 'images', image['id'])}


def detail_view(req, image):
    status, progress = _STATUS.get(image['status'], ('UNKNOWN', 0))
    view = basic_view(req, image)
    view.update({
        'status': status,
        'progress': progress,
        'minDisk': image['min_disk'],
        'minRam': image['min_ram'],
        'created': common.isotime(image['created_at']),
        'updated': common.isotime(image['updated_at'] or
                                  image['created_at']),
        'metadata': dict(image['properties']),
        'OS-EXT-IMG-SIZE:size': image['size'],
    })
    server_id = image['properties'].get('instance_uuid')
    if server_id:
        # A snapshot names the server it was taken of, as in Nova.
        view['server'] = {'id': server_id,
                          'links': common.links(req, 'servers', server_id)}
    return view


def _filters(req):
    filters = {}
    name = common.last_param(req, 'name')
    if name:
        filters['name'] = name
    status = common.last_param(req, 'status')
    if status:
        # An unknown status matches nothing, as in Nova's proxy.
        filters['status'] = _FILTER_STATUS.get(status.upper(), status)
    for param, key in (('minRam', 'min_ram'), ('minDisk', 'min_disk')):
        value = common.last_param(req, param)
        if value is not None:
            filters[key] = int(value)
    return filters


def _get_images(req):
    context = req.context
    context.can(policies.IMAGES % 'index')
    limit, marker = common.get_limit_and_marker(req)
    return image_api.get_all(context, limit=limit, marker=marker,
                             filters=_filters(req))


@_proxy
@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"images": [{id, name, links}]}, plus "images_links" (next)
    when the page is full."""
    return common.list_response(
        req, 'images', [basic_view(req, i) for i in _get_images(req)],
        'images')


@_proxy
@validation.query(schema.INDEX_QUERY)
def detail(req):
    """200 {"images": [detail, ...]}, plus "images_links" (next) when the
    page is full."""
    return common.list_response(
        req, 'images', [detail_view(req, i) for i in _get_images(req)],
        'images/detail')


@_proxy
def show(req, image_id):
    """200 {"image": detail}; 404 for an unknown or invisible image."""
    context = req.context
    context.can(policies.IMAGES % 'show')
    image = image_api.get(context, image_id, cached=False)
    return wsgi.json_response({'image': detail_view(req, image)})


@_proxy
def delete(req, image_id):
    """204; 404 for an unknown or invisible image, 403 for another
    project's image, 503 when the image service cannot be reached."""
    context = req.context
    context.can(policies.IMAGES % 'delete')
    if not image_api.delete(context, image_id):
        raise exception.ImageNotFound(image_id=image_id)
    return wsgi.json_response(status=204)
