"""The image registry's logic, without a database."""

import types

import pytest
import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite.db import models
from nova_lite.image import registry as image_api

CTXT = nl_context.RequestContext(user_id='u', project_id='proj1',
                                 roles=['member'], overwrite=False)


@pytest.fixture
def created(monkeypatch):
    calls = []

    def fake_create(context, values, properties):
        calls.append((values, properties))
        return dict(values, properties=properties)
    monkeypatch.setattr(image_api, '_create_in_db', fake_create)
    return calls


def test_create_defaults(created):
    image = image_api.create(CTXT, 'cirros', properties={'hw_numa_nodes': 2})
    [(values, properties)] = created
    assert values['owner'] == 'proj1'
    assert values['status'] == 'active'
    assert (values['disk_format'], values['container_format']) == (
        'raw', 'bare')
    assert len(values['id']) == 36
    assert properties == {'hw_numa_nodes': '2'}
    assert image['visibility'] == 'public'


def test_create_keeps_given_id_and_owner(created):
    image_api.create(CTXT, 'x', image_id='abc', owner='other',
                     min_ram='64')
    values = created[0][0]
    assert (values['id'], values['owner'], values['min_ram']) == (
        'abc', 'other', 64)


@pytest.mark.parametrize('kwargs, needle', [
    (dict(disk_format='floppy'), 'disk_format'),
    (dict(container_format='box'), 'container_format'),
    (dict(visibility='secret'), 'visibility'),
    (dict(min_disk=-1), 'min_disk'),
    (dict(size='big'), 'size'),
])
def test_create_validation(created, kwargs, needle):
    with pytest.raises(exception.InvalidInput) as info:
        image_api.create(CTXT, 'x', **kwargs)
    assert needle in str(info.value)
    assert created == []


def test_create_needs_a_name(created):
    with pytest.raises(exception.InvalidInput):
        image_api.create(CTXT, '  ')


def test_manage_choices_are_exposed():
    assert 'qcow2' in image_api.DISK_FORMATS
    assert 'bare' in image_api.CONTAINER_FORMATS


def test_to_dict():
    row = types.SimpleNamespace(
        id='i1', name='n', status='active', disk_format='raw',
        container_format='bare', size=5, min_disk=1, min_ram=2,
        owner='p', visibility='private', created_at=None, updated_at=None,
        properties=[types.SimpleNamespace(name='os_type', value='linux')])
    image = image_api._to_dict(row)
    assert image['properties'] == {'os_type': 'linux'}
    assert set(image) == {'id', 'name', 'status', 'disk_format',
                          'container_format', 'size', 'min_disk',
                          'min_ram', 'owner', 'visibility', 'properties',
                          'created_at', 'updated_at'}


def _where(context):
    query = image_api._visible(sa.select(models.Image), context)
    return str(query.compile(compile_kwargs={'literal_binds': True}))


def test_users_see_public_and_their_own():
    sql = _where(CTXT)
    assert "images.owner = 'proj1'" in sql
    assert "'public'" in sql


def test_admins_see_everything():
    admin = nl_context.get_admin_context()
    assert 'WHERE' not in _where(admin)


def test_filters_sql():
    query = image_api._apply_filters(sa.select(models.Image), {
        'name': 'cirros', 'min_ram': 64, 'status': None})
    sql = str(query.compile(compile_kwargs={'literal_binds': True}))
    assert "images.name = 'cirros'" in sql
    assert 'images.min_ram >= 64' in sql
    assert 'status' not in sql.split('WHERE')[1]


def test_property_filters_need_every_property():
    """What a backup rotation lists: images with all these properties."""
    query = image_api._apply_filters(sa.select(models.Image), {
        'properties': {'image_type': 'backup', 'backup_type': 'daily'}})
    sql = str(query.compile(compile_kwargs={'literal_binds': True}))
    where = sql.split('WHERE', 1)[1]
    assert where.count('EXISTS') == 2
    assert "image_properties.name = 'image_type'" in where
    assert "image_properties.value = 'backup'" in where
    assert "image_properties.value = 'daily'" in where
