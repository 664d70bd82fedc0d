"""nova_lite.compute.api (the API side of the compute service).

Lives with the API tests because only the API process uses it.
"""

import datetime
from unittest import mock

import oslo_messaging as messaging
from oslo_utils import timeutils
import pytest

from nova_lite.compute import api as compute_api
from nova_lite import exception
from nova_lite import objects
from tests.unit.api import conftest
from tests.unit.api import fakes


@pytest.fixture
def api():
    compute = compute_api.API()
    compute._conductor = mock.Mock()
    compute._scheduler = mock.Mock()
    compute._compute = mock.Mock()
    compute._conductor.provision_instances.side_effect = (
        lambda ctxt, inst, spec, mn, mx, build=False, request_key=None,
        timeout=None: objects.InstanceList(objects=[fakes.instance()]))
    return compute


CTXT = conftest.make_context()


GROUP_UUID = '6f0c3c5e-8d0b-4bde-9a51-7d0c2b1f0a11'


@pytest.fixture
def groups(monkeypatch):
    """Server group 'g' of project proj1; lookups are recorded."""
    calls = []
    group = objects.InstanceGroup(uuid=GROUP_UUID, name='g',
                                  project_id='proj1', user_id='demo',
                                  policy='anti-affinity', rules={},
                                  members=[])

    def get_by_name(cls, context, name, project_id):
        calls.append(('name', name, project_id))
        if name != 'g' or project_id != 'proj1':
            raise exception.InstanceGroupNotFound(group_uuid=name)
        return group

    def get_by_uuid(cls, context, uuid):
        calls.append(('uuid', uuid))
        if uuid != GROUP_UUID:
            raise exception.InstanceGroupNotFound(group_uuid=uuid)
        return group
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_name',
                        classmethod(get_by_name))
    monkeypatch.setattr(objects.InstanceGroup, 'get_by_uuid',
                        classmethod(get_by_uuid))
    return calls


