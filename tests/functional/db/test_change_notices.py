"""Every write the scheduler's host states depend on tells it, from one
hook (``nova_lite.placement.changes``), once committed; on every backend.

A HostManager is loaded once, then fed only the notices the writes
publish (no reload): after each kind of write, its host state must show
the change. A scheduler that lost the notices catches up by comparing
generations, re-reading only what changed.
"""

import datetime
from unittest import mock

from oslo_utils import timeutils
from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite import objects
from nova_lite.placement import allocations
from nova_lite.placement import changes
from nova_lite.placement import providers
from nova_lite.scheduler import host_manager

COMPUTE = host_manager.COMPUTE_BINARY
INV = {'total': 8, 'reserved': 0, 'min_unit': 1, 'max_unit': 8,
       'step_size': 1, 'allocation_ratio': 1.0}
MEM = dict(INV, total=4096, max_unit=4096)


class Scheduler:
    """A host manager that hears the notices this process publishes
    (unless ``deaf``), and the list of them."""

    def __init__(self, ctxt):
        self.ctxt = ctxt
        self.manager = host_manager.HostManager()
        self.notices = []
        self.instance_notices = []
        self.deaf = False

    def __call__(self, providers, aggregates, generations=None,
                 instances=None):
        self.notices.append(set(providers) | set(aggregates))
        self.instance_notices.append(instances or {})
        if not self.deaf:
            self.manager.mark_dirty(set(providers) | set(aggregates),
                                    generations)
            if instances:
                self.manager.note_instance_states(instances)

    def states(self):
        return {s.uuid: s for s in self.manager.get_host_states(self.ctxt)}

    def heard(self):
        heard = set().union(*self.notices) if self.notices else set()
        self.notices.clear()
        return heard


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


@pytest.fixture
def sched(ctxt):
    scheduler = Scheduler(ctxt)
    previous = changes.set_publisher(scheduler)
    yield scheduler
    changes.set_publisher(previous)


def _node(ctxt, host):
    try:
        objects.Service.get_by_host_and_binary(ctxt, host, COMPUTE)
    except exception.ServiceNotFound:
        service = objects.Service(ctxt, host=host, binary=COMPUTE,
                                  topic='compute')
        service.create()
        service.heartbeat()
    node = objects.ComputeNode(
        ctxt, uuid=uuidutils.generate_uuid(), host=host,
        hypervisor_hostname=host, vcpus=8, memory_mb=4096, local_gb=100,
        hypervisor_type='fake', hypervisor_version=1, cpu_info='{}',
        stats={})
    node.create()
    providers.ensure_provider(ctxt, node.uuid, host)
    providers.set_inventories(ctxt, node.uuid,
                              {'VCPU': INV, 'MEMORY_MB': MEM})
    return node


@pytest.fixture
def node(ctxt, sched):
    node = _node(ctxt, 'h1')
    sched.states()   # the one full load
    sched.heard()
    return node


def test_provider_create_and_inventory(ctxt, sched, node):
    other = _node(ctxt, 'h2')
    assert other.uuid in sched.heard()
    assert sched.states()[other.uuid].total_usable_ram_mb == 4096
    providers.set_inventories(ctxt, node.uuid, {
        'VCPU': INV, 'MEMORY_MB': dict(MEM, total=2048, max_unit=2048)})
    assert sched.heard() == {node.uuid}
    assert sched.states()[node.uuid].total_usable_ram_mb == 2048


def test_allocation_claim_replace_and_free(ctxt, sched, node):
    other = _node(ctxt, 'h2')
    sched.states()
    sched.heard()
    consumer = uuidutils.generate_uuid()
    allocations.claim(ctxt, consumer, 'p', 'u',
                      {node.uuid: {'MEMORY_MB': 1024}})
    assert sched.heard() == {node.uuid}
    assert sched.states()[node.uuid].free_ram_mb == 3072
    allocations.replace(ctxt, consumer, 'p', 'u',
                        {other.uuid: {'MEMORY_MB': 512}})
    assert sched.heard() == {node.uuid, other.uuid}
    states = sched.states()
    assert (states[node.uuid].free_ram_mb,
            states[other.uuid].free_ram_mb) == (4096, 3584)
    allocations.remove(ctxt, consumer)
    assert sched.heard() == {other.uuid}
    assert sched.states()[other.uuid].free_ram_mb == 4096


def _instance(ctxt, node):
    flavor = objects.Flavor(ctxt, flavorid='f1', name='f1', memory_mb=512,
                            vcpus=1, root_gb=1, swap=0)
    flavor.create()
    instance = objects.Instance(
        ctxt, uuid=uuidutils.generate_uuid(), project_id='p', user_id='u',
        display_name='vm', flavor=flavor, image_ref='img',
        vm_state='active', task_state=None, host=node.host,
        node=node.hypervisor_hostname, compute_node_uuid=node.uuid)
    instance.create()
    allocations.claim(ctxt, instance.uuid, 'p', 'u',
                      {node.uuid: {'MEMORY_MB': 512}})
    return instance


