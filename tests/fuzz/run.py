"""Fuzz the API of real daemons with schemathesis, from its own
OpenAPI document (``/v2.1/openapi.json``).

    tools/fuzz-api [--backend postgresql] [--versions 2.1,2.100]
                   [--max-examples 15] [--max-time 120] [--seed 1]
                   [-- extra schemathesis args]

It starts the four daemons (tests/functional/deployment.py) on RabbitMQ
and a scratch database, registers an image, and runs ``schemathesis run``
once per microversion, as an administrator (who may call every route),
with these checks: no 5xx, every status declared, the declared content
type, and the body valid against the declared schema (errors must be
Nova's fault body). Each run reads the document of its version (the
API describes the version a request negotiates) and sends
``OpenStack-API-Version: compute X.Y`` with every request, so the
routes, parameters and bodies of later versions are exercised, not
only answered 404 or 400 as at 2.1. The time budget is shared: each
version gets an equal part of ``--max-time``. Then it stops the daemons
and requires each to exit 0. The exit status is 0 if every run passed,
else the first failing run's, or 1 when a daemon did not stop cleanly.

Before the runs it creates a few resources (a flavor, a key pair, an
aggregate, a server group, servers) and gives their ids to schemathesis
as dictionaries for the path parameters that name them (``seed``):
about half of those parameters name a real resource, the rest are what
schemathesis makes up. Without them every route below
``/servers/{server_id}`` and the like only ever answered 404.

The routes that answer 501 by design, because nova_lite's computes
cannot do what Nova's drivers do (os-hosts power actions and update,
hypervisor uptime), are left out: the no-5xx check would flag them.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from tests.functional import deployment

CHECKS = ('not_a_server_error', 'status_code_conformance',
          'content_type_conformance', 'response_schema_conformance')
# 501 by design (see the module docstring).
EXCLUDED_PATHS = r'^/os-hosts/[^/]+(/(startup|shutdown|reboot))?$' \
                 r'|^/os-hypervisors/[^/]+/uptime$'


# How often a path parameter of a seeded resource names one (the rest
# are generated).
SEEDED_PROBABILITY = 0.5
ADMIN = 'admin:admin'


def _create(api, path, body, key):
    """POST ``body`` to ``path``; the created ``key`` object's id."""
    status, _headers, answer = api.post(path, body)
    if status not in (200, 201, 202):
        raise RuntimeError('could not create the %s to fuzz with: %s %s'
                           % (key, status, answer))
    return answer[key]['id']


