"""The user data stays with the API and the conductor: computes never
read it, so the compute client does not send it (it can be 65535
characters), and a compute's sparse save cannot write it back."""

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import objects
from nova_lite import rpc

DATA = 'nova_lite_object.data'
CHANGES = 'nova_lite_object.changes'


def _instance():
    flavor = objects.Flavor(flavorid='1', name='tiny', memory_mb=64,
                            vcpus=1, root_gb=1, ephemeral_gb=0, swap=0,
                            extra_specs={})
    instance = objects.Instance(
        uuid='0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b', project_id='p',
        user_id='u', flavor=flavor, vm_state='active', task_state=None,
        user_data='aGVsbG8=')
    instance.obj_reset_changes(['flavor', 'vm_state'])
    return instance


def _clients(monkeypatch):
    made = []

    def get_client(target, version_cap=None, pin=None, omit=None):
        made.append(omit)
        return object()
    monkeypatch.setattr(rpc, 'get_client', get_client)
    return made


def test_the_compute_client_omits_user_data(monkeypatch):
    made = _clients(monkeypatch)
    compute_rpcapi.ComputeAPI()
    conductor_rpcapi.ConductorAPI()
    assert made[0] == {'Instance': ('user_data',)}
    assert not made[1]


def test_omitted_from_data_and_changes_pinned_or_not():
    instance = _instance()
    manifests = (None, lambda: None, lambda: {'Instance': '1.3'})
    for manifest in manifests:
        primitive = rpc.PinnedObjectSerializer(
            manifest, compute_rpcapi.NOT_SENT).serialize_entity(
                None, instance)
        assert 'user_data' not in primitive[DATA]
        assert primitive[DATA]['uuid'] == instance.uuid
        assert 'user_data' not in primitive.get(CHANGES, [])
        assert 'task_state' in primitive[CHANGES]
        received = objects.Instance.obj_from_primitive(primitive)
        assert not received.obj_attr_is_set('user_data')
        assert 'user_data' not in received.obj_get_changes()
    # The object sent is untouched, and other clients send it whole.
    assert instance.user_data == 'aGVsbG8='
    primitive = rpc.PinnedObjectSerializer(None).serialize_entity(
        None, instance)
    assert primitive[DATA]['user_data'] == 'aGVsbG8='


def test_other_objects_and_plain_values_pass():
    serializer = rpc.PinnedObjectSerializer(None, compute_rpcapi.NOT_SENT)
    assert serializer.serialize_entity(None, 'host1') == 'host1'
    flavor = _instance().flavor
    assert serializer.serialize_entity(None, flavor)[DATA]['name'] == 'tiny'
