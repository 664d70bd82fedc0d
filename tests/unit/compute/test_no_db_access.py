"""A compute never reaches the database: every path fails loudly first.

``service.setup_process(DB_NONE)`` (what nova-lite-compute runs) turns on
the guard in ``nova_lite.db.api`` and routes remotable object methods
through the conductor. The guard is checked here against a real (lazy)
enginefacade pointed at an SQLite file: if any path got past the guard the
engine would connect and the file would exist.
"""

from unittest import mock

from oslo_db.sqlalchemy import enginefacade
from oslo_utils import uuidutils
import pytest

from nova_lite.conductor import api as conductor_api
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import base as objects_base
from nova_lite.placement import allocations
from nova_lite.placement import providers
from nova_lite.placement import summaries
from nova_lite import rpc
from nova_lite import service

BINARY = 'nova-lite-compute'
UUID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'


@pytest.fixture
def sqlite_file(tmp_path, monkeypatch):
    """A transaction factory on an SQLite file that must never appear."""
    path = tmp_path / 'must-not-exist.sqlite'
    manager = enginefacade.transaction_context()
    manager.configure(connection='sqlite:///%s' % path)
    restore = db_api.context_manager.patch_factory(manager)
    # Whatever a test does, the guard and the objects' routing are put
    # back as they were.
    monkeypatch.setattr(db_api, '_DISABLED_FOR', None)
    monkeypatch.setattr(objects_base.NovaLiteObject, 'indirection_api',
                        None)
    yield path
    restore()


@pytest.fixture
def ctxt():
    return nl_context.get_admin_context()


def _instance(ctxt, **values):
    return objects.Instance(ctxt, uuid=UUID, **values)


# Each reaches the database by a different road: remotable class methods,
# remotable instance methods (writes), placement, the image registry, and
# the engine itself.
DB_PATHS = {
    'Instance.get_by_uuid': lambda c: objects.Instance.get_by_uuid(c, UUID),
    'InstanceList.get_by_filters':
        lambda c: objects.InstanceList.get_by_filters(c, {}),
    'Instance.save': lambda c: _instance(c, task_state=None).save(),
    'Instance.destroy': lambda c: _instance(c).destroy(),
    'InstanceFault.create': lambda c: objects.InstanceFault(
        c, instance_uuid=UUID, code=500, message='boom').create(),
    'Service.get_by_host_and_binary':
        lambda c: objects.Service.get_by_host_and_binary(c, 'h', BINARY),
    'ComputeNodeList.get_all': lambda c: objects.ComputeNodeList.get_all(c),
    'Flavor.get_by_flavor_id':
        lambda c: objects.Flavor.get_by_flavor_id(c, '1'),
    'providers.ensure_provider':
        lambda c: providers.ensure_provider(c, UUID, 'node'),
    'providers.set_traits':
        lambda c: providers.set_traits(c, UUID, {'HW_CPU_X86_SSE2'}),
    'allocations.claim': lambda c: allocations.claim(
        c, uuidutils.generate_uuid(), 'p', 'u', {UUID: {'VCPU': 1}}),
    'allocations.remove': lambda c: allocations.remove(c, UUID),
    'summaries.get_summaries': lambda c: summaries.get_summaries(c),
    'image_api.get': lambda c: image_api.get(c, UUID),
    'db_api.writer.using': lambda c: db_api.writer.using(c).__enter__(),
    'db_api.get_engine': lambda c: db_api.get_engine(),
}


@pytest.mark.parametrize('path', sorted(DB_PATHS))
def test_every_db_path_raises_db_not_allowed(sqlite_file, ctxt, path):
    db_api.disable_db_access(BINARY)
    with pytest.raises(exception.DBNotAllowed) as caught:
        DB_PATHS[path](ctxt)
    assert caught.value.format_message().startswith(BINARY + ' attempted')
    assert not sqlite_file.exists()


def test_the_guard_is_what_stops_them(sqlite_file, ctxt):
    """The control: without the guard the same path does connect (the
    file appears), so the tests above would notice one that slipped by."""
    with pytest.raises(Exception) as caught:
        objects.Instance.get_by_uuid(ctxt, UUID)   # no tables: fails
    assert not isinstance(caught.value, exception.DBNotAllowed)
    assert sqlite_file.exists()


@pytest.fixture
def no_bus(monkeypatch):
    """rpc.init and the RPC client are fakes; the conductor answers ping."""
    init = mock.Mock()
    monkeypatch.setattr(rpc, 'init', init)
    monkeypatch.setattr(rpc, 'get_client', mock.Mock())
    ping = mock.Mock(side_effect=lambda context, arg, timeout=None: arg)
    monkeypatch.setattr(conductor_rpcapi.ConductorAPI, 'ping', ping)
    configure = mock.Mock()
    monkeypatch.setattr(db_api, 'configure', configure)
    return init, ping, configure


def test_setup_process_for_a_compute(sqlite_file, no_bus, ctxt):
    init, ping, configure = no_bus
    service.setup_process(service.DB_NONE)
    init.assert_called_once_with(service.CONF)
    configure.assert_not_called()
    ping.assert_called()       # it waited for a conductor to answer
    api = objects_base.NovaLiteObject.indirection_api
    # The conductor's client, its writes sent again after a lost answer.
    assert type(api) is conductor_api.ResendingConductorAPI
    assert isinstance(api, conductor_rpcapi.ConductorAPI)
    assert db_api._DISABLED_FOR == BINARY
    # Object calls now go to the conductor instead of the database.
    api.object_class_action_versions = mock.Mock(return_value='remote')
    assert objects.Instance.get_by_uuid(ctxt, UUID) == 'remote'
    call = api.object_class_action_versions.call_args
    assert call.args[1:3] == ('Instance', 'get_by_uuid')
    assert not sqlite_file.exists()


def test_setup_process_for_the_api_reads_locally(sqlite_file, no_bus):
    init, ping, configure = no_bus
    service.setup_process(service.DB_READ_ONLY)
    configure.assert_called_once_with(service.CONF)
    ping.assert_not_called()
    assert isinstance(objects_base.NovaLiteObject.indirection_api,
                      conductor_api.ReadLocallyConductorAPI)
    assert db_api._DISABLED_FOR is None