class TestCreate:
    def test_provisions_then_builds(self, api, groups):
        flavor = fakes.flavor()
        image = fakes.image(min_ram=256)
        instances, resv = api.create(
            CTXT, flavor, image, 'vm', min_count=1, max_count=3,
            metadata={'a': 'b'}, key_name='k', availability_zone='az1',
            scheduler_hints={'group': 'g', 'same_host': ['x', 'y']})
        assert resv.startswith('r-') and len(resv) == 10
        (ctxt, template, spec, mn, mx), kwargs = (
            api._conductor.provision_instances.call_args)
        assert (mn, mx) == (1, 3)
        # One call: the conductor (or, pinned, its client) starts the
        # build. It names the request, so it can be sent again.
        assert kwargs == {'build': True, 'request_key': CTXT.request_id,
                          'timeout': 15}
        assert (template.project_id, template.user_id) == ('proj1', 'demo')
        assert template.display_name == 'vm'
        assert template.image_ref == image['id']
        assert template.flavor is flavor
        assert (template.vm_state, template.task_state) == ('building',
                                                            'scheduling')
        assert template.metadata == {'a': 'b'}
        assert template.reservation_id == resv
        assert (template.key_name, template.availability_zone) == ('k',
                                                                   'az1')
        assert not template.obj_attr_is_set('uuid')
        assert spec.num_instances == 3
        # The group hint named the group: the spec carries it, by uuid.
        assert spec.scheduler_hints == {'group': [GROUP_UUID],
                                        'same_host': ['x', 'y']}
        assert spec.instance_group.uuid == GROUP_UUID
        assert groups == [('name', 'g', 'proj1')]
        assert spec.image.id == image['id']
        assert spec.image.properties.os_distro == 'cirros'
        assert spec.force_hosts is None
        api._conductor.build_instances.assert_not_called()
        assert len(instances) == 1

    def test_forced_host(self, api):
        api.create(CTXT, fakes.flavor(), fakes.image(), 'vm',
                   forced_host='h1', forced_node='n1')
        spec = api._conductor.provision_instances.call_args[0][2]
        assert (spec.force_hosts, spec.force_nodes) == (['h1'], ['n1'])

    @pytest.mark.parametrize('destination', [('h1', None), (None, 'n1'),
                                             ('h1', 'n1')])
    def test_requested_destination(self, api, destination):
        """2.74's host and hypervisor_hostname: the only candidates,
        nothing forced."""
        api.create(CTXT, fakes.flavor(), fakes.image(), 'vm',
                   requested_destination=destination)
        spec = api._conductor.provision_instances.call_args[0][2]
        host, node = destination
        assert spec.requested_destination == {'host': host, 'node': node}
        assert (spec.requested_host(), spec.requested_node()) == destination
        assert (spec.force_hosts, spec.force_nodes) == (None, None)

    @pytest.mark.parametrize('flavor, image, error', [
        (dict(memory_mb=64), dict(min_ram=128),
         exception.FlavorMemoryTooSmall),
        (dict(root_gb=1), dict(min_disk=2), exception.FlavorDiskTooSmall),
        (dict(disabled=True), {}, exception.FlavorNotFoundForBuild),
        ({}, dict(status='queued'), exception.ImageNotActive),
    ])
    def test_flavor_and_image_checks(self, api, flavor, image, error):
        with pytest.raises(error) as info:
            api.create(CTXT, fakes.flavor(**flavor), fakes.image(**image),
                       'vm')
        assert info.value.code == 400
        api._conductor.provision_instances.assert_not_called()

    def test_root_gb_zero_fits_any_image(self, api):
        api.create(CTXT, fakes.flavor(root_gb=0), fakes.image(min_disk=20),
                   'vm')
        api._conductor.provision_instances.assert_called_once()

    def test_conductor_errors_propagate_and_nothing_is_built(self, api):
        api._conductor.provision_instances.side_effect = (
            exception.TooManyInstances(overs='instances', req=2, used=9,
                                       allowed=10))
        with pytest.raises(exception.TooManyInstances):
            api.create(CTXT, fakes.flavor(), fakes.image(), 'vm',
                       max_count=2)
        api._conductor.build_instances.assert_not_called()

    def test_tags_are_written_for_each_server(self, api, tag_store):
        instances, _resv = api.create(CTXT, fakes.flavor(), fakes.image(),
                                      'vm', tags=['web', 'db', 'web'])
        assert tag_store == {instances[0].uuid: {'web', 'db'}}

    def test_a_failed_tag_write_deletes_the_servers(self, api, monkeypatch):
        deleted = []
        monkeypatch.setattr(api, 'delete',
                            lambda context, instance: deleted.append(
                                instance.uuid))

        def fail(cls, context, resource_id, tags):
            raise exception.NovaLiteException('database gone')
        monkeypatch.setattr(objects.TagList, 'create', classmethod(fail))
        with pytest.raises(exception.NovaLiteException):
            api.create(CTXT, fakes.flavor(), fakes.image(), 'vm',
                       tags=['web'])
        assert deleted == [fakes.instance().uuid]


@pytest.fixture
def saved(monkeypatch):
    """Instance.save/destroy replaced: records calls."""
    calls = {'save': [], 'destroy': 0}

    def save(self, expected_task_state=None, expected_vm_state=None):
        calls['save'].append((self.task_state, expected_task_state))

    def destroy(self):
        calls['destroy'] += 1
        return ['rp-1']
    monkeypatch.setattr(objects.Instance, 'save', save)
    monkeypatch.setattr(objects.Instance, 'destroy', destroy)
    # No move to settle unless a test says so.
    calls['moves'] = []
    monkeypatch.setattr(objects.MigrationList, 'get_by_filters', classmethod(
        lambda cls, context, filters, **kw: [
            m for m in calls['moves']
            if m.status in filters['status']
            and m.migration_type in filters['migration_type']]))
    return calls


def _service(up):
    service = mock.Mock()
    service.is_up = up
    return service


