"""nova-lite-manage image create --id."""

import sys

import pytest

from nova_lite.cmd import manage
from nova_lite.conf import CONF
from nova_lite import exception

IMAGE_ID = '6f1c7b0e-2b7e-4c55-9d0e-5a4f3c2b1a00'


@pytest.fixture
def run(monkeypatch, capsys):
    """run(argv...) -> (exit code, stdout, stderr) of nova-lite-manage,
    with the registry's create recorded in ``run.created``."""
    monkeypatch.setattr(manage.db_api, 'configure', lambda conf: None)
    created = []

    def create(context, name, image_id=None, **kwargs):
        if image_id in {c['image_id'] for c in created}:
            raise exception.ImageExists(image_id=image_id)
        created.append(dict(kwargs, name=name, image_id=image_id))
        return {'id': image_id or 'generated'}
    monkeypatch.setattr(manage.image_api, 'create', create)

    def run(*argv):
        monkeypatch.setattr(sys, 'argv', ['nova-lite-manage', *argv])
        CONF.reset()
        try:
            code = manage.main()
        finally:
            CONF.reset()
            CONF.unregister_opt(manage.cfg.SubCommandOpt('category'))
        out = capsys.readouterr()
        return code, out.out, out.err
    run.created = created
    return run


def test_create_under_a_given_id(run):
    code, out, _err = run('image', 'create', 'cirros', '--id', IMAGE_ID,
                          '--disk-format', 'qcow2')
    assert (code, out) == (0, IMAGE_ID + '\n')
    [call] = run.created
    assert (call['image_id'], call['name'], call['disk_format']) == (
        IMAGE_ID, 'cirros', 'qcow2')


def test_id_is_normalised(run):
    code, out, _err = run('image', 'create', 'x', '--id',
                          IMAGE_ID.upper().replace('-', ''))
    assert (code, out) == (0, IMAGE_ID + '\n')


def test_without_id_the_registry_picks_one(run):
    assert run('image', 'create', 'x')[:2] == (0, 'generated\n')
    assert run.created[0]['image_id'] is None


def test_a_taken_id_is_a_clear_error(run):
    assert run('image', 'create', 'a', '--id', IMAGE_ID)[0] == 0
    code, out, err = run('image', 'create', 'b', '--id', IMAGE_ID)
    assert (code, out) == (1, '')
    assert err == 'Error: Image %s already exists.\n' % IMAGE_ID
    assert len(run.created) == 1


@pytest.mark.parametrize('bad', ['cirros', '1234', IMAGE_ID + '0', ''])
def test_an_id_that_is_not_a_uuid(run, bad):
    code, out, err = run('image', 'create', 'a', '--id', bad)
    assert (code, out) == (1, '')
    assert '--id takes a UUID' in err and repr(bad) in err
    assert run.created == []
