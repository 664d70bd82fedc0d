"""Checks of a server create (or update) body that depend on the
microversion, beyond what the schema says (see schemas/servers.py)."""

from oslo_utils import strutils

from nova_lite.api import common
from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_tags as tag_schema
from nova_lite.api import validation
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import servers as policies


def _at(req, version):
    return req.api_version_request.matches(version)


def check_tags(req, server):
    """``tags`` at create are 2.52's: 400 before."""
    if 'tags' in server and not _at(req, '2.52'):
        raise exception.ValidationError(
            detail='tags at create need microversion 2.52')


def check_trusted_certs(req, server):
    """``trusted_image_certificates`` are 2.63's: 400 before."""
    if 'trusted_image_certificates' in server and not _at(req, '2.63'):
        raise exception.ValidationError(
            detail="Additional properties are not allowed "
                   "('trusted_image_certificates' was unexpected)")


def check_personality(req, server):
    """File injection (``personality``) is gone from 2.57: 400, as any
    unknown argument. Before, it is accepted and injects nothing (the
    fake driver has no files)."""
    if 'personality' in server and _at(req, '2.57'):
        raise exception.ValidationError(
            detail="Additional properties are not allowed ('personality' "
                   "was unexpected)")


def _unexpected(name):
    return exception.ValidationError(
        detail="Additional properties are not allowed ('%s' was "
               "unexpected)" % name)


def check_volume_type(req, server):
    """A ``volume_type`` in ``block_device_mapping_v2`` items is 2.67's
    (400 before). nova_lite has no block storage, so there is no volume
    type to find: as Nova with a volume service that has none, a named
    one is a 400; null or "" names none and is accepted."""
    for bdm in server.get('block_device_mapping_v2') or ():
        if 'volume_type' not in bdm:
            continue
        if not _at(req, '2.67'):
            raise _unexpected('volume_type')
        if bdm['volume_type']:
            raise exception.VolumeTypeNotFound(
                id_or_name=bdm['volume_type'])


def requested_destination(req, server, forced_host, forced_node):
    """(host, node) an administrator asked a new server to be built on
    (2.74's ``host`` and ``hypervisor_hostname``; 400 before), checked
    by the scheduler's filters unlike a forced host; (None, None) if
    none. 403 without policy ``compute:servers:create:requested_
    destination``; 400 with a ``zone:host:node`` zone too, or for a host
    or node that does not exist."""
    host = server.get('host')
    node = server.get('hypervisor_hostname')
    if not _at(req, '2.74'):
        for name in ('host', 'hypervisor_hostname'):
            if name in server:
                raise _unexpected(name)
        return None, None
    if not (host or node):
        return None, None
    context = req.context
    context.can(policies.REQUESTED_DESTINATION,
                target={'project_id': context.project_id,
                        'user_id': context.user_id})
    if forced_host or forced_node:
        raise exception.ValidationError(
            detail='One mechanism with host and/or hypervisor_hostname and '
                   'another mechanism with zone:host:node are mutually '
                   'exclusive.')
    _check_destination_exists(context, host, node)
    return host, node


def _check_destination_exists(context, host, node):
    try:
        if host and node:
            objects.ComputeNode.get_by_host_and_nodename(context, host, node)
        elif host:
            if not objects.ComputeNodeList.get_all_by_host(context, host):
                raise exception.ComputeNodeNotFound(node=host)
        else:
            objects.ComputeNode.get_by_nodename(context, node)
    except exception.ComputeNodeNotFound:
        raise exception.InvalidInput(
            reason=exception.ComputeHostNotFound(
                host=node or host).format_message())


def check_description(req, values):
    """A ``description`` is 2.19's: 400 before."""
    if 'description' in values and not _at(req, '2.19'):
        raise exception.ValidationError(
            detail='description needs microversion 2.19')


_TAG_VALIDATOR = validation._validator(tag_schema.TAG)


