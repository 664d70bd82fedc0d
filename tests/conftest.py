"""Test-wide set-up: configuration parsed once, reset after every test."""

import gc

from oslo_config import fixture as config_fixture
import pytest

import nova_lite  # noqa: F401  (selects the threading backend first)
from nova_lite.conf import CONF
from nova_lite import objects



def _parse():
    CONF([], project='nova_lite', default_config_files=[])


_parse()
objects.register_all()


@pytest.fixture(autouse=True)
def conf():
    """oslo.config overrides made by a test are undone after it."""
    fixture = config_fixture.Config(CONF)
    fixture.setUp()
    yield fixture
    fixture.cleanUp()
    # The fixture's clean-up un-parses CONF; parse again (no files) so the
    # next test sees an initialised configuration.
    _parse()


@pytest.fixture(autouse=True)
def collector():
    """A service started in a test freezes the heap and raises the
    collector's threshold (service.settle_heap): undone after it, so the
    test process goes on collecting as Python does."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
