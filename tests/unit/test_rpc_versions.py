"""Each rpcapi and its manager agree on versions and methods."""

import inspect
import re

import pytest

from nova_lite.compute import rpcapi as compute_rpcapi
from nova_lite.conductor import rpcapi as conductor_rpcapi
from nova_lite.scheduler import rpcapi as scheduler_rpcapi

PAIRS = [
    (conductor_rpcapi, conductor_rpcapi.ConductorAPI,
     'nova_lite.conductor.manager', 'ConductorManager'),
    (scheduler_rpcapi, scheduler_rpcapi.SchedulerAPI,
     'nova_lite.scheduler.manager', 'SchedulerManager'),
    (compute_rpcapi, compute_rpcapi.ComputeAPI,
     'nova_lite.compute.manager', 'ComputeManager'),
]
IDS = ['conductor', 'scheduler', 'compute']


def _manager(module_name, class_name):
    module = __import__(module_name, fromlist=[class_name])
    return getattr(module, class_name)


@pytest.mark.parametrize('rpcapi,client,module,name', PAIRS, ids=IDS)
def test_manager_target_matches_rpcapi(rpcapi, client, module, name):
    assert _manager(module, name).target.version == rpcapi.RPC_VERSION


@pytest.mark.parametrize('rpcapi,client,module,name', PAIRS, ids=IDS)
def test_history_documents_current_version(rpcapi, client, module, name):
    history = re.findall(r'^\* (\d+\.\d+) - ', rpcapi.__doc__, re.M)
    assert history, 'no version history in %s' % rpcapi.__name__
    assert history[-1] == rpcapi.RPC_VERSION
    assert rpcapi.RPC_VERSION in rpcapi.VERSION_ALIASES.values()


@pytest.mark.parametrize('rpcapi,client,module,name', PAIRS, ids=IDS)
def test_every_client_method_has_an_endpoint(rpcapi, client, module, name):
    manager = _manager(module, name)
    for method, func in inspect.getmembers(client, inspect.isfunction):
        if "'%s'" % method not in inspect.getsource(func):
            continue  # a client-side helper, not an RPC method
        assert hasattr(manager, method), '%s.%s has no endpoint' % (name,
                                                                    method)
        client_args = list(inspect.signature(func).parameters)[2:]
        endpoint_args = list(inspect.signature(
            getattr(manager, method)).parameters)[2:]
        for arg in endpoint_args:
            if arg not in client_args:
                # An endpoint may take more (with defaults) than a client
                # sends, never less.
                assert inspect.signature(getattr(manager, method)) \
                    .parameters[arg].default is not inspect.Parameter.empty


@pytest.mark.parametrize('rpcapi,client,module,name', PAIRS, ids=IDS)
def test_every_method_names_the_version_it_sends(rpcapi, client, module,
                                                  name):
    """Sending the client's newest version by default would make a pinned
    client refuse methods that never changed."""
    for method, func in inspect.getmembers(client, inspect.isfunction):
        source = inspect.getsource(func)
        if "'%s'" % method in source:
            assert 'version=' in source, '%s.%s' % (client.__name__, method)
