"""Quotas: limits written through the conductor (a remotable save)."""

from nova_lite import context as nl_context
from nova_lite import objects
from nova_lite.objects import base
from nova_lite.quota import limits as quota_limits


def test_save_writes_the_limits_of_its_scope(monkeypatch):
    calls = []
    monkeypatch.setattr(quota_limits, 'set_limits',
                        lambda ctxt, limits, **kw: calls.append((limits,
                                                                 kw)))
    ctxt = nl_context.RequestContext(user_id='admin', project_id='a')
    objects.Quotas(ctxt, project_id='p1', user_id='u1',
                   limits={'instances': 3}).save(force=True)
    objects.Quotas(ctxt, quota_class='default',
                   limits={'cores': 8}).save()
    assert calls == [
        ({'instances': 3}, {'force': True, 'project_id': 'p1',
                            'user_id': 'u1', 'quota_class': None}),
        ({'cores': 8}, {'force': False, 'project_id': None,
                        'user_id': None, 'quota_class': 'default'})]


def test_destroy_drops_the_scope_s_limits(monkeypatch):
    calls = []
    monkeypatch.setattr(quota_limits, 'delete_limits',
                        lambda ctxt, project, user: calls.append(
                            (project, user)))
    objects.Quotas(nl_context.get_admin_context(), project_id='p1',
                   user_id=None).destroy()
    assert calls == [('p1', None)]


def test_save_and_destroy_go_through_the_indirection_api(monkeypatch):
    """In the API process (read-only database) the writes are
    object_action calls to the conductor."""
    sent = []

    class Indirection:
        def object_action(self, context, objinst, objmethod, args, kwargs):
            sent.append((objinst.obj_name(), objmethod, kwargs))
            return {}, None

    monkeypatch.setattr(base.NovaLiteObject, 'indirection_api',
                        Indirection())
    quotas = objects.Quotas(nl_context.get_admin_context(),
                            project_id='p1', limits={'ram': 1})
    quotas.save(force=False)
    quotas.destroy()
    assert sent == [('Quotas', 'save', {'force': False}),
                    ('Quotas', 'destroy', {})]
