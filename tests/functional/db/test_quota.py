"""The quota engine on every backend: exact usage, whoever races.

Servers are provisioned through the conductor's task (reserve, records,
commit) and destroyed through ``Instance.destroy``; usage is checked
against the audit (recorded against counted).
"""

import concurrent.futures
import datetime
import threading

from oslo_utils import timeutils
from oslo_utils import uuidutils
import pytest
import sqlalchemy as sa

from nova_lite.conductor.tasks import provision
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite import exception
from nova_lite import objects
from nova_lite.quota import limits
from nova_lite.quota import reservations
from nova_lite.quota import usages

PER_VM = {'instances': 1, 'cores': 1, 'ram': 512}


class Clock:
    """timeutils.utcnow under the test's control."""

    def __init__(self):
        self.now = datetime.datetime(2026, 1, 1, 12, 0, 0)

    def __call__(self, with_timezone=False):
        return self.now

    def advance(self, **delta):
        self.now += datetime.timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(timeutils, 'utcnow', clock)
    return clock


@pytest.fixture
def ctxt(database):
    return nl_context.get_admin_context()


def _flavor(ctxt, flavorid='1', vcpus=1, memory_mb=512, **extra):
    flavor = objects.Flavor(ctxt, flavorid=flavorid, name='f' + flavorid,
                            memory_mb=memory_mb, vcpus=vcpus, root_gb=1,
                            **extra)
    flavor.create()
    return flavor


def _boot(ctxt, flavor, min_count=1, max_count=1, project='p1',
          user='u1', metadata=None):
    template = objects.Instance(
        ctxt, project_id=project, user_id=user, display_name='vm',
        flavor=flavor, image_ref='img', vm_state='building',
        task_state='scheduling', metadata=metadata or {})
    spec = objects.RequestSpec(
        project_id=project, user_id=user, num_instances=max_count,
        flavor=flavor,
        image=objects.ImageMeta.from_image({
            'id': uuidutils.generate_uuid(), 'name': 'img',
            'properties': {}}))
    return provision.provision_instances(ctxt, template, spec, min_count,
                                         max_count)


def _recorded(ctxt, project='p1', user=usages.PROJECT):
    """{resource: (in_use, reserved)} as recorded."""
    @db_api.reader
    def read(context):
        return {row.resource: (row.in_use, row.reserved)
                for row in context.session.scalars(
                    sa.select(usages.Usage).filter_by(project_id=project,
                                                      user_id=user))}
    return read(ctxt)


def _no_drift(ctxt, project='p1'):
    audit = usages.audit_project(ctxt, project)
    assert [a for a in audit if a.drift] == []
    return {(a.user_id, a.resource): a.counted_in_use for a in audit}


def test_boot_shrinks_to_fit_and_delete_releases_once(ctxt):
    limits.set_limits(ctxt, {'instances': 5}, project_id='p1')
    flavor = _flavor(ctxt, extra_specs={'hw_video:ram_max_mb': '64'})
    assert len(_boot(ctxt, flavor, 1, 3)) == 3
    shrunk = _boot(ctxt, flavor, 1, 4)
    assert len(shrunk) == 2
    assert _recorded(ctxt) == {'instances': (5, 0), 'cores': (5, 0),
                               'ram': (5 * 576, 0)}
    shrunk[0].destroy()
    stale = objects.Instance.get_by_uuid(ctxt, shrunk[1].uuid)
    shrunk[1].destroy()
    with pytest.raises(exception.InstanceNotFound):
        # A second destroy (a retried delete) finds nothing to release.
        stale.destroy()
    assert _recorded(ctxt)['instances'] == (3, 0)
    assert _recorded(ctxt)['ram'] == (3 * 576, 0)
    assert _no_drift(ctxt)[('u1', 'ram')] == 3 * 576