class TestDelete:
    def test_no_host_deletes_locally(self, api, saved):
        api.delete(CTXT, fakes.instance(host=None))
        # A delete interrupts a build or a server action.
        assert saved['save'] == [('deleting', [
            None, 'scheduling', 'spawning', 'rebooting', 'rebooting_hard',
            'powering-off', 'powering-on', 'pausing', 'unpausing',
            'suspending', 'resuming', 'image_snapshot',
            'image_pending_upload', 'image_uploading', 'shelving',
            'shelving_image_pending_upload', 'shelving_image_uploading',
            'shelving_offloading', 'unshelving'])]
        assert saved['destroy'] == 1
        # The destroy's allocation write tells the schedulers.
        api._scheduler.update_provider_states.assert_not_called()
        api._compute.terminate_instance.assert_not_called()

    def test_an_offloaded_server_goes_locally_with_its_snapshot(
            self, api, saved, monkeypatch):
        deleted = []
        monkeypatch.setattr(objects.Image, 'delete_by_id', classmethod(
            lambda cls, context, image_id: deleted.append(image_id)))
        instance = fakes.instance(host=None, vm_state='shelved_offloaded',
                                  task_state=None, shelved_image_id='img-1')
        api.delete(CTXT, instance)
        assert saved['destroy'] == 1
        assert deleted == ['img-1']
        api._compute.terminate_instance.assert_not_called()

    def test_host_up_casts_to_compute(self, api, saved, monkeypatch):
        lookup = mock.Mock(return_value=_service(True))
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            lookup)
        instance = fakes.instance(host='h1', vm_state='active',
                                  task_state=None)
        api.delete(CTXT, instance)
        lookup.assert_called_once_with(CTXT, 'h1', 'nova-lite-compute')
        api._compute.terminate_instance.assert_called_once_with(
            CTXT, instance)
        assert saved['destroy'] == 0

    def test_a_cast_the_bus_refused_is_accepted(self, api, saved,
                                                monkeypatch):
        # Recorded as deleting: a conductor sends it once the bus is back.
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            mock.Mock(return_value=_service(True)))
        api._compute.terminate_instance.side_effect = (
            messaging.MessageDeliveryFailure('vhost refused'))
        instance = fakes.instance(host='h1', vm_state='active',
                                  task_state=None)
        api.delete(CTXT, instance)
        assert instance.task_state == 'deleting'
        assert saved['destroy'] == 0

    @pytest.mark.parametrize('lookup', [
        mock.Mock(return_value=_service(False)),
        mock.Mock(side_effect=exception.ServiceNotFound(service_id='h1')),
    ])
    def test_host_down_or_gone_deletes_locally(self, api, saved,
                                               monkeypatch, lookup):
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            lookup)
        api.delete(CTXT, fakes.instance(host='h1'))
        assert saved['destroy'] == 1
        api._compute.terminate_instance.assert_not_called()

    def test_already_deleting_is_accepted_quietly(self, api, saved):
        instance = fakes.instance(task_state='deleting')
        instance.updated_at = timeutils.utcnow()
        api.delete(CTXT, instance)
        assert saved == {'save': [], 'destroy': 0, 'moves': []}

    def test_a_delete_stuck_in_deleting_is_sent_again(self, api, saved,
                                                      monkeypatch):
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            mock.Mock(return_value=_service(True)))
        instance = fakes.instance(host='h1', task_state='deleting')
        instance.updated_at = timeutils.utcnow() - datetime.timedelta(
            seconds=compute_api.CONF.conductor.delete_resend_after + 1)
        api.delete(CTXT, instance)
        assert saved['save'] == []
        api._compute.terminate_instance.assert_called_once_with(
            CTXT, instance)

    def test_concurrent_delete_is_accepted(self, api, monkeypatch):
        def save(self, **kwargs):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.uuid, expected='x', actual='deleting')
        monkeypatch.setattr(objects.Instance, 'save', save)
        api.delete(CTXT, fakes.instance())
        api._compute.terminate_instance.assert_not_called()

    def test_other_task_conflict_is_raised(self, api, monkeypatch):
        def save(self, **kwargs):
            raise exception.UnexpectedTaskStateError(
                instance_uuid=self.uuid, expected='x', actual='migrating')
        monkeypatch.setattr(objects.Instance, 'save', save)
        with pytest.raises(exception.UnexpectedTaskStateError) as info:
            api.delete(CTXT, fakes.instance())
        assert info.value.code == 409

    def test_destroy_race_is_quiet(self, api, saved, monkeypatch):
        def gone(self):
            raise exception.InstanceNotFound(instance_id=self.uuid)
        monkeypatch.setattr(objects.Instance, 'destroy', gone)
        api.delete(CTXT, fakes.instance())
        api._scheduler.update_provider_states.assert_not_called()


