"""Every rpcapi method, unpinned and pinned to the oldest release.

A recording driver stands in for the bus under a real oslo.messaging
client, so what is checked is what would go on the wire: the method, its
version (never above the pin) and its arguments (objects at the pinned
release's versions).
"""

import inspect

from oslo_messaging import transport as msg_transport
from oslo_utils import versionutils
import pytest

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from nova_lite import releases
from nova_lite import rpc
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

UUID = '0cdb5e2c-52d8-4c25-8a3f-6c4a3e6f1a6b'


class RecordingDriver:
    def __init__(self, conf):
        self.conf = conf
        self.sent = []
        self.waits = []

    def send(self, target, ctxt, message, wait_for_reply=None, timeout=None,
             call_monitor_timeout=None, retry=None, transport_options=None):
        self.sent.append((target, message))
        self.waits.append(bool(wait_for_reply))
        return None

    def cleanup(self):
        pass


@pytest.fixture
def wire(conf, monkeypatch):
    driver = RecordingDriver(conf.conf)
    monkeypatch.setattr(rpc, 'TRANSPORT',
                        msg_transport.RPCTransport(driver))
    return driver


def _flavor():
    return objects.Flavor(flavorid='1', name='tiny', memory_mb=64, vcpus=1,
                          root_gb=1, ephemeral_gb=0, swap=0, extra_specs={})


def _spec():
    return objects.RequestSpec(
        instance_uuid=UUID, project_id='p', user_id='u', num_instances=1,
        flavor=_flavor(), is_bfv=False, instance_group=None, retry=None,
        image=objects.ImageMeta.from_image({
            'id': UUID, 'name': 'img',
            'properties': {'trait:CUSTOM_X': 'required'}}))


def _instance():
    return objects.Instance(uuid=UUID, project_id='p', user_id='u',
                            flavor=_flavor(), vm_state='building',
                            host='compute1')


def _node():
    return objects.ComputeNode(uuid=UUID, host='h', hypervisor_hostname='n',
                               vcpus=1, memory_mb=1, local_gb=1,
                               hypervisor_type='fake', hypervisor_version=1,
                               cpu_info='{}', metrics={'cpu': 1.0})


CALLS = {
    (conductor_rpcapi.ConductorAPI, 'ping'): {'arg': 'x'},
    (conductor_rpcapi.ConductorAPI, 'object_class_action_versions'): {
        'objname': 'Flavor', 'objmethod': 'get_by_id',
        'object_versions': {'Flavor': '1.0'}, 'args': (1,), 'kwargs': {}},
    (conductor_rpcapi.ConductorAPI, 'object_action'): {
        'objinst': _flavor(), 'objmethod': 'save', 'args': (),
        'kwargs': {}},
    (conductor_rpcapi.ConductorAPI, 'object_backport_versions'): {
        'objinst': _flavor(), 'object_versions': {'Flavor': '1.0'}},
    (conductor_rpcapi.ConductorAPI, 'provision_instances'): {
        'instance': _instance(), 'request_spec': _spec(), 'min_count': 1,
        'max_count': 1},
    (conductor_rpcapi.ConductorAPI, 'build_instances'): {
        'instances': [_instance()], 'request_spec': _spec()},
    (conductor_rpcapi.ConductorAPI, 'update_compute_provider'): {
        'compute_node': _node(), 'inventories': {}, 'traits': [],
        'owned_traits': []},
    (scheduler_rpcapi.SchedulerAPI, 'select_destinations'): {
        'spec_obj': _spec(), 'instance_uuids': [UUID]},
    (scheduler_rpcapi.SchedulerAPI, 'update_provider_states'): {
        'provider_uuids': ['p1'], 'aggregate_uuids': ['a1']},
    (compute_rpcapi.ComputeAPI, 'build_and_run_instance'): {
        'instance': _instance(), 'host': 'compute1', 'node': 'n',
        'request_spec': _spec(), 'host_list': []},
    (compute_rpcapi.ComputeAPI, 'terminate_instance'): {
        'instance': _instance()},
    (compute_rpcapi.ComputeAPI, 'reboot_instance'): {
        'instance': _instance(), 'reboot_type': 'SOFT'},
}
# Server actions (compute 1.1): no older form exists, so a client pinned
# to acorn refuses them.
for _method in ('stop_instance', 'start_instance', 'pause_instance',
                'unpause_instance', 'suspend_instance', 'resume_instance'):
    CALLS[(compute_rpcapi.ComputeAPI, _method)] = {'instance': _instance()}
