"""The request context: who is asking, on behalf of which project.

It travels with every RPC message (see ``rpc.RequestContextSerializer``)
and is what policy checks, DB queries and logs look at.
"""

from oslo_context import context as o_context
from oslo_db.sqlalchemy import enginefacade

# The catalog entries a context carries over RPC: the services a
# conductor calls with the user's token (the image service).
RPC_CATALOG_TYPES = ('image',)


@enginefacade.transaction_context_provider
class RequestContext(o_context.RequestContext):
    """Security context and request information.

    ``read_deleted`` chooses what DB queries see: "no" (default), "yes" or
    "only" soft-deleted rows.
    """

    def __init__(self, user_id=None, project_id=None, is_admin=None,
                 read_deleted='no', remote_address=None, timestamp=None,
                 quota_class=None, user_name=None, project_name=None,
                 service_catalog=None, **kwargs):
        kwargs.setdefault('user_id', user_id)
        kwargs.setdefault('project_id', project_id)
        super().__init__(is_admin=is_admin, **kwargs)
        self.read_deleted = read_deleted
        self.remote_address = remote_address
        self.quota_class = quota_class
        self.user_name = user_name
        self.project_name = project_name
        self.service_catalog = service_catalog or []
        if self.is_admin is None:
            self.is_admin = 'admin' in (r.lower() for r in self.roles)

    @property
    def read_deleted(self):
        return self._read_deleted

    @read_deleted.setter
    def read_deleted(self, value):
        if value not in ('no', 'yes', 'only'):
            raise ValueError('read_deleted must be "no", "yes" or "only", '
                             'not %r' % value)
        self._read_deleted = value

    def to_dict(self):
        values = super().to_dict()
        values.update({
            'user_id': self.user_id,
            'project_id': self.project_id,
            'is_admin': self.is_admin,
            'read_deleted': self.read_deleted,
            'remote_address': self.remote_address,
            'quota_class': self.quota_class,
            'user_name': self.user_name,
            'project_name': self.project_name,
            'service_catalog': [
                entry for entry in self.service_catalog
                if entry.get('type') in RPC_CATALOG_TYPES],
        })
        return values

    @classmethod
    def from_dict(cls, values):
        return super().from_dict(
            values,
            user_id=values.get('user_id'),
            project_id=values.get('project_id'),
            is_admin=values.get('is_admin'),
            read_deleted=values.get('read_deleted', 'no'),
            remote_address=values.get('remote_address'),
            quota_class=values.get('quota_class'),
            user_name=values.get('user_name'),
            project_name=values.get('project_name'),
            service_catalog=values.get('service_catalog'),
        )

    def elevated(self, read_deleted=None):
        """Return an admin copy of this context."""
        ctx = self.__class__.from_dict(self.to_dict())
        ctx.is_admin = True
        if 'admin' not in ctx.roles:
            ctx.roles = list(ctx.roles) + ['admin']
        if read_deleted is not None:
            ctx.read_deleted = read_deleted
        return ctx

    def can(self, action, target=None, fatal=True):
        """Check policy ``action`` for this context (policy.authorize)."""
        from nova_lite import policy
        if target is None:
            target = {'project_id': self.project_id, 'user_id': self.user_id}
        return policy.authorize(self, action, target, fatal=fatal)


def get_admin_context(read_deleted='no'):
    """An admin context for services acting on their own behalf."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          roles=['admin'], read_deleted=read_deleted,
                          overwrite=False)


def get_context():
    """A context with no user: for tools and tests."""
    return RequestContext(user_id=None, project_id=None, is_admin=False,
                          overwrite=False)