def test_failed_build_releases_its_quota_once(ctxt):
    """A server whose build failed for good (ERROR) gives its quota back at
    once; deleting it later releases nothing more, and the recount agrees
    (it does not count released servers)."""
    limits.set_limits(ctxt, {'instances': 2}, project_id='p1')
    flavor = _flavor(ctxt)
    failed, running = _boot(ctxt, flavor, 2, 2)
    failed.vm_state = 'error'
    failed.task_state = None
    failed.save()
    assert failed.release_quota() is True
    assert failed.release_quota() is False
    assert _recorded(ctxt)['instances'] == (1, 0)
    assert _no_drift(ctxt)[('u1', 'instances')] == 1
    # The released place can be taken again, while the ERROR server stays.
    assert len(_boot(ctxt, flavor)) == 1
    failed.destroy()
    running.destroy()
    assert _recorded(ctxt)['instances'] == (1, 0)
    _no_drift(ctxt)


def test_over_quota_names_each_resource_and_creates_nothing(ctxt):
    limits.set_limits(ctxt, {'instances': 3, 'cores': 4}, project_id='p1')
    big = _flavor(ctxt, vcpus=2)
    _boot(ctxt, big)
    with pytest.raises(exception.OverQuota) as caught:
        _boot(ctxt, big, 2, 2)
    error = caught.value
    assert error.code == 403
    assert error.kwargs['overs'] == 'cores'
    assert error.kwargs['requested'] == {'cores': 4}
    assert error.kwargs['used'] == {'cores': 2}
    assert error.kwargs['limits'] == {'cores': 4}
    assert 'Requested 4, but already used 2 of 4 cores' in str(error)
    assert len(objects.InstanceList.get_by_filters(ctxt, {})) == 1
    assert _recorded(ctxt)['cores'] == (2, 0)


def test_user_quota_binds_before_the_project(ctxt):
    limits.set_limits(ctxt, {'instances': 2}, project_id='p1', user_id='u2')
    flavor = _flavor(ctxt)
    assert len(_boot(ctxt, flavor, 1, 5, user='u2')) == 2
    with pytest.raises(exception.OverQuota) as caught:
        _boot(ctxt, flavor, user='u2')
    assert '(user quota)' in str(caught.value)
    assert len(_boot(ctxt, flavor, 1, 3, user='u1')) == 3


def test_limits_come_from_every_layer_in_order(ctxt, conf):
    conf.config(group='quota', cores=30, ram=8192)
    limits.set_limits(ctxt, {'instances': 15, 'cores': 25},
                      quota_class='default')
    limits.set_limits(ctxt, {'ram': 4096}, quota_class='gold')
    limits.set_limits(ctxt, {'instances': 12}, project_id='p1')
    limits.set_limits(ctxt, {'instances': 5}, project_id='p1',
                      user_id='u1')
    project, user = limits.get_limits(ctxt, 'p1', 'u1', 'gold')
    assert (project['instances'], project['cores'], project['ram']) == (
        12, 25, 4096)
    assert (user['instances'], user['cores'], user['ram']) == (5, 25, 4096)
    project, user = limits.get_limits(ctxt, 'p2', 'u1')
    assert (project['instances'], project['cores'], project['ram']) == (
        15, 25, 8192)
    assert user == project


def test_defaults_and_class_limits_fall_back_in_order(ctxt, conf):
    conf.config(group='quota', cores=30, ram=8192)
    limits.set_limits(ctxt, {'cores': 25}, quota_class='default')
    limits.set_limits(ctxt, {'ram': 4096}, quota_class='gold')
    defaults = limits.get_defaults(ctxt)
    assert (defaults['cores'], defaults['ram']) == (25, 8192)
    gold = limits.get_class_limits(ctxt, 'gold')
    assert (gold['cores'], gold['ram']) == (25, 4096)
    assert limits.get_class_limits(ctxt, 'default') == defaults