NEWER_THAN_ACORN = {(compute_rpcapi.ComputeAPI, m) for m in (
    'reboot_instance', 'stop_instance', 'start_instance', 'pause_instance',
    'unpause_instance', 'suspend_instance', 'resume_instance')}


def _migration():
    return objects.Migration(uuid=UUID, source_compute='compute1',
                             source_node='n1', dest_compute='compute2',
                             dest_node='n2', status='pre-migrating',
                             instance_uuid=UUID)


# Moves (compute 1.2, conductor 1.1): refused when pinned to acorn too.
_MOVES = {
    (compute_rpcapi.ComputeAPI, 'prep_resize'): {
        'instance': _instance(), 'migration': _migration(),
        'flavor': _flavor(), 'request_spec': _spec(), 'host_list': []},
    (compute_rpcapi.ComputeAPI, 'resize_instance'): {
        'instance': _instance(), 'migration': _migration(),
        'flavor': _flavor()},
    (compute_rpcapi.ComputeAPI, 'finish_resize'): {
        'instance': _instance(), 'migration': _migration(),
        'flavor': _flavor()},
    (conductor_rpcapi.ConductorAPI, 'migrate_server'): {
        'instance': _instance(), 'flavor': _flavor(), 'host': 'compute2'},
}
for _method in ('confirm_resize', 'revert_resize', 'finish_revert_resize'):
    _MOVES[(compute_rpcapi.ComputeAPI, _method)] = {
        'instance': _instance(), 'migration': _migration()}
for _method in ('confirm_resize', 'revert_resize', 'finish_revert_resize'):
    _MOVES[(conductor_rpcapi.ConductorAPI, _method)] = {
        'instance': _instance(), 'migration': _migration()}
CALLS.update(_MOVES)
NEWER_THAN_ACORN |= set(_MOVES)

# Snapshots and shelving (compute 1.3, conductor 1.2): refused when
# pinned to acorn too.
_SHELVE = {
    (compute_rpcapi.ComputeAPI, 'snapshot_instance'): {
        'instance': _instance(), 'image_id': UUID},
    (compute_rpcapi.ComputeAPI, 'shelve_instance'): {
        'instance': _instance(), 'image_id': UUID},
    (compute_rpcapi.ComputeAPI, 'shelve_offload_instance'): {
        'instance': _instance()},
    (compute_rpcapi.ComputeAPI, 'unshelve_instance'): {
        'instance': _instance(), 'host': 'compute2', 'node': 'n2',
        'request_spec': _spec(), 'host_list': []},
    (conductor_rpcapi.ConductorAPI, 'unshelve_instance'): {
        'instance': _instance(), 'availability_zone': 'az1',
        'host': 'compute2'},
    (conductor_rpcapi.ConductorAPI, 'shelve_offloaded'): {
        'instance': _instance()},
}
CALLS.update(_SHELVE)
NEWER_THAN_ACORN |= set(_SHELVE)
# Rebuild and evacuate (compute 1.4, conductor 1.3).
_REBUILD = {
    (compute_rpcapi.ComputeAPI, 'rebuild_instance'): {
        'instance': _instance(), 'host': 'compute2', 'image_ref': UUID,
        'orig_image_ref': UUID, 'recreate': True, 'migration': _migration(),
        'node': 'n2', 'request_spec': _spec(), 'host_list': []},
    (conductor_rpcapi.ConductorAPI, 'rebuild_instance'): {
        'instance': _instance(), 'image_ref': UUID, 'orig_image_ref': UUID,
        'request_spec': _spec()},
    (conductor_rpcapi.ConductorAPI, 'complete_evacuation'): {
        'migration': _migration()},
}
CALLS.update(_REBUILD)
NEWER_THAN_ACORN |= set(_REBUILD)
# Live migration (compute 1.5, conductor 1.4): refused when pinned to
# acorn too.
_LIVE = {
    (compute_rpcapi.ComputeAPI, 'check_can_live_migrate_destination'): {
        'instance': _instance(), 'migration': _migration(),
        'block_migration': None},
    (compute_rpcapi.ComputeAPI, 'pre_live_migration'): {
        'instance': _instance(), 'migration': _migration(),
        'migrate_data': {'block_migration': True, 'dest_node': 'n2'}},
    (compute_rpcapi.ComputeAPI, 'live_migration'): {
        'instance': _instance(), 'migration': _migration(),
        'migrate_data': {'block_migration': True, 'dest_node': 'n2'}},
    (conductor_rpcapi.ConductorAPI, 'live_migrate_instance'): {
        'instance': _instance(), 'host': 'compute2'},
}
for _method in ('post_live_migration_at_destination',
                'rollback_live_migration_at_destination',
                'live_migration_abort', 'live_migration_force_complete'):
    _LIVE[(compute_rpcapi.ComputeAPI, _method)] = {
        'instance': _instance(), 'migration': _migration()}
