"""A lost scheduler reply is asked again.

Regression: a scheduler killed after it received select_destinations and
back 5 s later failed the boot after 60 s ("the scheduler did not answer
in time") instead of asking the scheduler that was back.
"""

from unittest import mock

import oslo_messaging as messaging
from oslo_serialization import jsonutils
from oslo_utils import uuidutils
import pytest

from nova_lite.conductor.tasks import build
from nova_lite import context as nl_context
from nova_lite import exception
from nova_lite import objects
from tests.unit.conductor import test_build_scheduling_data as data

RP = 'rp-selected'
TIMEOUT = messaging.MessagingTimeout('no reply')


def _selection(resources):
    request = {'allocations': {RP: {'resources': resources}}}
    return objects.Selection(service_host='h1', nodename='h1-n0',
                             compute_node_uuid=uuidutils.generate_uuid(),
                             allocation_request=jsonutils.dumps(request),
                             allocation_request_version='1.0',
                             availability_zone='nova')


@pytest.fixture
def placement(monkeypatch):
    """allocations.* as a dict {consumer: {provider: {rc: n}}}."""
    held = {}
    fake = mock.Mock()
    fake.remove.side_effect = lambda ctxt, uuid: set(held.pop(uuid, {}))
    fake.get_for_consumer.side_effect = lambda ctxt, uuid: held.get(uuid,
                                                                    {})

    def replace(ctxt, uuid, project, user, wanted):
        before = set(held.get(uuid, {}))
        held[uuid] = wanted
        return before, set(wanted)
    fake.replace.side_effect = replace
    monkeypatch.setattr(build, 'allocations', fake)
    fake.held = held
    return fake


def _task(instances, answers):
    scheduler, compute = mock.Mock(), mock.Mock()
    scheduler.select_destinations.side_effect = answers
    task = build.BuildTask(nl_context.get_admin_context(), instances,
                           data._spec(), None, scheduler, compute)
    return task, scheduler, compute


def test_a_lost_reply_is_asked_again_after_releasing_its_claim(
        placement, conf):
    conf.config(group='conductor', select_destinations_retries=2)
    instance = data._instance()
    # The unanswered call claimed before its reply was lost.
    placement.held[instance.uuid] = {'rp-lost': {'VCPU': 1}}
    selected = [[_selection({'VCPU': 1})]]

    def answer_after_timeout(*args, **kwargs):
        if scheduler.select_destinations.call_count == 1:
            raise TIMEOUT
        assert instance.uuid not in placement.held  # released first
        placement.held[instance.uuid] = {RP: {'VCPU': 1}}
        return selected

    task, scheduler, compute = _task([instance], answer_after_timeout)
    conf.config(group='conductor', select_destinations_timeout=7)
    task.execute()
    assert scheduler.select_destinations.call_count == 2
    # Each call waits the short timeout, not rpc_response_timeout.
    assert {c[1]['timeout'] for c in
            scheduler.select_destinations.call_args_list} == {7}
    compute.build_and_run_instance.assert_called_once()
    assert placement.held[instance.uuid] == {RP: {'VCPU': 1}}
    placement.replace.assert_not_called()


def test_a_late_claim_of_the_lost_call_is_undone(placement, conf):
    """The first call claims only after the conductor released: the
    instance is moved back to exactly its selection."""
    instance = data._instance()

    def answers(*args, **kwargs):
        if scheduler.select_destinations.call_count == 1:
            raise TIMEOUT
        placement.held[instance.uuid] = {RP: {'VCPU': 1},
                                         'rp-late': {'VCPU': 1}}
        return [[_selection({'VCPU': 1})]]

    task, scheduler, compute = _task([instance], answers)
    task.execute()
    assert placement.held[instance.uuid] == {RP: {'VCPU': 1}}
    compute.build_and_run_instance.assert_called_once()


def test_retries_are_bounded_then_the_build_fails(placement, conf,
                                                  monkeypatch):
    conf.config(group='conductor', select_destinations_retries=1)
    instance = data._instance()
    failed = []
    monkeypatch.setattr(build.BuildTask, '_fail',
                        lambda self, inst, exc, release: failed.append(
                            (inst.uuid, exc, release)))
    task, scheduler, compute = _task([instance], [TIMEOUT, TIMEOUT])
    task.execute()
    assert scheduler.select_destinations.call_count == 2
    [(uuid, exc, release)] = failed
    assert uuid == instance.uuid and release
    assert isinstance(exc, exception.NoValidHost)
    assert 'did not answer in time' in exc.format_message()
    compute.build_and_run_instance.assert_not_called()


def test_no_retry_when_configured_so(placement, conf, monkeypatch):
    conf.config(group='conductor', select_destinations_retries=0)
    monkeypatch.setattr(build.BuildTask, '_fail', mock.Mock())
    task, scheduler, _compute = _task([data._instance()], [TIMEOUT])
    task.execute()
    assert scheduler.select_destinations.call_count == 1


def test_no_valid_host_is_not_retried(placement, monkeypatch):
    monkeypatch.setattr(build.BuildTask, '_fail', mock.Mock())
    task, scheduler, _compute = _task(
        [data._instance()], [exception.NoValidHost(reason='RamFilter')])
    task.execute()
    assert scheduler.select_destinations.call_count == 1


def test_a_failed_build_has_its_fault_before_it_shows_error(placement,
                                                            monkeypatch):
    """Whoever reads the server in ERROR already finds the final fault,
    not an earlier attempt's (a test reading between the two writes saw
    the last compute's traceback)."""
    order = []
    fault = mock.Mock()
    fault.create.side_effect = lambda: order.append('fault')
    monkeypatch.setattr(objects.InstanceFault, 'from_exception',
                        mock.Mock(return_value=fault))
    instance = mock.Mock(uuid=uuidutils.generate_uuid())
    instance.save.side_effect = lambda **kw: order.append(instance.vm_state)
    task, _scheduler, _compute = _task([instance], [])

    task._fail(instance, exception.NoValidHost(reason='none'), release=True)

    assert order == ['fault', 'error']
