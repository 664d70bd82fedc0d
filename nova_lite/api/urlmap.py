"""The top of the API: which app serves which URL prefix.

paste's own urlmap matches prefixes only, so ``/v2.1`` would take every
request below it. Here a key ending in ``/+`` is a prefix and any other
key is exact (a trailing slash ignored), which lets ``GET /v2.1`` reach the
unauthenticated version document while ``/v2.1/servers`` goes through the
authenticated pipeline. Declared in api-paste.ini as::

    [composite:osapi_compute]
    use = call:nova_lite.api.urlmap:urlmap_factory
    /: versions
    /v2.1: version_v21
    /v2.1/+: openstack_compute_api_v21
"""

from nova_lite.api import faults


def urlmap_factory(loader, global_conf, **local_conf):
    exact, prefixes = {}, []
    for key, app_name in local_conf.items():
        if not key.startswith('/'):
            continue
        app = loader.get_app(app_name, global_conf=global_conf)
        if key.endswith('/+'):
            prefixes.append((key[:-2].rstrip('/'), app))
        else:
            exact[key.rstrip('/')] = app
    return URLMap(exact, prefixes)


class URLMap:
    """Dispatches on PATH_INFO; the matched part moves to SCRIPT_NAME.

    Exact keys win over prefixes, longer prefixes over shorter ones;
    anything else is a 404 fault.
    """

    def __init__(self, exact, prefixes):
        self.exact = exact
        self.prefixes = sorted(prefixes, key=lambda p: -len(p[0]))

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '') or ''
        app, matched = self._match(path)
        if app is None:
            return faults.fault_response(
                404, 'The resource could not be found.')(environ,
                                                         start_response)
        environ = dict(environ)
        environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + matched
        environ['PATH_INFO'] = path[len(matched):]
        return app(environ, start_response)

    def _match(self, path):
        stripped = path.rstrip('/')
        if stripped in self.exact:
            return self.exact[stripped], stripped
        for prefix, app in self.prefixes:
            if path.startswith(prefix + '/'):
                return app, prefix
        return None, ''
