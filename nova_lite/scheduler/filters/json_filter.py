"""JsonFilter: a filter written by the requester, as a JSON query hint.

    --hint query='["and", [">=", "$free_ram_mb", 1024],
                          ["in", "$hypervisor_type", "fake", "qemu"]]'

A query is a list: an operator, then arguments. An argument is a nested
query, a number, a string, or a ``$variable``: a HostState attribute,
with ``.key`` to index into a dict attribute (``$stats.num_instances``).
Arguments that evaluate to None (an unknown variable) are dropped.
``$host_ip`` is an IP address object, as in Nova: it compares equal only
to another address (``["=", "$host_ip", "$host_ip"]``), never to a
string, and a comparison of order with a string is false.
"""

import functools
import ipaddress
import json
import operator

from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import partitions


def _compare(op):
    def check(args):
        # The first argument against each of the others; needs two.
        if len(args) < 2:
            return False
        try:
            return all(op(args[0], arg) for arg in args[1:])
        except TypeError:
            return False
    return check


def _in(args):
    return len(args) >= 2 and args[0] in args[1:]


COMMANDS = {
    '=': _compare(operator.eq),
    '<': _compare(operator.lt),
    '>': _compare(operator.gt),
    '<=': _compare(operator.le),
    '>=': _compare(operator.ge),
    'in': _in,
    # "not" negates each argument; a list result passes when any is true.
    'not': lambda args: [not arg for arg in args],
    'or': any,
    'and': all,
}


def _host_ip(value):
    """The host's address as Nova's HostState holds it: an IP address
    object, which equals no string and orders against none, so
    ``["=", "$host_ip", "10.0.0.1"]`` is false on every host, as in
    Nova."""
    if isinstance(value, str):
        try:
            return ipaddress.ip_address(value)
        except ValueError:
            return value
    return value


def _variable(text, host_state):
    path = text[1:].split('.')
    value = getattr(host_state, path[0], None)
    if path[0] == 'host_ip':
        value = _host_ip(value)
    for key in path[1:]:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def evaluate(query, host_state):
    """The value of ``query`` for ``host_state``. Raises KeyError for an
    unknown operator and ValueError for a query that is not a list."""
    if not query:
        return True
    if not isinstance(query, list):
        raise ValueError('a query is a list, not %r' % (query,))
    command = COMMANDS[query[0]]
    args = []
    for arg in query[1:]:
        if isinstance(arg, list):
            arg = evaluate(arg, host_state)
        elif arg == '':
            arg = None
        elif isinstance(arg, str) and arg.startswith('$'):
            arg = _variable(arg, host_state)
        if arg is not None:
            args.append(arg)
    return command(args)


def variables(query):
    """The ``$variable`` names a query reads, in order, once each."""
    found = []
    for arg in query[1:] if isinstance(query, list) else ():
        names = (variables(arg) if isinstance(arg, list) else
                 [arg] if isinstance(arg, str) and arg.startswith('$')
                 else [])
        found.extend(name for name in names if name not in found)
    return found


def variables_key(names, host_state):
    """The values (with their types) the variables have on a host."""
    key = []
    for name in names:
        value = _variable(name, host_state)
        key.append((type(value).__name__, partitions.freeze(value)))
    return tuple(key)


class JsonFilter(rules.RuleFilter):
    """Passes hosts for which the ``query`` scheduler hint is true (see
    the module docstring for its grammar and operators ``=``, ``<``,
    ``>``, ``in``, ``<=``, ``>=``, ``not``, ``or``, ``and``). A list
    result (from ``not``) is true when any item is. No query passes every
    host; a malformed one rejects every host, saying why. Rejection
    reasons: "fail query", "bad query: <why>".
    """

    RUN_ON_REBUILD = False

    def parse_request(self, spec_obj):
        """(query text, query)."""
        text = spec_obj.get_scheduler_hint('query')
        if not text:
            return rules.EVERY_HOST
        try:
            if not isinstance(text, str):
                raise ValueError('give one query hint, not %d' % len(text))
            return text, json.loads(text)
        except ValueError as exc:
            return rules.Refused('bad query: %s' % exc)

    def failure(self, host_state, request):
        try:
            result = evaluate(request[1], host_state)
        except KeyError as exc:
            return 'bad query: unknown operator %s' % exc
        except ValueError as exc:
            return 'bad query: %s' % exc
        if isinstance(result, list):
            result = any(result)
        return None if result else 'fail query'

    def partition(self, request):
        names = tuple(variables(request[1]))
        return ('query', names), functools.partial(variables_key, names)

    def cache_key(self, request):
        return partitions.freeze(request[0])
