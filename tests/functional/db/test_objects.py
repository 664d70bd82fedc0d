"""Objects against every backend: the writes the services depend on."""

import datetime

from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects
from nova_lite.objects import fields
from nova_lite.objects import flavor as flavor_obj
from nova_lite.objects import instance_usage
from nova_lite.objects import request_spec
from nova_lite.placement import allocations
from nova_lite.placement import providers


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _flavor(ctxt, flavorid='1', name='m1.tiny', **extra):
    flavor = objects.Flavor(ctxt, flavorid=flavorid, name=name,
                            memory_mb=512, vcpus=1, root_gb=1, **extra)
    flavor.create()
    return flavor


def _template(ctxt, flavor, name='vm'):
    return objects.Instance(ctxt, project_id='p1', user_id='u1',
                            display_name=name, flavor=flavor,
                            image_ref='img', vm_state='building',
                            task_state='scheduling', metadata={'k': 'v'})


def _spec(flavor):
    return objects.RequestSpec(
        project_id='p1', user_id='u1', num_instances=3, flavor=flavor,
        image=objects.ImageMeta.from_image({'id': uuidutils.generate_uuid(),
                                            'name': 'img',
                                            'properties': {}}),
        scheduler_hints={'same_host': ['x']})


def test_single_reads_bring_every_extra_spec_and_property(ctxt):
    # One statement joins the flavor's extra specs (the image's
    # properties): each of several rows must land in the one object.
    specs = {'hw:cpu_policy': 'dedicated', 'hw:numa_nodes': '2',
             'trait:CUSTOM_GOLD': 'required'}
    _flavor(ctxt, extra_specs=specs)
    assert objects.Flavor.get_by_flavor_id(ctxt, '1').extra_specs == specs
    properties = {'hw_architecture': 'x86_64', 'img_hv_type': 'kvm',
                  'hw_vm_mode': 'hvm'}
    image = image_api.create(ctxt, 'cirros', properties=properties)
    assert image_api.get(ctxt, image['id'])['properties'] == properties


def test_image_read_gives_what_the_list_gives_to_whoever_may_see_it(ctxt):
    # The read is one Core statement per kind of caller: every field as
    # the list's ORM rows give it; a private image is not found by
    # another project or a caller without one.
    image_api.create(ctxt, 'pub', properties={'a': '1', 'b': '2'},
                     min_disk=1, min_ram=64, size=5)
    image_api.create(ctxt, 'priv', visibility='private', owner='p1')
    owner = nl_context.RequestContext(user_id='u1', project_id='p1')
    other = nl_context.RequestContext(user_id='u2', project_id='p2')
    nobody = nl_context.RequestContext(user_id='u3', project_id=None)
    listed = {image['name']: image for image in image_api.get_all(ctxt)}
    for image in listed.values():
        assert image_api.get(ctxt, image['id']) == image
        assert image_api.get(owner, image['id']) == image
    public = listed['pub']
    assert public['properties'] == {'a': '1', 'b': '2'}
    assert listed['priv']['properties'] == {}
    for caller in (other, nobody):
        assert image_api.get(caller, public['id']) == public
        with pytest.raises(exception.ImageNotFound):
            image_api.get(caller, listed['priv']['id'])
    with pytest.raises(exception.ImageNotFound):
        image_api.get(ctxt, 'no-such-image')


def test_flavor_round_trip_and_duplicates(ctxt):
    _flavor(ctxt, extra_specs={'hw:cpu_policy': 'dedicated'})
    loaded = objects.Flavor.get_by_flavor_id(ctxt, '1')
    assert loaded.extra_specs == {'hw:cpu_policy': 'dedicated'}
    with pytest.raises(exception.FlavorExists):
        _flavor(ctxt, flavorid='2')  # same name
    loaded.destroy()
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_flavor_id(ctxt, '1')


