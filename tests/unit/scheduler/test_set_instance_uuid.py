"""Each instance of a request points the request at itself: the field
holds its uuid, and is not marked changed, as after the coercing
setter and a reset of the field."""

import uuid as uuid_mod

from nova_lite import objects
from nova_lite.scheduler import filter_scheduler

from . import fakes

U1 = '00000000-0000-4000-8000-000000000401'
U2 = '00000000-0000-4000-8000-000000000402'


def _by_setter(spec_obj, uuid):
    spec_obj.instance_uuid = uuid
    spec_obj.obj_reset_changes(['instance_uuid'])


def test_same_as_the_setter_and_a_reset():
    for value in (U2, uuid_mod.UUID(U2)):
        fast, slow = fakes.spec(), fakes.spec()
        assert isinstance(fast, objects.RequestSpec)
        for spec_obj in (fast, slow):
            spec_obj.instance_uuid = U1
            spec_obj.project_id = 'p1'
        filter_scheduler._set_instance_uuid(fast, value)
        _by_setter(slow, value)
        assert fast.instance_uuid == slow.instance_uuid == U2
        assert type(fast.instance_uuid) is type(slow.instance_uuid)
        assert fast.obj_what_changed() == slow.obj_what_changed()
        assert 'instance_uuid' not in fast.obj_what_changed()
        assert 'project_id' in fast.obj_what_changed()
