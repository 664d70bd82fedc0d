"""What the audit calls drift; which usage rows are looked up."""

import types

import pytest

from nova_lite.quota import usages


@pytest.mark.parametrize('recorded, counted, drift', [
    ((3, 0), (3, 0), False),
    ((3, 0), (2, 0), True),     # a server released twice, or never
    ((3, 1), (3, 0), True),     # a reservation applied and still held
    ((None, None), (2, 0), False),  # no record yet: counted when made
    ((-1, 0), (2, 0), False),   # unknown: recounted at the next use
])
def test_drift_is_a_known_record_that_disagrees(recorded, counted, drift):
    audit = usages.Audit('p1', 'u1', 'instances', recorded[0], counted[0],
                         recorded[1], counted[1])
    assert audit.drift is drift


class FakeEngine:
    def __init__(self, url):
        self.url = types.SimpleNamespace(render_as_string=lambda: url)


def test_rows_seen_once_are_not_looked_up_again(monkeypatch):
    monkeypatch.setattr(usages, '_KNOWN', set())
    engines = [FakeEngine('postgresql://db1')]
    monkeypatch.setattr(usages.db_api, 'get_engine', lambda: engines[-1])
    looked_up, inserted = [], []

    def existing(context, project_id, keys):
        looked_up.append(project_id)
        return {('', 'instances')}

    monkeypatch.setattr(usages, '_existing', existing)
    monkeypatch.setattr(usages, '_insert',
                        lambda context, row: inserted.append(
                            (row.user_id, row.resource)))
    usages.ensure_rows(None, 'p1', 'u1', ['instances'])
    assert inserted == [('u1', 'instances')]
    usages.ensure_rows(None, 'p1', 'u1', ['instances'])
    assert looked_up == ['p1']
    # Another user (or resource) of the project is looked up.
    usages.ensure_rows(None, 'p1', 'u2', ['instances'])
    assert looked_up == ['p1', 'p1']
    # So is the same project in another database.
    engines.append(FakeEngine('postgresql://db2'))
    usages.ensure_rows(None, 'p1', 'u1', ['instances'])
    assert looked_up == ['p1', 'p1', 'p1']