def test_flavor_reads_by_each_key_give_what_was_created(ctxt):
    # The reads are one Core statement: every field as the list's ORM
    # rows give it, no extra spec read as an empty one.
    _flavor(ctxt, extra_specs={'a': '1', 'b': '2'}, description='d',
            is_public=False, swap=2)
    _flavor(ctxt, flavorid='2', name='m1.bare')
    listed = objects.FlavorList.get_all(ctxt)
    assert len(listed) == 2

    def primitive(flavor):
        return {name: getattr(flavor, name) for name in flavor.fields
                if flavor.obj_attr_is_set(name)}
    for flavor in listed:
        for loaded in (objects.Flavor.get_by_flavor_id(ctxt, flavor.flavorid),
                       objects.Flavor.get_by_id(ctxt, flavor.id),
                       objects.Flavor.get_by_name(ctxt, flavor.name)):
            assert primitive(loaded) == primitive(flavor)
            assert loaded.obj_what_changed() == set()
            assert loaded._context is ctxt
    assert objects.Flavor.get_by_name(ctxt, 'm1.bare').extra_specs == {}
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_id(ctxt, 1000)
    with pytest.raises(exception.FlavorNotFound):
        objects.Flavor.get_by_name(ctxt, 'nope')


def test_flavor_list_paginates_with_marker(ctxt):
    for i in range(5):
        _flavor(ctxt, flavorid=str(i), name='f%d' % i)
    page = objects.FlavorList.get_all(ctxt, limit=2)
    assert [f.flavorid for f in page] == ['0', '1']
    page = objects.FlavorList.get_all(ctxt, limit=2, marker='1')
    assert [f.flavorid for f in page] == ['2', '3']


def test_provision_writes_instances_and_specs_together(ctxt):
    flavor = _flavor(ctxt)
    instances = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'web'), _spec(flavor), 1, 3)
    assert [i.display_name for i in instances] == ['web-1', 'web-2',
                                                   'web-3']
    for index, instance in enumerate(instances):
        loaded = objects.Instance.get_by_uuid(ctxt, instance.uuid)
        assert loaded.launch_index == index
        assert loaded.flavor.flavorid == '1'
        assert loaded.memory_mb == 512
        assert loaded.metadata == {'k': 'v'}
        spec = objects.RequestSpec.get_by_instance_uuid(ctxt, instance.uuid)
        assert spec.num_instances == 1
        assert spec.scheduler_hints == {'same_host': ['x']}


def test_a_requested_hostname_is_kept(ctxt):
    # API 2.90: the user's hostname, not one made from the name.
    flavor = _flavor(ctxt)
    template = _template(ctxt, flavor, 'Web Server')
    template.hostname = 'db-1.example.com'
    [instance] = provision.provision_instances(ctxt, template,
                                               _spec(flavor), 1, 1)
    loaded = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    assert loaded.hostname == 'db-1.example.com'
    [derived] = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'Web Server'), _spec(flavor), 1, 1)
    assert derived.hostname == 'web-server'


def test_user_data_round_trips(ctxt):
    # API 2.3 / 2.57: the user data reaches the rows the provisioning's
    # one INSERT writes (every instance of the request), whole at its
    # largest, and a rebuild's save replaces or removes it.
    flavor = _flavor(ctxt)
    big = 'QUJD' * (65532 // 4)
    template = _template(ctxt, flavor)
    template.user_data = big
    made = provision.provision_instances(ctxt, template, _spec(flavor),
                                         2, 2)
    for instance in made:
        assert instance.user_data == big
        assert objects.Instance.get_by_uuid(
            ctxt, instance.uuid).user_data == big
    listed = objects.InstanceList.get_by_filters(ctxt, {})
    assert {i.user_data for i in listed} == {big}
    instance = made[0]
    instance.user_data = 'aGVsbG8='
    instance.save()
    assert objects.Instance.get_by_uuid(
        ctxt, instance.uuid).user_data == 'aGVsbG8='
    instance.user_data = None
    instance.save()
    assert objects.Instance.get_by_uuid(ctxt, instance.uuid).user_data is None
    [none] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    assert objects.Instance.get_by_uuid(ctxt, none.uuid).user_data is None


def test_shown_fields_of_many_specs(ctxt, monkeypatch):
    # The API's server views read the zone and hints of whole lists in
    # batches, without building RequestSpec objects.
    monkeypatch.setattr(request_spec, '_READ_BATCH', 2)
    flavor = _flavor(ctxt)
    spec = _spec(flavor)
    spec.availability_zone = 'az1'
    made = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'web'), spec, 3, 3)
    uuids = [i.uuid for i in made]
    missing = uuidutils.generate_uuid()
    shown = objects.RequestSpec.get_shown_fields(ctxt, uuids + [missing])
    assert set(shown) == set(uuids)
    for uuid in uuids:
        assert shown[uuid] == {'availability_zone': 'az1',
                               'scheduler_hints': {'same_host': ['x']}}
    assert objects.RequestSpec.get_shown_fields(ctxt, []) == {}


