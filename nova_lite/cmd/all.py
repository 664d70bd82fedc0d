"""nova-lite-all: the four services in one process, for a first run.

Embedded defaults: an SQLite file below ``state_path``, the in-process
``local://`` transport and a fake compute with four nodes. On first start
it creates the schema, a default image and a few flavors, then prints how
to use it. Every default can be overridden with --config-file.
"""

import os
import sys

from oslo_log import log as logging

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.image import registry as image_api
from nova_lite import objects
from nova_lite import service

LOG = logging.getLogger(__name__)

DEFAULT_FLAVORS = (
    # flavorid, name, memory_mb, vcpus, root_gb
    ('1', 'm1.tiny', 512, 1, 1),
    ('2', 'm1.small', 2048, 1, 20),
    ('3', 'm1.medium', 4096, 2, 40),
    ('4', 'm1.large', 8192, 4, 80),
)
DEFAULT_IMAGE_NAME = 'cirros'


def _set_embedded_defaults():
    CONF.set_default('transport_url', 'local://')
    CONF.set_default('node_count', 4, group='fake_driver')


def first_run_setup():
    """Create the schema and the demo image and flavors if missing."""
    migration.db_sync()
    ctxt = nl_context.get_admin_context()
    images = image_api.get_all(ctxt, filters={'name': DEFAULT_IMAGE_NAME})
    if images:
        image = images[0]
    else:
        image = image_api.create(ctxt, DEFAULT_IMAGE_NAME,
                                 disk_format='qcow2',
                                 properties={'hw_architecture': 'x86_64'})
    for flavorid, name, memory_mb, vcpus, root_gb in DEFAULT_FLAVORS:
        try:
            objects.Flavor.get_by_flavor_id(ctxt, flavorid)
        except exception.FlavorNotFound:
            objects.Flavor(ctxt, flavorid=flavorid, name=name,
                           memory_mb=memory_mb, vcpus=vcpus,
                           root_gb=root_gb).create()
    return image


def _usage(image, port):
    base = 'http://%s:%s' % (CONF.osapi_compute_listen, port)
    return '\n'.join([
        'nova_lite all-in-one is running (Ctrl-C or SIGTERM stops it).',
        '  API:      %s/v2.1' % base,
        '  Database: %s' % CONF.database.connection,
        '  Image:    %s (%s)' % (image['id'], image['name']),
        'Boot a server (noauth2: the token is "user:project"):',
        '  curl -s -H "X-Auth-Token: demo:demo" '
        '-H "Content-Type: application/json" \\',
        "    -d '{\"server\": {\"name\": \"vm1\", \"imageRef\": \"%s\", "
        "\"flavorRef\": \"1\"}}' %s/v2.1/servers" % (image['id'], base),
        '  curl -s -H "X-Auth-Token: demo:demo" %s/v2.1/servers/detail'
        % base,
    ])


class _AllInOne(service.ServiceGroup):
    def start(self):
        os.makedirs(CONF.state_path, exist_ok=True)
        service.setup_process(self.db_access)
        image = first_run_setup()
        for svc in self.services:
            svc.start()
        print(_usage(image, self.services[-1].port), flush=True)


def main():
    _set_embedded_defaults()
    config.parse_args(sys.argv[1:])
    group = _AllInOne([
        service.Service('nova-lite-conductor'),
        service.Service('nova-lite-scheduler'),
        service.Service('nova-lite-compute'),
        service.WSGIService(),
    ], db_access=service.DB_DIRECT)
    sys.exit(service.launch(group))
