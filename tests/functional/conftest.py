"""Functional tests: real databases, RabbitMQ and daemon processes."""

import pytest

from tests.functional import deployment


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
        deploy.cleanup()
        raise
    return deploy
