"""Policy enforcement: oslo.policy over the defaults in nova_lite/policies.

``authorize(context, action, target)`` is the one check the API makes
(usually through ``context.can``). Operators override rules in the file
named by ``[oslo_policy] policy_file`` (default policy.yaml, found next to
the config files); rules not overridden keep their defaults.
"""

import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
from oslo_policy import policy

from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite import policies

LOG = logging.getLogger(__name__)

_ENFORCER = None
_LOCK = threading.Lock()
# Seconds between two looks for a changed policy file.
RELOAD_CHECK_INTERVAL = 1.0


class _Enforcer(policy.Enforcer):
    """oslo.policy's enforcer, looking for a changed policy file at most
    every ``RELOAD_CHECK_INTERVAL`` seconds rather than at every check:
    each look searched the config directories for the file and walked
    every registered rule, a tenth of the API's CPU for a server create.
    An operator's edit still applies without a restart, within the
    interval."""

    _next_look = 0.0

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or not self.rules or now >= self._next_look:
            super().load_rules(force_reload=force_reload)
            self._next_look = now + RELOAD_CHECK_INTERVAL


def reset():
    """Forget the enforcer (tests; rules are re-read on next use)."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is not None:
            _ENFORCER.clear()
        _ENFORCER = None


def init(policy_file=None, rules=None, default_rule=None, use_conf=True,
         suppress_deprecation_warnings=False):
    """Create the enforcer once per process and return it."""
    global _ENFORCER
    with _LOCK:
        if _ENFORCER is None:
            enforcer = _Enforcer(
                CONF, policy_file=policy_file, rules=rules,
                default_rule=default_rule, use_conf=use_conf)
            enforcer.suppress_deprecation_warnings = (
                suppress_deprecation_warnings)
            enforcer.register_defaults(policies.list_rules())
            enforcer.load_rules()
            _ENFORCER = enforcer
        return _ENFORCER


def authorize(context, action, target=None, fatal=True):
    """Check ``action`` for ``context`` against ``target``.

    ``target`` is a dict such as {'project_id': ..., 'user_id': ...};
    None means the context's own project and user. Returns True when
    allowed; when not, raises PolicyNotAuthorized (403) if ``fatal``, else
    returns False. An action without a registered rule raises
    oslo.policy's PolicyNotRegistered: a programming error.
    """
    enforcer = init()
    if target is None:
        target = {'project_id': context.project_id,
                  'user_id': context.user_id}
    try:
        return enforcer.authorize(action, target, context, do_raise=fatal,
                                  exc=exception.PolicyNotAuthorized,
                                  action=action)
    except policy.InvalidScope:
        LOG.debug('Policy check for %s failed with scope check', action)
        if fatal:
            raise exception.PolicyNotAuthorized(action=action)
        return False
    except exception.PolicyNotAuthorized:
        LOG.debug('Policy check for %s failed for user %s project %s',
                  action, context.user_id, context.project_id)
        raise


def check_is_admin(context):
    """True if ``context`` passes the ``context_is_admin`` rule."""
    enforcer = init()
    return enforcer.authorize('context_is_admin', {}, context,
                              do_raise=False)


def get_enforcer():
    """The enforcer for oslopolicy-* tools (oslo.policy.enforcer entry).

    Parses no command line of its own (the tools own sys.argv) but reads
    the default config files so ``[oslo_policy]`` options apply.
    """
    try:
        CONF.config_file  # noqa: B018 (raises until CONF is parsed)
    except cfg.NoSuchOptError:
        # Not parsed yet (we are inside an oslopolicy tool): read the
        # default config files. A caller that parsed CONF keeps its own.
        CONF([], project='nova_lite')
    return init()
