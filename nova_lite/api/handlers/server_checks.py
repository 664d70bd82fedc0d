"""Checks of a server create (or update) body that depend on the
microversion, beyond what the schema says (see schemas/servers.py)."""

from nova_lite.api.schemas import parameter_types as types
from nova_lite.api.schemas import server_tags as tag_schema
from nova_lite.api import validation
from nova_lite import exception


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
