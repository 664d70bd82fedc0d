"""An image service endpoint for the stock client, backed by nova_lite.

``openstack server create --image`` looks the image up in the catalog's
``image`` service (Glance v2) before it talks to the compute API, and
nova_lite has no Glance. This small HTTP server answers the two reads the
client makes, ``GET /v2/images/{id}`` and ``GET /v2/images?name=``, by
asking nova_lite's own ``/images`` API (microversion 2.1) with the
caller's token and reshaping the answer as Glance's; the caller's token is
thus validated by nova_lite's keystonemiddleware like any other, and an
unknown image or a refused token comes back as nova_lite answered it.
Anything else is a 404.
"""

import http.server
import json
import threading
import urllib.parse

from tests.functional import deployment

_V21 = {'X-OpenStack-Nova-API-Version': '2.1'}


def _glance_image(image):
    """nova_lite's detailed image (Nova's shape) as a Glance v2 image."""
    return {
        'id': image['id'], 'name': image['name'],
        'status': image['status'].lower(), 'visibility': 'public',
        'min_disk': image['minDisk'], 'min_ram': image['minRam'],
        'size': image.get('OS-EXT-IMG-SIZE:size'),
        'created_at': image['created'], 'updated_at': image['updated'],
        'disk_format': image['metadata'].get('disk_format'),
        'container_format': 'bare', 'protected': False, 'tags': [],
        'self': '/v2/images/%s' % image['id'],
        'schema': '/v2/schemas/image',
    }


class _Handler(http.server.BaseHTTPRequestHandler):

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        parts = [p for p in url.path.split('/') if p]
        if parts in ([], ['v2']):
            return self._versions()
        if parts[:2] != ['v2', 'images'] or len(parts) > 3:
            return self._send(404, {'message': 'not found'})
        compute = deployment.ApiClient(self.server.compute_url,
                                       self.headers.get('X-Auth-Token'))
        if len(parts) == 3:
            status, _, body = compute.get('/images/%s' % parts[2],
                                          headers=_V21)
            if status != 200:
                return self._send(status, body)
            return self._send(200, _glance_image(body['image']))
        query = urllib.parse.parse_qs(url.query)
        path = '/images/detail'
        if 'name' in query:
            path += '?' + urllib.parse.urlencode({'name': query['name'][0]})
        status, _, body = compute.get(path, headers=_V21)
        if status != 200:
            return self._send(status, body)
        return self._send(200, {'images': [_glance_image(i)
                                           for i in body['images']]})

    def _versions(self):
        base = 'http://%s:%d/v2/' % self.server.server_address
        self._send(200, {'versions': [{
            'id': 'v2.16', 'status': 'CURRENT',
            'links': [{'rel': 'self', 'href': base}]}]})

    def _send(self, status, body):
        self.server.served.append((self.path, status))
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


class ImageService:
    """Serves on 127.0.0.1 at a free port; ``url`` is its root."""

    def __init__(self, compute_url):
        self._server = http.server.ThreadingHTTPServer(('127.0.0.1', 0),
                                                       _Handler)
        self._server.compute_url = compute_url
        self._server.served = []
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        daemon=True)

    @property
    def served(self):
        """(path, status) of every request answered, in order."""
        return list(self._server.served)

    @property
    def url(self):
        return 'http://127.0.0.1:%d/' % self._server.server_address[1]

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
