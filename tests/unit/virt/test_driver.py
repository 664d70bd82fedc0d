"""The driver contract's base class and the driver loader."""

import pytest

from nova_lite import exception
from nova_lite.virt import driver
from nova_lite.virt import fake


def test_default_driver_is_the_fake_one():
    assert type(driver.load_compute_driver()) is fake.FakeDriver


@pytest.mark.parametrize('name,cls', [
    ('fake.FakeDriver', fake.FakeDriver),
    ('fake.SpawnFailsFakeDriver', fake.SpawnFailsFakeDriver),
    ('nova_lite.virt.fake.FirstNodeUnreachableFakeDriver',
     fake.FirstNodeUnreachableFakeDriver),
])
def test_short_and_full_class_paths(conf, name, cls):
    conf.config(compute_driver=name)
    assert type(driver.load_compute_driver()) is cls


def test_explicit_name_wins_over_option(conf):
    conf.config(compute_driver='fake.SpawnFailsFakeDriver')
    assert type(driver.load_compute_driver('fake.FakeDriver')) is \
        fake.FakeDriver


@pytest.mark.parametrize('name', ['libvirt.LibvirtDriver', 'fake.Nope',
                                  'FakeDriver'])
def test_unloadable_driver_is_a_config_error(name):
    with pytest.raises(exception.ConfigInvalid,
                       match=r"compute_driver '%s' cannot be loaded" % name):
        driver.load_compute_driver(name)


def test_class_that_is_not_a_driver(conf):
    with pytest.raises(exception.ConfigInvalid,
                       match='is not a ComputeDriver'):
        driver.load_compute_driver('fake.FakeNode')


def test_base_class_methods_are_abstract():
    base = driver.ComputeDriver()
    calls = [
        lambda: base.init_host('h'), base.get_available_nodes,
        lambda: base.get_node_uuid('n'),
        lambda: base.get_available_resource('n'),
        lambda: base.get_traits('n'),
        lambda: base.spawn(None, None, None, 'n'),
        lambda: base.destroy(None, None), lambda: base.get_info(None),
        base.list_instance_uuids,
    ]
    for call in calls:
        with pytest.raises(NotImplementedError):
            call()
    assert base.cleanup_host('h') is None
