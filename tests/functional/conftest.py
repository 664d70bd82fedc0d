"""Functional tests: real databases, RabbitMQ and daemon processes."""

import contextlib

import pytest

from tests.functional import deployment

# Modules start deployment after deployment: make each one's vhost while
# the tests before it run.
deployment.RabbitVhost.ahead = True


@pytest.fixture(scope='module')
def module_tmp(tmp_path_factory, request):
    return tmp_path_factory.mktemp(request.module.__name__.split('.')[-1])


def start_deployment(workdir, request, **kwargs):
    """Start a Deployment; on test failure print the daemons' logs."""
    deploy = deployment.Deployment(workdir, **kwargs)
    try:
        deploy.start()
    except Exception:
        print(deploy.logs())
        deploy.cleanup(wait=False)
        raise
    return deploy


@contextlib.contextmanager
def deployed(workdir, request, check_exit=True, **kwargs):
    """A started Deployment for the ``with`` block, stopped after it.

    If the block raises (its setup or a test body failed, or it was
    skipped), the deployment is stopped and removed and the error goes
    on. Otherwise it is stopped, its logs kept in ``final_logs`` and,
    with ``check_exit``, every daemon must have exited 0. A module that
    kills daemons on purpose passes ``check_exit=False``.
    """
    deploy = start_deployment(workdir, request, **kwargs)
    try:
        yield deploy
    except BaseException:
        deploy.stop()
        deploy.cleanup(wait=False)
        raise
    codes = deploy.stop()
    deploy.final_logs = deploy.logs()
    deploy.cleanup(wait=False)
    if check_exit:
        assert set(codes.values()) == {0}, 'unclean exit %s\n%s' % (
            codes, deploy.final_logs)


def add_flavors(deploy, flavors):
    """Create ``{name: {'ram': .., 'vcpus': .., 'disk': ..}}`` as the
    administrator; each flavor's id is its name unless given."""
    for name, spec in flavors.items():
        status, _, body = deploy.admin_api.post('/flavors', {'flavor': dict(
            {'name': name, 'id': name}, **spec)})
        assert status == 200, body