CALLS.update(_LIVE)
NEWER_THAN_ACORN |= set(_LIVE)
# Crash dumps (compute 1.6): refused when pinned to acorn too.
_CRASH_DUMP = {(compute_rpcapi.ComputeAPI, 'trigger_crash_dump'): {
    'instance': _instance()}}
CALLS.update(_CRASH_DUMP)
NEWER_THAN_ACORN |= set(_CRASH_DUMP)
# Diagnostics and host uptime (compute 1.7): refused when pinned to
# acorn too (the API checks can_send_diagnostics first).
_DIAGNOSTICS = {
    (compute_rpcapi.ComputeAPI, 'get_diagnostics'): {'instance': _instance()},
    (compute_rpcapi.ComputeAPI, 'get_instance_diagnostics'): {
        'instance': _instance()},
    (compute_rpcapi.ComputeAPI, 'get_host_uptime'): {'host': 'compute1'},
}
CALLS.update(_DIAGNOSTICS)
NEWER_THAN_ACORN |= set(_DIAGNOSTICS)
# Backups (compute 1.8): refused when pinned to acorn too.
_BACKUP = {(compute_rpcapi.ComputeAPI, 'backup_instance'): {
    'instance': _instance(), 'image_id': UUID, 'backup_type': 'daily',
    'rotation': 2}}
CALLS.update(_BACKUP)
NEWER_THAN_ACORN |= set(_BACKUP)
# Image pre-cache (compute 1.9): refused when pinned to acorn too (the
# API checks can_send_image_cache first).
_IMAGE_CACHE = {(compute_rpcapi.ComputeAPI, 'cache_images'): {
    'host': 'compute1', 'image_ids': [UUID]}}
CALLS.update(_IMAGE_CACHE)
NEWER_THAN_ACORN |= set(_IMAGE_CACHE)
# Build receipts (conductor 1.6): not sent at all when pinned to acorn (a
# compute's receipt is a hint; an acorn conductor has no use for it).
_RECEIPTS = {
    (conductor_rpcapi.ConductorAPI, 'build_received'): {
        'instance_uuid': UUID, 'host': 'compute1'},
}
# A restarted compute's lost moves (conductor 1.8): nothing is sent when
# pinned below (the moves then wait for their timeout).
_RECEIPTS[(conductor_rpcapi.ConductorAPI, 'settle_moves')] = {
    'host': 'compute1'}
