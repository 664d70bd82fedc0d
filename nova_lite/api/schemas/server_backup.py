"""Schema of the ``createBackup`` server action (Nova's body): a name,
a backup type (any text: "daily", "weekly", ...) and how many backups of
that type to keep, with optional image properties."""

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_actions

CREATE_BACKUP = server_actions._action('createBackup', {
    'type': 'object',
    'properties': {
        'name': types.name,
        # An image property value: at most 255 characters, as Glance's.
        'backup_type': {'type': 'string', 'maxLength': 255},
        'rotation': types.non_negative_integer,
        'metadata': types.metadata,
    },
    'required': ['name', 'backup_type', 'rotation'],
    'additionalProperties': False,
})
