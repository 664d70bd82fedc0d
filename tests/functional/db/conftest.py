import pytest

from tests import db_fixtures


@pytest.fixture(params=db_fixtures.BACKENDS)
def database(request):
    """A fresh migrated database on each backend, wired into nova_lite."""
    db = db_fixtures.MigratedDatabase(request.param).setup()
    yield db
    db.cleanup()