def test_commit_and_rollback_apply_once_by_uuid(ctxt):
    first = reservations.reserve(ctxt, 'p1', 'u1', PER_VM, 2, 2)
    assert _recorded(ctxt)['instances'] == (0, 2)
    assert reservations.commit(ctxt, first.uuid) is True
    assert reservations.commit(ctxt, first.uuid) is False
    assert reservations.rollback(ctxt, first.uuid) is False
    assert _recorded(ctxt)['instances'] == (2, 0)
    second = reservations.reserve(ctxt, 'p1', 'u1', PER_VM)
    assert reservations.rollback(ctxt, second.uuid) is True
    assert reservations.commit(ctxt, second.uuid) is False
    assert _recorded(ctxt, user='u1')['instances'] == (2, 0)


def test_expiry_rolls_back_and_a_late_commit_creates_nothing(ctxt, conf,
                                                              clock):
    conf.config(group='quota', reservation_expire=30)
    flavor = _flavor(ctxt)
    held = provision.reserve_quota(ctxt, _template(flavor), 1, 1)
    clock.advance(seconds=29)
    assert reservations.expire_reservations(ctxt) == 0
    clock.advance(seconds=2)
    assert reservations.expire_reservations(ctxt) == 1
    assert _recorded(ctxt)['instances'] == (0, 0)
    with pytest.raises(exception.ReservationExpired):
        provision._create_records(ctxt, _template(flavor), _spec(flavor),
                                  held)
    assert len(objects.InstanceList.get_by_filters(ctxt, {})) == 0
    _no_drift(ctxt)


def test_an_uncommitted_reservation_goes_after_the_commit_timeout(ctxt,
                                                                  conf):
    """Regression: a conductor killed between reserve and commit held the
    project's quota until reservation_expire (a day by default). Nothing
    commits a reservation that old, so it is rolled back after
    reservation_commit_timeout, while reservation_expire stays a day."""
    conf.config(group='quota', reservation_commit_timeout=45)
    assert conf.conf.quota.reservation_expire == 86400
    flavor = _flavor(ctxt)
    provision.reserve_quota(ctxt, _template(flavor), 1, 1)
    reserved_by = usages.utcnow()
    later = reserved_by + datetime.timedelta(seconds=40)
    assert reservations.expire_reservations(ctxt, now=later) == 0
    assert _recorded(ctxt)['instances'] == (0, 1)
    later = reserved_by + datetime.timedelta(seconds=50)
    assert reservations.expire_reservations(ctxt, now=later) == 1
    assert _recorded(ctxt)['instances'] == (0, 0)
    _no_drift(ctxt)


def test_a_reservation_on_known_rows_expires_too(ctxt, conf):
    """Regression: on PostgreSQL and MariaDB a reservation whose usage
    rows exist and are fresh is written with one statement (the usage
    UPDATE and the INSERT joined), which left created_at empty: one
    abandoned there (its conductor killed, or its records and its
    rollback both failed in a database blip) never went after
    reservation_commit_timeout, only after reservation_expire."""
    conf.config(group='quota', reservation_commit_timeout=45)
    flavor = _flavor(ctxt)
    # The first reservation creates and counts the usage rows; the
    # second finds them fresh and takes the one-statement way.
    first = provision.reserve_quota(ctxt, _template(flavor), 1, 1)
    reservations.rollback(ctxt, first.uuid)
    provision.reserve_quota(ctxt, _template(flavor), 1, 1)
    reserved_by = usages.utcnow()

    @db_api.reader
    def created(context):
        return context.session.scalars(
            sa.select(reservations.models.Reservation.created_at)).all()
    stamps = created(ctxt)
    assert stamps and None not in stamps
    later = reserved_by + datetime.timedelta(seconds=50)
    assert reservations.expire_reservations(ctxt, now=later) == 1
    assert _recorded(ctxt)['instances'] == (0, 0)
    _no_drift(ctxt)


def _template(flavor):
    return objects.Instance(
        nl_context.get_admin_context(), project_id='p1', user_id='u1',
        display_name='vm', flavor=flavor, image_ref='img',
        vm_state='building', task_state='scheduling', metadata={})


def _spec(flavor):
    return objects.RequestSpec(
        project_id='p1', user_id='u1', num_instances=1, flavor=flavor,
        image=objects.ImageMeta.from_image({
            'id': uuidutils.generate_uuid(), 'name': 'img',
            'properties': {}}))


