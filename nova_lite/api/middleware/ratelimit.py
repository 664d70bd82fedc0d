"""Per-user rate limiting with leaky buckets (seed 001).

Each ``Limit`` is a bucket for one verb and URL pattern: every matching
request pours ``request_value`` = unit / value seconds of water in, the
bucket drains one unit per second, and a request that would overflow its
``capacity`` (the unit, in seconds) is refused with the time until it
would fit. Every user has their own copy of the buckets.

Limits are written as a string (``[api] rate_limits``)::

    (POST, *, .*, 120, MINUTE);(POST, */servers, ^/servers, 120, MINUTE)

i.e. semicolon-separated parenthesised groups of verb, human-readable URI,
URI regex (matched from the start of the path below /v2.1, without the
/{project_id} prefix, with the query string), count and unit (SECOND,
MINUTE, HOUR or DAY). The regex cannot contain a comma.
"""

import collections
import copy
import math
import re
import threading
import time

import webob.dec

from nova_lite.api import faults
from nova_lite.api import wsgi
from nova_lite.conf import CONF
from nova_lite import exception

TIME_UNITS = {'SECOND': 1, 'MINUTE': 60, 'HOUR': 3600, 'DAY': 86400}
# Keyword prefix of per-user limits given to Limiter: limits.<user_id>.
LIMITS_PREFIX = 'limits.'


class Limit:
    """A leaky bucket for requests of ``verb`` whose URL matches ``regex``.

    Calling it with a request's verb and URL returns None when the request
    fits (or does not match), else the seconds to wait before it would.
    ``clock`` (seconds, like time.time) can be replaced for tests.
    """

    UNITS = {v: k for k, v in TIME_UNITS.items()}

    def __init__(self, verb, uri, regex, value, unit, clock=None):
        self.verb = verb
        self.uri = uri
        self.regex = regex
        self.value = int(value)
        self.unit = unit
        self.unit_string = self.display_unit().lower()
        self.remaining = int(value)
        if self.value <= 0:
            raise ValueError('Limit value must be > 0')
        self._regex = re.compile(regex)
        self.clock = clock or time.time
        self.last_request = None
        self.next_request = None
        self.water_level = 0
        self.capacity = self.unit
        self.request_value = float(self.capacity) / float(self.value)
        self.error_message = (
            'Only %(value)s %(verb)s request(s) can be made to %(uri)s '
            'every %(unit_string)s.' % self.__dict__)

    def __deepcopy__(self, memo):
        # Compiled patterns and clocks are shared; the bucket state is not.
        clone = copy.copy(self)
        memo[id(self)] = clone
        return clone

    def __call__(self, verb, url):
        if self.verb != verb or not self._regex.match(url):
            return None
        now = self.clock()
        if self.last_request is None:
            self.last_request = now
        leak_value = now - self.last_request
        self.water_level = max(self.water_level - leak_value, 0)
        self.water_level += self.request_value
        difference = self.water_level - self.capacity
        self.last_request = now
        if difference > 0:
            # Refused: the request's water does not stay in the bucket.
            self.water_level -= self.request_value
            self.next_request = now + difference
            return difference
        cap, water, val = self.capacity, self.water_level, self.value
        self.remaining = math.floor(((cap - water) / cap) * val)
        self.next_request = now
        return None

    def display_unit(self):
        return self.UNITS.get(self.unit, 'UNKNOWN')

    def display(self):
        """The limit as Nova's /limits shows a rate."""
        return {
            'verb': self.verb,
            'URI': self.uri,
            'regex': self.regex,
            'value': self.value,
            'remaining': int(self.remaining),
            'unit': self.display_unit(),
            'resetTime': int(self.next_request or self.clock()),
        }


