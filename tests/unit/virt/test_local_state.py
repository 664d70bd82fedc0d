"""Atomic JSON state files under [DEFAULT] state_path."""

import os

import pytest

from nova_lite import exception
from nova_lite.virt import local_state


def test_path_is_below_state_path(state_path):
    assert local_state.state_file('sub', 'h1') == str(
        state_path / 'sub' / 'h1.json')
    assert local_state.state_file('sub', 'a/b').endswith(
        os.sep + 'a_b.json')


def test_round_trip_creates_directories(state_path):
    path = local_state.state_file('deep', 'h1')
    assert local_state.load(path) == {}
    local_state.save(path, {'a': [1, 2]})
    assert local_state.load(path) == {'a': [1, 2]}
    local_state.save(path, {'b': 1})
    assert local_state.load(path) == {'b': 1}
    assert os.listdir(os.path.dirname(path)) == ['h1.json']


def test_failed_write_keeps_old_content(state_path):
    path = local_state.state_file('x', 'h1')
    local_state.save(path, {'old': True})
    with pytest.raises(TypeError):
        local_state.save(path, {'bad': object()})
    assert local_state.load(path) == {'old': True}
    assert os.listdir(os.path.dirname(path)) == ['h1.json']


@pytest.mark.parametrize('content', ['[1, 2]', '{broken'])
def test_unusable_content_is_reported(state_path, content):
    path = state_path / 'h1.json'
    path.write_text(content)
    with pytest.raises(exception.ConfigInvalid, match='h1.json'):
        local_state.load(str(path))