def test_provisioned_instances_are_what_a_single_create_gives(ctxt):
    # Provisioning writes the instances with one Core INSERT: each object
    # must come out as Instance.create (the ORM's flush) leaves one, and
    # its actions and request specs must be written with it.
    flavor = _flavor(ctxt)
    single = _template(ctxt, flavor, 'web')
    single.uuid = uuidutils.generate_uuid()
    single.create()
    made = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'web'), _spec(flavor), 2, 2)
    assert len({i.id for i in made} | {single.id}) == 3

    def value(instance, name):
        found = getattr(instance, name)
        return (found.obj_to_primitive()
                if hasattr(found, 'obj_to_primitive') else found)
    different = {'id', 'uuid', 'display_name', 'hostname', 'launch_index',
                 'created_at'}
    for instance in made:
        assert instance.obj_what_changed() == set()
        assert instance.created_at is not None
        for name in set(instance.fields) - different:
            assert (instance.obj_attr_is_set(name)
                    == single.obj_attr_is_set(name)), name
            if instance.obj_attr_is_set(name):
                assert value(instance, name) == value(single, name), name
        stored = objects.Instance.get_by_uuid(ctxt, instance.uuid)
        for name in set(instance.fields) - {'created_at', 'fault'}:
            if stored.obj_attr_is_set(name):
                assert value(instance, name) == value(stored, name), name
        [action] = objects.InstanceActionList.get_by_instance_uuid(
            ctxt, instance.uuid)
        assert (action.action, action.request_id) == ('create',
                                                    ctxt.request_id)
        spec = objects.RequestSpec.get_by_instance_uuid(ctxt, instance.uuid)
        assert (spec.instance_uuid, spec.num_instances) == (instance.uuid,
                                                            1)


def test_provision_failure_leaves_nothing(ctxt, monkeypatch):
    flavor = _flavor(ctxt)
    calls = []

    def failing_create(session, specs):
        calls.append([spec.instance_uuid for spec in specs])
        original(session, specs)
        raise exception.NovaLiteException('disk full')

    original = objects.RequestSpec.create_all_in_session
    monkeypatch.setattr(objects.RequestSpec, 'create_all_in_session',
                        failing_create)
    with pytest.raises(exception.NovaLiteException):
        provision.provision_instances(ctxt, _template(ctxt, flavor),
                                      _spec(flavor), 1, 3)
    assert len(calls) == 1 and len(calls[0]) == 3
    assert len(objects.InstanceList.get_by_filters(ctxt, {})) == 0


def test_conditional_save_detects_races(ctxt):
    flavor = _flavor(ctxt)
    [instance] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    instance.task_state = 'spawning'
    instance.save(expected_task_state='scheduling')
    other = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    other.task_state = 'deleting'
    other.save(expected_task_state=['spawning'])
    instance.vm_state = 'active'
    instance.task_state = None
    with pytest.raises(exception.UnexpectedTaskStateError):
        instance.save(expected_task_state='spawning')
    assert objects.Instance.get_by_uuid(ctxt, instance.uuid).vm_state == \
        fields.VMState.BUILDING


def test_save_leaves_the_object_equal_to_its_row(ctxt):
    flavor = _flavor(ctxt)
    [instance] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    instance.vm_state = 'active'
    instance.task_state = None
    instance.metadata = {'role': 'db'}
    instance.save(expected_task_state='scheduling')
    assert instance.obj_what_changed() == set()
    stored = objects.Instance.get_by_uuid(ctxt, instance.uuid)
    for name in ('vm_state', 'task_state', 'metadata', 'updated_at',
                 'display_name', 'vcpus'):
        assert getattr(instance, name) == getattr(stored, name), name
    assert stored.updated_at is not None


