"""Fixtures of the virt driver tests."""

import pytest


@pytest.fixture(autouse=True)
def state_path(conf, tmp_path):
    """Node identities go to a per-test directory, never $HOME."""
    conf.config(state_path=str(tmp_path), host='host1')
    return tmp_path
