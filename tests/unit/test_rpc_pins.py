"""[upgrade_levels]: versions, release names and auto, and what they cap."""

from unittest import mock

from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fields as ovo_fields
import pytest

from nova_lite import exception
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.objects import service as service_obj
from nova_lite import releases
from nova_lite import rpc
from nova_lite import rpc_pins
from nova_lite import rpc_stats

ACORN = releases.get('acorn')


def test_unset_means_no_cap(conf):
    assert rpc_pins.Pin('compute').resolve() == (None, None)


def test_release_name_gives_its_rpc_version_and_objects(conf):
    conf.config(compute='acorn', group='upgrade_levels')
    assert rpc_pins.Pin('compute').resolve() == ('1.0', ACORN['objects'])


def test_version_gives_the_objects_of_the_oldest_release_speaking_it(conf):
    """Every release since acorn speaks compute 1.0, so a compute pinned
    to 1.0 may be acorn: it gets acorn's objects. Scheduler 1.1 is only
    spoken from bramble on."""
    conf.config(compute='1.0', group='upgrade_levels')
    assert rpc_pins.Pin('compute').resolve() == ('1.0', ACORN['objects'])
    conf.config(compute='0.9', group='upgrade_levels')
    assert rpc_pins.Pin('compute').resolve() == ('0.9', ACORN['objects'])
    conf.config(scheduler='1.1', group='upgrade_levels')
    assert rpc_pins.Pin('scheduler').resolve() == (
        '1.1', releases.get('bramble')['objects'])
    conf.config(scheduler='1.4', group='upgrade_levels')
    assert rpc_pins.Pin('scheduler').resolve() == ('1.4', None)


def test_bad_value_is_a_clear_error(conf):
    conf.config(compute='banana', group='upgrade_levels')
    with pytest.raises(exception.ConfigInvalid) as err:
        rpc_pins.Pin('compute').resolve()
    assert 'compute = banana' in err.value.format_message()
    assert 'acorn' in err.value.format_message()


def _history(monkeypatch, current, history):
    monkeypatch.setattr(service_obj, 'SERVICE_VERSION', current)
    monkeypatch.setattr(service_obj, 'SERVICE_VERSION_HISTORY', history)


def test_auto_follows_the_oldest_service_without_sighup(conf, monkeypatch):
    conf.config(compute='auto', group='upgrade_levels')
    conf.config(report_interval=30)
    _history(monkeypatch, 2, (
        {'compute_rpc': '1.0', 'conductor_rpc': '1.0',
         'scheduler_rpc': '1.0'},
        {'compute_rpc': '1.0', 'conductor_rpc': '1.0',
         'scheduler_rpc': '1.0'},
        {'compute_rpc': '1.1', 'conductor_rpc': '1.1',
         'scheduler_rpc': '1.0'}))
    minimum = mock.Mock(return_value=1)
    monkeypatch.setattr(objects.Service, 'get_minimum_version', minimum)
    clock = mock.Mock(return_value=1000.0)
    monkeypatch.setattr(rpc_pins.time, 'monotonic', clock)
    pin = rpc_pins.Pin('compute')
    assert pin.resolve() == ('1.0', ACORN['objects'])
    minimum.return_value = 2           # the last old compute is upgraded
    assert pin.resolve()[0] == '1.0'   # cached within report_interval
    clock.return_value = 1031.0
    assert pin.resolve() == (None, None)
    assert minimum.call_args[0][1] == 'nova-lite-compute'


def test_auto_with_no_service_running_sends_the_newest(conf, monkeypatch):
    conf.config(conductor='auto', group='upgrade_levels')
    monkeypatch.setattr(objects.Service, 'get_minimum_version',
                        mock.Mock(return_value=0))
    assert rpc_pins.Pin('conductor').resolve() == (None, None)