def _corrupt(ctxt, resource, in_use, user=usages.PROJECT):
    @db_api.writer
    def write(context):
        context.session.execute(
            sa.update(usages.Usage).where(
                usages.Usage.project_id == 'p1',
                usages.Usage.user_id == user,
                usages.Usage.resource == resource).values(in_use=in_use))
    write(ctxt)


def test_drift_is_reported_recounted_and_never_refuses(ctxt):
    limits.set_limits(ctxt, {'instances': 3}, project_id='p1')
    flavor = _flavor(ctxt)
    _boot(ctxt, flavor)
    # The record claims the project is full; it has one server.
    _corrupt(ctxt, 'instances', 3)
    drifted = [a for a in usages.audit_project(ctxt, 'p1') if a.drift]
    assert [(a.user_id, a.recorded_in_use, a.counted_in_use)
            for a in drifted] == [('', 3, 1)]
    # Before refusing, the reservation recounts: two more fit.
    assert len(_boot(ctxt, flavor, 1, 5)) == 2
    _no_drift(ctxt)
    _corrupt(ctxt, 'cores', 7, user='u1')
    assert usages.refresh_project(ctxt, 'p1')[('u1', 'cores')] == 3
    _no_drift(ctxt)


def test_until_refresh_and_max_age_recount(ctxt, conf, clock):
    flavor = _flavor(ctxt)
    _boot(ctxt, flavor)
    conf.config(group='quota', until_refresh=2)
    usages.refresh_project(ctxt, 'p1')
    _corrupt(ctxt, 'instances', 5)
    _boot(ctxt, flavor)  # until_refresh 2 -> 1: no recount
    assert _recorded(ctxt)['instances'] == (6, 0)
    _boot(ctxt, flavor)  # 1 -> 0: recounted, then reserved
    assert _recorded(ctxt)['instances'] == (3, 0)
    conf.config(group='quota', until_refresh=0, max_age=2 * 86400)
    usages.refresh_project(ctxt, 'p1')
    _corrupt(ctxt, 'instances', 9)
    clock.advance(days=1, seconds=86399)
    _boot(ctxt, flavor)  # a second short of two days: no recount
    assert _recorded(ctxt)['instances'] == (10, 0)
    clock.advance(seconds=1)
    _boot(ctxt, flavor)  # two days old: recounted (days count)
    assert _recorded(ctxt)['instances'] == (5, 0)


def test_metadata_items_is_an_absolute_limit(ctxt):
    limits.set_limits(ctxt, {'metadata_items': 2}, project_id='p1')
    flavor = _flavor(ctxt)
    _boot(ctxt, flavor, metadata={'a': '1', 'b': '2'})
    with pytest.raises(exception.MetadataLimitExceeded):
        _boot(ctxt, flavor, metadata={'a': '1', 'b': '2', 'c': '3'})
    assert _recorded(ctxt)['instances'] == (1, 0)


def test_limits_refuse_below_usage_unless_forced(ctxt):
    flavor = _flavor(ctxt)
    _boot(ctxt, flavor, 1, 3)
    with pytest.raises(exception.QuotaLimitBelowUsage):
        limits.set_limits(ctxt, {'instances': 2}, project_id='p1')
    limits.set_limits(ctxt, {'instances': 2}, project_id='p1', force=True)
    with pytest.raises(exception.QuotaLimitAboveProject):
        limits.set_limits(ctxt, {'instances': 5}, project_id='p1',
                          user_id='u1')
    limits.set_limits(ctxt, {'cores': 40}, quota_class='default')
    project, user = limits.get_limits(ctxt, 'p1', 'u1')
    assert (project['instances'], project['cores']) == (2, 40)
    limits.delete_limits(ctxt, 'p1')
    assert limits.get_limits(ctxt, 'p1')[0]['instances'] == 10


