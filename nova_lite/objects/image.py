"""Image: an image of the registry as the services that make one see it.

The API registers a snapshot (``createImage``, ``shelve``) queued; the
compute that takes it marks it saving, then active with its size (or
killed), and an unshelve deletes the shelved one. A compute has no
database: these remotable methods run through the conductor for it. The
registry itself is ``nova_lite/image/api.py``.
"""

from nova_lite.image import api as image_api
from nova_lite.objects import base
from nova_lite.objects import fields


@base.NovaLiteObjectRegistry.register
class Image(base.NovaLiteObject):
    # Version 1.0: Initial version (bramble; rotate_backups added before
    #              its release)
    VERSION = '1.0'

    fields = {
        'id': fields.UUIDField(),
        'name': fields.StringField(),
        'status': fields.StringField(),
        'size': fields.IntegerField(default=0),
        'min_disk': fields.IntegerField(default=0),
        'min_ram': fields.IntegerField(default=0),
        'owner': fields.StringField(nullable=True),
        'properties': fields.DictOfNullableStringsField(default={}),
    }

    @classmethod
    def _from_dict(cls, context, image):
        obj = cls(context, **{name: image[name] for name in cls.fields})
        obj.obj_reset_changes()
        return obj

    @classmethod
    def create_snapshot(cls, context, name, owner, min_disk, min_ram,
                        properties):
        """Register a queued private snapshot owned by ``owner``."""
        return cls._from_dict(context, image_api.create(
            context, name, properties=properties, min_disk=min_disk,
            min_ram=min_ram, visibility='private', owner=owner,
            status='queued'))

    @classmethod
    @base.remotable
    def set_status(cls, context, image_id, status, size=None):
        """Mark image ``image_id`` saving, active (with its ``size`` in
        bytes) or killed; ImageNotFound if it was deleted meanwhile."""
        return cls._from_dict(context, image_api.set_status(
            context, image_id, status, size=size))

    @classmethod
    @base.remotable
    def delete_by_id(cls, context, image_id):
        """Delete image ``image_id``; False if it was already gone."""
        return image_api.delete(context, image_id)

    @classmethod
    @base.remotable
    def rotate_backups(cls, context, instance_uuid, backup_type, rotation):
        """Delete the oldest backups of server ``instance_uuid`` of type
        ``backup_type`` beyond the newest ``rotation`` (all of them for
        0), as Nova rotates them; returns the ids deleted. One already
        gone is not an error."""
        backups = image_api.get_all(context, filters={'properties': {
            'image_type': 'backup', 'backup_type': backup_type,
            'instance_uuid': instance_uuid}})
        deleted = []
        # Newest first: the excess is at the end.
        for image in backups[rotation:]:
            if image_api.delete(context, image['id']):
                deleted.append(image['id'])
        return deleted
