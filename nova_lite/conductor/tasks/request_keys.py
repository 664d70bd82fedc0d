"""The key that makes a boot request safe to send twice.

The API waits a short while for ``provision_instances`` and, with no
answer (the conductor that took the call was killed, or its reply was
lost), sends it again with the same key, the API request's id (conductor
RPC 1.7). The second attempt must not make a second set of servers:

* the records' transaction writes the key first (``claim_in_session``),
  so of two attempts writing at once the second waits on the key's row
  and, once the first commits, meets a duplicate: ``AlreadyProvisioned``;
* an attempt that meets its key committed (``AlreadyProvisioned``, then
  ``earlier``) gives its reservation back and answers with the servers
  of the first, and starts no build: the first's conductor does,
  or, if it died, the lost build check re-drives them (ownership.py);
* an attempt refused for quota first waits for a first attempt still
  writing (``earlier_or_none_after_waiting``): the first's servers may be
  what uses the quota up.

Keys older than ``RETENTION`` are removed by the conductors' reservation
expiry task: the API's attempts end within a minute.
"""

import datetime

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_lite.db import api as db_api
from nova_lite.db import models
from nova_lite.db import queries
from nova_lite import objects

# Seconds a key is kept: far beyond the API's attempts.
RETENTION = 3600


class AlreadyProvisioned(Exception):
    """Another attempt of the same request committed its records."""


class _Probe(Exception):
    """Rolls back the transaction of a probe that could claim the key."""


def claim_in_session(session, key, project_id, reservation_id):
    """Write ``key`` in the records' transaction; raises
    AlreadyProvisioned if another attempt committed it (after waiting for
    one still writing)."""
    try:
        queries.insert_rows(session, models.ProvisionRequest, [{
            'request_key': key, 'project_id': project_id,
            'reservation_id': reservation_id, 'created_at': _utcnow()}])
    except db_exc.DBDuplicateEntry:
        raise AlreadyProvisioned()


@db_api.reader
def _reservation_of(context, key):
    return context.session.scalar(
        sa.select(models.ProvisionRequest.reservation_id)
        .where(models.ProvisionRequest.request_key == key))


def earlier(context, key, project_id):
    """The InstanceList an earlier attempt of request ``key`` created (in
    launch order), or None if none committed."""
    reservation_id = _reservation_of(context, key)
    if reservation_id is None:
        return None
    return objects.InstanceList.get_by_filters(
        context, {'reservation_id': reservation_id,
                  'project_id': project_id},
        sort_key='id', sort_dir='asc')


def earlier_or_none_after_waiting(context, key, project_id):
    """As ``earlier``, after waiting for an attempt still writing its
    records: claiming the key blocks until that one commits or rolls
    back. Claims nothing."""
    try:
        with db_api.writer.independent.using(context) as session:
            claim_in_session(session, key, project_id, '-')
            raise _Probe()
    except _Probe:
        return None
    except AlreadyProvisioned:
        return earlier(context, key, project_id)


@db_api.writer
def purge(context, now=None):
    """Remove the keys older than RETENTION; returns how many."""
    before = (now or _utcnow()) - datetime.timedelta(seconds=RETENTION)
    result = context.session.execute(
        sa.delete(models.ProvisionRequest)
        .where(models.ProvisionRequest.created_at < before))
    return result.rowcount


def _utcnow():
    return timeutils.utcnow().replace(tzinfo=None)
