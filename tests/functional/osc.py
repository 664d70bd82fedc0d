"""The stock ``openstack`` client, run in this process.

It is the shell the console script runs (``openstackclient.shell.
OpenStackShell``), with the same arguments and environment: on a shared,
loaded machine each CLI process spends seconds importing before it sends
a request, and the stock-client modules run well over a hundred
commands. test_keystone.py still runs the console script itself.
"""

import contextlib
import io
import logging
import os
from unittest import mock

from openstackclient.common import clientmanager
from openstackclient import shell
from osc_lib import clientmanager as osc_clientmanager


def _forget_clients():
    """Drop the clients the last command made.

    The client manager keeps each service's client (and so its token,
    endpoint and microversion) on its class, built once per process: a
    console script runs one command. The next command builds its own.
    """
    for cls in clientmanager.ClientManager.__mro__:
        for value in vars(cls).values():
            if isinstance(value, osc_clientmanager.ClientCache):
                value._handle = None


def run(argv, env):
    """Run ``openstack argv`` with exactly ``env`` as its environment;
    (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        with mock.patch.dict(os.environ, env, clear=True), \
                contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            # Built inside the redirection: cliff keeps the streams it
            # finds.
            code = shell.OpenStackShell().run(list(argv))
    finally:
        # Each run sets up console logging on the root logger.
        root.handlers[:] = handlers
        root.setLevel(level)
        _forget_clients()
    return code, out.getvalue(), err.getvalue()