CALLS.update(_RECEIPTS)
SILENT_WHEN_PINNED = set(_RECEIPTS)
# The receipt and first save in one cast (conductor 1.10): refused when
# pinned below (the compute checks can_send_build_started first).
_BUILD_STARTED = {(conductor_rpcapi.ConductorAPI, 'build_started'): {
    'instance': _instance(), 'host': 'compute1'}}
CALLS.update(_BUILD_STARTED)
NEWER_THAN_ACORN |= set(_BUILD_STARTED)
SERVICES = {conductor_rpcapi.ConductorAPI: 'conductor',
            scheduler_rpcapi.SchedulerAPI: 'scheduler',
            compute_rpcapi.ComputeAPI: 'compute'}


def test_every_rpc_method_is_exercised():
    for client in SERVICES:
        for name, func in inspect.getmembers(client, inspect.isfunction):
            if "'%s'" % name in inspect.getsource(func):
                assert (client, name) in CALLS, name


def _as_tuple(version):
    return versionutils.convert_version_to_tuple(version)


def _objects_in(value):
    if isinstance(value, dict):
        if 'nova_lite_object.name' in value:
            yield value
            value = value['nova_lite_object.data']
        for item in value.values():
            yield from _objects_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects_in(item)


@pytest.mark.parametrize('pin', [None, 'acorn'])
@pytest.mark.parametrize('client,method', sorted(
    CALLS, key=lambda k: (SERVICES[k[0]], k[1])),
    ids=lambda v: getattr(v, '__name__', v))
def test_method_pinned_and_unpinned(wire, conf, pin, client, method):
    service = SERVICES[client]
    if pin:
        conf.config(**{service: pin}, group='upgrade_levels')
    if pin == 'acorn' and (client, method) in NEWER_THAN_ACORN:
        with pytest.raises(exception.UnsupportedRPCVersion) as err:
            getattr(client(), method)(nl_context.get_admin_context(),
                                      **CALLS[(client, method)])
        assert method in err.value.format_message()
        assert wire.sent == []
        return
    if pin == 'acorn' and (client, method) in SILENT_WHEN_PINNED:
        getattr(client(), method)(nl_context.get_admin_context(),
                                  **CALLS[(client, method)])
        assert wire.sent == []
        return
    getattr(client(), method)(nl_context.get_admin_context(),
                              **CALLS[(client, method)])
    [(target, message)] = wire.sent
    assert message['method'] == method
    newest = {'conductor': conductor_rpcapi, 'scheduler': scheduler_rpcapi,
              'compute': compute_rpcapi}[service].RPC_VERSION
    cap = releases.get(pin)['rpc'][service] if pin else newest
    # As versions, not strings: 1.10 is newer than 1.9.
    assert _as_tuple(message['version']) <= _as_tuple(cap)
    manifest = releases.get(pin)['objects'] if pin else None
    for obj in _objects_in(message['args']):
        name = obj['nova_lite_object.name']
        expected = (manifest or {}).get(
            name, objects.base.NovaLiteObjectRegistry.obj_classes()[
                name][0].VERSION)
        assert obj['nova_lite_object.version'] == expected, name


def test_aggregate_notices_fold_into_providers_for_acorn(wire, conf):
    api = scheduler_rpcapi.SchedulerAPI()
    ctxt = nl_context.get_admin_context()
    api.update_provider_states(ctxt, ['p1'], aggregate_uuids=['a1'])
    conf.config(scheduler='acorn', group='upgrade_levels')
    api.update_provider_states(ctxt, ['p1'], aggregate_uuids=['a1'])
    (_, new), (_, old) = wire.sent
    assert (new['version'], new['args']) == (
        '1.1', {'provider_uuids': ['p1'], 'aggregate_uuids': ['a1']})
    assert (old['version'], old['args']) == (
        '1.0', {'provider_uuids': ['a1', 'p1']})


