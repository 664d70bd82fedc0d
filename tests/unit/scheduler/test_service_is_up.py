"""Service.is_up as the scheduler's ComputeFilter reads it (Nova's DB
service group driver): the last heartbeat is ``last_seen_up``, else
``created_at``; ``updated_at`` is no heartbeat."""

import datetime

from oslo_utils import timeutils

from nova_lite import objects


def _service(**values):
    values.setdefault('forced_down', False)
    values.setdefault('last_seen_up', None)
    return objects.Service(host='h', binary='nova-lite-compute', **values)


def _ago(seconds):
    return (timeutils.utcnow().replace(tzinfo=None)
            - datetime.timedelta(seconds=seconds))


def test_recent_heartbeat_is_up():
    assert _service(last_seen_up=_ago(5), created_at=_ago(3600)).is_up


def test_old_heartbeat_is_down_even_if_recently_updated():
    # Issue 11, case 7: an operator's recent write (updated_at) does not
    # bring a silent service back up.
    assert not _service(last_seen_up=_ago(3600), created_at=_ago(7200),
                        updated_at=_ago(1)).is_up


def test_never_reported_counts_from_creation_not_update():
    assert _service(created_at=_ago(5), updated_at=None).is_up
    assert not _service(created_at=_ago(3600), updated_at=_ago(1)).is_up


def test_forced_down_is_down():
    assert not _service(last_seen_up=_ago(1), created_at=_ago(1),
                        forced_down=True).is_up
