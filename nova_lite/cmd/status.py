"""nova-lite-status upgrade check: can this deployment take the next step?

Checks, each a line of the report (oslo.upgradecheck):

* Database schema: migrations this code has that the database lacks;
* Service versions: the oldest running version of each service, and any
  service too old for this release to run beside;
* RPC pins: what [upgrade_levels] resolves to, and whether it should be
  set (older services still run) or lifted (none do any more);
* Placement allocations: the findings of ``nova-lite-manage placement
  audit`` (orphaned allocations, instances without allocations).
"""

import sys

from oslo_db import exception as db_exc
from oslo_upgradecheck import upgradecheck

from nova_lite import config
from nova_lite.conf import CONF
from nova_lite import context as nl_context
from nova_lite.db import api as db_api
from nova_lite.db import migration
from nova_lite import objects
from nova_lite.placement import audit as placement_audit
from nova_lite.objects import service as service_obj
from nova_lite import releases
from nova_lite import rpc_pins

Code = upgradecheck.Code
Result = upgradecheck.Result


def _release_of(service_version):
    for release in releases.all_releases():
        if release['service_version'] == service_version:
            return release['name']
    return 'unreleased' if service_version else 'unknown'


def _running_versions(ctxt):
    """{binary: minimum version} of the services that are up."""
    versions = {}
    for svc in objects.ServiceList.get_all(ctxt):
        if svc.is_up:
            versions[svc.binary] = min(svc.version,
                                       versions.get(svc.binary, svc.version))
    return versions


def _needs_schema(check):
    """Run ``check`` only when the services table exists."""
    def wrapper(self):
        try:
            return check(self)
        except db_exc.DBNonExistentTable:
            return Result(Code.WARNING, 'The database has no schema yet: '
                          'run "nova-lite-manage db sync" first.')
    wrapper.__name__ = check.__name__
    return wrapper


class Checks(upgradecheck.UpgradeCommands):

    def _check_schema(self):
        pending = migration.pending()
        if pending:
            return Result(Code.FAILURE, 'Migrations not applied: %s. Run '
                          '"nova-lite-manage db sync" (expand-only: safe '
                          'while the old services run).' % ', '.join(pending))
        return Result(Code.SUCCESS,
                      'Schema at %s.' % migration.db_version())

    @_needs_schema
    def _check_service_versions(self):
        ctxt = nl_context.get_admin_context()
        oldest = releases.oldest_supported()
        lines, code = [], Code.SUCCESS
        for svc in objects.ServiceList.get_all(ctxt):
            if svc.is_up and svc.version < oldest['service_version']:
                code = Code.FAILURE
                lines.append('%s on %s runs version %s (%s), older than %s '
                             '(%s), the oldest this release supports.' % (
                                 svc.binary, svc.host, svc.version,
                                 _release_of(svc.version),
                                 oldest['service_version'], oldest['name']))
        for binary, version in sorted(_running_versions(ctxt).items()):
            lines.append('%s: oldest running version %s (%s).' % (
                binary, version, _release_of(version)))
        return Result(code, '\n'.join(lines) or 'No service is running.')

    @_needs_schema
    def _check_pins(self):
        ctxt = nl_context.get_admin_context()
        running = _running_versions(ctxt)
        current = service_obj.SERVICE_VERSION
        lines, code = [], Code.SUCCESS
        for service in ('conductor', 'scheduler', 'compute'):
            value = getattr(CONF.upgrade_levels, service)
            cap, _objects = rpc_pins.Pin(service).resolve()
            oldest = running.get(rpc_pins.BINARIES[service], current)
            lines.append('%s: %s -> %s' % (service, value or '(unset)',
                                           cap or 'newest'))
            if oldest < current and not value:
                code = max(code, Code.WARNING)
                lines.append('  %s services of version %s still run: pin '
                             '[upgrade_levels] %s (to "%s" or "auto").' % (
                                 service, oldest, service,
                                 _release_of(oldest)))
            elif value and value != 'auto' and oldest >= current:
                code = max(code, Code.WARNING)
                lines.append('  every %s is current: the pin can be '
                             'lifted.' % service)
        return Result(code, '\n'.join(lines))

    @_needs_schema
    def _check_placement(self):
        findings = placement_audit.find(nl_context.get_admin_context())
        if not findings.orphans and not findings.missing:
            return Result(Code.SUCCESS, 'Allocations match the instances '
                          'and the moves in progress.')
        return Result(Code.WARNING, '%d orphaned allocation(s) and %d '
                      'instance(s) with a host but no allocations. Run '
                      '"nova-lite-manage placement audit" to see them, '
                      'with --fix to repair them.' % (
                          len(findings.orphans), len(findings.missing)))

    _upgrade_checks = (
        ('Database schema', _check_schema),
        ('Service versions', _check_service_versions),
        ('RPC pins', _check_pins),
        ('Placement allocations', _check_placement),
    )


def main():
    checks = Checks()
    upgradecheck.register_cli_options(CONF, checks)
    config.parse_args(sys.argv[1:], log_to_stderr=True)
    db_api.configure(CONF)
    # oslo.upgradecheck reads its own CONF global for the output format.
    upgradecheck.CONF = CONF
    return upgradecheck.run(CONF)


if __name__ == '__main__':
    sys.exit(main())
