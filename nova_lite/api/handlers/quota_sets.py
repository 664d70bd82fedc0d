"""/os-quota-sets and /os-quota-class-sets: quota limits.

Project readers see their project's limits (and usage, with ``detail``);
administrators set limits per project, per user of a project
(``?user_id=``) or per quota class. Reads run here; writes go through the
conductor (``objects.Quotas``).

Nova's 2.1 quota set also names resources nova_lite has no such thing
for (key pairs, injected files, and the network ones Nova itself no
longer enforces): they show as -1 (unlimited), none in use, and values
given for them in an update are accepted and ignored, as Nova ignores
the network ones. From 2.36 the network ones (``NETWORK_RESOURCES``) are
gone from the quota sets (from the class sets at 2.50), from 2.57 the
injected-file ones from both (``REMOVED``); an update naming one gone is
a 400, as in Nova.
"""

from nova_lite.api import common
from nova_lite.api.schemas import quota_sets as schema
from nova_lite.api import validation
from nova_lite.api import wsgi
from nova_lite import exception
from nova_lite import objects
from nova_lite.policies import quota_sets as policies
from nova_lite.quota import limits as quota_limits
from nova_lite.quota import resources
from nova_lite.quota import usages


# Resources of Nova's 2.1 quota set that nothing limits here.
UNENFORCED = ('fixed_ips', 'floating_ips', 'injected_file_content_bytes',
              'injected_file_path_bytes', 'injected_files', 'key_pairs',
              'security_group_rules', 'security_groups')
UNLIMITED = -1
NETWORK_RESOURCES = ('fixed_ips', 'floating_ips', 'security_group_rules',
                     'security_groups')
INJECTED_FILE_RESOURCES = ('injected_file_content_bytes',
                           'injected_file_path_bytes', 'injected_files')
# (version, resources gone from it) of the quota sets and the class sets:
# the network ones with Nova's proxy APIs, injected files with
# personality.
REMOVED = {
    'quota_set': (('2.36', NETWORK_RESOURCES),
                  ('2.57', INJECTED_FILE_RESOURCES)),
    'quota_class_set': (('2.50', NETWORK_RESOURCES),
                        ('2.57', INJECTED_FILE_RESOURCES)),
}


def _unenforced(req, key='quota_set'):
    """The unenforced resources a quota (class) set shows at the
    version."""
    gone = set()
    for version, names in REMOVED[key]:
        if req.api_version_request.matches(version):
            gone.update(names)
    return tuple(r for r in UNENFORCED if r not in gone)


def _refuse_removed(req, values, key='quota_set'):
    """400 for an update naming a resource gone at the version."""
    gone = sorted((set(values) & set(UNENFORCED)) -
                  set(_unenforced(req, key)))
    if gone:
        raise exception.ValidationError(
            detail='Invalid input for field/attribute %s. Additional '
                   'properties are not allowed (%s) at microversion %s'
                   % (key, ', '.join(gone), req.api_version_request))


def _view(req, limits, key='quota_set', id_=None):
    """A quota set or class set, in the version's shape."""
    body = {} if id_ is None else {'id': id_}
    body.update({r: limits[r] for r in resources.ALL})
    body.update(dict.fromkeys(_unenforced(req, key), UNLIMITED))
    return {key: body}


def _user_id(req):
    return common.last_param(req, 'user_id') or None


def _limits(context, tenant_id, user_id):
    project, user = quota_limits.get_limits(context, tenant_id, user_id,
                                            context.quota_class)
    return user if user_id else project


def _authorize(req, action, tenant_id):
    context = req.context
    context.can(policies.QUOTA_SETS % action,
                target={'project_id': tenant_id})
    return context


@validation.query(schema.QUERY)
def show(req, tenant_id):
    """200 {"quota_set": {"id", resource: limit, ...}}: the project's
    limits, or with ?user_id= that user's."""
    context = _authorize(req, 'show', tenant_id)
    return wsgi.json_response(_view(
        req, _limits(context, tenant_id, _user_id(req)), id_=tenant_id))