def test_destroy_soft_deletes_and_releases_allocations(ctxt):
    flavor = _flavor(ctxt)
    [instance] = provision.provision_instances(
        ctxt, _template(ctxt, flavor), _spec(flavor), 1, 1)
    rp = uuidutils.generate_uuid()
    providers.ensure_provider(ctxt, rp, 'node')
    providers.set_inventories(ctxt, rp, {'VCPU': {
        'total': 4, 'reserved': 0, 'min_unit': 1, 'max_unit': 4,
        'step_size': 1, 'allocation_ratio': 1.0}})
    allocations.claim(ctxt, instance.uuid, 'p1', 'u1', {rp: {'VCPU': 1}})
    objects.Tag(ctxt, resource_id=instance.uuid, tag='web').create()
    assert instance.destroy() == [rp]
    assert allocations.get_for_consumer(ctxt, instance.uuid) == {}
    assert objects.TagList.get_names_by_resource_ids(
        ctxt, [instance.uuid]) == {instance.uuid: []}
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(ctxt, instance.uuid)
    deleted = objects.Instance.get_by_uuid(
        ctxt.elevated(read_deleted='yes'), instance.uuid)
    assert deleted.deleted and deleted.vm_state == 'deleted'


def test_instance_list_filters_and_faults(ctxt):
    flavor = _flavor(ctxt)
    instances = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'db'), _spec(flavor), 2, 2)
    fault = objects.InstanceFault.from_exception(
        ctxt, instances[0].uuid, exception.NoValidHost(reason='none fit'))
    fault.create()
    found = objects.InstanceList.get_by_filters(
        ctxt, {'project_id': 'p1', 'name': 'db-1'}, expected_attrs=['fault'])
    assert [i.uuid for i in found] == [instances[0].uuid]
    assert 'none fit' in found[0].fault.message
    assert objects.InstanceList.get_by_filters(
        ctxt, {'project_id': 'other'}).objects == []


def test_instance_list_change_window_and_locked(ctxt):
    """2.66's changes-since/changes-before (the last change, or the
    creation if none), 2.73's locked filter and sort key, on each
    backend."""
    flavor = _flavor(ctxt)
    first, second = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'win'), _spec(flavor), 2, 2)
    created = objects.Instance.get_by_uuid(ctxt, first.uuid).created_at
    second.locked = True
    second.save()
    changed = objects.Instance.get_by_uuid(ctxt, second.uuid).updated_at

    def uuids(**filters):
        return sorted(i.uuid for i in objects.InstanceList.get_by_filters(
            ctxt, dict(filters, project_id='p1')))
    both = sorted([first.uuid, second.uuid])
    second_ = datetime.timedelta(seconds=1)
    assert uuids(**{'changes-since': created}) == both
    assert second.uuid in uuids(**{'changes-since': changed})
    assert uuids(**{'changes-since': changed + second_}) == []
    assert uuids(**{'changes-before': changed}) == both
    assert uuids(**{'changes-before': created - second_}) == []
    assert uuids(**{'changes-since': created,
                    'changes-before': changed}) == both
    assert uuids(locked=True) == [second.uuid]
    assert uuids(locked=False) == [first.uuid]
    ordered = objects.InstanceList.get_by_filters(
        ctxt, {'project_id': 'p1'}, sort_key='locked', sort_dir='desc')
    assert [i.uuid for i in ordered][0] == second.uuid


def test_instance_list_equality_filters(ctxt):
    """The server list's 2.83 filters match a column's value exactly."""
    flavor = _flavor(ctxt)
    first, second = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'eq'), _spec(flavor), 2, 2)
    first.availability_zone, first.key_name = 'az1', 'key'
    first.power_state = 1
    first.launched_at = datetime.datetime(2026, 1, 2, 3, 4, 5)
    first.save()
    # As stored (MySQL keeps whole seconds), naive UTC as the API sends.
    stored_created_at = objects.Instance.get_by_uuid(
        ctxt, first.uuid).created_at.replace(tzinfo=None)
    for filters in ({'availability_zone': 'az1'}, {'key_name': 'key'},
                    {'power_state': 1},
                    {'launched_at': datetime.datetime(2026, 1, 2, 3, 4, 5)}):
        found = objects.InstanceList.get_by_filters(
            ctxt, dict(filters, project_id='p1'))
        assert [i.uuid for i in found] == [first.uuid], filters
    # Both may have been created in the same (MySQL: whole) second.
    assert first.uuid in [i.uuid for i in objects.InstanceList.get_by_filters(
        ctxt, {'created_at': stored_created_at})]
    assert objects.InstanceList.get_by_filters(
        ctxt, {'availability_zone': 'az'}).objects == []


