"""Schemas of /flavors/{id}/os-extra_specs, and what a spec may hold.

Request bodies: ``CREATE`` ({"extra_specs": {key: value}}) and
``UPDATE`` ({key: value}, one key). Keys are 1-255 of the characters
Nova allows; values are strings of at most 255 characters, or numbers and
booleans (stored as their string).

``validate(key, value, strict)`` then checks the value of a well-known
key against what the scheduler and the computes will read (as Nova's
validators from 2.86 do). Keys in a namespace nova_lite does not check
are accepted at every version. A key nova_lite does not know in one it
checks (``hw``, ``hw_rng``, ``hw_video``, ``os``, ``quota``) is accepted
below 2.86, as at Nova's 2.1, and refused from 2.86 (``strict``), as
Nova refuses it; the keys Nova knows there and nothing here reads are
accepted with any value.
"""

import re

import os_resource_classes
import os_traits

from nova_lite import exception

_KEY = r'^[a-zA-Z0-9-_:. ]{1,255}$'
_VALUE = {'type': ['string', 'number', 'boolean'], 'maxLength': 255}

CREATE = {
    'type': 'object',
    'properties': {
        'extra_specs': {
            'type': 'object',
            'patternProperties': {_KEY: _VALUE},
            'additionalProperties': False,
        },
    },
    'required': ['extra_specs'],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'patternProperties': {_KEY: _VALUE},
    'additionalProperties': False,
    'minProperties': 1,
    'maxProperties': 1,
}

_BOOL = ('true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 't', 'f',
         'y', 'n')


def _enum(*choices):
    def check(value):
        if value not in choices:
            return 'one of %s' % ', '.join(choices)
    return check


def _int(minimum=0):
    def check(value):
        if not re.fullmatch(r'-?[0-9]+', value) or int(value) < minimum:
            return 'an integer of at least %d' % minimum
    return check


def _bool(value):
    if value.lower() not in _BOOL:
        return 'a boolean (true, false, yes, no, 1, 0 ...)'


def _cpu_set(value):
    if not re.fullmatch(r'\^?[0-9]+(-[0-9]+)?(,\^?[0-9]+(-[0-9]+)?)*',
                        value.replace(' ', '')):
        return 'a CPU set such as "0-3,^2,6"'


def _page_size(value):
    if (value not in ('small', 'large', 'any') and
            not re.fullmatch(r'[0-9]+([KMG]i?B?)?', value, re.I)):
        return 'small, large, any or a size such as 2048 or 2MB'


_INT0, _INT1 = _int(0), _int(1)

# key -> check(value) returning what was expected, or None if fine.
_KNOWN = {
    'hw:cpu_policy': _enum('shared', 'dedicated', 'mixed'),
    'hw:cpu_thread_policy': _enum('prefer', 'isolate', 'require'),
    'hw:emulator_threads_policy': _enum('share', 'isolate'),
    'hw:cpu_sockets': _INT1, 'hw:cpu_cores': _INT1, 'hw:cpu_threads': _INT1,
    'hw:cpu_max_sockets': _INT1, 'hw:cpu_max_cores': _INT1,
    'hw:cpu_max_threads': _INT1,
    'hw:cpu_realtime': _bool, 'hw:cpu_realtime_mask': _cpu_set,
    'hw:cpu_dedicated_mask': _cpu_set,
    'hw:numa_nodes': _INT1,
    'hw:mem_page_size': _page_size,
    'hw:mem_encryption': _bool, 'hw:locked_memory': _bool,
    'hw:pci_numa_affinity_policy': _enum('required', 'preferred', 'legacy',
                                         'socket'),
    'hw:watchdog_action': _enum('none', 'pause', 'poweroff', 'reset',
                                'disabled'),
    'hw:boot_menu': _bool, 'hw:vif_multiqueue_enabled': _bool,
    'hw:pmu': _bool, 'hw:hide_hypervisor_id': _bool,
    'hw:virtio_packed_ring': _bool,
    'hw:serial_port_count': _INT0,
    'hw:tpm_version': _enum('1.2', '2.0'),
    'hw:tpm_model': _enum('tpm-tis', 'tpm-crb'),
    'hw:maxphysaddr_mode': _enum('emulate', 'passthrough'),
    'hw:maxphysaddr_bits': _INT1,
    'hw_rng:allowed': _bool, 'hw_rng:rate_bytes': _INT0,
    'hw_rng:rate_period': _INT0,
    'hw_video:ram_max_mb': _INT0,
    'group_policy': _enum('none', 'isolate'),
    'os:secure_boot': _enum('required', 'disabled', 'optional'),
}
# Keys Nova's validators know in the namespaces checked here that
# nothing in nova_lite reads: accepted with any value.
_UNREAD = frozenset((
    'hw:mem_encryption_model', 'hw:pmem', 'hw:tpm_secret_security',
    'hw:viommu_model', 'hw:sound_model', 'hw:usb_model',
    'hw:redirected_usb_ports', 'hw:ephemeral_encryption',
    'hw:ephemeral_encryption_format'))
