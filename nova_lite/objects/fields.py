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
    ACTIVE = 'active'
    BUILDING = 'building'
    STOPPED = 'stopped'
    DELETED = 'deleted'
    ERROR = 'error'

    ALL = (ACTIVE, BUILDING, STOPPED, DELETED, ERROR)

    def __init__(self):
        super().__init__(valid_values=VMState.ALL)


class TaskState(Enum):
    SCHEDULING = 'scheduling'
    SPAWNING = 'spawning'
    DELETING = 'deleting'

    ALL = (SCHEDULING, SPAWNING, DELETING)

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
