"""Quota limits: where they come from, and how they are changed.

A project's limit of a resource is the first of: the project's own
(``quotas``), the request's quota class, the class ``default``
(``quota_classes``), the ``[quota]`` option. A user's is their own
(``project_user_quotas``) or else the project's. -1 means unlimited.
"""

import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite import exception
from nova_lite.quota import engine
from nova_lite.quota import resources as quota_resources
from nova_lite.quota import usages

DEFAULT_CLASS = 'default'


def resolve(defaults, class_limits, project_limits, user_limits=None):
    """(project limits, user limits), each {resource: limit}, from the
    layers given most general first."""
    project = dict(defaults)
    for layer in class_limits:
        project.update(layer)
    project.update(project_limits)
    user = dict(project)
    user.update(user_limits or {})
    return project, user


def config_defaults():
    return {r: quota_resources.default_limit(r) for r in quota_resources.ALL}


def _rows(session, model, **filters):
    return dict(session.execute(
        sa.select(model.resource, model.hard_limit).filter_by(
            **filters)).all())


# The layers of a limit, most general first (``resolve`` applies them in
# this order).
_DEFAULT_CLASS, _CLASS, _PROJECT, _USER = range(4)
# Their numbers, for statements written elsewhere (``joined``).
DEFAULT_CLASS_LAYER, CLASS_LAYER, PROJECT_LAYER, USER_LAYER = (
    _DEFAULT_CLASS, _CLASS, _PROJECT, _USER)


def _layer(number, model, **filters):
    return sa.select(sa.literal(number).label('layer'), model.resource,
                     model.hard_limit).filter_by(**filters)


def _class_selects(quota_class):
    selects = [_layer(_DEFAULT_CLASS, models.QuotaClass,
                      class_name=DEFAULT_CLASS)]
    if quota_class and quota_class != DEFAULT_CLASS:
        selects.append(_layer(_CLASS, models.QuotaClass,
                              class_name=quota_class))
    return selects


def _read_layers(session, selects):
    """{layer: {resource: limit}} of every layer, in one statement."""
    layers = {layer: {} for layer in (_DEFAULT_CLASS, _CLASS, _PROJECT,
                                      _USER)}
    statement = sa.union_all(*selects) if len(selects) > 1 else selects[0]
    for layer, resource, limit in session.execute(statement):
        layers[layer][resource] = limit
    return layers


def _class_layers(session, quota_class):
    layers = _read_layers(session, _class_selects(quota_class))
    return [layers[_DEFAULT_CLASS], layers[_CLASS]]


def _all_layers(with_class, with_user):
    """The statement reading every layer, with bind parameters (b_class,
    b_project, b_user): built once per shape, since building it costs more
    CPU than running it."""
    selects = [_layer(_DEFAULT_CLASS, models.QuotaClass,
                      class_name=DEFAULT_CLASS)]
    if with_class:
        selects.append(_layer(_CLASS, models.QuotaClass,
                              class_name=sa.bindparam('b_class')))
    selects.append(_layer(_PROJECT, models.Quota,
                          project_id=sa.bindparam('b_project')))
    if with_user:
        selects.append(_layer(_USER, models.ProjectUserQuota,
                              project_id=sa.bindparam('b_project'),
                              user_id=sa.bindparam('b_user')))
    return sa.union_all(*selects)


_ALL_LAYERS = {}


def read_limits(session, project_id, user_id=None, quota_class=None):
    """(project limits, user limits) inside the caller's transaction.

    Every layer comes in one statement (a boot reads them all).
    """
    shape = (bool(quota_class and quota_class != DEFAULT_CLASS),
             user_id is not None)
    statement = _ALL_LAYERS.get(shape)
    if statement is None:
        statement = _ALL_LAYERS[shape] = _all_layers(*shape)
    return from_layers(session.execute(statement, {
        'b_class': quota_class, 'b_project': project_id,
        'b_user': user_id}), user_id is not None)


def from_layers(rows, with_user):
    """(project limits, user limits) from the (layer, resource, limit)
    rows of every layer (``with_user``: the user's layer was read)."""
    layers = {layer: {} for layer in (_DEFAULT_CLASS, _CLASS, _PROJECT,
                                      _USER)}
    for layer, resource, limit in rows:
        layers[layer][resource] = limit
    return resolve(config_defaults(),
                   [layers[_DEFAULT_CLASS], layers[_CLASS]],
                   layers[_PROJECT],
                   layers[_USER] if with_user else None)


