"""A compute's first save of a build, which is also its receipt (RPC 1.10).

Before conductor RPC 1.10 a compute acknowledged a build cast as it
arrived (``build_received``, a cast) and then saved the build
``spawning`` on its host and node (a call): three messages. From 1.10 it
sends one cast, ``build_started``, carrying that save's changes; this
module applies it. A cast is not ordered against the compute's later
saves (another conductor, another executor thread may take them first),
so it is applied only while the build still waits for it, in one
conditional UPDATE:

* the build is still with the conductors (building, ``scheduling``, no
  host, not deleted): a late one never moves a server back from ACTIVE,
  ERROR or deleted;
* it waits for this compute: its owner is ``-<host>`` or ``-<host>#<n>``
  (cast there, not acknowledged), or NULL (untracked). A compute that
  handed the build back acknowledges it first (``build_received``, a
  call), so a late cast can never undo its hand-back either.

The compute's final save carries these changes again and expects
``scheduling`` or ``spawning``, so it never depends on this cast having
been applied. A cast that arrives too late to apply still acknowledges
(owner ``-<host>[#<n>]`` -> ``-``), as a receipt did. A lost cast leaves
the build unacknowledged: ``lost_casts.py`` casts it to the compute
again, which drops the duplicate and acknowledges it.

    build_started.record(context, instance, host)
"""

import functools

from oslo_log import log as logging
import sqlalchemy as sa

from nova_lite.conductor.tasks import ownership
from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.objects import fields

LOG = logging.getLogger(__name__)

# What a compute's first save of a build may change; anything else is
# refused (it would need the compute's later, conditional saves).
FIELDS = frozenset(('host', 'node', 'compute_node_uuid',
                    'availability_zone', 'task_state'))


def record(context, instance, host):
    """Apply compute ``host``'s first save of ``instance`` (its uuid and
    changed fields) if the build still waits for it, and acknowledge the
    build. Returns 'started', 'acknowledged' or 'ignored'."""
    changes = instance.obj_get_changes()
    unknown = set(changes) - FIELDS
    if unknown or changes.get('task_state') != fields.TaskState.SPAWNING \
            or changes.get('host') != host:
        LOG.warning('Refusing the start of build %s from %s: it changes %s',
                    instance.uuid, host, sorted(changes))
        return 'ignored'
    if _apply(context, instance.uuid, host, changes):
        return 'started'
    if ownership.acknowledge(context, instance.uuid, host):
        LOG.debug('Build %s was saved by %s before its start arrived; '
                  'acknowledged only', instance.uuid, host)
        return 'acknowledged'
    LOG.debug('Start of build %s from %s came too late; ignored',
              instance.uuid, host)
    return 'ignored'


@db_api.one_statement_writer
def _apply(context, uuid, host, changes):
    waiting = ownership.HANDED_OFF + host
    result = context.session.execute(_statement(frozenset(changes)), dict(
        {'b_' + name: value for name, value in changes.items()},
        b_uuid=uuid, b_waiting=waiting,
        b_recast=_escaped(waiting + ownership.RECASTS) + '%'))
    return result.rowcount == 1


@functools.cache
def _statement(names):
    """The UPDATE of a first save changing ``names``, built once per set
    of names (few: ``FIELDS``): Core, on the table, as an ORM-enabled
    UPDATE cost twice as much, and building it every boot cost several
    times running it."""
    table = models.Instance.__table__
    model = table.c
    values = {name: sa.bindparam('b_' + name) for name in names}
    # An untracked build (NULL) stays untracked.
    values['build_owner'] = sa.case((model.build_owner.is_(None), None),
                                    else_=ownership.HANDED_OFF)
    return sa.update(table).where(
        model.uuid == sa.bindparam('b_uuid'), model.deleted == 0,
        model.vm_state == fields.VMState.BUILDING,
        model.task_state == fields.TaskState.SCHEDULING,
        model.host.is_(None),
        sa.or_(model.build_owner.is_(None),
               model.build_owner == sa.bindparam('b_waiting'),
               model.build_owner.like(sa.bindparam('b_recast'),
                                      escape=_ESCAPE))).values(values)


_ESCAPE = '/'


def _escaped(text):
    """``text`` matched literally by LIKE with ``_ESCAPE``."""
    for char in (_ESCAPE, '%', '_'):
        text = text.replace(char, _ESCAPE + char)
    return text
