"""Server actions that snapshot a server: ``createImage``, ``shelve``,
``shelveOffload`` and ``unshelve``.

``createImage`` answers 202 with the image's URL in ``Location`` and,
from microversion 2.45, ``{"image_id": ...}`` in the body instead; the
others 202 with no body. The image shows in ``GET /images`` at once
(SAVING, then ACTIVE). Dispatched by ``server_actions``.
"""

from nova_lite.api import common
from nova_lite.api.schemas import server_shelve as schema
from nova_lite.api import wsgi
from nova_lite.compute import shelve_api
from nova_lite import exception
from nova_lite.policies import server_shelve as policies

api = shelve_api.ShelveAPI()

# Microversions that change these actions (Nova's).
IMAGE_ID_IN_BODY = '2.45'
UNSHELVE_ZONE = '2.77'
UNSHELVE_HOST = '2.91'


def _can(req, rule, instance):
    req.context.can(rule, target={'project_id': instance.project_id,
                                  'user_id': instance.user_id})
    return req.context


def _at_least(req, version):
    return req.api_version_request.matches(min_version=version)


def create_image(req, instance, body):
    """202 with Location (2.44 and below) or {"image_id"} (2.45 on); 403
    past the metadata_items quota (2.38 and below); 409 unless ACTIVE,
    SHUTOFF, PAUSED or SUSPENDED with no task."""
    context = _can(req, policies.CREATE_IMAGE, instance)
    arguments = body['createImage']
    image = api.create_image(
        context, instance, arguments['name'].strip(),
        arguments.get('metadata'),
        check_metadata_quota=not _at_least(req, '2.39'))
    if _at_least(req, IMAGE_ID_IN_BODY):
        return wsgi.json_response({'image_id': image.id}, status=202)
    location = common.links(req, 'images', image.id)[0]['href']
    return wsgi.json_response(status=202, headers={'Location': location})


def shelve(req, instance, body):
    """202; 409 when locked or not ACTIVE, SHUTOFF, PAUSED or SUSPENDED
    with no task."""
    context = _can(req, policies.SHELVE, instance)
    api.shelve(context, instance)
    return wsgi.json_response(status=202)


def shelve_offload(req, instance, body):
    """202 (administrators); 409 unless SHELVED with no task."""
    context = _can(req, policies.SHELVE_OFFLOAD, instance)
    api.shelve_offload(context, instance)
    return wsgi.json_response(status=202)


def _unshelve_arguments(req, arguments):
    """(zone, host, unpin zone) of the body, refused (400) below the
    microversion that brought them."""
    if arguments is None:
        return None, None, False
    if not _at_least(req, UNSHELVE_ZONE):
        raise exception.ValidationError(
            detail="Invalid input for field/attribute unshelve. Value: %s. "
                   "None is the only value allowed below microversion %s"
                   % (arguments, UNSHELVE_ZONE))
    zone = arguments.get('availability_zone')
    host = arguments.get('host')
    unpin = 'availability_zone' in arguments and zone is None
    if not _at_least(req, UNSHELVE_HOST) and (host is not None or unpin):
        raise exception.ValidationError(
            detail='host and a null availability_zone need microversion '
                   '%s' % UNSHELVE_HOST)
    return zone, host, unpin


def unshelve(req, instance, body):
    """202; 400 for an unknown host or zone, 403 for a host named by a
    non-administrator, 409 when locked or not shelved, given a zone or
    host while SHELVED (not offloaded), or a host outside the server's
    zone."""
    context = _can(req, policies.UNSHELVE, instance)
    zone, host, unpin = _unshelve_arguments(req, body['unshelve'])
    if host is not None:
        context = _can(req, policies.UNSHELVE_TO_HOST, instance)
    api.unshelve(context, instance, availability_zone=zone, host=host,
                 unpin_zone=unpin)
    return wsgi.json_response(status=202)


ACTIONS = {
    'createImage': (schema.CREATE_IMAGE, create_image),
    'shelve': (schema.SHELVE, shelve),
    'shelveOffload': (schema.SHELVE_OFFLOAD, shelve_offload),
    'unshelve': (schema.UNSHELVE, unshelve),
}