@db_api.writer
def _move(context, from_consumer, to_consumer):
    allocations.move_in_session(context.session, from_consumer,
                                to_consumer, 'p', 'u')


def test_moves_between_instance_and_migration_consumers(ctxt, sched, node):
    """A resize hands the source allocation to its migration and a
    revert hands it back: usage is unchanged, but which instances the
    host holds changes, and the scheduler hears it."""
    instance = _instance(ctxt, node)
    migration = uuidutils.generate_uuid()
    sched.heard()
    assert set(sched.states()[node.uuid].instances) == {instance.uuid}
    before = sched.states()[node.uuid].generation
    _move(ctxt, instance.uuid, migration)
    assert sched.heard() == {node.uuid}
    state = sched.states()[node.uuid]
    # Held by the migration now: no instance of a server group there.
    assert (set(state.instances), state.free_ram_mb) == (set(), 3584)
    assert state.generation > before
    _move(ctxt, migration, instance.uuid)
    assert sched.heard() == {node.uuid}
    assert set(sched.states()[node.uuid].instances) == {instance.uuid}


def test_a_scheduler_that_lost_a_move_catches_up(ctxt, sched, node):
    instance = _instance(ctxt, node)
    sched.states()
    sched.deaf = True
    _move(ctxt, instance.uuid, uuidutils.generate_uuid())
    assert set(sched.states()[node.uuid].instances) == {instance.uuid}
    # The move moved the generation, so the digest shows the host stale.
    assert sched.manager.catch_up(ctxt) == {node.uuid}
    assert set(sched.states()[node.uuid].instances) == set()


def test_traits_and_placement_aggregates(ctxt, sched, node):
    providers.set_traits(ctxt, node.uuid, {'CUSTOM_GPU'})
    assert sched.heard() == {node.uuid}
    assert 'CUSTOM_GPU' in sched.states()[node.uuid].traits
    agg = uuidutils.generate_uuid()
    providers.set_aggregates(ctxt, node.uuid, [agg])
    assert sched.heard() == {node.uuid}
    assert sched.states()[node.uuid].provider_aggregates == {agg}
    # Nothing changed, nothing written, nothing said.
    providers.set_traits(ctxt, node.uuid, {'CUSTOM_GPU'})
    assert sched.heard() == set()


def test_host_aggregates(ctxt, sched, node):
    agg = objects.Aggregate(ctxt, name='a',
                            metadata={'availability_zone': 'az1'})
    agg.create()
    assert agg.uuid in sched.heard()
    agg.add_host('h1')
    assert agg.uuid in sched.heard()
    assert sched.states()[node.uuid].availability_zone == 'az1'
    agg.update_metadata({'availability_zone': 'az2'})
    assert sched.heard() == {agg.uuid}
    assert sched.states()[node.uuid].availability_zone == 'az2'
    agg.delete_host('h1')
    assert agg.uuid in sched.heard()
    assert sched.states()[node.uuid].aggregates == []
    agg.destroy()
    assert sched.heard() == {agg.uuid}
    sched.states()
    assert sched.manager.aggregates() == []


def test_service_disable_enable_and_forced_down(ctxt, sched, node):
    service = objects.Service.get_by_host_and_binary(ctxt, 'h1', COMPUTE)
    service.disabled = True
    service.disabled_reason = 'maintenance'
    service.save()
    assert sched.heard() == {node.uuid}
    state = sched.states()[node.uuid]
    assert (state.service['disabled'], state.service['disabled_reason']) == (
        True, 'maintenance')
    service.disabled = False
    service.save()
    sched.heard()
    assert not sched.states()[node.uuid].service['disabled']
    service.forced_down = True
    service.save()
    assert sched.heard() == {node.uuid}
    assert not sched.states()[node.uuid].service_up


def test_a_silent_service_goes_down_and_comes_back(ctxt, sched, node):
    service = objects.Service.get_by_host_and_binary(ctxt, 'h1', COMPUTE)
    # A heartbeat of a service that is up tells nobody: nothing changed.
    service.heartbeat()
    assert sched.heard() == set()
    # Silence is no write: the services task notices it (reading only
    # the services not plainly up).
    old = timeutils.utcnow().replace(tzinfo=None) - datetime.timedelta(
        hours=1)
    _sql(ctxt, sa.update(models.Service).where(
        models.Service.id == service.id).values(last_seen_up=old))
    sched.manager.sync_services(ctxt)
    assert not sched.states()[node.uuid].service_up
    # The compute restarts: its service holds the old heartbeat, and its
    # first heartbeat tells the schedulers at once.
    service = objects.Service.get_by_host_and_binary(ctxt, 'h1', COMPUTE)
    service.heartbeat()
    assert sched.heard() == {node.uuid}
    assert sched.states()[node.uuid].service_up


def test_compute_node_record(ctxt, sched, node):
    node.stats = {'failed_builds': '2'}
    node.save()
    assert sched.heard() == {node.uuid}
    assert sched.states()[node.uuid].failed_builds == 2