def _check_tag(tag, where):
    error = next(_TAG_VALIDATOR.iter_errors(tag), None)
    if error is not None:
        raise exception.ValidationError(
            detail='Invalid input for field/attribute tag of %s. %s'
            % (where, error.message))


def _network_tags(req):
    # Nova lost them at 2.37 (a bug) and gave them back at 2.42.
    return _at(req, '2.32') and (not _at(req, '2.37') or _at(req, '2.42'))


def check_device_tags(req, server):
    """Device ``tag``s at create: in ``networks`` items at 2.32 to 2.36
    and from 2.42, in ``block_device_mapping_v2`` items at 2.32 and from
    2.42 (Nova lost them from 2.33 and 2.37 to 2.41); 400 elsewhere.
    They are accepted and kept nowhere: nova_lite has no metadata service
    or config drive to show them in (and no networks or volumes to
    tag)."""
    networks = server.get('networks')
    for item in networks if isinstance(networks, list) else ():
        if isinstance(item, dict) and 'tag' in item:
            if not _network_tags(req):
                raise exception.ValidationError(
                    detail='a tag in networks needs microversion 2.32 to '
                           '2.36 or 2.42 and later')
            _check_tag(item['tag'], 'networks')
    bdm_tags = _at(req, '2.32') and (
        not _at(req, '2.33') or _at(req, '2.42'))
    for bdm in server.get('block_device_mapping_v2') or ():
        if 'tag' in bdm:
            if not bdm_tags:
                raise exception.ValidationError(
                    detail='a tag in block_device_mapping_v2 needs '
                           'microversion 2.32 or 2.42 and later')
            _check_tag(bdm['tag'], 'block_device_mapping_v2')


_UUID_VALIDATOR = validation._validator(types.uuid)


def check_networks(req, server):
    """``networks`` by microversion. Before 2.37 it is optional and a
    list; from 2.37 it is required, may be ``"auto"`` or ``"none"``, and
    an item's ``uuid`` must be a UUID. nova_lite has no network service,
    so every form boots servers without ports: "auto" has nothing to
    allocate from, and a listed network is not looked up (as before)."""
    networks = server.get('networks')
    if not _at(req, '2.37'):
        if isinstance(networks, str):
            raise exception.ValidationError(
                detail='networks "%s" needs microversion 2.37; give a list'
                       % networks)
        return
    if networks is None:
        raise exception.ValidationError(
            detail="'networks' is a required property from microversion "
                   '2.37: a list of networks, "auto" or "none"')
    for item in networks if isinstance(networks, list) else ():
        if 'uuid' in item and not _UUID_VALIDATOR.is_valid(item['uuid']):
            raise exception.ValidationError(
                detail='Invalid input for field/attribute uuid of '
                       'networks. Value: %s. Not a UUID.' % item['uuid'])


def locked_filter(req):
    """The ``locked`` list filter of 2.73 as a bool; 400 for a value that
    is not a boolean (as Nova)."""
    value = common.last_param(req, 'locked')
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.ValidationError(
            detail="Unrecognized value '%s' for 'locked' filter. Value must "
                   "be boolean." % value)


_HOSTNAME_VALIDATOR = validation._validator(types.hostname)


def check_hostname(req, values, max_count=1):
    """``hostname`` is 2.90's: 400 before. Until 2.93 it is a bare host
    name (the schema already checked the FQDN form of 2.94); one name
    cannot go to several servers (400 with max_count above 1)."""
    if 'hostname' not in values:
        return
    if not _at(req, '2.90'):
        raise exception.ValidationError(
            detail="Additional properties are not allowed ('hostname' was "
                   "unexpected)")
    hostname = values['hostname']
    if not _at(req, '2.94') and not _HOSTNAME_VALIDATOR.is_valid(hostname):
        raise exception.ValidationError(
            detail='Invalid input for field/attribute hostname. Value: %s. '
                   'A hostname is 2 to 63 letters, digits, "-" or "_" '
                   'until microversion 2.94' % hostname)
    if max_count > 1:
        raise exception.AmbiguousHostnameForMultipleInstances()
