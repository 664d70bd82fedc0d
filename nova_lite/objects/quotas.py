"""Quotas: the limits an administrator sets, written through the conductor.

The API reads limits and usage itself (``nova_lite.quota``), but it writes
only through the conductor: ``save`` and ``destroy`` are remotable, so in
the API process they travel as ``object_action`` calls.

    objects.Quotas(ctxt, project_id='p1', user_id=None, quota_class=None,
                   limits={'instances': 20}).save(force=False)
"""

from nova_lite.objects import base
from nova_lite.objects import fields
from nova_lite.quota import limits as quota_limits


@base.NovaLiteObjectRegistry.register
class Quotas(base.NovaLiteObject):
    """Limits of one scope: a quota class, or a project, or a user of a
    project ({resource: limit}, -1 unlimited)."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'quota_class': fields.StringField(nullable=True),
        'limits': fields.DictOfIntegersField(default={}),
    }

    def _scope(self):
        return {name: getattr(self, name) if self.obj_attr_is_set(name)
                else None
                for name in ('project_id', 'user_id', 'quota_class')}

    @base.remotable
    def save(self, force=False):
        """Write the limits. Raises QuotaResourceUnknown and, unless
        ``force``, QuotaLimitBelowUsage or QuotaLimitAboveProject (400s);
        nothing is written then."""
        quota_limits.set_limits(self._context, dict(self.limits),
                                force=force, **self._scope())
        self.obj_reset_changes()

    @base.remotable
    def destroy(self):
        """Drop the project's (or the user's) own limits: the next layer
        (class, configuration) applies again."""
        scope = self._scope()
        quota_limits.delete_limits(self._context, scope['project_id'],
                                   scope['user_id'])
