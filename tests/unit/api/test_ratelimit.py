"""The leaky bucket (seed 001) with a controllable clock, and the 429."""

import pytest
import webob

from nova_lite.api.middleware import ratelimit
from nova_lite import exception
from tests.unit.api import conftest


class Clock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def _limits(text):
    return ratelimit.Limiter.parse_limits(text)


class TestParseLimits:
    def test_grammar(self):
        limits = _limits('(post, *, .*, 10, minute);'
                         ' (GET, */servers, ^/servers, 3, Second)')
        assert [(lm.verb, lm.uri, lm.regex, lm.value, lm.unit)
                for lm in limits] == [
            ('POST', '*', '.*', 10, 60),
            ('GET', '*/servers', '^/servers', 3, 1)]
        assert limits[0].request_value == 6.0
        assert limits[0].error_message == (
            'Only 10 POST request(s) can be made to * every minute.')

    def test_empty_string_means_no_limits(self):
        assert _limits('   ') == []

    @pytest.mark.parametrize('text, message', [
        ('POST, *, .*, 10, MINUTE', 'surrounded by parentheses'),
        ('(POST, *, .*, 10)', 'must contain the following arguments'),
        ('(POST, *, .*, 10, FORTNIGHT)', 'Invalid units'),
        ('(POST, *, .*, 0, MINUTE)', 'must be > 0'),
        ('(POST, *, .*, ten, MINUTE)', 'invalid literal'),
        ('(POST, *, [, 1, MINUTE)', 'Invalid regex'),
    ])
    def test_errors(self, text, message):
        with pytest.raises(ValueError, match=message):
            _limits(text)


class TestLeakyBucket:
    def test_delays_when_full_and_leaks_over_time(self):
        clock = Clock()
        limiter = ratelimit.Limiter(_limits('(POST, *, .*, 3, MINUTE)'),
                                    clock=clock)
        for _ in range(3):
            assert limiter.check_for_delay('POST', '/servers', 'u1') == (
                None, None)
        delay, error = limiter.check_for_delay('POST', '/servers', 'u1')
        # Each request is 20 s of water in a 60 s bucket.
        assert delay == pytest.approx(20.0)
        assert 'Only 3 POST' in error
        clock.now += 20
        assert limiter.check_for_delay('POST', '/servers', 'u1')[0] is None
        clock.now += 5
        assert limiter.check_for_delay('POST', '/servers',
                                       'u1')[0] == pytest.approx(15.0)

    def test_remaining_counts_down(self):
        clock = Clock()
        limiter = ratelimit.Limiter(_limits('(POST, *, .*, 4, MINUTE)'),
                                    clock=clock)
        limiter.check_for_delay('POST', '/x', 'u1')
        limiter.check_for_delay('POST', '/x', 'u1')
        [shown] = limiter.get_limits('u1')
        assert shown['remaining'] == 2
        assert shown['unit'] == 'MINUTE'
        assert shown['resetTime'] == 1000

    def test_levels_are_per_user(self):
        limiter = ratelimit.Limiter(_limits('(POST, *, .*, 1, MINUTE)'),
                                    clock=Clock())
        assert limiter.check_for_delay('POST', '/x', 'u1')[0] is None
        assert limiter.check_for_delay('POST', '/x', 'u1')[0] is not None
        assert limiter.check_for_delay('POST', '/x', 'u2')[0] is None

    def test_verb_and_regex_must_match(self):
        limiter = ratelimit.Limiter(
            _limits('(POST, */servers, ^/servers, 1, HOUR)'), clock=Clock())
        for _ in range(3):
            assert limiter.check_for_delay('GET', '/servers', 'u')[0] is None
            assert limiter.check_for_delay('POST', '/flavors',
                                           'u')[0] is None
        assert limiter.check_for_delay('POST', '/servers', 'u')[0] is None
        assert limiter.check_for_delay('POST', '/servers',
                                       'u')[0] == pytest.approx(3600)

    def test_smallest_delay_is_reported(self):
        limiter = ratelimit.Limiter(
            _limits('(POST, *, .*, 1, MINUTE);(POST, *, .*, 1, SECOND)'),
            clock=Clock())
        limiter.check_for_delay('POST', '/x', 'u')
        delay, error = limiter.check_for_delay('POST', '/x', 'u')
        assert delay == pytest.approx(1.0)
        assert 'every second' in error

    def test_per_user_override(self):
        limiter = ratelimit.Limiter(
            _limits('(POST, *, .*, 1, MINUTE)'), clock=Clock(),
            **{'limits.vip': '(POST, *, .*, 3, MINUTE)'})
        for _ in range(3):
            assert limiter.check_for_delay('POST', '/x', 'vip')[0] is None
        assert limiter.check_for_delay('POST', '/x', 'vip')[0] is not None


