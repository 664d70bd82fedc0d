"""MetricsFilter: hosts lacking a weighed metric are removed."""

from nova_lite.scheduler.filters import metrics_filter

from .. import fake_hosts


def _hosts():
    return [fake_hosts.host('both', metrics={'cpu.percent': 10.0,
                                             'mem.free': 1000.0}),
            fake_hosts.host('cpu', metrics={'cpu.percent': 50.0}),
            fake_hosts.host('none')]


def test_without_weight_setting_every_host_passes():
    flt = metrics_filter.MetricsFilter()
    assert len(flt.filter_all(_hosts(), fake_hosts.spec())) == 3


def test_hosts_need_every_weighed_metric(conf):
    conf.config(group='metrics',
                weight_setting=['cpu.percent=-1.0', 'mem.free=0.5'])
    flt = metrics_filter.MetricsFilter()
    hosts = _hosts()
    assert fake_hosts.names(flt.filter_all(hosts, fake_hosts.spec())) == [
        'both']
    assert [flt.host_passes(h, fake_hosts.spec()) for h in hosts] == [
        True, False, False]
    assert flt.rejection_reason(hosts[1], fake_hosts.spec()) == (
        'lack metric mem.free')
    assert flt.summarize_rejections(hosts[1:], fake_hosts.spec()) == (
        '1 lack metric mem.free, 1 lack metric cpu.percent')


def test_malformed_setting_items_are_ignored(conf):
    conf.config(group='metrics', weight_setting=['cpu.percent=-1.0',
                                                 'mem.free'])
    flt = metrics_filter.MetricsFilter()
    assert flt.host_passes(_hosts()[1], fake_hosts.spec())