@validation.query(schema.QUERY)
def detail(req, tenant_id):
    """200 {"quota_set": {"id", resource: {limit, in_use, reserved}}};
    absolute and countable resources show 0 in use and reserved."""
    context = _authorize(req, 'detail', tenant_id)
    user_id = _user_id(req)
    limits = _limits(context, tenant_id, user_id)
    used = usages.get_summary(context, tenant_id, user_id)
    body = {'id': tenant_id}
    for resource in resources.ALL:
        usage = used.get(resource, {'in_use': 0, 'reserved': 0})
        body[resource] = {'limit': limits[resource],
                          'in_use': usage['in_use'],
                          'reserved': usage['reserved']}
    for resource in _unenforced(req):
        body[resource] = {'limit': UNLIMITED, 'in_use': 0, 'reserved': 0}
    return wsgi.json_response({'quota_set': body})


def defaults(req, tenant_id):
    """200 {"quota_set": {"id", resource: limit}}: what a project without
    limits of its own gets."""
    context = _authorize(req, 'defaults', tenant_id)
    return wsgi.json_response(_view(req, quota_limits.get_defaults(context),
                                    id_=tenant_id))


def _given_limits(values):
    # The schema admits integers and strings of digits.
    return {key: int(value) for key, value in values.items()
            if key != 'force' and key not in UNENFORCED}


@validation.query(schema.QUERY)
@validation.body(schema.UPDATE)
def update(req, tenant_id, body):
    """200 {"quota_set": {resource: limit}} (no id, as Nova's 2.1): the
    limits after the change. 400 if a limit is below what is used and
    reserved or, for a user, above the project's, unless "force"."""
    context = _authorize(req, 'update', tenant_id)
    values = body['quota_set']
    _refuse_removed(req, values)
    user_id = _user_id(req)
    objects.Quotas(context=context, project_id=tenant_id, user_id=user_id,
                   quota_class=None,
                   limits=_given_limits(values)).save(
        force=common.to_bool(values.get('force', False)))
    return wsgi.json_response(_view(req,
                                    _limits(context, tenant_id, user_id)))


@validation.query(schema.QUERY)
def delete(req, tenant_id):
    """202, no body: the project's own limits (and its users'), or with
    ?user_id= that user's, are dropped; defaults apply again."""
    context = _authorize(req, 'delete', tenant_id)
    objects.Quotas(context=context, project_id=tenant_id,
                   user_id=_user_id(req), quota_class=None,
                   limits={}).destroy()
    return wsgi.json_response(status=202)


def _check_class_name(class_name):
    if not 0 < len(class_name) <= 255:
        raise exception.ValidationError(
            detail='A quota class name has 1 to 255 characters.')


def show_class(req, class_name):
    """200 {"quota_class_set": {"id", resource: limit}}."""
    context = req.context
    context.can(policies.QUOTA_CLASS_SETS % 'show', target={})
    _check_class_name(class_name)
    return wsgi.json_response(_view(
        req, quota_limits.get_class_limits(context, class_name),
        key='quota_class_set', id_=class_name))


@validation.body(schema.UPDATE_CLASS)
def update_class(req, class_name, body):
    """200 {"quota_class_set": {resource: limit}} (no id): the class's
    limits after the change."""
    context = req.context
    context.can(policies.QUOTA_CLASS_SETS % 'update', target={})
    _check_class_name(class_name)
    values = body['quota_class_set']
    _refuse_removed(req, values, 'quota_class_set')
    objects.Quotas(context=context, project_id=None, user_id=None,
                   quota_class=class_name,
                   limits=_given_limits(values)).save()
    return wsgi.json_response(_view(
        req, quota_limits.get_class_limits(context, class_name),
        key='quota_class_set'))