def test_extra_spec_writes(ctxt):
    _flavor(ctxt, extra_specs={'a': '1'})
    flavor_obj.update_extra_specs(ctxt, '1', {'a': '2', 'b': '3'})
    assert objects.Flavor.get_by_flavor_id(ctxt, '1').extra_specs == {
        'a': '2', 'b': '3'}
    flavor_obj.delete_extra_spec(ctxt, '1', 'a')
    assert objects.Flavor.get_by_flavor_id(ctxt, '1').extra_specs == {
        'b': '3'}
    with pytest.raises(exception.FlavorExtraSpecsNotFound):
        flavor_obj.delete_extra_spec(ctxt, '1', 'a')
    with pytest.raises(exception.FlavorNotFound):
        flavor_obj.update_extra_specs(ctxt, 'nope', {'a': '1'})


def test_flavor_description_writes(ctxt):
    _flavor(ctxt)
    flavor_obj.update_description(ctxt, '1', 'x' * 65535)
    assert objects.Flavor.get_by_flavor_id(ctxt, '1').description == \
        'x' * 65535
    flavor_obj.update_description(ctxt, '1', None)
    assert objects.Flavor.get_by_flavor_id(ctxt, '1').description is None
    with pytest.raises(exception.FlavorNotFound):
        flavor_obj.update_description(ctxt, 'nope', 'd')


def test_flavor_access_and_private_flavor_lists(ctxt):
    _flavor(ctxt, '1', 'public')
    _flavor(ctxt, '2', 'private', is_public=False)
    _flavor(ctxt, '3', 'secret', is_public=False)
    flavor_obj.add_access(ctxt, '2', 'p1')
    flavor_obj.add_access(ctxt, '2', 'p2')
    assert flavor_obj.get_access_projects(ctxt, '2') == ['p1', 'p2']
    with pytest.raises(exception.FlavorAccessExists):
        flavor_obj.add_access(ctxt, '2', 'p1')
    with pytest.raises(exception.FlavorAccessOfPublicFlavor):
        flavor_obj.add_access(ctxt, '1', 'p1')

    def listed(project):
        return [f.flavorid for f in objects.FlavorList.get_all(
            ctxt, {'is_public': True, 'project_id': project})]
    assert listed('p1') == ['1', '2']
    assert listed('p3') == ['1']
    flavor_obj.remove_access(ctxt, '2', 'p1')
    assert listed('p1') == ['1']
    with pytest.raises(exception.FlavorAccessNotFound):
        flavor_obj.remove_access(ctxt, '2', 'p1')
    # Deleting the flavor takes its access rows along.
    objects.Flavor.get_by_flavor_id(ctxt, '2').destroy()
    assert listed('p2') == ['1']


def test_instances_active_in_a_window(ctxt):
    t0 = datetime.datetime(2024, 3, 1)
    hours = datetime.timedelta(hours=1)
    flavor = _flavor(ctxt)
    made = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'u'), _spec(flavor), 5, 5)
    times = [(t0 - 5 * hours, None), (t0 + 2 * hours, t0 + 3 * hours),
             (t0 - 9 * hours, t0 - 8 * hours), (t0 + 30 * hours, None),
             (None, None)]
    for instance, (launched, terminated) in zip(made, times, strict=True):
        instance.launched_at, instance.terminated_at = launched, terminated
        instance.save()
    made[1].destroy()
    found = instance_usage.get_active_by_window(ctxt, t0, t0 + 24 * hours)
    # Deleted ones count; ended before, launched after or never: not.
    assert [i.uuid for i in found] == [made[0].uuid, made[1].uuid]
    assert instance_usage.get_active_by_window(
        ctxt, t0, t0 + 24 * hours, project_id='other') == []
    # The widest period the API parses works on every backend.
    everything = instance_usage.get_active_by_window(
        ctxt, datetime.datetime(1, 1, 1),
        datetime.datetime(9999, 12, 31, 23, 59, 59))
    assert len(everything) == 4


