"""POST /os-aggregates/{aggregate_id}/images (microversion 2.81,
administrators): ask the compute hosts of an aggregate to cache images
before servers boot from them.

The images are looked up first (400 for one the caller cannot see, and
for a duplicate, as in Nova); then each host of the aggregate whose
compute service is up gets a ``cache_images`` cast (compute RPC 1.9).
As Nova's conductor does, hosts that cannot take it (down, or the
computes pinned below RPC 1.9) are skipped and logged, and the request
is accepted (202) without waiting for the fetches.
"""

from oslo_log import log as logging

from nova_lite.api import common
from nova_lite.api.handlers import aggregates
from nova_lite.api.schemas import aggregate_images as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import service as service_obj
from nova_lite.policies import aggregates as policies

LOG = logging.getLogger(__name__)
IMAGE_CACHE_VERSION = '2.81'
_compute_rpcapi = None


def compute_rpc():
    global _compute_rpcapi
    if _compute_rpcapi is None:
        _compute_rpcapi = compute_rpcapi.ComputeAPI()
    return _compute_rpcapi


def _image_ids(context, body):
    """The ids asked for, each an image the caller can see; 400 for a
    duplicate or an unknown image."""
    image_ids = [item['id'] for item in body['cache']]
    if len(set(image_ids)) != len(image_ids):
        raise exception.ValidationError(
            detail='Duplicate images are not supported.')
    for image_id in image_ids:
        try:
            image_api.get(context, image_id)
        except exception.ImageNotFound:
            raise exception.ValidationError(
                detail='Image %s could not be found.' % image_id)
    return image_ids


def _hosts_up(context, aggregate):
    """The aggregate's hosts whose compute service is up (the others are
    logged)."""
    services = {s.host: s for s in objects.ServiceList.get_all(
        context, binary=service_obj.COMPUTE_BINARY)}
    hosts = []
    for host in aggregate.hosts:
        service = services.get(host)
        if service is None or not service.is_up:
            LOG.warning('Image pre-cache: compute %s of aggregate %s is '
                        'down; skipped', host, aggregate.id)
            continue
        hosts.append(host)
    return hosts


@common.added_at(IMAGE_CACHE_VERSION)
@validation.body(schema.CACHE)
def cache(req, aggregate_id, body):
    """202 with no body: the casts are sent; 400 for a bad id, body or
    image, 404 for an unknown aggregate."""
    context = req.context
    context.can(policies.IMAGES, target={})
    number = aggregates.parse_aggregate_id(aggregate_id)
    image_ids = _image_ids(context, body)
    aggregate = aggregates.api.get(context, number)
    rpc = compute_rpc()
    if not rpc.can_send_image_cache():
        LOG.warning('Image pre-cache for aggregate %s skipped: the computes '
                    'are pinned below compute RPC %s', aggregate.id,
                    compute_rpcapi.IMAGE_CACHE_VERSION)
        return wsgi.json_response(status=202)
    for host in _hosts_up(context, aggregate):
        rpc.cache_images(context, host, image_ids)
    return wsgi.json_response(status=202)
