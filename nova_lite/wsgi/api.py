"""The compute API as a WSGI application.

``load_app()`` builds the paste pipeline; nova-lite-api's own server
(cheroot, in nova_lite/service.py) calls it after setting the process up.
Under uwsgi, gunicorn or mod_wsgi use ``application`` (built on first
access) or the ``nova-lite-api-wsgi`` script (``init_application``)::

    gunicorn 'nova_lite.wsgi.api:application'
    uwsgi --http :8774 --module nova_lite.wsgi.api:application

Configuration files come from ``NOVA_LITE_CONFIG_FILES`` (separated by
";"), or ``NOVA_LITE_CONFIG_DIR``, else oslo.config's defaults for the
project nova_lite (~/.nova_lite/nova_lite.conf, /etc/nova_lite/...).
"""

import os
import sys
import threading

from oslo_log import log as logging
from paste import deploy

import nova_lite
from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import service

LOG = logging.getLogger(__name__)

CONFIG_FILES_ENV = 'NOVA_LITE_CONFIG_FILES'
CONFIG_DIR_ENV = 'NOVA_LITE_CONFIG_DIR'
APP_NAME = 'osapi_compute'

_application = None
_lock = threading.Lock()


def _candidate_paste_files(name):
    package_root = os.path.dirname(os.path.dirname(
        os.path.abspath(nova_lite.__file__)))
    return [
        # A source tree or an editable install: <repo>/etc/nova_lite.
        os.path.join(package_root, 'etc', 'nova_lite', name),
        # setup.cfg's data_files: <prefix>/etc/nova_lite.
        os.path.join(sys.prefix, 'etc', 'nova_lite', name),
    ]


def find_paste_config():
    """The path of ``[api] api_paste_config``.

    An absolute path is taken as is; a relative name is looked up next to
    the configuration files, then in the source tree's and the install
    prefix's etc/nova_lite. Raises ConfigInvalid when none exists.
    """
    name = CONF.api.api_paste_config
    if os.path.isabs(name):
        candidates = [name]
    else:
        found = CONF.find_file(name)
        candidates = ([found] if found else []) + _candidate_paste_files(
            name)
    for path in candidates:
        if os.path.isfile(path):
            return os.path.abspath(path)
    raise exception.ConfigInvalid(
        reason='[api] api_paste_config %r not found (looked in %s)'
               % (name, ', '.join(candidates) or 'the config directories'))


def load_app(name=APP_NAME):
    """Build the WSGI application ``name`` of the paste file."""
    path = find_paste_config()
    LOG.info('Loading the API pipeline %s from %s', name, path)
    return deploy.loadapp('config:%s' % path, name=name)


def _config_files():
    files = os.environ.get(CONFIG_FILES_ENV)
    if files:
        return [f.strip() for f in files.split(';') if f.strip()]
    return None


def init_application():
    """Configure this process and return the API application.

    For WSGI servers: parses the configuration (see the module
    docstring), sets up logging, registers objects, prepares the bus and
    read-only database access, then loads the pipeline.
    """
    argv = []
    config_dir = os.environ.get(CONFIG_DIR_ENV)
    if config_dir:
        argv = ['--config-dir', config_dir]
    config.parse_args(argv, default_config_files=_config_files())
    service.setup_process(service.DB_READ_ONLY)
    return load_app()


def get_application():
    """The process's application, initialised once (thread-safe)."""
    global _application
    if _application is None:
        with _lock:
            if _application is None:
                _application = init_application()
    return _application


def __getattr__(name):
    # `application` is built on first access, not at import: importing
    # this module (tests, docs, the cheroot service) must not parse the
    # configuration or connect to anything.
    if name == 'application':
        return get_application()
    raise AttributeError('module %r has no attribute %r' % (__name__, name))
