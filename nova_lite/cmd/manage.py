"""nova-lite-manage: administration with direct database access.

    nova-lite-manage [--config-file F] db sync [--version REV]
    nova-lite-manage db version
    nova-lite-manage image create NAME [--disk-format F]
                     [--container-format F] [--min-disk GB] [--min-ram MB]
                     [--property KEY=VALUE ...]
    nova-lite-manage image list
    nova-lite-manage service list

Exit codes: 0 success, 1 a known error (printed), 2 bad usage.
"""

import sys

from oslo_config import cfg

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.image import api as image_api
from nova_lite import objects


def _db_sync():
    migration.db_sync(CONF.category.version)
    print('Database is at revision %s' % migration.db_version())


def _db_version():
    print(migration.db_version() or 'empty (run "db sync")')


def _parse_properties(items):
    properties = {}
    for item in items or []:
        key, sep, value = item.partition('=')
        if not sep or not key:
            raise exception.InvalidInput(
                reason='--property takes KEY=VALUE, not %r' % item)
        properties[key] = value
    return properties


def _image_create():
    args = CONF.category
    image = image_api.create(
        nl_context.get_admin_context(), args.name,
        disk_format=args.disk_format,
        container_format=args.container_format,
        min_disk=args.min_disk, min_ram=args.min_ram,
        properties=_parse_properties(args.property))
    print(image['id'])


def _image_list():
    for image in image_api.get_all(nl_context.get_admin_context()):
        props = ' '.join('%s=%s' % kv
                         for kv in sorted(image['properties'].items()))
        print('%s  %-20s %-6s %s' % (image['id'], image['name'],
                                     image['disk_format'], props))


def _service_list():
    ctxt = nl_context.get_admin_context()
    print('%-5s %-22s %-20s %-9s %-5s %s' % ('Id', 'Binary', 'Host',
                                             'Status', 'State', 'Version'))
    for svc in objects.ServiceList.get_all(ctxt):
        print('%-5s %-22s %-20s %-9s %-5s %s' % (
            svc.id, svc.binary, svc.host,
            'disabled' if svc.disabled else 'enabled',
            'up' if svc.is_up else 'down', svc.version))


def _add_parsers(subparsers):
    db = subparsers.add_parser('db', help='schema migrations')
    db_sub = db.add_subparsers(dest='action')
    sync = db_sub.add_parser('sync', help='upgrade the schema (idempotent)')
    sync.add_argument('--version', help='target revision (default: newest)')
    sync.set_defaults(func=_db_sync)
    db_sub.add_parser('version', help='print the schema revision'
                      ).set_defaults(func=_db_version)

    image = subparsers.add_parser('image', help='the image registry')
    image_sub = image.add_subparsers(dest='action')
    create = image_sub.add_parser('create', help='register an image; '
                                  'prints its id')
    create.add_argument('name')
    create.add_argument('--disk-format', default='raw',
                        choices=image_api.DISK_FORMATS)
    create.add_argument('--container-format', default='bare',
                        choices=image_api.CONTAINER_FORMATS)
    create.add_argument('--min-disk', type=int, default=0)
    create.add_argument('--min-ram', type=int, default=0)
    create.add_argument('--property', action='append', metavar='KEY=VALUE',
                        help='an image property; repeat for several')
    create.set_defaults(func=_image_create)
    image_sub.add_parser('list', help='list images'
                         ).set_defaults(func=_image_list)

    svc = subparsers.add_parser('service', help='services')
    svc_sub = svc.add_subparsers(dest='action')
    svc_sub.add_parser('list', help='list services'
                       ).set_defaults(func=_service_list)


def main():
    CONF.register_cli_opt(cfg.SubCommandOpt('category',
                                            title='Command categories',
                                            handler=_add_parsers))
    try:
        config.parse_args(sys.argv[1:], log_to_stderr=True)
    except cfg.Error as exc:
        print(exc, file=sys.stderr)
        return 2
    func = getattr(CONF.category, 'func', None)
    if func is None:
        print('Missing command; see --help', file=sys.stderr)
        return 2
    db_api.configure(CONF)
    try:
        func()
    except exception.NovaLiteException as exc:
        print('Error: %s' % exc.format_message(), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
