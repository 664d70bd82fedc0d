"""The conductor as seen from the API process.

The API reads the database itself but writes only through the conductor.
``ReadLocallyConductorAPI`` is its indirection API: remotable class methods
(which only read, by the objects' contract) run in-process, and remotable
instance methods (create, save, destroy: the writes) go to the conductor.

A write whose answer does not come (the conductor that took it was
killed, or its reply was lost) would hold the request for
rpc_response_timeout and leave its first steps done: a server put in a
task whose cast was never sent. The writes an action is made of can be
sent again safely, so they wait ``[api] write_attempt_timeout`` seconds
and, unanswered, are read back here (the API reads the database itself):

* committed (the row holds what was written; the action of this request
  exists): done, with what was committed;
* not committed: sent again, on the same condition for a conditional
  save; a condition no longer met is the save's own error (409), unless
  the row holds what was written (the first attempt's message, not yet
  acknowledged by the killed conductor, was delivered again and
  committed);

up to ``[api] write_attempts`` attempts, after which the timeout is
raised (503 with Retry-After). Other writes are sent once and wait as
long as those attempts together, so no write holds a request for
rpc_response_timeout.

A compute has no database: ``ResendingConductorAPI`` does the same for
its writes, reading back through the conductor, with ``[DEFAULT]
build_save_attempt_timeout`` and ``build_outcome_retries``.
"""

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_lite.conductor import rpcapi
from nova_lite.conf import CONF
from nova_lite import exception
from nova_lite.objects import base as objects_base

LOG = logging.getLogger(__name__)


class _ResendsWrites:
    """object_action for the writes of ``_READ_BACK``: each attempt waits
    ``attempt_timeout()`` seconds; unanswered, the row is read back and
    the write sent again if it did not commit, up to ``attempts()``
    attempts (see the module docstring). A caller that set its own
    ``rpcapi.call_timeout`` manages its attempts itself."""

    def attempt_timeout(self):
        raise NotImplementedError()

    def attempts(self):
        raise NotImplementedError()

    def object_action(self, context, objinst, objmethod, args, kwargs):
        read_back = _READ_BACK.get((objinst.obj_name(), objmethod))
        if rpcapi.current_call_timeout() is not None:
            return super().object_action(context, objinst, objmethod, args,
                                         kwargs)
        if read_back is None:
            # Not safe to send again, but its wait is bounded as the
            # others' attempts together are.
            with rpcapi.call_timeout(self.attempt_timeout() *
                                     self.attempts()):
                return super().object_action(context, objinst, objmethod,
                                             args, kwargs)
        # The changes to compare with, before an attempt can reset them.
        written = {name: getattr(objinst, name)
                   for name in objinst.obj_what_changed()
                   if name in _COMPARED}
        attempts = self.attempts()
        for attempt in range(1, attempts + 1):
            try:
                with rpcapi.call_timeout(self.attempt_timeout()):
                    return super().object_action(context, objinst,
                                                 objmethod, args, kwargs)
            except messaging.MessagingTimeout:
                if attempt == attempts:
                    raise
            except _CONDITION_FAILED as exc:
                # A resent write whose condition no longer holds: the
                # first attempt may have committed after all (its message
                # was delivered again to the next conductor).
                committed = None
                if attempt > 1:
                    committed = self._read_back(
                        read_back, context, objinst, written, args, kwargs,
                        condition=False)
                if committed is None:
                    raise exc
                LOG.info('%s.%s of %s: an earlier attempt committed',
                         objinst.obj_name(), objmethod, _name(objinst))
                return _updates(committed), None
            committed = self._read_back(read_back, context, objinst,
                                        written, args, kwargs)
            if committed is not None:
                LOG.info('%s.%s of %s: its answer was lost, and it had '
                         'committed', objinst.obj_name(), objmethod,
                         _name(objinst))
                return _updates(committed), None
            LOG.warning('%s.%s of %s got no answer within %d s and did not '
                        'commit; sending it again (%d of %d)',
                        objinst.obj_name(), objmethod, _name(objinst),
                        self.attempt_timeout(), attempt + 1, attempts)

    def _read_back(self, read_back, context, objinst, written, args,
                   kwargs, condition=True):
        if not condition:
            args, kwargs = (), {}  # only whether it holds what was written
        return read_back(context, objinst, written, args, kwargs)


class ReadLocallyConductorAPI(_ResendsWrites, rpcapi.ConductorAPI):
    """The API's: reads run here, writes go to the conductor and are
    sent again after ``[api] write_attempt_timeout``."""

    def attempt_timeout(self):
        return CONF.api.write_attempt_timeout

    def attempts(self):
        return CONF.api.write_attempts

    def object_class_action_versions(self, context, objname, objmethod,
                                     object_versions, args, kwargs):
        objclass = objects_base.NovaLiteObjectRegistry.obj_classes()[
            objname][0]
        method = getattr(objclass, objmethod)
        # Call the undecorated method so it runs here instead of recursing
        # into this indirection API.
        return method.original_fn(objclass, context, *args, **kwargs)


