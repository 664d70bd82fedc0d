"""The in-process transport behaves like the bus, only faster."""

import threading

import oslo_messaging as messaging
import pytest

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import local_transport
from nova_lite.objects import fields  # noqa: F401
from nova_lite import objects
from nova_lite import rpc


class Endpoint:
    target = messaging.Target(version='1.1')

    def __init__(self):
        self.casts = []
        self.cast_done = threading.Event()

    def echo(self, context, value):
        return {'value': value, 'user': context.user_id}

    def mutate(self, context, value):
        value.append('changed-by-server')
        return value

    def flavor_name(self, context, flavor):
        return flavor.name

    def fail(self, context):
        raise exception.NoValidHost(reason='RamFilter: 3 -> 0')

    def note(self, context, value):
        self.casts.append(value)
        self.cast_done.set()


@pytest.fixture
def bus(conf):
    conf.config(transport_url='local://')
    local_transport.reset()
    rpc.cleanup()
    rpc.init(conf.conf)
    endpoint = Endpoint()
    server = rpc.get_server(messaging.Target(topic='t', server='h1'),
                            [endpoint])
    server.start()
    client = rpc.get_client(messaging.Target(topic='t', version='1.0'))
    yield client, endpoint
    server.stop()
    server.wait()
    rpc.cleanup()


def _ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1')


def test_call_carries_context_and_result(bus):
    client, _ = bus
    assert client.call(_ctxt(), 'echo', value=[1]) == {'value': [1],
                                                       'user': 'u1'}


def test_arguments_are_copied_like_on_the_wire(bus):
    client, _ = bus
    sent = ['original']
    assert client.call(_ctxt(), 'mutate', value=sent) == [
        'original', 'changed-by-server']
    assert sent == ['original']


def test_objects_are_serialized(bus):
    client, _ = bus
    flavor = objects.Flavor(flavorid='1', name='tiny', memory_mb=1, vcpus=1)
    assert client.call(_ctxt(), 'flavor_name', flavor=flavor) == 'tiny'


def test_remote_exception_is_rebuilt(bus):
    client, _ = bus
    with pytest.raises(exception.NoValidHost) as err:
        client.call(_ctxt(), 'fail')
    assert err.value.format_message() == (
        'No valid host was found. RamFilter: 3 -> 0')


def test_unsupported_version_is_rejected(bus):
    client, _ = bus
    with pytest.raises(messaging.RemoteError) as err:
        client.prepare(version='1.2').call(_ctxt(), 'echo', value=1)
    assert 'UnsupportedVersion' in str(err.value)


def test_cast_and_fanout_are_delivered(bus):
    client, endpoint = bus
    client.prepare(fanout=True).cast(_ctxt(), 'note', value='all')
    assert endpoint.cast_done.wait(5)
    assert endpoint.casts == ['all']


def test_version_cap_refuses_newer_messages(conf):
    conf.config(transport_url='local://')
    local_transport.reset()
    rpc.cleanup()
    rpc.init(conf.conf)
    client = rpc.get_client(messaging.Target(topic='t', version='1.0'),
                            version_cap='1.0')
    assert client.can_send_version('1.0')
    assert not client.can_send_version('1.1')
    rpc.cleanup()