def test_other_services_tell_nobody(ctxt, sched, node):
    service = objects.Service(ctxt, host='ctl', binary='nova-lite-conductor',
                              topic='conductor')
    service.create()
    service.disabled = True
    service.save()
    service.destroy()
    assert sched.heard() == set()


def test_published_after_commit_and_never_after_rollback(ctxt, sched, node):
    with db_api.context_manager.writer.using(ctxt) as session:
        providers.set_traits_in_session(session, node.uuid, {'CUSTOM_A'})
        # Not before the commit: a scheduler re-reading now would not
        # see the change yet.
        assert sched.notices == []
    assert sched.heard() == {node.uuid}
    with pytest.raises(RuntimeError):
        with db_api.context_manager.writer.using(ctxt) as session:
            providers.set_traits_in_session(session, node.uuid,
                                            {'CUSTOM_B'})
            raise RuntimeError('the write fails')
    assert sched.heard() == set()
    assert 'CUSTOM_B' not in sched.states()[node.uuid].traits


def test_a_scheduler_that_lost_notices_catches_up(ctxt, sched, node):
    other = _node(ctxt, 'h2')
    sched.states()
    sched.deaf = True       # every notice from here on is lost
    providers.set_traits(ctxt, node.uuid, {'CUSTOM_LOST'})
    consumer = uuidutils.generate_uuid()
    allocations.claim(ctxt, consumer, 'p', 'u',
                      {other.uuid: {'MEMORY_MB': 1024}})
    third = _node(ctxt, 'h3')
    states = sched.states()
    assert 'CUSTOM_LOST' not in states[node.uuid].traits
    assert third.uuid not in states
    # The catch-up re-reads exactly the hosts that changed.
    assert sched.manager.catch_up(ctxt) == {node.uuid, other.uuid,
                                            third.uuid}
    states = sched.states()
    assert 'CUSTOM_LOST' in states[node.uuid].traits
    assert states[other.uuid].free_ram_mb == 3072
    assert third.uuid in states
    assert sched.manager.catch_up(ctxt) == set()


@db_api.writer
def _sql(context, statement):
    context.session.execute(statement)


def test_the_notice_of_a_schedulers_own_claim_reads_nothing(ctxt, sched,
                                                             node):
    """The claim's notice carries the generation it set: a scheduler whose
    state already has it (consumed after its claim) re-reads nothing; a
    claim by another writer is re-read."""
    state = sched.states()[node.uuid]
    new = allocations.claim(ctxt, uuidutils.generate_uuid(), 'p', 'u',
                            {node.uuid: {'MEMORY_MB': 1024}},
                            {node.uuid: state.generation})
    state.consume({'MEMORY_MB': 1024}, new[node.uuid])
    assert sched.heard() == {node.uuid}
    read = sched.manager.refresh = mock.Mock()
    sched.states()
    read.assert_not_called()
    allocations.claim(ctxt, uuidutils.generate_uuid(), 'p', 'u',
                      {node.uuid: {'MEMORY_MB': 512}})
    sched.states()
    read.assert_called_once_with(ctxt, {node.uuid})


def test_an_instances_new_state_is_applied_without_a_reread(ctxt, sched,
                                                            node):
    """A build saved ACTIVE (or a task state set) on a node: its notice
    carries the instance's new states, which the scheduler applies to its
    state of the node (I/O ops) without re-reading it; a save that
    changes no state tells nothing."""
    instance = _instance(ctxt, node)
    instance.vm_state, instance.task_state = 'building', 'spawning'
    instance.save()
    sched.heard()
    assert sched.states()[node.uuid].num_io_ops == 1
    sched.instance_notices.clear()
    read = sched.manager.refresh = mock.Mock()
    instance.vm_state, instance.task_state = 'active', None
    instance.save()
    [notice] = sched.instance_notices
    assert {uuid: state[:2] for uuid, state in notice[node.uuid].items()} \
        == {instance.uuid: ('active', None)}
    assert sched.states()[node.uuid].num_io_ops == 0
    instance.task_state = 'rebuilding'
    instance.save()
    assert sched.states()[node.uuid].num_io_ops == 1
    read.assert_not_called()
    sched.instance_notices.clear()
    instance.display_name = 'renamed'
    instance.save()
    assert sched.instance_notices == []


def test_a_scheduler_that_lost_an_instances_state_converges(ctxt, sched,
                                                           node):
    """An instance's state moves no generation: a scheduler that lost its
    notice keeps the old state until the compute's periodic update saves
    the node's new stats (io_workload), which the catch-up finds by the
    node's update time even when that notice is lost too."""
    instance = _instance(ctxt, node)
    instance.vm_state, instance.task_state = 'building', 'spawning'
    instance.save()
    assert sched.states()[node.uuid].num_io_ops == 1
    sched.deaf = True
    instance.vm_state, instance.task_state = 'active', None
    instance.save()
    assert sched.states()[node.uuid].num_io_ops == 1
    assert sched.manager.catch_up(ctxt) == set()
    node.stats = {'num_instances': '1', 'io_workload': '0'}
    node.save()
    assert sched.manager.catch_up(ctxt) == {node.uuid}
    assert sched.states()[node.uuid].num_io_ops == 0
