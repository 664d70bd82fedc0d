"""The API's create is sent again under its request key after a lost
answer (conductor/api.py ``provision_instances``, conductor RPC 1.7)."""

from unittest import mock

import oslo_messaging as messaging
import pytest

from nova_lite.conductor import api as conductor_view
from nova_lite.conductor import rpcapi
from nova_lite import context as nl_context


@pytest.fixture
def ctxt():
    return nl_context.RequestContext(user_id='u1', project_id='p1',
                                     request_id='req-abc')


def _conductor(answers, can_send=True):
    conductor = mock.Mock(spec=rpcapi.ConductorAPI)
    conductor.can_send_request_key.return_value = can_send
    conductor.provision_instances.side_effect = answers
    return conductor


def _provision(conductor, ctxt):
    return conductor_view.provision_instances(
        conductor, ctxt, 'template', 'spec', 1, 2)


def test_an_unanswered_create_is_sent_again_under_the_same_key(conf, ctxt):
    conf.config(provision_attempt_timeout=4, write_attempts=3, group='api')
    conductor = _conductor([messaging.MessagingTimeout(),
                            messaging.MessagingTimeout(), 'servers'])
    assert _provision(conductor, ctxt) == 'servers'
    assert conductor.provision_instances.call_args_list == [
        mock.call(ctxt, 'template', 'spec', 1, 2, build=True,
                  request_key='req-abc', timeout=4)] * 3


def test_after_the_last_attempt_the_timeout_is_raised(conf, ctxt):
    conf.config(write_attempts=2, group='api')
    conductor = _conductor([messaging.MessagingTimeout()] * 2)
    with pytest.raises(messaging.MessagingTimeout):
        _provision(conductor, ctxt)
    assert conductor.provision_instances.call_count == 2


def test_other_errors_are_not_sent_again(conf, ctxt):
    conductor = _conductor([ValueError('over quota')])
    with pytest.raises(ValueError):
        _provision(conductor, ctxt)
    assert conductor.provision_instances.call_count == 1


def test_pinned_below_1_7_the_create_is_sent_once_without_a_key(conf,
                                                                 ctxt):
    conductor = _conductor([messaging.MessagingTimeout()], can_send=False)
    with pytest.raises(messaging.MessagingTimeout):
        _provision(conductor, ctxt)
    conductor.provision_instances.assert_called_once_with(
        ctxt, 'template', 'spec', 1, 2, build=True)
