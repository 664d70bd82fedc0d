"""Regression: replacing a server on a topic loses no request.

During the first upgrade drill, servers booted right as a conductor was
replaced stayed in BUILD: their build_instances casts were gone. The cause
is oslo.messaging's RabbitMQ driver. It acknowledges a request as it
arrives, and stop() only stops polling; the consumers stay subscribed and
the heartbeat thread keeps reading the connection, so requests the broker
delivered after stop() were acknowledged into a listener nobody polls
(about a quarter of a steady stream, here). nova_lite.rpc.stop_server
cancels the consumers first.
"""

import threading
import time

import oslo_messaging as messaging
import pytest

from nova_lite import context as nl_context
from nova_lite import rpc
from tests.functional import deployment


class Recorder:
    target = messaging.Target(version='1.0')

    def __init__(self):
        self.seen = []

    def note(self, context, index):
        self.seen.append(index)


@pytest.fixture
def rabbit(conf):
    vhost = deployment.RabbitVhost()
    conf.config(transport_url=vhost.create())
    rpc.cleanup()
    rpc.init(conf.conf)
    yield
    rpc.cleanup()
    vhost.delete()


def test_casts_survive_replacing_one_of_two_servers(rabbit):
    old, new = Recorder(), Recorder()
    old_server = rpc.get_server(messaging.Target(topic='t', server='old'),
                                [old])
    old_server.start()
    client = rpc.get_client(messaging.Target(topic='t', version='1.0'))
    ctxt = nl_context.get_admin_context()
    sent = 400

    def produce():
        for index in range(sent):
            client.cast(ctxt, 'note', index=index)
            time.sleep(0.002)

    producer = threading.Thread(target=produce)
    producer.start()
    time.sleep(0.3)
    new_server = rpc.get_server(messaging.Target(topic='t', server='new'),
                                [new])
    new_server.start()
    time.sleep(0.2)
    rpc.stop_server(old_server)       # the old one is replaced mid-stream
    producer.join()
    deadline = time.monotonic() + 10
    while len(old.seen) + len(new.seen) < sent and \
            time.monotonic() < deadline:
        time.sleep(0.1)
    rpc.stop_server(new_server)
    assert old.seen and new.seen      # both really served part of it
    assert sorted(old.seen + new.seen) == list(range(sent))