class ResendingConductorAPI(_ResendsWrites, rpcapi.ConductorAPI):
    """A compute's: everything goes to the conductor; its saves of
    instances and migrations and its action records are sent again after
    ``[DEFAULT] build_save_attempt_timeout``, and read back through the
    conductor too (each read bounded the same way), so a conductor
    killed while it held one costs the step seconds, not
    rpc_response_timeout and a server left in its task."""

    def attempt_timeout(self):
        return CONF.build_save_attempt_timeout

    def attempts(self):
        return CONF.build_outcome_retries

    def _read_back(self, read_back, context, objinst, written, args,
                   kwargs, condition=True):
        try:
            with rpcapi.call_timeout(self.attempt_timeout()):
                return super()._read_back(read_back, context, objinst,
                                          written, args, kwargs, condition)
        except messaging.MessagingTimeout:
            return None  # unknown: sent again, on its own condition


# What a conditional write raises when its condition no longer holds.
_CONDITION_FAILED = (exception.UnexpectedTaskStateError,
                     exception.InstanceInvalidState)

# The fields a read-back compares: plain values the row keeps as written
# (not stamps, nor structured fields a save may store differently).
_COMPARED = frozenset((
    'vm_state', 'task_state', 'power_state', 'host', 'node', 'locked',
    'locked_by', 'locked_reason', 'display_name', 'description', 'status',
    'action', 'request_id', 'instance_uuid'))


def _name(objinst):
    return getattr(objinst, 'uuid', None) or getattr(
        objinst, 'instance_uuid', '?')


def _holds(current, written):
    return all(getattr(current, name) == value
               for name, value in written.items())


def _instance_saved(context, instance, written, args, kwargs):
    """The instance as committed if it holds ``written``; None if the
    save may be sent again. Raises as the save would when its condition
    no longer holds (or the instance is gone)."""
    current = type(instance).get_by_uuid(context, instance.uuid)
    if written and _holds(current, written):
        return current
    expected = kwargs.get('expected_task_state', args[0] if args else None)
    if expected is not None and current.task_state not in (
            expected if isinstance(expected, list) else [expected]):
        raise exception.UnexpectedTaskStateError(
            instance_uuid=instance.uuid, expected=expected,
            actual=current.task_state)
    expected = kwargs.get('expected_vm_state',
                          args[1] if len(args) > 1 else None)
    if expected is not None and current.vm_state not in (
            expected if isinstance(expected, list) else [expected]):
        raise exception.InstanceInvalidState(
            instance_uuid=instance.uuid, attr='vm_state',
            state=current.vm_state, method='save')
    return None


def _migration_saved(context, migration, written, args, kwargs):
    current = type(migration).get_by_uuid(context, migration.uuid)
    return current if written and _holds(current, written) else None


def _action_created(context, action, written, args, kwargs):
    try:
        current = type(action).get_by_request_id(
            context, action.instance_uuid, action.request_id)
    except exception.InstanceActionNotFound:
        return None
    return current if current.action == action.action else None


_READ_BACK = {
    ('Instance', 'save'): _instance_saved,
    ('Migration', 'save'): _migration_saved,
    ('InstanceAction', 'create'): _action_created,
}


def _updates(committed):
    """The committed object as the updates of an object_action answer."""
    return {name: field.to_primitive(committed, name,
                                     getattr(committed, name))
            for name, field in committed.fields.items()
            if committed.obj_attr_is_set(name)
            and not isinstance(getattr(committed, name),
                               objects_base.NovaLiteObject)}


def make_indirection_api():
    api = ReadLocallyConductorAPI()
    objects_base.NovaLiteObject.indirection_api = api
    return api


def make_compute_indirection_api():
    """Route a compute's remotable object calls through the conductor,
    its writes sent again after a lost answer."""
    api = ResendingConductorAPI()
    objects_base.NovaLiteObject.indirection_api = api
    return api


def provision_instances(conductor, context, instance, request_spec,
                        min_count, max_count):
    """``conductor.provision_instances`` with the build, sent again after
    a lost answer.

    Each attempt waits ``[api] provision_attempt_timeout`` seconds and
    names the request's key (its request id), so an attempt after one
    that did commit returns that one's servers instead of making more
    (conductor RPC 1.7, ``conductor/tasks/request_keys.py``); after ``[api]
    write_attempts`` attempts the timeout is raised (503 with
    Retry-After). An unanswered call expires in the broker with its
    timeout, so none is left to run after the 503. Pinned below 1.7, the
    call is sent once and waits rpc_response_timeout.
    """
    if not conductor.can_send_request_key():
        return conductor.provision_instances(
            context, instance, request_spec, min_count, max_count,
            build=True)
    attempts = CONF.api.write_attempts
    for attempt in range(1, attempts + 1):
        try:
            return conductor.provision_instances(
                context, instance, request_spec, min_count, max_count,
                build=True, request_key=context.request_id,
                timeout=CONF.api.provision_attempt_timeout)
        except messaging.MessagingTimeout:
            if attempt == attempts:
                raise
            LOG.warning('Create %s got no answer within %d s; sending it '
                        'again under the same key (%d of %d)',
                        context.request_id,
                        CONF.api.provision_attempt_timeout, attempt + 1,
                        attempts)
