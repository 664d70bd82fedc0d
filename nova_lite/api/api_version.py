"""Microversions: which versions of the API this server speaks.

A client asks for one with ``OpenStack-API-Version: compute X.Y`` (or the
legacy ``X-OpenStack-Nova-API-Version: X.Y``); ``latest`` means the newest
here, and no header means the oldest, 2.1. Every response says which
version answered, and ``Vary`` tells caches the headers matter.

A new microversion is a line in ``VERSIONS`` with what changed, plus the
handler code that checks ``req.api_version_request.matches(...)``.
"""

import re

from nova_lite import exception

SERVICE_TYPE = 'compute'
HEADER = 'OpenStack-API-Version'
LEGACY_HEADER = 'X-OpenStack-Nova-API-Version'
VARY = '%s, %s' % (HEADER, LEGACY_HEADER)

# The table in doc/microversions.rst says the same for users. Raise the
# maximum only past versions whose changes to the resources nova_lite
# serves are all implemented; 2.3 changes servers (extended attributes).
VERSIONS = [
    # 2.1: the base of the v2.1 API in Nova's 2.1 shapes: servers,
    #      flavors (with extra specs and access), images (the proxy view),
    #      os-services, os-hypervisors, os-aggregates, os-server-groups,
    #      quota sets and classes, limits, os-availability-zone,
    #      os-simple-tenant-usage and os-hosts.
    '2.1',
    # 2.2: keypair types (ssh only here) and os-keypairs status codes
    #      (create 201, delete 204).
    '2.2',
]

_FORMAT = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


class APIVersionRequest:
    """A version "X.Y", comparable with others."""

    def __init__(self, version_string):
        match = _FORMAT.match(version_string or '')
        if not match:
            raise exception.InvalidAPIVersionString(version=version_string)
        self.ver_major = int(match.group(1))
        self.ver_minor = int(match.group(2))

    def _key(self):
        return (self.ver_major, self.ver_minor)

    def __eq__(self, other):
        return self._key() == other._key()

    def __lt__(self, other):
        return self._key() < other._key()

    def __le__(self, other):
        return self._key() <= other._key()

    def __gt__(self, other):
        return self._key() > other._key()

    def __ge__(self, other):
        return self._key() >= other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return 'APIVersionRequest(%s)' % self

    def __str__(self):
        return '%d.%d' % self._key()

    def matches(self, min_version=None, max_version=None):
        """True if this version is within [min_version, max_version]."""
        if min_version and self < APIVersionRequest(min_version):
            return False
        if max_version and self > APIVersionRequest(max_version):
            return False
        return True


def min_version():
    return APIVersionRequest(VERSIONS[0])


def max_version():
    return APIVersionRequest(VERSIONS[-1])


def requested_version_string(headers):
    """The compute version a request's headers ask for, or None."""
    value = headers.get(HEADER)
    if value:
        for item in value.split(','):
            parts = item.strip().split(None, 1)
            if len(parts) == 2 and parts[0].lower() == SERVICE_TYPE:
                return parts[1].strip()
    legacy = headers.get(LEGACY_HEADER)
    return legacy.strip() if legacy else None


def from_headers(headers):
    """The APIVersionRequest to serve a request with.

    Raises InvalidAPIVersionString (400) for a malformed version and
    InvalidGlobalAPIVersion (406) for one outside [min, max].
    """
    requested = requested_version_string(headers)
    if requested is None:
        return min_version()
    if requested.lower() == 'latest':
        return max_version()
    version = APIVersionRequest(requested)
    if not min_version() <= version <= max_version():
        raise exception.InvalidGlobalAPIVersion(
            req_ver=requested, min_ver=str(min_version()),
            max_ver=str(max_version()))
    return version


def add_headers(response, version):
    """Say which version answered (none if negotiation failed)."""
    if version is not None:
        response.headers[HEADER] = '%s %s' % (SERVICE_TYPE, version)
        response.headers[LEGACY_HEADER] = str(version)
    response.headers['Vary'] = VARY
    return response
