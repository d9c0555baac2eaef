"""A throwaway two-node Ray cluster on loopback for the tests (and benchmarks/bench_cluster.py).

The nodes' address is 127.0.0.2: loopback, which Ray keeps (given 127.0.0.1, it would take the machine's
network address instead). Each node is `ray start ... --block` in its own process group, with its own temporary folder and free
ports for everything Ray listens on, so that it never meets another Ray cluster on this machine. Every process of the
cluster, workers and actors included, carries MARKER in its environment (inherited from `ray start`, whatever
title Ray gives it): `stop` ends the process groups, then every process still carrying this cluster's marker,
never by `ray stop`, which would end every Ray process on the machine; `leftovers()` names any process of any
test cluster still running (tests/conftest.py fails the session on one).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from testbed.ports import free_port

RAY = Path(sys.executable).with_name("ray")
MARKER = "RULESQA_TEST_CLUSTER"
HOST = "127.0.0.2"



def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32_768


def _free_range(size: int, taken: list[tuple[int, int]]) -> tuple[int, int]:
    """A window of ports for a node's workers, mostly free: above Ray's defaults (10002-19999) and below the
    kernel's ephemeral range, where free_port() takes every other port, so that no single port Ray is
    given falls inside a worker window (Ray refuses to start then); apart from the windows already `taken`."""
    top = max(_ephemeral_low(), 20_000 + 4 * size)
    for _ in range(100):
        low = random.randrange(20_000, top - size)
        high = low + size - 1
        if any(low <= t_high and t_low <= high for t_low, t_high in taken):
            continue
        try:
            for port in (low, low + size // 2, high):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
            return low, high
        except OSError:
            continue
    raise RuntimeError("no free port window for Ray workers")


class RayNodes:
    def __init__(self, cpus: tuple[int, ...] = (1, 1), object_store_mb: int = 200, env: dict | None = None):
        self.root = Path(tempfile.mkdtemp(prefix="rulesqa-ray-"))
        self.cpus = cpus
        self.object_store = object_store_mb * 2**20
        self.port = free_port()
        self.address = f"{HOST}:{self.port}"
        # No memory monitor: on a shared machine it would kill our workers for other people's memory.
        # Serve's proxy (on the head) spreads requests over every node's replicas, not its own node's first.
        self.env = {**os.environ, "RAY_memory_monitor_refresh_ms": "0", "RAY_USAGE_STATS_ENABLED": "0",
                    "RAY_SERVE_PROXY_PREFER_LOCAL_NODE_ROUTING": "0", **(env or {})}
        self.env.pop("RAY_ADDRESS", None)
        self.env[MARKER] = str(self.root)
        self.procs: list[subprocess.Popen] = []
        self.windows: list[tuple[int, int]] = []  # each node's worker ports

    def _node_args(self, index: int) -> list[str]:
        low, high = _free_range(200, self.windows)
        self.windows.append((low, high))
        return ["--block", f"--node-ip-address={HOST}", f"--num-cpus={self.cpus[index]}", "--num-gpus=0",
                f"--object-store-memory={self.object_store}", f"--temp-dir={self.root / f'node{index}'}",
                f"--node-manager-port={free_port()}", f"--object-manager-port={free_port()}",
                f"--metrics-export-port={free_port()}", f"--dashboard-agent-listen-port={free_port()}",
                f"--dashboard-agent-grpc-port={free_port()}", f"--runtime-env-agent-port={free_port()}",
                f"--min-worker-port={low}", f"--max-worker-port={high}", "--disable-usage-stats"]

    def _start(self, args: list[str], log: str) -> None:
        out = open(self.root / log, "ab")
        proc = subprocess.Popen([str(RAY), "start", *args], stdout=out, stderr=subprocess.STDOUT,
                                env=self.env, cwd=self.root, start_new_session=True)
        proc.rulesqa_args = (args, log)
        self.procs.append(proc)

    def _restart_exited_workers(self) -> bool:
        """A worker node gives up when its raylet does not register within Ray's fixed 30 s, which a
        loaded machine can exceed: start it again (each once). True when one was restarted."""
        exited = [p for p in self.procs[1:] if p.poll() is not None and not getattr(p, "retried", False)]
        for proc in exited:
            self.procs.remove(proc)
            self._start(*proc.rulesqa_args)
            self.procs[-1].retried = True
        return bool(exited)

    def start(self, timeout: float = 240) -> RayNodes:
        """Start the nodes and wait until they are all alive; on failure, stop what was started."""
        try:
            return self._start_all(timeout)
        except BaseException:
            self.stop()
            raise

    def _start_all(self, timeout: float) -> RayNodes:
        head = ["--head", f"--port={self.port}", "--include-dashboard=false", f"--dashboard-port={free_port()}",
                f"--ray-client-server-port={free_port()}", *self._node_args(0)]
        self._start(head, "head.log")
        self._wait_for_port(self.port, timeout)
        for index in range(1, len(self.cpus)):
            self._start([f"--address={self.address}", *self._node_args(index)], f"node{index}.log")
        try:
            self._wait_for_nodes(len(self.cpus), timeout)
        except RuntimeError:
            if not self._restart_exited_workers():
                raise
            self._wait_for_nodes(len(self.cpus), timeout)
        return self

    def add_node(self, cpus: int, timeout: float = 240) -> None:
        self.cpus = (*self.cpus, cpus)
        self._start([f"--address={self.address}", *self._node_args(len(self.cpus) - 1)], f"node{len(self.cpus) - 1}.log")
        self._wait_for_nodes(len(self.cpus), timeout)

    def _check_running(self) -> None:
        for proc in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"a Ray node exited at start: {self.logs()}")

    def _wait_for_port(self, port: int, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._check_running()
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"Ray head not listening after {timeout} s: {self.logs()}")

    def _wait_for_nodes(self, count: int, timeout: float) -> None:
        """Until the cluster counts `count` alive nodes (one driver process polling)."""
        code = ("import ray, sys, time; ray.init(address=sys.argv[1], logging_level='ERROR', "
                "_node_ip_address=sys.argv[1].split(':')[0]); "
                "end = time.monotonic() + float(sys.argv[3])\n"
                "while sum(n['Alive'] for n in ray.nodes()) < int(sys.argv[2]) and time.monotonic() < end: "
                "time.sleep(0.3)\n"
                "print(sum(n['Alive'] for n in ray.nodes()))")
        self._check_running()
        run = subprocess.run([sys.executable, "-c", code, self.address, str(count), str(timeout)],
                             capture_output=True, text=True, env=self.env, timeout=timeout + 60)
        if run.returncode != 0 or run.stdout.strip().splitlines()[-1:] != [str(count)]:
            raise RuntimeError(f"Ray nodes not up after {timeout} s ({run.stderr[-500:]}): {self.logs()}")

    def logs(self) -> str:
        return " | ".join(f.name + ": " + f.read_text(errors="replace")[-800:] for f in sorted(self.root.glob("*.log")))

    def stop(self) -> None:
        """SIGTERM each node's process group, SIGKILL what is left after 5 s, then every process still carrying
        this cluster's marker (Ray's workers and actors, which live in process groups of their own), until none
        is left. Twice is harmless."""
        if not self.root.exists():
            return
        for proc in reversed(self.procs):
            _signal_group(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for proc in self.procs:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
        deadline = time.monotonic() + 30
        while (left := leftovers(str(self.root))) and time.monotonic() < deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)
        shutil.rmtree(self.root, ignore_errors=True)


def leftovers(root: str | None = None) -> list[int]:
    """Pids of the processes of a test cluster (of the one at `root`, or of any) still running: those whose
    environment carries the marker, or whose command line names the cluster's folder."""
    marker = f"{MARKER}={root}".encode() if root else f"{MARKER}=".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if any(var == marker or (not root and var.startswith(marker)) for var in environ.split(b"\0")) or \
                (root and root.encode() in cmdline):
            found.append(int(entry.name))
    return found


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