class TestDeleteInVerifyResize:
    """As Nova, a delete in VERIFY_RESIZE confirms the move first: the
    conductor frees the source and then casts the delete."""

    @pytest.fixture
    def resized(self, api, saved, monkeypatch):
        monkeypatch.setattr(objects.Service, 'get_by_host_and_binary',
                            mock.Mock(return_value=_service(True)))
        migration = objects.Migration(id=7, status='finished')
        w = mock.Mock(migration=migration, statuses=[], actions=[])
        monkeypatch.setattr(
            objects.Migration, 'get_by_instance_and_status',
            mock.Mock(return_value=migration))
        monkeypatch.setattr(objects.Migration, 'save',
                            lambda self: w.statuses.append(self.status))
        monkeypatch.setattr(
            compute_api.action_api, 'record_action',
            lambda ctxt, inst, action: w.actions.append(action))
        w.lookup = objects.Migration.get_by_instance_and_status
        return w

    def test_confirms_through_the_conductor_instead_of_terminating(
            self, api, saved, resized):
        instance = fakes.instance(host='h1', vm_state='resized',
                                  task_state=None)
        api.delete(CTXT, instance)
        assert saved['save'][0][0] == 'deleting'
        resized.lookup.assert_called_once_with(CTXT, instance.uuid,
                                               'finished')
        assert resized.statuses == ['confirming']
        assert resized.actions == ['confirmResize']
        api._conductor.confirm_resize.assert_called_once_with(
            CTXT, instance, resized.migration)
        api._compute.terminate_instance.assert_not_called()

    def test_no_finished_migration_terminates_as_usual(self, api, saved,
                                                        resized):
        resized.lookup.side_effect = exception.MigrationNotFound(
            migration_id='x')
        instance = fakes.instance(host='h1', vm_state='resized',
                                  task_state=None)
        api.delete(CTXT, instance)
        api._conductor.confirm_resize.assert_not_called()
        api._compute.terminate_instance.assert_called_once_with(
            CTXT, instance)

    def test_a_pinned_conductor_terminates_as_usual(self, api, saved,
                                                    resized):
        api._conductor.can_send_moves.return_value = False
        api.delete(CTXT, fakes.instance(host='h1', vm_state='resized',
                                        task_state=None))
        assert resized.statuses == []
        api._conductor.confirm_resize.assert_not_called()
        api._compute.terminate_instance.assert_called_once()

    def test_an_active_server_does_not_look_for_a_migration(
            self, api, saved, resized):
        api.delete(CTXT, fakes.instance(host='h1', vm_state='active',
                                        task_state=None))
        resized.lookup.assert_not_called()
        api._compute.terminate_instance.assert_called_once()


