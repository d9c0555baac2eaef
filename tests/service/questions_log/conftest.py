"""The questions log's tests run on both backends: SQLite in a temporary folder, and PostgreSQL in a
cluster started for the session (testbed/pg.py), skipped only when PostgreSQL is not installed."""

import itertools

import pytest

from testbed.pg import Cluster, pg_bin

_databases = itertools.count()


@pytest.fixture(scope="session")
def pg_cluster():
    bin_dir = pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL absent (/usr/lib/postgresql/*/bin/initdb) : `make db-deps` "
                    "(apt-get install postgresql) pour tester ce backend")
    cluster = Cluster(bin_dir).start()
    yield cluster
    cluster.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh, empty database URL on each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'rulesqa.db'}"
    cluster = request.getfixturevalue("pg_cluster")
    return cluster.create_database(f"rulesqa_test_{next(_databases)}")


@pytest.fixture
def store(db_url):
    from service.questions_log.store import Store

    s = Store(db_url).open()
    yield s
    s.close()
