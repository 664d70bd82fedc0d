"""Refuse request bodies over ``[api] max_request_body_size`` with 413.

A declared Content-Length over the limit is refused before the body is
read. A body without a length (chunked) is wrapped in ``LimitingReader``,
which raises ``RequestTooLarge`` as soon as more than the limit has been
read, so a streamed body is never buffered past the limit either.
"""

import webob.dec

from nova_lite.api import faults
from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import exception


class LimitingReader:
    """A file-like reader that raises RequestTooLarge past ``limit`` bytes."""

    def __init__(self, data, limit):
        self.data = data
        self.limit = limit
        self.bytes_read = 0

    def _count(self, chunk):
        self.bytes_read += len(chunk)
        if self.bytes_read > self.limit:
            raise exception.RequestTooLarge()
        return chunk

    def __iter__(self):
        for chunk in self.data:
            yield self._count(chunk)

    def read(self, size=-1):
        if size is None or size < 0:
            # Never ask the server for an unbounded read: one byte past the
            # limit is enough to know.
            size = self.limit - self.bytes_read + 1
        return self._count(self.data.read(size))

    def readline(self, size=-1):
        if size is None or size < 0:
            size = self.limit - self.bytes_read + 1
        return self._count(self.data.readline(size))


class RequestBodySizeLimiter(wsgi.Middleware):
    """Passes requests whose body fits ``limit``; answers 413 otherwise.

    ``limit`` defaults to ``[api] max_request_body_size`` read per request,
    so a configuration reload applies without rebuilding the pipeline.
    """

    def __init__(self, application, limit=None, **local_config):
        super().__init__(application)
        self._limit = int(limit) if limit is not None else None

    @property
    def limit(self):
        if self._limit is not None:
            return self._limit
        return CONF.api.max_request_body_size

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        limit = self.limit
        if req.content_length is not None and req.content_length > limit:
            return faults.exception_response(exception.RequestTooLarge())
        if req.content_length is None and req.is_body_readable:
            req.body_file = LimitingReader(req.body_file_raw, limit)
        return self.application