def test_auto_fails_closed_and_asks_again(conf, monkeypatch):
    """Regression: an unreadable minimum version made ``auto`` send the
    newest version (which an old service refuses) and cached that for
    report_interval. It must send at the oldest supported release, and
    read again on the very next message."""
    conf.config(scheduler='auto', group='upgrade_levels')
    conf.config(report_interval=30)
    oldest = releases.oldest_supported()
    minimum = mock.Mock(side_effect=exception.NovaLiteException('db down'))
    monkeypatch.setattr(objects.Service, 'get_minimum_version', minimum)
    monkeypatch.setattr(rpc_pins.time, 'monotonic',
                        mock.Mock(return_value=1000.0))
    pin = rpc_pins.Pin('scheduler')
    assert pin.resolve() == (oldest['rpc']['scheduler'], oldest['objects'])
    assert pin.resolve()[0] == oldest['rpc']['scheduler']
    assert minimum.call_count == 2     # not cached: asked again at once
    minimum.side_effect = None
    minimum.return_value = service_obj.SERVICE_VERSION
    assert pin.resolve() == (None, None)   # readable again: newest


def test_auto_fails_closed_after_a_good_answer_too(conf, monkeypatch):
    """A failure after a good answer does not keep that answer either:
    it may be the newest, and the service that now runs may be older."""
    conf.config(compute='auto', group='upgrade_levels')
    conf.config(report_interval=30)
    minimum = mock.Mock(return_value=service_obj.SERVICE_VERSION)
    monkeypatch.setattr(objects.Service, 'get_minimum_version', minimum)
    clock = mock.Mock(return_value=1000.0)
    monkeypatch.setattr(rpc_pins.time, 'monotonic', clock)
    pin = rpc_pins.Pin('compute')
    assert pin.resolve() == (None, None)
    clock.return_value = 1031.0
    minimum.side_effect = exception.NovaLiteException('conductor gone')
    oldest = releases.oldest_supported()
    assert pin.resolve() == (oldest['rpc']['compute'], oldest['objects'])


class _Registry(ovo_base.VersionedObjectRegistry):
    pass


def test_pinned_serializer_backports_objects(monkeypatch):
    """An object newer than the pinned release leaves at the old version,
    and the backport is counted."""

    @base.NovaLiteObjectRegistry.register_if(False)
    class Gadget(base.NovaLiteObject):
        # Version 1.0: Initial version
        # Version 1.1: Added colour
        VERSION = '1.1'
        fields = {'size': ovo_fields.IntegerField(),
                  'colour': ovo_fields.StringField()}

        def obj_make_compatible(self, primitive, target_version):
            super().obj_make_compatible(primitive, target_version)
            if target_version == '1.0':
                primitive.pop('colour', None)

    serializer = rpc.PinnedObjectSerializer(lambda: {'Gadget': '1.0'})
    before = rpc_stats.stats().get('backported', {}).get('Gadget@1.0', 0)
    primitive = serializer.serialize_entity(None, Gadget(size=3,
                                                         colour='red'))
    assert primitive['nova_lite_object.version'] == '1.0'
    assert primitive['nova_lite_object.data'] == {'size': 3}
    assert rpc_stats.stats()['backported']['Gadget@1.0'] == before + 1
    unpinned = rpc.PinnedObjectSerializer(lambda: None).serialize_entity(
        None, Gadget(size=3, colour='red'))
    assert unpinned['nova_lite_object.version'] == '1.1'


def test_auto_lookup_through_the_pinned_service_does_not_deadlock(
        conf, monkeypatch):
    """A compute learns the conductors' minimum version by asking a
    conductor, through the very client the pin caps: the lookup's own
    message must not wait for the lookup."""
    import threading
    conf.config(conductor='auto', group='upgrade_levels')
    pin = rpc_pins.Pin('conductor')
    seen = []

    def ask_conductor(context, binary):
        seen.append(pin.resolve())      # what the lookup's message uses
        return 1

    monkeypatch.setattr(objects.Service, 'get_minimum_version',
                        ask_conductor)
    result = []
    worker = threading.Thread(target=lambda: result.append(pin.resolve()))
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), 'deadlocked'
    assert seen == [(None, None)]
    assert result == [('1.0', ACORN['objects'])]
