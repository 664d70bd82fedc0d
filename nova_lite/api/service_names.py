"""The names services go by in the API: Nova's.

The daemons run and register as ``nova-lite-compute``,
``nova-lite-conductor`` and ``nova-lite-scheduler`` (the database, the
logs and the process list keep those names), but clients, tempest and
operators' scripts look for ``nova-compute`` and friends: the API shows
Nova's names and accepts both in filters and updates.
"""

_INTERNAL_PREFIX = 'nova-lite-'
_API_PREFIX = 'nova-'


def to_api(binary):
    """``nova-lite-compute`` -> ``nova-compute``; others unchanged."""
    if binary and binary.startswith(_INTERNAL_PREFIX):
        return _API_PREFIX + binary[len(_INTERNAL_PREFIX):]
    return binary


def from_api(binary):
    """``nova-compute`` (or ``nova-lite-compute``) -> the registered
    ``nova-lite-compute``; None stays None."""
    if (binary and binary.startswith(_API_PREFIX) and
            not binary.startswith(_INTERNAL_PREFIX)):
        return _INTERNAL_PREFIX + binary[len(_API_PREFIX):]
    return binary
