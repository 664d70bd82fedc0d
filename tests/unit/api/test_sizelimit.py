"""Bodies over [api] max_request_body_size are refused with 413."""

import io

import pytest
import webob

from nova_lite.api.middleware import faultwrap
from nova_lite.api.middleware import sizelimit
from nova_lite import exception


def _reader_app(environ, start_response):
    body = webob.Request(environ).body
    start_response('200 OK', [('Content-Type', 'text/plain')])
    return [b'read %d' % len(body)]


def _app():
    # faultwrap turns the reader's RequestTooLarge into the JSON fault.
    return faultwrap.FaultWrapper(
        sizelimit.RequestBodySizeLimiter(_reader_app))


def _chunked(body):
    req = webob.Request.blank('/', method='POST')
    req.environ['wsgi.input'] = io.BytesIO(body)
    req.environ.pop('CONTENT_LENGTH', None)
    req.environ['HTTP_TRANSFER_ENCODING'] = 'chunked'
    req.environ['SERVER_PROTOCOL'] = 'HTTP/1.1'
    # What cheroot sets for a chunked body (PEP 3333 extension).
    req.environ['wsgi.input_terminated'] = True
    return req


@pytest.fixture(autouse=True)
def small_limit(conf):
    conf.config(group='api', max_request_body_size=10)


def test_declared_length_over_limit():
    req = webob.Request.blank('/', method='POST', body=b'x' * 11)
    resp = req.get_response(_app())
    assert resp.status_int == 413
    assert resp.json['requestEntityTooLarge']['code'] == 413


def test_declared_length_at_limit_passes():
    req = webob.Request.blank('/', method='POST', body=b'x' * 10)
    resp = req.get_response(_app())
    assert resp.status_int == 200
    assert resp.body == b'read 10'


def test_streamed_body_over_limit():
    resp = _chunked(b'y' * 50).get_response(_app())
    assert resp.status_int == 413
    assert 'too large' in resp.json['requestEntityTooLarge']['message']


def test_streamed_body_within_limit():
    resp = _chunked(b'y' * 7).get_response(_app())
    assert resp.status_int == 200
    assert resp.body == b'read 7'


def test_limiting_reader_stops_one_byte_past_the_limit():
    data = io.BytesIO(b'z' * 1000)
    reader = sizelimit.LimitingReader(data, 5)
    assert reader.read(3) == b'zzz'
    with pytest.raises(exception.RequestTooLarge):
        reader.read()
    # It never asked for more than limit + 1 bytes in total.
    assert data.tell() == 6
