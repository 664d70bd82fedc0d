"""GET /healthcheck says whether the database and the bus answer."""

from unittest import mock

import oslo_messaging as messaging
import webob

from nova_lite.api import healthcheck
from nova_lite import exception


def _get(app, method='GET'):
    return webob.Request.blank('/healthcheck', method=method).get_response(
        app)


def test_healthy_is_200_with_each_check():
    app = healthcheck.HealthCheck(checks=(('database', lambda: None),
                                          ('bus', lambda: None)))
    resp = _get(app)
    assert resp.status_int == 200
    assert resp.json == {'status': 'ok',
                         'checks': {'database': 'ok', 'bus': 'ok'}}


def test_a_failing_check_is_503_naming_it_but_no_details():
    def bus():
        raise messaging.MessagingTimeout('no reply from rabbit.internal')
    app = healthcheck.HealthCheck(checks=(('database', lambda: None),
                                          ('bus', bus)))
    resp = _get(app)
    assert resp.status_int == 503
    assert resp.headers['Retry-After'] == str(exception.RETRY_AFTER)
    assert resp.json['checks'] == {'database': 'ok',
                                   'bus': 'failed: MessagingTimeout'}
    assert 'rabbit.internal' not in resp.text


def test_answers_are_kept_for_a_second():
    check = mock.Mock()
    clock = mock.Mock(return_value=100.0)
    app = healthcheck.HealthCheck(checks=(('database', check),),
                                  clock=clock)
    _get(app)
    _get(app)
    assert check.call_count == 1
    clock.return_value = 101.5
    _get(app)
    assert check.call_count == 2


def test_only_get():
    app = healthcheck.HealthCheck(checks=())
    assert _get(app, 'POST').status_int == 405