@db_api.reader
def get_limits(context, project_id, user_id=None, quota_class=None):
    """(project limits, user limits) of every resource."""
    return read_limits(context.session, project_id, user_id, quota_class)


@db_api.reader
def get_defaults(context):
    """The limits a project without its own gets: class ``default`` over
    the configuration."""
    project, _user = resolve(config_defaults(),
                             _class_layers(context.session, None), {})
    return project


@db_api.reader
def get_class_limits(context, class_name):
    """The limits of a quota class (the configuration's where it has
    none; ``default`` under any other class)."""
    project, _user = resolve(config_defaults(),
                             _class_layers(context.session, class_name), {})
    return project


@db_api.reader
def has_user_limits(context, project_id, user_id):
    return bool(_rows(context.session, models.ProjectUserQuota,
                      project_id=project_id, user_id=user_id))


def _check_known(limits):
    unknown = sorted(set(limits) - set(quota_resources.ALL))
    if unknown:
        raise exception.QuotaResourceUnknown(unknown=', '.join(unknown))


def _upsert(session, model, limits, **scope):
    existing = {row.resource: row for row in session.scalars(
        sa.select(model).filter_by(**scope))}
    for resource, limit in sorted(limits.items()):
        row = existing.get(resource)
        if row is None:
            session.add(model(resource=resource, hard_limit=limit, **scope))
        else:
            row.hard_limit = limit
    session.flush()


def _validate(session, project_id, user_id, limits):
    """Refuse limits below what is used and reserved, and user limits
    above the project's."""
    project_limits, _user = read_limits(session, project_id)
    used = usages.summary(session, project_id, user_id,
                          quota_resources.RESERVABLE)
    for resource, limit in sorted(limits.items()):
        minimum = 0
        if resource in used:
            minimum = (used[resource]['in_use']
                       + used[resource]['reserved'])
        maximum = (project_limits[resource] if user_id is not None
                   else engine.UNLIMITED)
        engine.check_new_limit(resource, limit, minimum, maximum)


@usages.retry
@db_api.writer
def set_limits(context, limits, project_id=None, user_id=None,
               quota_class=None, force=False):
    """Set limits of a project, of a user in it, or of a quota class.

    Raises QuotaResourceUnknown (400) for an unknown resource and, unless
    ``force``, QuotaLimitBelowUsage / QuotaLimitAboveProject (400).
    """
    _check_known(limits)
    session = context.session
    if quota_class is not None:
        _upsert(session, models.QuotaClass, limits, class_name=quota_class)
        return
    if not force:
        _validate(session, project_id, user_id, limits)
    if user_id is None:
        _upsert(session, models.Quota, limits, project_id=project_id)
    else:
        _upsert(session, models.ProjectUserQuota, limits,
                project_id=project_id, user_id=user_id)


@db_api.writer
def delete_limits(context, project_id, user_id=None):
    """Drop a project's own limits (and its users'), or one user's:
    they fall back to the next layer."""
    session = context.session
    user_query = sa.delete(models.ProjectUserQuota).where(
        models.ProjectUserQuota.project_id == project_id)
    if user_id is not None:
        session.execute(user_query.where(
            models.ProjectUserQuota.user_id == user_id))
        return
    session.execute(user_query)
    session.execute(sa.delete(models.Quota).where(
        models.Quota.project_id == project_id))


def check_countable(context, project_id, user_id, resource, used, adding,
                    quota_class=None):
    """Raise OverQuota unless ``used`` + ``adding`` fits the caller's
    limit of a countable or absolute resource (``server_group_members``:
    ``used`` is the group's members now)."""
    if resource in quota_resources.RESERVABLE:
        raise exception.QuotaResourceUnknown(unknown=resource)
    project, user = get_limits(context, project_id, user_id, quota_class)
    checks = [engine.Check(resource, 'project', project[resource], used),
              engine.Check(resource, 'user', user[resource], used)]
    engine.how_many_fit({resource: adding}, 1, 1, checks)