def test_notice_generations_go_only_to_schedulers_taking_1_2(wire, conf):
    """A scheduler pinned to 1.1 gets exactly the notice it always got
    (it re-reads every provider); the generations of uuids not among
    the providers are not sent."""
    api = scheduler_rpcapi.SchedulerAPI()
    ctxt = nl_context.get_admin_context()
    generations = {'p1': 4, 'other': 9}
    api.update_provider_states(ctxt, ['p1', 'p2'], aggregate_uuids=['a1'],
                               generations=generations)
    conf.config(scheduler='1.1', group='upgrade_levels')
    api.update_provider_states(ctxt, ['p1', 'p2'], aggregate_uuids=['a1'],
                               generations=generations)
    api.update_provider_states(ctxt, ['p1'], generations=generations)
    (_, new), (_, pinned), (_, plain) = wire.sent
    assert (new['version'], new['args']) == ('1.2', {
        'provider_uuids': ['p1', 'p2'], 'aggregate_uuids': ['a1'],
        'generations': {'p1': 4}})
    assert (pinned['version'], pinned['args']) == ('1.1', {
        'provider_uuids': ['p1', 'p2'], 'aggregate_uuids': ['a1']})
    assert (plain['version'], plain['args']) == ('1.0', {
        'provider_uuids': ['p1']})


def test_a_message_the_pin_forbids_names_method_and_pin(wire, conf):
    conf.config(scheduler='acorn', group='upgrade_levels')
    client = scheduler_rpcapi.SchedulerAPI().client
    with pytest.raises(exception.UnsupportedRPCVersion) as err:
        client.prepare(version='1.1').cast(nl_context.get_admin_context(),
                                           'update_provider_states')
    assert err.value.format_message() == (
        'Cannot send update_provider_states to the scheduler: it needs RPC '
        'version 1.1 but the client is pinned to 1.0 by [upgrade_levels] '
        'scheduler.')
    assert wire.sent == []


def test_compute_actions_are_refused_when_pinned_to_acorn(wire, conf):
    api = compute_rpcapi.ComputeAPI()
    assert api.can_send_actions()
    conf.config(compute='acorn', group='upgrade_levels')
    assert not api.can_send_actions()


def test_moves_are_refused_when_pinned_to_the_actions_release(wire, conf):
    """Compute 1.1 (actions, no moves) and conductor 1.0 say no, and the
    API's checks see it first."""
    compute, conductor = (compute_rpcapi.ComputeAPI(),
                          conductor_rpcapi.ConductorAPI())
    assert compute.can_send_moves() and conductor.can_send_moves()
    conf.config(compute='1.1', conductor='1.0', group='upgrade_levels')
    assert not compute.can_send_moves()
    assert not conductor.can_send_moves()
    with pytest.raises(exception.UnsupportedRPCVersion) as err:
        compute.confirm_resize(nl_context.get_admin_context(),
                               _instance(), _migration())
    assert 'confirm_resize' in err.value.format_message()
    assert wire.sent == []


def test_live_migration_is_refused_when_pinned_to_the_moves_release(
        wire, conf):
    """Compute 1.2 and conductor 1.1 (moves, no live migration) say no,
    and the API's checks see it first."""
    compute, conductor = (compute_rpcapi.ComputeAPI(),
                          conductor_rpcapi.ConductorAPI())
    assert compute.can_send_live_migration()
    assert conductor.can_send_live_migration()
    conf.config(compute='1.2', conductor='1.1', group='upgrade_levels')
    assert compute.can_send_moves() and conductor.can_send_moves()
    assert not compute.can_send_live_migration()
    assert not conductor.can_send_live_migration()
    with pytest.raises(exception.UnsupportedRPCVersion) as err:
        conductor.live_migrate_instance(nl_context.get_admin_context(),
                                        _instance())
    assert 'live_migrate_instance' in err.value.format_message()
    assert wire.sent == []