class TestDeleteWithTheDestinationDown:
    """The destination of a move waiting in VERIFY_RESIZE is down: the
    records go here (the conductor's destroy frees the source the
    migration holds and confirms it, in one transaction), and a source
    that is up is told to remove its copy of the VM, as Nova's delete
    confirms on the source."""

    @pytest.fixture
    def hosts(self, monkeypatch):
        self.actions = []
        monkeypatch.setattr(
            compute_api.action_api, 'record_action',
            lambda ctxt, inst, action: self.actions.append(action))
        up = {'src': True, 'dst': False}
        monkeypatch.setattr(
            objects.Service, 'get_by_host_and_binary', classmethod(
                lambda cls, context, host, binary: _service(up[host])))
        return up

    @staticmethod
    def _move(saved, status='finished', source='src',
              migration_type='resize'):
        migration = objects.Migration(
            id=7, uuid='0b8f5e4e-3c1a-4f5e-9a8b-7c6d5e4f3a2b',
            status=status, source_compute=source, dest_compute='dst',
            migration_type=migration_type)
        saved['moves'].append(migration)
        return migration

    def test_records_go_here_and_the_source_removes_its_copy(
            self, api, saved, hosts):
        migration = self._move(saved)
        instance = fakes.instance(host='dst', vm_state='resized',
                                  task_state=None)
        api.delete(CTXT, instance)
        assert saved['destroy'] == 1
        api._conductor.confirm_resize.assert_not_called()
        api._compute.terminate_instance.assert_not_called()
        api._compute.confirm_resize.assert_called_once_with(
            CTXT, instance, migration)
        assert self.actions == ['confirmResize']

    @pytest.mark.parametrize('status', ['post-migrating', 'reverting',
                                        'confirming'])
    def test_a_move_in_flight_on_another_source_too(self, api, saved,
                                                    hosts, status):
        self._move(saved, status=status)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        assert saved['destroy'] == 1
        api._compute.confirm_resize.assert_called_once()

    def test_a_source_that_is_down_removes_it_when_it_starts(
            self, api, saved, hosts):
        hosts['src'] = False
        self._move(saved)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        assert saved['destroy'] == 1
        api._compute.confirm_resize.assert_not_called()

    def test_a_pinned_compute_client_leaves_it_to_the_source(
            self, api, saved, hosts):
        api._compute.can_send_moves.return_value = False
        self._move(saved)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        assert saved['destroy'] == 1
        api._compute.confirm_resize.assert_not_called()

    @pytest.mark.parametrize('kwargs', [
        {'source': 'dst'},                  # a resize to the same host
        {'status': 'confirmed'},            # settled: nothing left there
        {'status': 'pre-migrating'},        # the VM never left its host
        {'migration_type': 'live-migration'}])
    def test_no_copy_elsewhere_is_nothing_to_tell(self, api, saved, hosts,
                                                  kwargs):
        hosts['src'] = True
        self._move(saved, **kwargs)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        assert saved['destroy'] == 1
        api._compute.confirm_resize.assert_not_called()
        assert self.actions == []

    def test_a_refused_cast_still_deletes(self, api, saved, hosts):
        api._compute.confirm_resize.side_effect = (
            messaging.MessageDeliveryFailure('vhost refused'))
        self._move(saved)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        assert saved['destroy'] == 1

    def test_a_destroy_that_lost_the_race_tells_no_one(self, api, saved,
                                                       hosts, monkeypatch):
        def gone(self):
            raise exception.InstanceNotFound(instance_id=self.uuid)
        monkeypatch.setattr(objects.Instance, 'destroy', gone)
        self._move(saved)
        api.delete(CTXT, fakes.instance(host='dst', vm_state='resized',
                                        task_state=None))
        api._compute.confirm_resize.assert_not_called()


class TestReads:
    def test_get_checks_project(self, api, monkeypatch):
        instance = fakes.instance(project_id='proj2')
        monkeypatch.setattr(objects.Instance, 'get_by_uuid', classmethod(
            lambda cls, ctxt, uuid, expected_attrs=None: instance))
        with pytest.raises(exception.InstanceNotFound):
            api.get(CTXT, instance.uuid)
        admin = conftest.make_context('admin', 'ops')
        assert api.get(admin, instance.uuid) is instance

    def test_get_non_uuid_is_not_found(self, api):
        with pytest.raises(exception.InstanceNotFound):
            api.get(CTXT, 'not-a-uuid')

    def test_get_all_filters_by_project(self, api, monkeypatch):
        query = mock.Mock(return_value=objects.InstanceList(objects=[]))
        monkeypatch.setattr(objects.InstanceList, 'get_by_filters', query)
        api.get_all(CTXT, {'name': 'x'}, limit=5)
        args, kwargs = query.call_args
        assert args[1] == {'name': 'x', 'project_id': 'proj1'}
        assert kwargs['limit'] == 5
        api.get_all(CTXT, {}, all_tenants=True)
        assert query.call_args[0][1] == {}

    def test_get_all_deleted_reads_deleted_rows(self, api, monkeypatch):
        query = mock.Mock(return_value=objects.InstanceList(objects=[]))
        monkeypatch.setattr(objects.InstanceList, 'get_by_filters', query)
        api.get_all(CTXT, {'vm_state': ['deleted']})
        assert query.call_args[0][0].read_deleted == 'yes'
        assert CTXT.read_deleted == 'no'


class TestDeleteLocked:
    def test_a_locked_server_refuses_its_owner(self, api, saved):
        with pytest.raises(exception.InstanceIsLocked):
            api.delete(CTXT, fakes.instance(host=None, locked=True))
        assert saved['save'] == [] and saved['destroy'] == 0

    def test_an_administrator_deletes_a_locked_server(self, api, saved):
        admin = conftest.make_context('admin', 'adminproj')
        api.delete(admin, fakes.instance(host=None, locked=True))
        assert saved['destroy'] == 1
