"""nova-lite-manage: administration with direct database access.

    nova-lite-manage [--config-file F] db sync [--version REV]
    nova-lite-manage db version
    nova-lite-manage image create NAME [--id UUID] [--disk-format F]
                     [--container-format F] [--min-disk GB] [--min-ram MB]
                     [--property KEY=VALUE ...]
    nova-lite-manage image list
    nova-lite-manage service list
    nova-lite-manage quota verify [--project P]
    nova-lite-manage quota refresh --project P
    nova-lite-manage placement audit [--fix]

Exit codes: 0 success, 1 a known error (printed), 2 bad usage, 3 quota
usage drift found by ``quota verify``, or placement findings that
``placement audit`` left (without ``--fix``, or that could not be fixed),
4 findings that ``placement audit --fix`` all fixed (as Nova's).
"""

import sys
import uuid

from oslo_config import cfg
from oslo_utils import uuidutils

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite import exception
from nova_lite.image import registry as image_api
from nova_lite import objects
from nova_lite.placement import audit as placement_audit
from nova_lite.quota import usages as quota_usages

EXIT_DRIFT = 3
EXIT_FIXED = 4


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


def _image_id(value):
    """The --id of an image: a UUID (as Glance's ids), normalised to its
    lower-case dashed form; None lets the registry pick one."""
    if value is None:
        return None
    if not uuidutils.is_uuid_like(value):
        raise exception.InvalidInput(
            reason='--id takes a UUID, not %r' % value)
    return str(uuid.UUID(value))


def _image_create():
    args = CONF.category
    image = image_api.create(
        nl_context.get_admin_context(), args.image_name,
        image_id=_image_id(args.id),
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


def _audit_line(audit):
    if audit.recorded_in_use is None:
        status = 'untracked'
    elif audit.recorded_in_use < 0:
        status = 'unknown'
    else:
        status = 'DRIFT' if audit.drift else 'ok'

    def pair(recorded, counted):
        shown = '-' if recorded is None else recorded
        return '%s/%s' % (shown, counted)
    return '%-36s %-20s %-14s %-17s %-17s %s' % (
        audit.project_id, audit.user_id or '(project)', audit.resource,
        pair(audit.recorded_in_use, audit.counted_in_use),
        pair(audit.recorded_reserved, audit.counted_reserved), status)


def _quota_verify():
    """Recorded against counted usage, per project, user and resource.

    "untracked" (no record yet) and "unknown" (-1) are counted at the
    next reservation: they are not drift. Returns EXIT_DRIFT on drift.
    """
    ctxt = nl_context.get_admin_context()
    project = CONF.category.project
    projects = [project] if project else quota_usages.projects(ctxt)
    print('%-36s %-20s %-14s %-17s %-17s %s' % (
        'Project', 'User', 'Resource', 'In use rec/cnt', 'Reserved rec/cnt',
        'Status'))
    drifted = total = 0
    for project_id in projects:
        for audit in quota_usages.audit_project(ctxt, project_id):
            print(_audit_line(audit))
            total += 1
            drifted += audit.drift
    print('%d of %d usage records drifted in %d project(s)'
          % (drifted, total, len(projects)))
    return EXIT_DRIFT if drifted else 0


def _quota_refresh():
    ctxt = nl_context.get_admin_context()
    written = quota_usages.refresh_project(ctxt, CONF.category.project)
    for (user_id, resource), in_use in sorted(written.items()):
        print('%-20s %-14s %s' % (user_id or '(project)', resource, in_use))


def _describe(finding):
    if isinstance(finding, placement_audit.Orphan):
        usage = '; '.join('%s %s' % (provider, ','.join(
            '%s=%s' % kv for kv in sorted(resources.items())))
            for provider, resources in sorted(finding.usage.items()))
        return ('orphaned allocation: consumer %s (project %s) holds %s, '
                'but is no live instance or migration' % (
                    finding.consumer, finding.project_id or '?', usage))
    return ('missing allocation: instance %s (%s) on %s node %s holds '
            'none of %s' % (finding.instance, finding.vm_state,
                            finding.host, finding.node,
                            ','.join('%s=%s' % kv for kv in
                                     sorted(finding.resources.items()))))


def _placement_audit():
    """Orphaned and missing allocations; with --fix, repair them."""
    ctxt = nl_context.get_admin_context()
    findings = placement_audit.find(ctxt)
    every = findings.orphans + findings.missing
    for finding in every:
        print(_describe(finding))
    print('%d orphaned allocation(s), %d instance(s) without allocations'
          % (len(findings.orphans), len(findings.missing)))
    if not every:
        return 0
    if not CONF.category.fix:
        print('Run with --fix to remove the orphans and allocate the '
              'missing.')
        return EXIT_DRIFT
    left = 0
    for finding, reason in placement_audit.fix(ctxt, findings):
        name = getattr(finding, 'consumer', None) or finding.instance
        if reason is None:
            print('fixed %s' % name)
        else:
            left += 1
            print('NOT fixed %s: %s' % (name, reason))
    print('Schedulers see the change at their next catch-up.')
    return EXIT_DRIFT if left else EXIT_FIXED


def _add_placement_parsers(subparsers):
    placement = subparsers.add_parser('placement', help='placement data')
    placement_sub = placement.add_subparsers(dest='action')
    audit = placement_sub.add_parser(
        'audit', help='find allocations without an instance or migration '
        'and instances with a host but no allocations; exits %d if any '
        'is left, %d if --fix fixed them all' % (EXIT_DRIFT, EXIT_FIXED))
    audit.add_argument('--fix', action='store_true',
                       help='remove the orphaned allocations and allocate '
                            "each missing instance's flavor on its node")
    audit.set_defaults(func=_placement_audit)


def _add_quota_parsers(subparsers):
    quota = subparsers.add_parser('quota', help='quota usage')
    quota_sub = quota.add_subparsers(dest='action')
    verify = quota_sub.add_parser(
        'verify', help='compare recorded usage with the servers; exits '
        '%d on drift' % EXIT_DRIFT)
    verify.add_argument('--project', help='only this project')
    verify.set_defaults(func=_quota_verify)
    refresh = quota_sub.add_parser(
        'refresh', help="recount a project's usage and write it")
    refresh.add_argument('--project', required=True)
    refresh.set_defaults(func=_quota_refresh)


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
    # Not "name": CONF.category.name is the command ("image").
    create.add_argument('image_name', metavar='NAME')
    create.add_argument('--id', metavar='UUID',
                        help='register the image under this id (the one '
                             'it has elsewhere, say); an id already taken '
                             'is an error. Default: a new UUID')
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
    _add_quota_parsers(subparsers)
    _add_placement_parsers(subparsers)


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
        return func() or 0
    except exception.NovaLiteException as exc:
        print('Error: %s' % exc.format_message(), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
