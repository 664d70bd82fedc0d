"""/os-keypairs: a user's key pairs (Nova's 2.1 and 2.2 shapes).

From 2.2 a key pair shows its ``type`` (only ``ssh`` here), create
answers 201 and delete 204 (2.1: 200 and 202). From 2.10 an
administrator may name another user: ``user_id`` in the create body or
the query of list, show and delete (policy checks that user). From 2.35
the list pages (``limit``, ``marker`` a name; ``keypairs_links`` when
a page is full); before, both are ignored, as Nova. From 2.92 a key
pair must be imported (``public_key`` required, no more generated keys)
and its name may also carry '@' and '.'.

Create generates an RSA key pair (the private key is in the response,
once, and never stored) or imports ``public_key``; either counts against
the user's ``key_pairs`` quota (403 past it), and a name the user already
has is a 409. Key pairs are per user: another user's are 404.
"""

from nova_lite.api import common
from nova_lite.api.schemas import keypairs as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import crypto
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import keypairs as policies

# The version from which keys are imported only, with wider names.
IMPORT_ONLY_VERSION = '2.92'
_NAME_V21 = validation._validator(schema.NAME)


def _can(req, action, user_id=None):
    """The context, once the caller may act on ``user_id``'s key pairs
    (the caller's own by default)."""
    context = req.context
    context.can(policies.KEYPAIRS % action,
                target={'user_id': user_id or context.user_id,
                        'project_id': context.project_id})
    return context


def _query_user(req):
    """The user named by ``?user_id=`` from 2.10 (ignored before), else
    the caller."""
    if req.api_version_request.matches('2.10'):
        user_id = common.last_param(req, 'user_id')
        if user_id:
            return user_id
    return req.context.user_id


def _at_2_2(req):
    return req.api_version_request.matches('2.2')


def _view(req, keypair, *names):
    if _at_2_2(req):
        names += ('type',)
    return {name: getattr(keypair, name) for name in names}


def _check_version(req, values):
    """400 for what the request's microversion does not take: a name
    with '@' or '.' or no public_key (from 2.92), a type before 2.2, a
    user_id before 2.10."""
    if req.api_version_request.matches(IMPORT_ONLY_VERSION):
        if 'public_key' not in values:
            raise exception.ValidationError(
                detail="'public_key' is a required property from "
                       'microversion %s: key pairs are imported, not '
                       'generated' % IMPORT_ONLY_VERSION)
    elif not _NAME_V21.is_valid(values['name']):
        raise exception.ValidationError(
            detail="Invalid input for field/attribute name. Value: %s. "
                   "Key pair names carry '@' or '.' only from "
                   'microversion %s' % (values['name'], IMPORT_ONLY_VERSION))
    if 'type' in values and not _at_2_2(req):
        raise exception.ValidationError(
            detail='keypair type needs microversion 2.2')
    if ('user_id' in values
            and not req.api_version_request.matches('2.10')):
        raise exception.ValidationError(
            detail='keypair user_id needs microversion 2.10')


@validation.body(schema.CREATE)
def create(req, body):
    """200 (2.2: 201) {"keypair": {name, public_key, fingerprint,
    user_id, (2.2) type, and private_key when generated (before 2.92)}};
    400 for a malformed or (from 2.92) missing public key, or an
    argument newer than the request, 409 for a taken name, 403 over
    quota."""
    values = body['keypair']
    _check_version(req, values)
    user_id = values.get('user_id') or req.context.user_id
    context = _can(req, 'create', user_id)
    private_key = None
    if values.get('public_key'):
        public_key = values['public_key'].strip()
        fingerprint = crypto.ssh_fingerprint(public_key)
    else:
        private_key, public_key, fingerprint = crypto.generate_key_pair()
    keypair = objects.KeyPair(
        context, name=values['name'], user_id=user_id,
        public_key=public_key, fingerprint=fingerprint, type='ssh')
    keypair.create()
    view = _view(req, keypair, 'name', 'public_key', 'fingerprint',
                 'user_id')
    if private_key is not None:
        view['private_key'] = private_key
    return wsgi.json_response({'keypair': view},
                              status=201 if _at_2_2(req) else 200)


@validation.query(schema.INDEX_QUERY)
def index(req):
    """200 {"keypairs": [{"keypair": {name, public_key, fingerprint}}]},
    by name; a page of them from 2.35 (400 for an unknown marker)."""
    user_id = _query_user(req)
    context = _can(req, 'index', user_id)
    paged = req.api_version_request.matches('2.35')
    limit, marker = (common.get_limit_and_marker(req) if paged
                     else (None, None))
    keypairs = objects.KeyPairList.get_by_user(
        context, user_id, limit=limit, marker=marker)
    body = {'keypairs': [
        {'keypair': _view(req, k, 'name', 'public_key', 'fingerprint')}
        for k in keypairs]}
    links = paged and common.collection_links(
        req, [{'name': k.name} for k in keypairs], 'os-keypairs',
        id_key='name')
    if links:
        body['keypairs_links'] = links
    return wsgi.json_response(body)


@validation.query(schema.USER_QUERY)
def show(req, keypair_name):
    """200 {"keypair": ...}; 404 if the caller has no such key pair."""
    user_id = _query_user(req)
    context = _can(req, 'show', user_id)
    keypair = objects.KeyPair.get_by_name(context, user_id, keypair_name)
    view = _view(req, keypair, 'name', 'public_key', 'fingerprint',
                 'user_id', 'id', 'deleted')
    view.update({'created_at': common.isotime_usec(keypair.created_at),
                 'updated_at': common.isotime_usec(keypair.updated_at),
                 'deleted_at': None})
    return wsgi.json_response({'keypair': view})


@validation.query(schema.USER_QUERY)
def delete(req, keypair_name):
    """202 (2.2: 204); 404 if the caller has no such key pair."""
    user_id = _query_user(req)
    context = _can(req, 'delete', user_id)
    keypair = objects.KeyPair.get_by_name(context, user_id, keypair_name)
    keypair.destroy()
    return wsgi.json_response(status=204 if _at_2_2(req) else 202)