def test_instances_active_in_a_window_page(ctxt):
    t0 = datetime.datetime(2024, 3, 1)
    hours = datetime.timedelta(hours=1)
    flavor = _flavor(ctxt)
    made = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'u'), _spec(flavor), 4, 4)
    # Two launched at the same time: the id breaks the tie.
    for instance, launched in zip(made, (3, 1, 1, None), strict=True):
        instance.launched_at = launched and t0 + launched * hours
        instance.save()
    window = (t0, t0 + 24 * hours)
    first = instance_usage.get_active_by_window(ctxt, *window, limit=2)
    rest = instance_usage.get_active_by_window(
        ctxt, *window, limit=2, marker=first[-1].uuid)
    assert [i.uuid for i in first + rest] == [
        made[1].uuid, made[2].uuid, made[0].uuid]
    # Unknown, never launched, or of another project: 400's marker.
    for marker, project in (('nope', None), (made[3].uuid, None),
                            (made[0].uuid, 'other')):
        with pytest.raises(exception.MarkerNotFound):
            instance_usage.get_active_by_window(
                ctxt, *window, project_id=project, marker=marker)


def test_another_projects_marker_is_an_unknown_marker(ctxt):
    # Listing with another project's server as the marker used to page
    # past it, which told the caller that the server exists.
    flavor = _flavor(ctxt)
    theirs = provision.provision_instances(
        ctxt, _template(ctxt, flavor, 'theirs'), _spec(flavor), 1, 1)[0]
    with pytest.raises(exception.MarkerNotFound):
        objects.InstanceList.get_by_filters(
            ctxt, {'project_id': 'other'}, marker=theirs.uuid)
    # Its own project (and an unfiltered, all-projects list) still page.
    for filters in ({'project_id': 'p1'}, {}):
        assert objects.InstanceList.get_by_filters(
            ctxt, filters, marker=theirs.uuid).objects == []


def test_service_heartbeat_keeps_admin_changes(ctxt):
    service = objects.Service(ctxt, host='h1', binary='nova-lite-compute',
                              topic='compute')
    service.create()
    with pytest.raises(exception.ServiceExists):
        objects.Service(ctxt, host='h1', binary='nova-lite-compute').create()
    admin_copy = objects.Service.get_by_id(ctxt, service.id)
    admin_copy.disabled = True
    admin_copy.save()
    service.heartbeat()
    assert service.disabled is True
    assert service.report_count == 1
    assert service.is_up
    assert objects.Service.get_minimum_version(
        ctxt, 'nova-lite-compute') == objects.service.SERVICE_VERSION


def test_compute_nodes_used_now_are_placement_s(ctxt):
    """The API's read: each node's used figures are its provider's
    reserved plus allocated amounts; a node without a provider keeps
    the figures its compute reported."""
    def node(name, uuid):
        record = objects.ComputeNode(
            ctxt, uuid=uuid, host='h1', hypervisor_hostname=name, vcpus=8,
            memory_mb=4096, local_gb=100, vcpus_used=7, memory_mb_used=7,
            local_gb_used=7, hypervisor_type='fake', hypervisor_version=1,
            cpu_info='{}')
        record.create()
    placed, alone = uuidutils.generate_uuid(), uuidutils.generate_uuid()
    node('n1', placed)
    node('n2', alone)
    providers.ensure_provider(ctxt, placed, 'n1')
    inventory = {'total': 4096, 'reserved': 512, 'min_unit': 1,
                 'max_unit': 4096, 'step_size': 1, 'allocation_ratio': 1.0}
    providers.set_inventories(ctxt, placed, {
        'MEMORY_MB': inventory, 'VCPU': dict(inventory, reserved=0),
        'DISK_GB': dict(inventory, reserved=0)})
    for consumer, ram in ((uuidutils.generate_uuid(), 1024),
                          (uuidutils.generate_uuid(), 256)):
        allocations.claim(ctxt, consumer, 'p1', 'u1',
                          {placed: {'MEMORY_MB': ram, 'VCPU': 1}})
    used = {n.hypervisor_hostname: (n.vcpus_used, n.memory_mb_used,
                                    n.local_gb_used)
            for n in objects.ComputeNodeList.get_all_used_now(ctxt, 'h1')}
    assert used == {'n1': (2, 512 + 1024 + 256, 0), 'n2': (7, 7, 7)}
    assert [n.hypervisor_hostname for n in
            objects.ComputeNodeList.get_all_used_now(ctxt, 'h2')] == []