# Namespaces whose every key nova_lite knows (strict from 2.86).
_CHECKED_NAMESPACES = ('hw', 'hw_rng', 'hw_video', 'os', 'quota')
_SHARES_LEVEL = re.compile(r'^quota:(cpu|memory|disk_io|vif)_shares_level$')
# Per-NUMA-node keys: hw:numa_cpus.0, hw:numa_mem.1 ...
_NUMA_NODE = {
    'hw:numa_cpus': _cpu_set,
    'hw:numa_mem': _INT0,
}
_QUOTA_INT = re.compile(
    r'^quota:(cpu_(shares|period|quota|limit|reservation)|'
    r'(disk|vif)_\w+|memory_\w+)$')
_RESOURCES = re.compile(r'^resources([1-9][0-9]*|_[a-zA-Z0-9_-]+)?:(.+)$')
_TRAIT = re.compile(r'^trait([1-9][0-9]*|_[a-zA-Z0-9_-]+)?:(.+)$')


def _resource_class(name, value):
    if not (name in os_resource_classes.STANDARDS or
            os_resource_classes.is_custom(name)):
        return ('a standard or CUSTOM_ resource class in the key, not %s'
                % name)
    return _INT0(value)


def _trait(name, value):
    if not (os_traits.is_custom(name) or name in os_traits.get_traits()):
        return 'a standard or CUSTOM_ trait in the key, not %s' % name
    return _enum('required', 'forbidden')(value)


def _check_for(key):
    """The check of a well-known key, or None."""
    if key in _KNOWN:
        return _KNOWN[key]
    prefix, dot, node = key.partition('.')
    if dot and prefix in _NUMA_NODE and node.isdigit():
        return _NUMA_NODE[prefix]
    if _SHARES_LEVEL.match(key):
        return _enum('custom', 'high', 'normal', 'low')
    if _QUOTA_INT.match(key):
        return _INT0
    for pattern, check in ((_RESOURCES, _resource_class),
                           (_TRAIT, _trait)):
        match = pattern.match(key)
        if match:
            return lambda value, name=match.group(2): check(name, value)
    return None


def _unknown(key):
    """True for a key nova_lite does not know in a namespace it checks."""
    namespace, colon, _name = key.partition(':')
    return (bool(colon) and namespace in _CHECKED_NAMESPACES
            and key not in _UNREAD)


def validate(key, value, strict=False):
    """Raise ValidationError (400) if ``value`` (a string) is not what the
    well-known ``key`` takes, or (``strict``, from 2.86) if ``key`` is
    unknown in a namespace whose keys are known; other keys pass."""
    check = _check_for(key)
    if check is None and strict and _unknown(key):
        raise exception.ValidationError(
            detail="Invalid extra spec %s: nova_lite knows no such key in "
                   "the '%s' namespace." % (key, key.partition(':')[0]))
    expected = check(value) if check else None
    if expected:
        raise exception.ValidationError(
            detail='Invalid extra spec %s=%s: expected %s.'
                   % (key, value, expected))
