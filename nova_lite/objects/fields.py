"""Field types for nova_lite objects: oslo.versionedobjects' plus enums."""

from oslo_versionedobjects import fields

# Re-export the generic types so object modules import one place.
BooleanField = fields.BooleanField
DateTimeField = fields.DateTimeField
DictOfNullableStringsField = fields.DictOfNullableStringsField
DictOfStringsField = fields.DictOfStringsField
DictOfIntegersField = fields.DictOfIntegersField
DictOfListOfStringsField = fields.DictOfListOfStringsField
FlexibleBooleanField = fields.FlexibleBooleanField
FloatField = fields.FloatField
IntegerField = fields.IntegerField
ListOfObjectsField = fields.ListOfObjectsField
ListOfListsOfStringsField = fields.ListOfListsOfStringsField
ListOfStringsField = fields.ListOfStringsField
NonNegativeIntegerField = fields.NonNegativeIntegerField
ObjectField = fields.ObjectField
StringField = fields.StringField
UUIDField = fields.UUIDField
Enum = fields.Enum
BaseEnumField = fields.BaseEnumField
FieldType = fields.FieldType
Field = fields.Field


class JSONField(fields.AutoTypedField):
    """Any JSON-able value (dicts of primitives and the like)."""
    AUTO_TYPE = fields.FieldType()


class VMState(Enum):
    """Nova's vm_states: what the server is, between tasks."""
    ACTIVE = 'active'
    BUILDING = 'building'
    PAUSED = 'paused'
    SUSPENDED = 'suspended'
    STOPPED = 'stopped'
    RESCUED = 'rescued'
    RESIZED = 'resized'
    SHELVED = 'shelved'
    SHELVED_OFFLOADED = 'shelved_offloaded'
    DELETED = 'deleted'
    ERROR = 'error'

    # The states of release acorn (Instance 1.0), oldest first.
    ACORN = (ACTIVE, BUILDING, STOPPED, DELETED, ERROR)
    ALL = (ACTIVE, BUILDING, STOPPED, DELETED, ERROR, PAUSED, SUSPENDED,
           RESCUED, RESIZED, SHELVED, SHELVED_OFFLOADED)

    def __init__(self):
        super().__init__(valid_values=VMState.ALL)


class TaskState(Enum):
    """Nova's task_states: what is being done to the server right now."""
    SCHEDULING = 'scheduling'
    SPAWNING = 'spawning'
    DELETING = 'deleting'
    # Power and pause/suspend actions.
    REBOOTING = 'rebooting'
    REBOOTING_HARD = 'rebooting_hard'
    POWERING_OFF = 'powering-off'
    POWERING_ON = 'powering-on'
    PAUSING = 'pausing'
    UNPAUSING = 'unpausing'
    SUSPENDING = 'suspending'
    RESUMING = 'resuming'
    # Rebuild and snapshots.
    REBUILDING = 'rebuilding'
    REBUILD_SPAWNING = 'rebuild_spawning'
    IMAGE_SNAPSHOT = 'image_snapshot'
    IMAGE_PENDING_UPLOAD = 'image_pending_upload'
    IMAGE_UPLOADING = 'image_uploading'
    IMAGE_BACKUP = 'image_backup'
    # Moves: resize and cold migration, live migration, evacuation.
    RESIZE_PREP = 'resize_prep'
    RESIZE_MIGRATING = 'resize_migrating'
    RESIZE_MIGRATED = 'resize_migrated'
    RESIZE_FINISH = 'resize_finish'
    RESIZE_REVERTING = 'resize_reverting'
    RESIZE_CONFIRMING = 'resize_confirming'
    MIGRATING = 'migrating'
    REBUILD_BLOCK_DEVICE_MAPPING = 'rebuild_block_device_mapping'
    # Shelving.
    SHELVING = 'shelving'
    SHELVING_IMAGE_PENDING_UPLOAD = 'shelving_image_pending_upload'
    SHELVING_IMAGE_UPLOADING = 'shelving_image_uploading'
    SHELVING_OFFLOADING = 'shelving_offloading'
    UNSHELVING = 'unshelving'

    # The task states of release acorn (Instance 1.0).
    ACORN = (SCHEDULING, SPAWNING, DELETING)
    ALL = ACORN + (
        REBOOTING, REBOOTING_HARD, POWERING_OFF, POWERING_ON, PAUSING,
        UNPAUSING, SUSPENDING, RESUMING, REBUILDING, REBUILD_SPAWNING,
        IMAGE_SNAPSHOT, IMAGE_UPLOADING, RESIZE_PREP, RESIZE_MIGRATING,
        RESIZE_MIGRATED, RESIZE_FINISH, RESIZE_REVERTING, RESIZE_CONFIRMING,
        MIGRATING, REBUILD_BLOCK_DEVICE_MAPPING, SHELVING,
        SHELVING_IMAGE_UPLOADING, SHELVING_OFFLOADING, UNSHELVING,
        IMAGE_PENDING_UPLOAD, SHELVING_IMAGE_PENDING_UPLOAD, IMAGE_BACKUP)
    # I/O-heavy operations (Nova's list; rescuing has no state here): an
    # instance in one of them, or still building, is an I/O op of its
    # host (the compute's io_workload, the scheduler's num_io_ops).
    IO_HEAVY = frozenset((RESIZE_MIGRATING, REBUILDING, RESIZE_PREP,
                          IMAGE_SNAPSHOT, IMAGE_BACKUP, 'rescuing',
                          UNSHELVING))

    def __init__(self):
        super().__init__(valid_values=TaskState.ALL)


class PowerState:
    """Nova's integer power states, kept for API compatibility."""
    NOSTATE = 0
    RUNNING = 1
    PAUSED = 3
    SHUTDOWN = 4
    CRASHED = 6
    SUSPENDED = 7


class VMStateField(fields.BaseEnumField):
    AUTO_TYPE = VMState()


class TaskStateField(fields.BaseEnumField):
    AUTO_TYPE = TaskState()
