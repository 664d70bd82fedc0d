"""Any exception below faultwrap becomes a Nova-shaped JSON fault."""

import webob
import webob.exc

from nova_lite.api.middleware import faultwrap
from nova_lite import exception


def _raising(exc):
    def app(environ, start_response):
        raise exc
    return faultwrap.FaultWrapper(app)


def _get(app):
    req = webob.Request.blank('/')
    req.environ['openstack.request_id'] = 'req-123'
    return req.get_response(app)


def test_unexpected_exception_is_a_logged_500(caplog):
    resp = _get(_raising(KeyError('secret-internal-detail')))
    assert resp.status_int == 500
    assert resp.content_type == 'application/json'
    message = resp.json['computeFault']['message']
    assert 'req-123' in message
    assert 'secret-internal-detail' not in message
    assert 'FaultWrapper' in caplog.text


def test_nova_lite_exception_keeps_its_code():
    resp = _get(_raising(exception.FlavorNotFound(flavor_id='42')))
    assert resp.status_int == 404
    assert resp.json == {'itemNotFound': {
        'code': 404, 'message': 'Flavor 42 could not be found.'}}


def test_conflict_name():
    resp = _get(_raising(exception.FlavorExists(field='name', value='x')))
    assert resp.status_int == 409
    assert 'conflictingRequest' in resp.json


def test_internal_nova_lite_error_hides_its_text():
    resp = _get(_raising(exception.DBNotAllowed(binary='x')))
    assert resp.status_int == 500
    assert 'database' not in resp.json['computeFault']['message']


def test_webob_http_error_becomes_json():
    resp = _get(_raising(webob.exc.HTTPForbidden(explanation='no way')))
    assert resp.status_int == 403
    assert resp.json == {'forbidden': {'code': 403, 'message': 'no way'}}


def test_passes_normal_responses():
    def app(environ, start_response):
        start_response('201 Created', [('Content-Type', 'text/plain')])
        return [b'made']
    resp = _get(faultwrap.FaultWrapper(app))
    assert resp.status_int == 201
    assert resp.body == b'made'


def test_no_conductor_answering_is_a_503_to_retry():
    """Regression: POST /servers with every conductor gone answered 500
    after its RPC call timed out; it is a 503 the client may retry."""
    from amqp import exceptions as amqp_exceptions
    import oslo_messaging as messaging
    for error in (messaging.MessagingTimeout('no reply on conductor'),
                  messaging.MessageDeliveryFailure('broker refused'),
                  # The vhost refused a new connection (raw py-amqp).
                  amqp_exceptions.NotAllowed('(530) NOT_ALLOWED')):
        resp = _get(_raising(error))
        assert resp.status_int == 503
        assert resp.headers['Retry-After'] == str(exception.RETRY_AFTER)
        message = resp.json['serviceUnavailable']['message']
        assert message.startswith('The conductor service cannot be reached')


def test_a_lost_database_is_a_503_to_retry():
    from oslo_db import exception as db_exc
    resp = _get(_raising(db_exc.DBConnectionError(
        Exception('connection refused to db.internal'))))
    assert resp.status_int == 503
    assert resp.headers['Retry-After'] == str(exception.RETRY_AFTER)
    message = resp.json['serviceUnavailable']['message']
    assert message.startswith('The database cannot be reached')
    assert 'db.internal' not in message


def test_a_conductor_that_lost_its_database_is_a_503_to_retry():
    """Regression (fault suite, PostgreSQL blip): the conductor's commit
    of a boot met a terminated connection; its DBConnectionError crossed
    RPC as a RemoteError, which the API answered 500."""
    import oslo_messaging as messaging
    resp = _get(_raising(messaging.RemoteError(
        'DBConnectionError', '(psycopg2.OperationalError) server closed '
        'the connection unexpectedly')))
    assert resp.status_int == 503
    assert resp.headers['Retry-After'] == str(exception.RETRY_AFTER)
    assert resp.json['serviceUnavailable']['message'].startswith(
        'The database')


def test_another_remote_error_is_still_a_500():
    import oslo_messaging as messaging
    resp = _get(_raising(messaging.RemoteError('KeyError', 'boom')))
    assert resp.status_int == 500
