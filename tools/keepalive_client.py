"""A JSON client for the benchmarks that keeps its connection open.

The openstack client and openstacksdk (keystoneauth on a requests
session) send their requests over a kept-alive HTTP/1.1 connection; the
functional tests' ``ApiClient`` (urllib) opens one per request, which
costs both this process and the API a TCP handshake, an accept and a
new connection's set-up per boot. One of these per client thread.
"""

import http.client
import json
import urllib.parse

# What the next request on a kept-alive connection gets when the server
# closed it while idle (cheroot does after its timeout). Sent again once
# on a new connection, as urllib3 does; a server that died while reading
# the request gives the same errors, and a benchmark may then boot one
# server more than asked, which its watch tolerates.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError,
          BrokenPipeError)


class KeepAliveClient:

    def __init__(self, endpoint, token, timeout=60):
        url = urllib.parse.urlsplit(endpoint)
        if url.scheme != 'http':
            raise ValueError('only http endpoints, not %r' % endpoint)
        self._prefix = url.path.rstrip('/')
        self._headers = {'X-Auth-Token': token,
                         'Content-Type': 'application/json'}
        self._conn = http.client.HTTPConnection(url.hostname, url.port,
                                                timeout=timeout)

    def post(self, path, body):
        payload = json.dumps(body).encode()
        # http.client keeps the socket of a kept-alive answer and drops
        # it after one that closes the connection.
        reused = self._conn.sock is not None
        try:
            return self._post(path, payload)
        except _STALE:
            if not reused:
                raise
            self._conn.close()
            return self._post(path, payload)

    def _post(self, path, payload):
        self._conn.request('POST', self._prefix + path, payload,
                           self._headers)
        resp = self._conn.getresponse()
        return resp.status, dict(resp.headers), _decoded(resp.read())

    def close(self):
        self._conn.close()


def _decoded(data):
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data.decode(errors='replace')
