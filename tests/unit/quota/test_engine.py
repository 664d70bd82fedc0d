"""The quota decisions, with plain usage records and a clock in hand."""

import datetime
import types

import pytest

from nova_lite import exception
from nova_lite.quota import engine

NOW = datetime.datetime(2026, 3, 1, 12, 0, 0)


def usage(in_use=0, reserved=0, until_refresh=None, refreshed_at=NOW):
    return types.SimpleNamespace(in_use=in_use, reserved=reserved,
                                 until_refresh=until_refresh,
                                 refreshed_at=refreshed_at)


def check(resource, limit, used, level='project'):
    return engine.Check(resource, level, limit, used)


# -- refresh ------------------------------------------------------------

def test_fresh_known_usage_needs_no_refresh():
    assert not engine.refresh_due(usage(3), NOW, max_age=0)


def test_unknown_usage_is_always_recounted():
    assert engine.refresh_due(usage(-1), NOW, max_age=0)


def test_until_refresh_counts_down_reservations():
    record = usage(until_refresh=2)
    engine.tick(record)
    assert record.until_refresh == 1
    assert not engine.refresh_due(record, NOW, 0)
    engine.tick(record)
    assert engine.refresh_due(record, NOW, 0)


def test_until_refresh_off_never_ticks():
    record = usage(until_refresh=None)
    engine.tick(record)
    assert record.until_refresh is None
    assert not engine.refresh_due(record, NOW, 0)


@pytest.mark.parametrize('age, due', [
    (datetime.timedelta(seconds=59), False),
    (datetime.timedelta(seconds=60), True),
    (datetime.timedelta(seconds=59, microseconds=999999), False),
])
def test_max_age_in_whole_seconds(age, due):
    assert engine.refresh_due(usage(refreshed_at=NOW - age), NOW,
                              max_age=60) is due


def test_max_age_counts_whole_days():
    """A day and ten seconds is older than 60 seconds. Nova's
    timedelta.seconds saw 10 and kept the stale record."""
    age = datetime.timedelta(days=1, seconds=10)
    assert age.seconds == 10
    assert engine.age_seconds(NOW - age, NOW) == 86410
    assert engine.refresh_due(usage(refreshed_at=NOW - age), NOW,
                              max_age=60)


def test_max_age_recounts_a_record_never_counted():
    assert engine.refresh_due(usage(refreshed_at=None), NOW, max_age=60)
    assert not engine.refresh_due(usage(refreshed_at=None), NOW, max_age=0)


# -- how many fit -------------------------------------------------------

PER_VM = {'instances': 1, 'cores': 2, 'ram': 1024}


def test_everything_fits_below_the_limits():
    checks = [check('instances', 10, 0), check('cores', 20, 0),
              check('ram', 51200, 0)]
    assert engine.how_many_fit(PER_VM, 1, 5, checks) == 5


def test_shrinks_max_count_to_the_tightest_limit():
    checks = [check('instances', 10, 2), check('cores', 20, 13),
              check('ram', 51200, 0)]
    # cores: 7 left, 2 each -> 3 servers.
    assert engine.how_many_fit(PER_VM, 1, 5, checks) == 3


def test_never_below_min_count():
    checks = [check('instances', 10, 8)]
    assert engine.how_many_fit(PER_VM, 2, 5, checks) == 2
    with pytest.raises(exception.OverQuota):
        engine.how_many_fit(PER_VM, 3, 5, checks)


def test_unlimited_never_binds():
    checks = [check('instances', -1, 10 ** 6), check('cores', -1, 0),
              check('ram', 4096, 1024)]
    assert engine.how_many_fit(PER_VM, 1, 9, checks) == 3


def test_zero_amounts_do_not_count():
    checks = [check('cores', 0, 0), check('instances', 10, 0)]
    assert engine.how_many_fit({'instances': 1, 'cores': 0}, 1, 4,
                               checks) == 4


def test_over_quota_names_each_resource_with_numbers():
    checks = [check('instances', 10, 10), check('cores', 20, 19),
              check('ram', 51200, 0)]
    with pytest.raises(exception.OverQuota) as caught:
        engine.how_many_fit(PER_VM, 1, 4, checks)
    error = caught.value
    assert error.code == 403
    assert error.kwargs['overs'] == 'cores, instances'
    assert error.kwargs['requested'] == {'cores': 2, 'instances': 1}
    assert error.kwargs['used'] == {'cores': 19, 'instances': 10}
    assert error.kwargs['limits'] == {'cores': 20, 'instances': 10}
    assert error.format_message() == (
        'Quota exceeded for cores, instances: Requested 2, but already '
        'used 19 of 20 cores; Requested 1, but already used 10 of 10 '
        'instances.')


def test_over_quota_reports_the_tighter_level():
    checks = [check('instances', 10, 4),
              check('instances', 5, 4, level='user')]
    with pytest.raises(exception.OverQuota) as caught:
        engine.how_many_fit({'instances': 1}, 2, 2, checks)
    assert caught.value.kwargs['limits'] == {'instances': 5}
    assert '(user quota)' in caught.value.format_message()


def test_over_quota_when_already_over_a_lowered_limit():
    checks = [check('instances', 2, 5)]
    with pytest.raises(exception.OverQuota) as caught:
        engine.how_many_fit({'instances': 1}, 1, 1, checks)
    assert 'already used 5 of 2 instances' in str(caught.value)


# -- releases and limit changes -----------------------------------------

def test_release_subtracts():
    assert engine.released(5, 2) == 3
    assert engine.released(2, 2) == 0


def test_release_below_zero_makes_usage_unknown():
    """An "under": the record had drifted. Unknown is recounted at the
    next reservation rather than clamped to a wrong 0."""
    assert engine.released(1, 2) == -1
    assert engine.released(-1, 2) == -1


@pytest.mark.parametrize('limit, minimum, maximum, error', [
    (5, 3, -1, None),
    (-1, 3, -1, None),
    (3, 3, 10, None),
    (2, 3, -1, exception.QuotaLimitBelowUsage),
    (11, 0, 10, exception.QuotaLimitAboveProject),
    (-1, 0, 10, exception.QuotaLimitAboveProject),
])
def test_new_limits_respect_usage_and_the_project(limit, minimum, maximum,
                                                 error):
    if error is None:
        engine.check_new_limit('instances', limit, minimum, maximum)
    else:
        with pytest.raises(error):
            engine.check_new_limit('instances', limit, minimum, maximum)
