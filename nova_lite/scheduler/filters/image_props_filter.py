"""ImagePropertiesFilter: hosts that can run the image's architecture,
hypervisor type, hypervisor version and VM mode."""

import json
import operator
import re

from nova_lite.conf import CONF
from nova_lite.scheduler.filters import rules
from nova_lite.scheduler import partitions
from nova_lite.scheduler import utils

# Old spellings mapped to the canonical names, as Nova canonicalizes them.
_ARCH_ALIASES = {'i386': 'i686', 'i486': 'i686', 'i586': 'i686',
                 'x86_32': 'i686', 'x86_32p': 'i686', 'amd64': 'x86_64'}
_HV_ALIASES = {'xapi': 'xen'}
_VM_MODE_ALIASES = {'pv': 'xen', 'hv': 'hvm', 'baremetal': 'hvm'}
# "qemu is used for both the QEMU and KVM hypervisor types" (seed 000).
_HV_EQUIVALENTS = {'qemu': ('qemu', 'kvm'), 'kvm': ('kvm', 'qemu')}

_PREDICATE = re.compile(r'^\s*(<=|>=|==|!=|<|>)\s*([0-9][0-9.]*)\s*$')
_COMPARE = {'<': operator.lt, '<=': operator.le, '==': operator.eq,
            '!=': operator.ne, '>': operator.gt, '>=': operator.ge}


def _canonical(value, aliases):
    if not value:
        return None
    value = str(value).lower()
    return aliases.get(value, value)


def supported_instances(host_state):
    """[(arch, hv_type, vm_mode)] the host can run.

    ``host_state.supported_instances`` when the host reports it; else
    derived from ``cpu_info['arch']`` and ``hypervisor_type``, HVM only.
    """
    reported = getattr(host_state, 'supported_instances', None)
    if reported:
        return [(_canonical(arch, _ARCH_ALIASES),
                 _canonical(hv_type, _HV_ALIASES),
                 _canonical(vm_mode, _VM_MODE_ALIASES))
                for arch, hv_type, vm_mode in reported]
    try:
        arch = json.loads(host_state.cpu_info or '{}').get('arch')
    except (TypeError, ValueError, AttributeError):
        arch = None
    hv_type = _canonical(host_state.hypervisor_type, _HV_ALIASES)
    arch = _canonical(arch, _ARCH_ALIASES)
    return [(arch, hv, 'hvm') for hv in _HV_EQUIVALENTS.get(hv_type,
                                                            (hv_type,))]


def _supports(item, wanted):
    """Whether a supported (arch, hv_type, vm_mode) offers every part of
    ``wanted`` that is not None.

    Each wanted value is looked for anywhere in the triple, not at its
    own position, as Nova does: "xen" is both a hypervisor type and a VM
    mode, and an image asking for VM mode "xen" passes a host offering
    hypervisor type "xen".
    """
    return all(w is None or w in item for w in wanted)


def _version_tuple(text):
    return tuple(int(part) for part in text.split('.') if part != '')


def _int_to_tuple(version):
    # Nova packs versions as major*1000000 + minor*1000 + micro.
    parts = []
    while version:
        version, part = divmod(version, 1000)
        parts.insert(0, part)
    return tuple(parts) or (0,)


def version_satisfied(requirement, hypervisor_version):
    """True when ``hypervisor_version`` (an int) meets ``requirement``,
    one or more comma-separated "<op> <version>" predicates.

    The host's version is unpacked as Nova packs it (6002 -> 6.2) and
    every operand is read as a version, a plain integer included: "< 7"
    is "< 7.0", so a 6.2 host meets ">= 6.2, < 7", and ">=6000" asks for
    version 6000, not for the packed integer 6000. Missing trailing
    parts count as 0. Raises ValueError for a malformed requirement.
    """
    have = _int_to_tuple(hypervisor_version)
    for predicate in str(requirement).split(','):
        found = _PREDICATE.match(predicate)
        if found is None:
            raise ValueError('bad version predicate %r' % predicate)
        op, wanted = found.groups()
        wanted = _version_tuple(wanted)
        width = max(len(have), len(wanted))
        if not _COMPARE[op](have + (0,) * (width - len(have)),
                            wanted + (0,) * (width - len(wanted))):
            return False
    return True


def host_key(host_state):
    """What ``ImagePropertiesFilter`` reads of a host."""
    return (partitions.freeze(getattr(host_state, 'supported_instances',
                                      None)),
            partitions.freeze(host_state.cpu_info),
            host_state.hypervisor_type, host_state.hypervisor_version)


class ImagePropertiesFilter(rules.RuleFilter):
    """Passes hosts that support the image's ``hw_architecture``,
    ``img_hv_type`` and ``hw_vm_mode`` (the old names ``architecture``,
    ``hypervisor_type`` and ``vm_mode`` are mapped when the image is
    read) and, for such an image, whose ``hypervisor_version`` meets
    ``img_hv_requested_version`` (e.g. ">= 6.2, < 7").

    An image naming no architecture gets ``[filter_scheduler]
    image_properties_default_architecture`` when set (a volume-backed
    request too, as in Nova). An image naming no architecture (after the
    default), hypervisor type or VM mode passes every host, whatever its
    ``img_hv_requested_version``: Nova checks the version only against
    the supported instances matching those properties. Requested values
    must all be offered by one entry of the host's supported instances;
    a host that reports no ``hypervisor_version`` passes any version
    requirement, as in Nova. Rejection reasons: "cannot run
    <arch>/<hv>/<mode>", "hypervisor version does not meet <req>", "bad
    img_hv_requested_version".
    """

    RUN_ON_REBUILD = True
    run_filter_once_per_request = True

    def parse_request(self, spec_obj):
        """((arch, hv_type, vm_mode) wanted, img_hv_requested_version)."""
        arch = utils.image_prop(
            spec_obj, 'hw_architecture',
            CONF.filter_scheduler.image_properties_default_architecture)
        wanted = (_canonical(arch, _ARCH_ALIASES),
                  _canonical(utils.image_prop(spec_obj, 'img_hv_type'),
                             _HV_ALIASES),
                  _canonical(utils.image_prop(spec_obj, 'hw_vm_mode'),
                             _VM_MODE_ALIASES))
        if not any(wanted):
            return rules.EVERY_HOST
        return wanted, utils.image_prop(spec_obj,
                                        'img_hv_requested_version')

    def failure(self, host_state, request):
        wanted, required = request
        if not any(_supports(item, wanted)
                   for item in supported_instances(host_state)):
            return 'cannot run %s' % '/'.join(w or '*' for w in wanted)
        version = host_state.hypervisor_version
        if not (required and version):
            return None
        try:
            if version_satisfied(required, int(version)):
                return None
        except ValueError:
            return 'bad img_hv_requested_version %r' % required
        return 'hypervisor version does not meet %s' % required

    def partition(self, request):
        return 'image_properties', host_key