class TestLimiterFromConf:
    def test_reads_options(self, conf):
        conf.config(group='api', rate_limits='(GET, *, .*, 1, DAY)',
                    user_rate_limits=['boss=(GET, *, .*, 2, DAY)'])
        limiter = ratelimit.limiter_from_conf(clock=Clock())
        assert limiter.check_for_delay('GET', '/', 'a')[0] is None
        assert limiter.check_for_delay('GET', '/', 'a')[0] is not None
        assert limiter.check_for_delay('GET', '/', 'boss')[0] is None
        assert limiter.check_for_delay('GET', '/', 'boss')[0] is None
        assert limiter.check_for_delay('GET', '/', 'boss')[0] is not None

    @pytest.mark.parametrize('option, value, needle', [
        ('rate_limits', '(GET, *, .*, 1, WEEK)', '[api] rate_limits'),
        ('user_rate_limits', ['nobody'], 'USER=LIMITS'),
        ('user_rate_limits', ['u=(GET, *)'], '[api] user_rate_limits'),
    ])
    def test_bad_options_fail_clearly(self, conf, option, value, needle):
        conf.config(group='api', **{option: value})
        with pytest.raises(exception.ConfigInvalid) as info:
            ratelimit.limiter_from_conf()
        assert needle in str(info.value)


def _ok_app(environ, start_response):
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'ok']


class TestMiddleware:
    def _app(self, limits, clock, context):
        limiter = ratelimit.Limiter(_limits(limits), clock=clock)
        app = ratelimit.RateLimitingMiddleware(_ok_app, limiter=limiter)
        return conftest.WithContext(app, context), limiter

    def test_429_with_retry_after(self):
        clock = Clock()
        app, _ = self._app('(POST, */servers, ^/servers, 2, MINUTE)', clock,
                           conftest.make_context())
        for _ in range(2):
            assert conftest.call(app, 'POST', '/servers').status_int == 200
        clock.now += 0.5
        resp = conftest.call(app, 'POST', '/servers')
        assert resp.status_int == 429
        # 30 s of water per request, 0.5 s leaked: 29.5 s -> "30".
        assert resp.headers['Retry-After'] == '30'
        fault = resp.json['overLimit']
        assert fault['code'] == 429
        assert fault['retryAfter'] == '30'
        assert fault['message'] == 'This request was rate-limited.'

    def test_project_prefix_is_not_part_of_the_url(self):
        app, _ = self._app('(POST, */servers, ^/servers, 1, MINUTE)',
                           Clock(), conftest.make_context())
        assert conftest.call(app, 'POST', '/proj1/servers').status_int == 200
        assert conftest.call(app, 'POST', '/servers').status_int == 429

    def test_query_string_is_matched(self):
        app, _ = self._app('(GET, *changes-since*, .*changes-since.*, 1, '
                           'MINUTE)', Clock(), conftest.make_context())
        assert conftest.call(app, 'GET', '/servers').status_int == 200
        assert conftest.call(app, 'GET', '/servers').status_int == 200
        path = '/servers?changes-since=2024-01-01'
        assert conftest.call(app, 'GET', path).status_int == 200
        assert conftest.call(app, 'GET', path).status_int == 429

    def test_limits_left_in_environ(self):
        seen = {}

        def app(environ, start_response):
            seen.update(environ)
            return _ok_app(environ, start_response)
        limiter = ratelimit.Limiter(_limits('(GET, *, .*, 5, MINUTE)'),
                                    clock=Clock())
        wrapped = conftest.WithContext(
            ratelimit.RateLimitingMiddleware(app, limiter=limiter),
            conftest.make_context())
        webob.Request.blank('/x').get_response(wrapped)
        assert seen['nova_lite.limits'][0]['remaining'] == 4


def test_paste_section_limits_override_the_options(conf):
    conf.config(group='api', rate_limits='(GET, *, .*, 100, MINUTE)')
    middleware = ratelimit.RateLimitingMiddleware.factory(
        {}, limits='(GET, *, .*, 1, MINUTE)',
        **{'limits.vip': '(GET, *, .*, 2, MINUTE)'})(_ok_app)
    app = conftest.WithContext(middleware, conftest.make_context())
    assert conftest.call(app, 'GET', '/x').status_int == 200
    assert conftest.call(app, 'GET', '/x').status_int == 429
    vip = conftest.WithContext(middleware, conftest.make_context('vip'))
    assert conftest.call(vip, 'GET', '/x').status_int == 200
    assert conftest.call(vip, 'GET', '/x').status_int == 200
    assert conftest.call(vip, 'GET', '/x').status_int == 429


def test_bad_paste_section_limits():
    with pytest.raises(exception.ConfigInvalid, match='filter:ratelimit'):
        ratelimit.RateLimitingMiddleware(_ok_app, limits='(GET)')
