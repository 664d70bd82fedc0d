"""What the audit calls drift."""

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