def test_concurrent_reservations_never_overshoot(database, ctxt):
    """40 threads race for a quota of 10 instances: exactly 10 commit,
    the rest are refused, and the records match the count."""
    if database.backend == 'sqlite':
        pytest.skip('SQLite serialises writers; the race needs a server')
    limits.set_limits(ctxt, {'instances': 10}, project_id='p1')
    flavor = _flavor(ctxt)
    start = threading.Barrier(20)

    def attempt(index):
        if index < 20:
            start.wait()
        try:
            _boot(nl_context.get_admin_context(), flavor,
                  user='u%d' % (index % 4))
            return True
        except exception.OverQuota:
            return False

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        results = list(pool.map(attempt, range(40)))
    assert sum(results) == 10
    assert _recorded(ctxt)['instances'] == (10, 0)
    assert sum(n for (user, r), n in _no_drift(ctxt).items()
               if r == 'instances' and user) == 10


def test_server_groups_are_counted_from_their_table(ctxt):
    """The server_groups sync counts the groups of each user (the table
    comes with migration 0003)."""
    from nova_lite.db import models

    @db_api.writer
    def add_groups(context):
        for index, user in enumerate(['u1', 'u1', 'u2']):
            context.session.add(models.InstanceGroup(
                uuid=uuidutils.generate_uuid(), name='g%d' % index,
                project_id='p1', user_id=user, policy='affinity'))
    add_groups(ctxt)
    counted = usages.refresh_project(ctxt, 'p1', ['server_groups'])
    assert counted == {('', 'server_groups'): 3,
                       ('u1', 'server_groups'): 2,
                       ('u2', 'server_groups'): 1}
    limits.set_limits(ctxt, {'server_groups': 3}, project_id='p1')
    with pytest.raises(exception.OverQuota):
        reservations.reserve(ctxt, 'p1', 'u3', {'server_groups': 1})



def _group(ctxt, name, user='u1'):
    group = objects.InstanceGroup(ctxt, name=name, project_id='p1',
                                  user_id=user, policy='anti-affinity')
    group.create()
    return group


def test_server_group_creation_and_deletion_use_the_quota(ctxt):
    limits.set_limits(ctxt, {'server_groups': 2}, project_id='p1')
    first = _group(ctxt, 'g1')
    _group(ctxt, 'g2')
    with pytest.raises(exception.OverQuota) as caught:
        _group(ctxt, 'g3')
    assert 'server_groups' in str(caught.value)
    assert [g.name for g in objects.InstanceGroupList.get_all(ctxt)] == [
        'g1', 'g2']
    assert _recorded(ctxt)['server_groups'] == (2, 0)
    first.destroy()
    assert _recorded(ctxt)['server_groups'] == (1, 0)
    _group(ctxt, 'g3')
    _no_drift(ctxt)


def test_server_group_members_quota_refuses_the_whole_boot(ctxt):
    limits.set_limits(ctxt, {'server_group_members': 3}, project_id='p1')
    group = _group(ctxt, 'g1')
    flavor = _flavor(ctxt)

    def boot_into_group(count):
        template = objects.Instance(
            ctxt, project_id='p1', user_id='u1', display_name='vm',
            flavor=flavor, image_ref='img', vm_state='building',
            task_state='scheduling', metadata={})
        spec = objects.RequestSpec(
            project_id='p1', user_id='u1', num_instances=count,
            flavor=flavor, instance_group=group,
            image=objects.ImageMeta.from_image({
                'id': uuidutils.generate_uuid(), 'name': 'img',
                'properties': {}}))
        return provision.provision_instances(ctxt, template, spec, count,
                                             count)

    assert len(boot_into_group(2)) == 2
    with pytest.raises(exception.OverQuota) as caught:
        boot_into_group(2)
    assert 'server_group_members' in str(caught.value)
    # Nothing of the refused boot remains, and its reservation is gone.
    assert len(objects.InstanceList.get_by_filters(ctxt, {})) == 2
    assert _recorded(ctxt)['instances'] == (2, 0)
    assert len(objects.InstanceGroup.get_by_uuid(ctxt, group.uuid).members) \
        == 2
    assert len(boot_into_group(1)) == 1
