"""AggregateMultiTenancyIsolation: the seed's HostA/HostB example."""

from nova_lite.scheduler.filters import aggregate_multitenancy_isolation as f

from .. import fake_hosts


def _hosts():
    return [fake_hosts.host('HostA'),
            fake_hosts.host('HostB', aggregates=[fake_hosts.aggregate(
                'x-only', filter_tenant_id='X')])]


def _kept(project):
    flt = f.AggregateMultiTenancyIsolation()
    spec = fake_hosts.spec(project_id=project)
    return [h.host for h in _hosts() if flt.host_passes(h, spec)]


def test_isolated_tenant_may_use_both_hosts():
    assert _kept('X') == ['HostA', 'HostB']


def test_other_tenant_only_gets_the_unisolated_host():
    assert _kept('Y') == ['HostA']


def test_lists_and_numbered_keys():
    host = fake_hosts.host(aggregates=[
        fake_hosts.aggregate('a', filter_tenant_id='p1, p2'),
        fake_hosts.aggregate('b', filter_tenant_id2='p3')])
    flt = f.AggregateMultiTenancyIsolation()
    for project, expected in (('p1', True), ('p2', True), ('p3', True),
                              ('p4', False)):
        assert flt.host_passes(
            host, fake_hosts.spec(project_id=project)) is expected


def test_rejection_reason():
    flt = f.AggregateMultiTenancyIsolation()
    spec = fake_hosts.spec(project_id='Y')
    isolated = _hosts()[1]
    assert flt.rejection_reason(isolated, spec) == 'isolated to other projects'
    assert flt.rejection_reason(_hosts()[0], spec) is None