def _wait_built(api, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _status, _headers, body = api.get('/servers/detail')
        if all(s['status'] != 'BUILD' for s in body['servers']):
            return
        time.sleep(0.5)


def seed(deploy, image_id):
    """Create what the runs name in their paths; return {parameter:
    [values]} of what is the same at every version."""
    api = deploy.api.as_user(ADMIN)
    flavor = _create(api, '/flavors', {'flavor': {
        'name': 'fuzz', 'id': 'fuzz', 'ram': 64, 'vcpus': 1,
        'disk': 1}}, 'flavor')
    api.post('/os-keypairs', {'keypair': {'name': 'fuzz'}})
    aggregate = _create(api, '/os-aggregates', {'aggregate': {
        'name': 'fuzz'}}, 'aggregate')
    group = _create(api, '/os-server-groups', {'server_group': {
        'name': 'fuzz', 'policies': ['anti-affinity']}}, 'server_group')
    # Several: a run may delete one early.
    servers = [_create(api, '/servers', {'server': {
        'name': 'fuzz-%d' % n, 'imageRef': image_id, 'flavorRef': flavor,
        'metadata': {'fuzz': 'yes'}}}, 'server') for n in range(3)]
    _wait_built(api)
    _status, _headers, services = api.get('/os-services')
    return {
        'server_id': servers, 'flavor_id': [flavor],
        'keypair_name': ['fuzz'], 'aggregate_id': [aggregate],
        'group_id': [group], 'image_id': [image_id],
        'tenant_id': ['admin'], 'class_name': ['default'],
        'key': ['fuzz'],
        'host_name': sorted({s['host'] for s in services['services']}),
    }


def seeded_at(deploy, version, values):
    """``values`` plus the ids that change with the version (hypervisors
    are named by integer before 2.53, by uuid after; PUT
    /os-services/{service_id} takes an action before 2.53, a service's
    uuid after)."""
    api = deploy.api.as_user(ADMIN)
    headers = {'OpenStack-API-Version': 'compute %s' % version}
    hypervisors = api.get('/os-hypervisors', headers=headers)[2]
    services = api.get('/os-services', headers=headers)[2]
    service_ids = [s['id'] for s in services['services']]
    if all(isinstance(s, int) for s in service_ids):
        service_ids += ['enable', 'disable', 'disable-log-reason',
                        'force-down']
    return dict(values, hypervisor_id=[
        h['id'] for h in hypervisors['hypervisors']],
        service_id=service_ids)


def config_file(workdir, version, values):
    """A schemathesis.toml binding each seeded path parameter to a
    dictionary of its values; its path. A parameter with no value left
    (an earlier run deleted the compute service, say) is not bound."""
    values = {name: found for name, found in values.items() if found}
    lines = []
    for name, found in sorted(values.items()):
        lines += ['[dictionaries.%s]' % name,
                  'values = %s' % json.dumps([str(v) for v in found]), '']
    lines.append('[parameters]')
    for name in sorted(values):
        lines.append('"path.%s" = { dictionary = "%s", probability = %s }'
                     % (name, name, SEEDED_PROBABILITY))
    path = os.path.join(workdir, 'schemathesis-%s.toml' % version)
    with open(path, 'w') as out:
        out.write('\n'.join(lines) + '\n')
    return path


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', default='postgresql',
                        choices=('postgresql', 'mysql', 'sqlite'))
    parser.add_argument('--versions', default='2.1,2.100',
                        help='comma-separated microversions to fuzz, '
                             'one run each')
    parser.add_argument('--max-examples', type=int, default=15,
                        help='test cases per operation and phase')
    parser.add_argument('--max-time', type=int, default=120,
                        help='seconds all the runs may take together '
                             '(split evenly between the versions)')
    parser.add_argument('--seed', type=int, default=1,
                        help='fixed, so a run can be repeated')
    parser.add_argument('extra', nargs='*',
                        help='more arguments for schemathesis run')
    return parser.parse_args(argv)


def versions(args):
    return [v.strip() for v in args.versions.split(',') if v.strip()]


def time_per_version(args):
    return max(1, args.max_time // len(versions(args)))


def schemathesis_argv(args, endpoint, version, config=None):
    # The header also goes with the request for the document, which
    # then describes that version.
    return [os.path.join(deployment.BIN, 'schemathesis'),
            *(('--config-file', config) if config else ()), 'run',
            endpoint + '/openapi.json',
            '--checks', ','.join(CHECKS),
            '--exclude-path-regex', EXCLUDED_PATHS,
            '--header', 'X-Auth-Token: %s' % ADMIN,
            '--header', 'OpenStack-API-Version: compute %s' % version,
            '--max-examples', str(args.max_examples),
            '--max-time', str(time_per_version(args)),
            '--seed', str(args.seed),
            '--workers', '1', '--request-timeout', '30',
            '--phases', 'examples,coverage,fuzzing',
            '--suppress-health-check', 'all',
            *args.extra]


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix='nl-fuzz-') as workdir:
        deploy = deployment.Deployment(workdir, backend=args.backend)
        try:
            deploy.start()
            values = seed(deploy, deploy.register_image())
            endpoint = 'http://127.0.0.1:%d/v2.1' % deploy.port
            failed = 0
            for version in versions(args):
                config = config_file(workdir, version,
                                     seeded_at(deploy, version, values))
                print('== schemathesis at microversion %s' % version,
                      flush=True)
                # Bounded twice: by --max-time and, should it overrun (a
                # hung request), by a hard timeout here.
                # In workdir: schemathesis keeps a cache in its cwd.
                result = subprocess.run(
                    schemathesis_argv(args, endpoint, version, config),
                    cwd=workdir,
                    timeout=time_per_version(args) + 120)
                failed = failed or result.returncode
            codes = deploy.stop()
            unclean = {name: code for name, code in codes.items() if code}
            if unclean:
                print('daemons did not stop cleanly: %s' % unclean)
                print(deploy.logs())
                return 1
            return failed
        finally:
            deploy.cleanup()
