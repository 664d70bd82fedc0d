"""A started service freezes its start-up heap and collects its youngest
generation less often ([DEFAULT] gc_young_threshold)."""

import gc
from unittest import mock

from nova_lite.conf import CONF
from nova_lite import service


def test_the_start_up_heap_is_frozen_and_the_threshold_set():
    CONF.set_override('gc_young_threshold', 12345)
    gc.unfreeze()
    service.settle_heap()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold()[0] == 12345


def test_zero_keeps_pythons_threshold():
    CONF.set_override('gc_young_threshold', 0)
    before = gc.get_threshold()
    service.settle_heap()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() > 0


def test_a_service_settles_once_it_has_started():
    calls = []
    wrapped = mock.Mock()
    wrapped.start.side_effect = lambda: calls.append('started')
    with mock.patch.object(service, 'settle_heap',
                           side_effect=lambda: calls.append('settled')):
        service._Notifying(wrapped, None).start()
    assert calls == ['started', 'settled']
