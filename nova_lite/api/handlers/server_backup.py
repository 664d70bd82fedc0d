"""The ``createBackup`` server action: a snapshot kept in a rotation.

The server's compute takes the snapshot (image_type ``backup``, with the
``backup_type`` given), then deletes the server's oldest backups of that
type beyond ``rotation``; with rotation 0, as in Nova, that includes the
one just taken. Answers 202: below microversion 2.45 with the image's URL
in ``Location`` (only when rotation is above 0, as Nova), from 2.45 with
``{"image_id": ...}``. Dispatched by ``server_actions``.
"""

from nova_lite.api import common
from nova_lite.api.schemas import server_backup as schema
from nova_lite.api import wsgi
from nova_lite.compute import shelve_api
from nova_lite.policies import server_backup as policies

api = shelve_api.ShelveAPI()

# Microversions that change this action (Nova's).
NO_METADATA_QUOTA = '2.39'
IMAGE_ID_IN_BODY = '2.45'


def create_backup(req, instance, body):
    """202 with Location (2.44 and below, rotation above 0) or
    {"image_id"} (2.45 on); 400 for a bad body, 403 past the
    metadata_items quota (2.38 and below), 409 unless ACTIVE, SHUTOFF,
    PAUSED or SUSPENDED with no task."""
    context = req.context
    context.can(policies.CREATE_BACKUP,
                target={'project_id': instance.project_id,
                        'user_id': instance.user_id})
    arguments = body['createBackup']
    rotation = int(arguments['rotation'])
    version = req.api_version_request
    image = api.backup(
        context, instance, arguments['name'], arguments['backup_type'],
        rotation, arguments.get('metadata'),
        check_metadata_quota=not version.matches(NO_METADATA_QUOTA))
    if version.matches(IMAGE_ID_IN_BODY):
        return wsgi.json_response({'image_id': image.id}, status=202)
    headers = {}
    if rotation > 0:
        headers['Location'] = common.links(req, 'images', image.id)[0][
            'href']
    return wsgi.json_response(status=202, headers=headers)


ACTIONS = {'createBackup': (schema.CREATE_BACKUP, create_backup)}
