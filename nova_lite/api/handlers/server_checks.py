"""Checks of a server create (or update) body that depend on the
microversion, beyond what the schema says (see schemas/servers.py)."""

from nova_lite.api.schemas import server_tags as tag_schema
from nova_lite.api import validation
from nova_lite import exception


def _at(req, version):
    return req.api_version_request.matches(version)


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


def check_device_tags(req, server):
    """Device ``tag``s at create: in ``networks`` items from 2.32, in
    ``block_device_mapping_v2`` items at 2.32 and from 2.42 (Nova lost
    them from 2.33 to 2.41); 400 elsewhere. They are accepted and kept
    nowhere: nova_lite has no metadata service or config drive to show
    them in (and no networks or volumes to tag)."""
    networks = server.get('networks')
    for item in networks if isinstance(networks, list) else ():
        if isinstance(item, dict) and 'tag' in item:
            if not _at(req, '2.32'):
                raise exception.ValidationError(
                    detail='a tag in networks needs microversion 2.32')
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
