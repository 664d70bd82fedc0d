"""/os-keypairs: a user's key pairs (Nova's 2.1 and 2.2 shapes).

From 2.2 a key pair shows its ``type`` (only ``ssh`` here), create
answers 201 and delete 204 (2.1: 200 and 202).

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


def _can(req, action):
    context = req.context
    context.can(policies.KEYPAIRS % action,
                target={'user_id': context.user_id,
                        'project_id': context.project_id})
    return context


def _at_2_2(req):
    return req.api_version_request.matches('2.2')


def _view(req, keypair, *names):
    if _at_2_2(req):
        names += ('type',)
    return {name: getattr(keypair, name) for name in names}


@validation.body(schema.CREATE)
def create(req, body):
    """200 (2.2: 201) {"keypair": {name, public_key, fingerprint,
    user_id, (2.2) type, and private_key when generated}}; 400 for a
    malformed public key or a type given before 2.2, 409 for a taken
    name, 403 over quota."""
    context = _can(req, 'create')
    values = body['keypair']
    if 'type' in values and not _at_2_2(req):
        raise exception.ValidationError(
            detail='keypair type needs microversion 2.2')
    private_key = None
    if values.get('public_key'):
        public_key = values['public_key'].strip()
        fingerprint = crypto.ssh_fingerprint(public_key)
    else:
        private_key, public_key, fingerprint = crypto.generate_key_pair()
    keypair = objects.KeyPair(
        context, name=values['name'], user_id=context.user_id,
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
    by name."""
    context = _can(req, 'index')
    limit, marker = common.get_limit_and_marker(req)
    keypairs = objects.KeyPairList.get_by_user(
        context, context.user_id, limit=limit, marker=marker)
    return wsgi.json_response({'keypairs': [
        {'keypair': _view(req, k, 'name', 'public_key', 'fingerprint')}
        for k in keypairs]})


def show(req, keypair_name):
    """200 {"keypair": ...}; 404 if the caller has no such key pair."""
    context = _can(req, 'show')
    keypair = objects.KeyPair.get_by_name(context, context.user_id,
                                          keypair_name)
    view = _view(req, keypair, 'name', 'public_key', 'fingerprint',
                 'user_id', 'id', 'deleted')
    view.update({'created_at': common.isotime_usec(keypair.created_at),
                 'updated_at': common.isotime_usec(keypair.updated_at),
                 'deleted_at': None})
    return wsgi.json_response({'keypair': view})


def delete(req, keypair_name):
    """202 (2.2: 204); 404 if the caller has no such key pair."""
    context = _can(req, 'delete')
    keypair = objects.KeyPair.get_by_name(context, context.user_id,
                                          keypair_name)
    keypair.destroy()
    return wsgi.json_response(status=204 if _at_2_2(req) else 202)
