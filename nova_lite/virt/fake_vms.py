"""Where the fake driver keeps its VMs: one small JSON file per VM.

A real hypervisor's guests outlive the nova-lite-compute process that
manages them; the fake driver's do too. Each VM is a file under
``$state_path/fake_driver/<host>.vms/`` (the copies moves leave on a
source under ``<host>.moved/``), written when the VM is created or
changed and removed when it is destroyed, so a restarted compute finds
the VMs it had: what it recorded and what the driver runs agree, and
what the compute does at start-up about a disagreement is tested against
the same kind of truth a real host gives.

Records are frozen: a change is a new record stored under the same uuid,
which is what writes the file. One file per VM keeps a write O(1) however
many VMs a host runs.
"""

import dataclasses
import json
import os

from nova_lite.conf import CONF
from nova_lite import exception


class PersistentVMs(dict):
    """{uuid: record} mirrored to one JSON file per record in
    ``directory``; ``record_class(**fields)`` reads one back."""

    def __init__(self, directory, record_class):
        super().__init__()
        self.directory = directory
        os.makedirs(directory, exist_ok=True)
        for name in sorted(os.listdir(directory)):
            if not name.endswith('.json'):
                continue   # a temporary file a crash left behind
            path = os.path.join(directory, name)
            try:
                with open(path, encoding='utf-8') as f:
                    record = record_class(**json.load(f))
            except (OSError, ValueError, TypeError) as exc:
                raise exception.ConfigInvalid(
                    reason='fake driver VM file %s is unreadable (%s); '
                           'remove it to forget that VM' % (path, exc))
            super().__setitem__(record.uuid, record)

    def _path(self, uuid):
        return os.path.join(self.directory, '%s.json' % uuid)

    def __setitem__(self, uuid, record):
        tmp = self._path(uuid) + '.tmp'
        with open(tmp, 'w', encoding='utf-8') as f:
            json.dump(dataclasses.asdict(record), f)
        # Atomic against a crash of this process (the case simulated); no
        # fsync: a power loss takes the "hypervisor" down too.
        os.replace(tmp, self._path(uuid))
        super().__setitem__(uuid, record)

    def __delitem__(self, uuid):
        super().__delitem__(uuid)
        self._unlink(uuid)

    _MISSING = object()

    def pop(self, uuid, default=_MISSING):
        if uuid not in self:
            if default is self._MISSING:
                raise KeyError(uuid)
            return default
        record = super().pop(uuid)
        self._unlink(uuid)
        return record

    def _unlink(self, uuid):
        try:
            os.unlink(self._path(uuid))
        except FileNotFoundError:
            pass


def host_directory(host, kind):
    """``$state_path/fake_driver/<host>.<kind>``."""
    safe_host = host.replace(os.sep, '_')
    return os.path.join(CONF.state_path, 'fake_driver',
                        '%s.%s' % (safe_host, kind))
