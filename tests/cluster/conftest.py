"""The cluster tests: a real Ray cluster of two nodes on loopback (testbed/ray_nodes.py), started once per
session, this process joined to it as a driver. Skipped, with the reason, where ray is not installed
(`make cluster-deps`, which `make test` runs). Each test is bounded in time (TEST_LIMIT_S)."""

import os
import signal

import pytest

from tests.fakes import REPO

TEST_LIMIT_S = 300


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/cluster/" in str(item.fspath):
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(autouse=True)
def time_limit():
    """Fails the test (instead of hanging the suite) once it runs past TEST_LIMIT_S."""

    def expired(signum, frame):
        raise TimeoutError(f"test stopped after {TEST_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(TEST_LIMIT_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(autouse=True)
def actors_end_with_their_test(request):
    """A test's Ray Data actors (the index build's encoders) end with the test that started them."""
    yield
    if "ray_cluster" not in request.fixturenames:
        return
    import time

    from testbed.ray_nodes import leftovers

    def encoders() -> list[str]:
        titles = []
        for pid in leftovers():
            try:
                title = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if "MapWorker" in title:
                titles.append(title.strip())
        return titles

    deadline = time.monotonic() + 20
    while encoders() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert encoders() == [], "des acteurs Ray du test tournent encore"


# Package-scoped: the cluster's processes stop once its tests are done, instead of spinning beside the rest.
@pytest.fixture(scope="package")
def ray_cluster():
    pytest.importorskip("ray", reason="Ray absent : `pip install -e '.[cluster]'` (make cluster-deps) pour les tests de grappe")
    pytest.importorskip("ray.serve", reason="Ray Serve absent : `pip install -e '.[cluster]'`")
    from indexer.ray_encode import connect
    from testbed.ray_nodes import RayNodes

    import atexit

    nodes = RayNodes(cpus=(2, 2), object_store_mb=300)
    atexit.register(nodes.stop)  # also if the session ends without its teardown
    nodes.start()
    try:
        ray = connect(nodes.address, env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1",
                                          "RULESQA_LOG_QUESTIONS": os.environ.get("RULESQA_LOG_QUESTIONS", "false")})
        yield nodes
        from ray import serve

        serve.shutdown()
        ray.shutdown()
    finally:
        nodes.stop()


@pytest.fixture(scope="session")
def free_port():
    from testbed.ports import free_port as pick

    return pick


@pytest.fixture(scope="session")
def pg_cluster():
    from testbed.pg import Cluster, pg_bin

    bin_dir = pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL absent (/usr/lib/postgresql/*/bin/initdb) : `make db-deps` pour le journal partagé")
    cluster = Cluster(bin_dir).start()
    yield cluster
    cluster.stop()
