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

The routes that answer 501 by design, because nova_lite's computes
cannot do what Nova's drivers do (os-hosts power actions and update,
hypervisor uptime), are left out: the no-5xx check would flag them.
"""

import argparse
import os
import subprocess
import sys
import tempfile

from tests.functional import deployment

CHECKS = ('not_a_server_error', 'status_code_conformance',
          'content_type_conformance', 'response_schema_conformance')
# 501 by design (see the module docstring).
EXCLUDED_PATHS = r'^/os-hosts/[^/]+(/(startup|shutdown|reboot))?$' \
                 r'|^/os-hypervisors/[^/]+/uptime$'


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


def schemathesis_argv(args, endpoint, version):
    # The header also goes with the request for the document, which
    # then describes that version.
    return [os.path.join(deployment.BIN, 'schemathesis'), 'run',
            endpoint + '/openapi.json',
            '--checks', ','.join(CHECKS),
            '--exclude-path-regex', EXCLUDED_PATHS,
            '--header', 'X-Auth-Token: admin:admin',
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
            deploy.register_image()
            endpoint = 'http://127.0.0.1:%d/v2.1' % deploy.port
            failed = 0
            for version in versions(args):
                print('== schemathesis at microversion %s' % version,
                      flush=True)
                # Bounded twice: by --max-time and, should it overrun (a
                # hung request), by a hard timeout here.
                # In workdir: schemathesis keeps a cache in its cwd.
                result = subprocess.run(
                    schemathesis_argv(args, endpoint, version), cwd=workdir,
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
