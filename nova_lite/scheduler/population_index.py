"""Which rows of a Population run which instances, and which server
groups have members where.

Built the first time a request asks (a ``same_host`` hint, a server
group), then kept current row by row as hosts change, so a request with
a server group looks its members up instead of scanning every host.
"""

import numpy as np


class InstanceIndex:
    """{instance uuid: rows} and {server group uuid: {row: members}} of
    a Population's hosts (``host_state.instances`` and each instance's
    ``group_uuids``)."""

    def __init__(self, population):
        self.population = population
        self.reset()

    def reset(self):
        self.built = False
        self._rows = {}
        self._groups = {}
        self._row_uuids = {}
        self._row_groups = {}

    def _build(self):
        self.built = True
        population = self.population
        for row, host in enumerate(population.hosts[:population.size]):
            if host is not None:
                self._add(row, host)

    def _add(self, row, host):
        instances = getattr(host, 'instances', None) or {}
        if not instances:
            return
        uuids = tuple(instances)
        self._row_uuids[row] = uuids
        by_uuid = self._rows
        for uuid in uuids:
            found = by_uuid.get(uuid)
            if found is None:
                by_uuid[uuid] = row
            elif isinstance(found, list):
                found.append(row)
            else:
                by_uuid[uuid] = [found, row]
        groups = []
        for instance in instances.values():
            groups.extend(getattr(instance, 'group_uuids', None) or ())
        if groups:
            self._row_groups[row] = tuple(groups)
            for group in groups:
                rows = self._groups.setdefault(group, {})
                rows[row] = rows.get(row, 0) + 1

    def _remove(self, row):
        by_uuid = self._rows
        for uuid in self._row_uuids.pop(row, ()):
            found = by_uuid.get(uuid)
            if isinstance(found, list):
                found.remove(row)
                if len(found) == 1:
                    by_uuid[uuid] = found[0]
            elif found == row:
                del by_uuid[uuid]
        for group in self._row_groups.pop(row, ()):
            rows = self._groups[group]
            rows[row] -= 1
            if not rows[row]:
                del rows[row]
                if not rows:
                    del self._groups[group]

    def update(self, row, host):
        """Re-read ``row`` (``host`` None: the row is gone)."""
        if not self.built:
            return
        self._remove(row)
        if host is not None:
            self._add(row, host)

    def rows_of(self, uuids):
        """Rows running any of ``uuids``, once per (uuid, row) pair."""
        if not self.built:
            self._build()
        rows = []
        for uuid in uuids:
            found = self._rows.get(uuid)
            if found is None:
                continue
            if isinstance(found, list):
                rows.extend(found)
            else:
                rows.append(found)
        return np.array(rows, dtype=np.intp)

    def count_per_row(self, uuids):
        """Per row of the population, how many of ``uuids`` it runs."""
        size = self.population.size
        rows = self.rows_of(uuids)
        return np.bincount(rows, minlength=size)[:size]

    def any_per_row(self, uuids):
        """Per row, whether it runs any of ``uuids``."""
        mask = np.zeros(self.population.size, bool)
        mask[self.rows_of(uuids)] = True
        return mask

    def group_rows(self, group_uuid):
        """Rows running members of server group ``group_uuid``, in row
        order."""
        if not self.built:
            self._build()
        return sorted(self._groups.get(group_uuid, ()))