@pytest.mark.parametrize('pin', [None, '1.4', 'acorn'])
def test_provision_with_build_is_one_call_or_call_and_cast(wire, conf, pin):
    """Conductor 1.5 starts the build itself; a client pinned below sends
    the 1.0 call and then the build_instances cast, as before."""
    if pin:
        conf.config(conductor=pin, group='upgrade_levels')
    api = conductor_rpcapi.ConductorAPI()
    assert api.client.can_send_version(
        conductor_rpcapi.PROVISION_BUILDS_VERSION) == (pin is None)
    api.provision_instances(nl_context.get_admin_context(), _instance(),
                            _spec(), 1, 1, build=True)
    sent = [(m['method'], m['version'], m['args'].get('build'))
            for _target, m in wire.sent]
    if pin is None:
        assert sent == [('provision_instances', '1.5', True)]
    else:
        assert sent == [('provision_instances', '1.0', None),
                        ('build_instances', '1.0', None)]


def test_a_revert_the_conductor_finishes_is_compute_1_10(wire, conf):
    api = compute_rpcapi.ComputeAPI()
    assert api.can_send_revert_dest_first()
    ctxt = nl_context.get_admin_context()
    api.revert_resize(ctxt, _instance(), _migration(),
                      conductor_finishes=True)
    api.revert_resize(ctxt, _instance(), _migration())
    (target, new), (_, old) = wire.sent
    assert (target.server, new['version'],
            new['args']['conductor_finishes']) == ('compute2', '1.10', True)
    assert old['version'] == '1.2'
    assert 'conductor_finishes' not in old['args']
    conf.config(compute='1.9', group='upgrade_levels')
    pinned = compute_rpcapi.ComputeAPI()
    assert not pinned.can_send_revert_dest_first()
    with pytest.raises(exception.UnsupportedRPCVersion):
        pinned.revert_resize(ctxt, _instance(), _migration(),
                             conductor_finishes=True)


def test_finish_revert_is_conductor_1_9(wire, conf):
    assert conductor_rpcapi.ConductorAPI().can_send_finish_revert()
    conductor_rpcapi.ConductorAPI().finish_revert_resize(
        nl_context.get_admin_context(), _instance(), _migration())
    [(_target, message)] = wire.sent
    assert message['version'] == '1.9'
    conf.config(conductor='1.8', group='upgrade_levels')
    assert not conductor_rpcapi.ConductorAPI().can_send_finish_revert()


def test_shelve_offloaded_is_a_conductor_1_9_call(wire, conf):
    api = conductor_rpcapi.ConductorAPI()
    assert api.can_send_shelve_offloaded()
    api.shelve_offloaded(nl_context.get_admin_context(), _instance())
    [(_target, message)] = wire.sent
    assert (message['method'], message['version']) == ('shelve_offloaded',
                                                       '1.9')
    conf.config(conductor='1.8', group='upgrade_levels')
    pinned = conductor_rpcapi.ConductorAPI()
    assert not pinned.can_send_shelve_offloaded()
    with pytest.raises(exception.UnsupportedRPCVersion):
        pinned.shelve_offloaded(nl_context.get_admin_context(), _instance())


def test_provision_with_a_request_key_is_1_7(wire, conf):
    api = conductor_rpcapi.ConductorAPI()
    assert api.can_send_request_key()
    api.provision_instances(nl_context.get_admin_context(), _instance(),
                            _spec(), 1, 1, build=True, request_key='req-1')
    [(_target, message)] = wire.sent
    assert (message['version'], message['args']['request_key'],
            message['args']['build']) == ('1.7', 'req-1', True)
    conf.config(conductor='1.6', group='upgrade_levels')
    assert not conductor_rpcapi.ConductorAPI().can_send_request_key()
    with pytest.raises(exception.UnsupportedRPCVersion):
        conductor_rpcapi.ConductorAPI().provision_instances(
            nl_context.get_admin_context(), _instance(), _spec(), 1, 1,
            build=True, request_key='req-1')


