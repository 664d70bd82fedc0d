"""The shape of a conductor workflow: steps, and what undoes them.

A task runs its steps in order (``_execute``); when one raises, the
steps already done are undone in reverse order (each registered its undo
with ``on_failure`` once it succeeded), then ``rollback(error)`` records
the outcome. Writes that must appear together are composed in one
transaction inside a step (see ``move_records``), so an undo never has a
half-written step to deal with.

A step that fails because the database went away (a restart, a failover)
is not retried, but its undos and the failure's records are: each is
retried across the blip for about ten seconds
(``db_api.retry_on_disconnect``), so the server ends where it started,
with a fault, instead of in the task state the step set. Undos must
therefore be safe to run again: compare-and-swap saves, idempotent
rollbacks.

Usage::

    class ResizeTask(TaskBase):
        def _execute(self):
            migration = self._start()
            self.on_failure(self._abandon)
            ...
"""

from oslo_log import log as logging

from nova_lite.db import api as db_api
from nova_lite import objects
from nova_lite.objects import instance_action

LOG = logging.getLogger(__name__)


class TaskBase:
    """Runs ``_execute``; on an exception runs the registered undos, newest
    first, then ``rollback(error)``, and re-raises nothing: a conductor
    task ends here (its outcome is in the records)."""

    def __init__(self, context, instance):
        self.context = context
        self.instance = instance
        self._undo = []

    def on_failure(self, undo):
        """Register ``undo()`` to run if a later step fails."""
        self._undo.append(undo)

    def execute(self):
        try:
            return self._execute()
        except Exception as exc:
            LOG.warning('%s of instance %s failed: %s',
                        type(self).__name__, self.instance.uuid,
                        _message(exc))
            while self._undo:
                undo = self._undo.pop()
                try:
                    db_api.retry_on_disconnect(undo)()
                except Exception:
                    LOG.exception('Undoing a step of %s for instance %s '
                                  'failed', type(self).__name__,
                                  self.instance.uuid)
            self.rollback(exc)
            return None

    def _execute(self):
        raise NotImplementedError()

    def rollback(self, error):
        """Record a failure (after the undos); nothing by default."""

    def record_fault(self, error):
        """An InstanceFault saying ``error`` (best effort)."""
        def create():
            objects.InstanceFault.from_exception(
                self.context, self.instance.uuid, error).create()
        try:
            db_api.retry_on_disconnect(create)()
        except Exception:
            LOG.exception('Recording the fault of instance %s failed',
                          self.instance.uuid)

    # Instance action events of this request (best effort: the record of
    # what happened never stops the work).

    def event_start(self, event):
        try:
            instance_action.InstanceActionEvent.event_start(
                self.context, self.instance.uuid, event)
        except Exception as exc:
            LOG.info('No action to record %s of instance %s under: %s',
                     event, self.instance.uuid, exc)

    def event_finish(self, event, error=None):
        kwargs = {}
        if error is not None:
            kwargs = {'result': instance_action.RESULT_ERROR,
                      'details': _message(error)}
        try:
            db_api.retry_on_disconnect(
                instance_action.InstanceActionEvent.event_finish)(
                self.context, self.instance.uuid, event, **kwargs)
        except Exception as exc:
            LOG.info('No action to record the end of %s of instance %s '
                     'under: %s', event, self.instance.uuid, exc)


def _message(error):
    if hasattr(error, 'format_message'):
        return error.format_message()
    return str(error) or type(error).__name__