class Limiter:
    """The buckets of every user, kept in memory.

    ``limits`` apply to every user; ``limits.<user_id>=<limit string>``
    keywords replace them for one user. Thread-safe: the API serves
    requests on a thread pool.
    """

    def __init__(self, limits, clock=None, **kwargs):
        self.clock = clock
        self.limits = self._with_clock(copy.deepcopy(limits))
        self.levels = collections.defaultdict(
            lambda: self._with_clock(copy.deepcopy(self.limits)))
        self._lock = threading.Lock()
        for key, value in kwargs.items():
            if key.startswith(LIMITS_PREFIX):
                username = key[len(LIMITS_PREFIX):]
                self.levels[username] = self._with_clock(
                    self.parse_limits(value))

    def _with_clock(self, limits):
        if self.clock is not None:
            for limit in limits:
                limit.clock = self.clock
        return limits

    def get_limits(self, username=None):
        """The displayed limits of ``username``."""
        with self._lock:
            return [limit.display() for limit in self.levels[username]]

    def check_for_delay(self, verb, url, username=None):
        """(delay seconds, error message) of the tightest refusing limit,
        or (None, None) when the request fits every limit.

        Every matching bucket is charged, as in the seed: a request
        refused by one limit still counts against the others it fits.
        """
        delays = []
        with self._lock:
            for limit in self.levels[username]:
                delay = limit(verb, url)
                if delay:
                    delays.append((delay, limit.error_message))
        if delays:
            delays.sort()
            return delays[0]
        return None, None

    @staticmethod
    def parse_limits(limits):
        """Parse a limit string (see the module docstring) into Limits.

        Raises ValueError naming what is wrong.
        """
        limits = limits.strip()
        if not limits:
            return []
        result = []
        for group in limits.split(';'):
            group = group.strip()
            if group[:1] != '(' or group[-1:] != ')':
                raise ValueError('Limit rules must be surrounded by '
                                 'parentheses')
            args = [a.strip() for a in group[1:-1].split(',')]
            if len(args) != 5:
                raise ValueError('Limit rules must contain the following '
                                 'arguments: verb, uri, regex, value, unit')
            verb, uri, regex, value, unit = args
            value = int(value)
            unit = unit.upper()
            if unit not in TIME_UNITS:
                raise ValueError('Invalid units specified')
            try:
                result.append(Limit(verb.upper(), uri, regex, value,
                                    TIME_UNITS[unit]))
            except re.error as exc:
                raise ValueError('Invalid regex %r: %s' % (regex, exc))
        return result


def limiter_from_conf(conf=CONF, clock=None):
    """A Limiter from ``[api] rate_limits`` and ``[api] user_rate_limits``.

    Raises ConfigInvalid naming the option and the problem.
    """
    try:
        limits = Limiter.parse_limits(conf.api.rate_limits)
    except ValueError as exc:
        raise exception.ConfigInvalid(
            reason='[api] rate_limits %r: %s' % (conf.api.rate_limits, exc))
    per_user = {}
    for item in conf.api.user_rate_limits:
        user, sep, value = item.partition('=')
        if not sep or not user.strip():
            raise exception.ConfigInvalid(
                reason='[api] user_rate_limits %r: expected USER=LIMITS'
                       % item)
        per_user[LIMITS_PREFIX + user.strip()] = value
    try:
        return Limiter(limits, clock=clock, **per_user)
    except ValueError as exc:
        raise exception.ConfigInvalid(
            reason='[api] user_rate_limits: %s' % exc)


class RateLimitingMiddleware(wsgi.Middleware):
    """Answers 429 ``overLimit`` with Retry-After when a bucket is full.

    Requests are counted per ``context.user_id``. Limits come from
    ``[api] rate_limits`` / ``user_rate_limits``, unless the paste section
    sets ``limits`` (and ``limits.<user_id>``) as in Nova's old
    api-paste.ini, or a ``limiter`` is given (tests). The user's current
    limits are left in ``environ['nova_lite.limits']``.
    """

    def __init__(self, application, limiter=None, limits=None,
                 **local_config):
        super().__init__(application)
        if limiter is None and limits is not None:
            per_user = {k: v for k, v in local_config.items()
                        if k.startswith(LIMITS_PREFIX)}
            try:
                limiter = Limiter(Limiter.parse_limits(limits), **per_user)
            except ValueError as exc:
                raise exception.ConfigInvalid(
                    reason='api-paste.ini [filter:ratelimit] limits: %s'
                           % exc)
        self._limiter = limiter or limiter_from_conf()

    @webob.dec.wsgify(RequestClass=wsgi.Request)
    def __call__(self, req):
        context = req.context
        username = context.user_id if context else None
        url = _limited_url(req, context)
        delay, error = self._limiter.check_for_delay(req.method, url,
                                                     username)
        if delay:
            retry_after = str(int(math.ceil(delay)))
            return faults.fault_response(
                429, 'This request was rate-limited.',
                headers={'Retry-After': retry_after},
                details=error, retryAfter=retry_after)
        req.environ[wsgi.LIMITS_KEY] = self._limiter.get_limits(username)
        return self.application


def _limited_url(req, context):
    """The path the limits see: below /v2.1, without /{project_id}."""
    path = req.path_info or '/'
    if context is not None and context.project_id:
        prefix = '/' + context.project_id
        if path == prefix or path.startswith(prefix + '/'):
            path = path[len(prefix):] or '/'
    if req.query_string:
        path += '?' + req.query_string
    return path