@pytest.mark.parametrize('pin', [None, '1.4', 'acorn'])
def test_instance_save_is_sparse_unless_pinned_below_1_5(wire, conf, pin):
    if pin:
        conf.config(conductor=pin, group='upgrade_levels')
    instance = _instance()
    instance.obj_reset_changes(recursive=True)
    instance.task_state = 'spawning'
    conductor_rpcapi.ConductorAPI().object_action(
        nl_context.get_admin_context(), instance, 'save', (), {})
    [(_target, message)] = wire.sent
    sent = message['args']['objinst']
    assert sent['nova_lite_object.changes'] == ['task_state']
    if pin is None:
        assert message['version'] == '1.5'
        assert set(sent['nova_lite_object.data']) == {'uuid', 'task_state'}
    else:
        # The whole object, as an older conductor expects it.
        assert message['version'] == '1.0'
        assert {'uuid', 'task_state', 'flavor', 'host', 'vm_state'} <= set(
            sent['nova_lite_object.data'])


def _spawning():
    instance = _instance()
    instance.obj_reset_changes(recursive=True)
    instance.host, instance.task_state = 'compute1', 'spawning'
    return instance


def test_build_started_is_1_10_and_sends_the_changes_only(wire, conf):
    api = conductor_rpcapi.ConductorAPI()
    assert api.can_send_build_started()
    api.build_started(nl_context.get_admin_context(), _spawning(),
                      'compute1')
    [(_target, message)] = wire.sent
    assert (message['method'], message['version']) == ('build_started',
                                                       '1.10')
    sent = message['args']['instance']
    assert set(sent['nova_lite_object.data']) == {'uuid', 'host',
                                                  'task_state'}
    assert sorted(sent['nova_lite_object.changes']) == ['host',
                                                        'task_state']
    assert wire.waits == [False]


@pytest.mark.parametrize('pin', ['1.9', 'acorn'])
def test_build_started_is_not_sent_when_pinned_below_1_10(wire, conf, pin):
    conf.config(conductor=pin, group='upgrade_levels')
    api = conductor_rpcapi.ConductorAPI()
    assert not api.can_send_build_started()
    with pytest.raises(exception.UnsupportedRPCVersion):
        api.build_started(nl_context.get_admin_context(), _spawning(),
                          'compute1')
    assert wire.sent == []


def test_a_receipt_can_be_a_call(wire, conf):
    conductor_rpcapi.ConductorAPI().build_received(
        nl_context.get_admin_context(), UUID, 'compute1', wait=True,
        timeout=3)
    [(_target, message)] = wire.sent
    assert (message['method'], message['version']) == ('build_received',
                                                       '1.6')
    assert wire.waits == [True]


def test_instance_states_go_only_to_schedulers_taking_1_3(wire, conf):
    """A scheduler pinned below 1.3 cannot apply instances' states: it is
    told to re-read their nodes instead (with the generations it takes),
    and a notice of instance states alone still reaches it."""
    api = scheduler_rpcapi.SchedulerAPI()
    ctxt = nl_context.get_admin_context()
    states = {'n1': {'i1': ('active', None, 12.5)}, 'n2': {}}
    api.update_provider_states(ctxt, ['p1'], generations={'p1': 4},
                               instance_states=states)
    api.update_provider_states(ctxt, [], instance_states=states)
    conf.config(scheduler='1.2', group='upgrade_levels')
    api.update_provider_states(ctxt, ['p1'], generations={'p1': 4},
                               instance_states=states)
    conf.config(scheduler='acorn', group='upgrade_levels')
    api.update_provider_states(ctxt, [], instance_states=states)
    api.update_provider_states(ctxt, [], instance_states={'n2': {}})
    (_, new), (_, alone), (_, pinned), (_, acorn) = wire.sent
    assert (new['version'], new['args']) == ('1.3', {
        'provider_uuids': ['p1'], 'generations': {'p1': 4},
        'instance_states': {'n1': {'i1': ['active', None, 12.5]}}})
    assert (alone['version'], alone['args']) == ('1.3', {
        'provider_uuids': [],
        'instance_states': {'n1': {'i1': ['active', None, 12.5]}}})
    assert (pinned['version'], pinned['args']) == ('1.2', {
        'provider_uuids': ['n1', 'p1'], 'generations': {'p1': 4}})
    assert (acorn['version'], acorn['args']) == ('1.0', {
        'provider_uuids': ['n1']})
