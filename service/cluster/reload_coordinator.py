"""POST /api/admin/reload on every replica: one request reaches one replica, so the replicas share a
Ray actor that numbers the index versions.

Every replica joins it at start and waits on it (a long poll: the actor answers as soon as the version
changes). The replica that gets the request asks the actor for a new version: the shard replicas load
their new folders first, then the front replicas (which check the shards' versions), each acknowledging
with what it now serves; the request is answered once every live replica has. A replica that Ray
restarts loads the folder's current version anyway, and joins again.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time

log = logging.getLogger("rulesqa")

ROLES = ("shard", "front")
POLL_S = 5.0
# A replica that has not polled for this long is taken for dead (killed, or scaled down).
STALE_S = 3 * POLL_S + 5


class ReloadCoordinator:
    """The Ray actor (async) that every replica of one deployment polls."""

    def __init__(self):
        self.version = {role: 0 for role in ROLES}
        self.members: dict[str, dict] = {}  # replica id -> role, acked version, what it serves, last seen
        self.changed = asyncio.Condition()

    async def _notify(self):
        async with self.changed:
            self.changed.notify_all()

    async def join(self, replica: str, role: str, serves: dict, pid: int = 0) -> int:
        self.members[replica] = {"role": role, "version": self.version[role], "serves": serves,
                                 "seen": time.monotonic(), "pid": pid}
        return self.version[role]

    async def leave(self, replica: str) -> None:
        self.members.pop(replica, None)
        await self._notify()

    async def wait(self, replica: str, role: str, known: int, timeout: float = POLL_S) -> int:
        """The version for `role`, as soon as it differs from `known` (or after `timeout`)."""
        member = self.members.get(replica)
        if member is not None:
            member["seen"] = time.monotonic()
        async with self.changed:
            try:
                await asyncio.wait_for(self.changed.wait_for(lambda: self.version[role] != known), timeout)
            except TimeoutError:
                pass
        if member is not None:
            member["seen"] = time.monotonic()
        return self.version[role]

    async def ack(self, replica: str, role: str, version: int, serves: dict) -> None:
        pid = self.members.get(replica, {}).get("pid", 0)
        self.members[replica] = {"role": role, "version": version, "serves": serves, "seen": time.monotonic(),
                                 "pid": pid}
        await self._notify()

    def _live(self, role: str) -> dict[str, dict]:
        now = time.monotonic()
        return {r: m for r, m in self.members.items() if m["role"] == role and now - m["seen"] < STALE_S}

    async def reload(self, timeout: float = 300) -> dict:
        """A new version for every role in turn; returns each replica's answer, and those missing."""
        deadline = time.monotonic() + timeout
        missing: list[str] = []
        for role in ROLES:
            self.version[role] += 1
            target = self.version[role]
            await self._notify()
            async with self.changed:
                try:
                    await asyncio.wait_for(self.changed.wait_for(
                        lambda role=role, target=target: all(m["version"] >= target for m in self._live(role).values())),
                        max(0.1, deadline - time.monotonic()))
                except TimeoutError:
                    pass
            missing += [r for r, m in self._live(role).items() if m["version"] < target]
        replicas = [{"replica": r, "role": m["role"], **m["serves"]} for r, m in sorted(self.members.items())
                    if m["version"] >= self.version[m["role"]] and m["role"] in ROLES]
        return {"replicas": replicas, "missing": missing}

    async def members_now(self) -> list[dict]:
        """The live replicas: id, role, process id (on its node), version and what each serves."""
        return [{"replica": r, "role": m["role"], "pid": m["pid"], "version": m["version"], **m["serves"]}
                for r, m in sorted(self._live("front").items()) + sorted(self._live("shard").items())]


def coordinator(name: str):
    """The coordinator actor of deployment `name`, created on first use (it outlives a driver)."""
    import ray

    actor = ray.remote(num_cpus=0, max_restarts=-1, max_concurrency=1000)(ReloadCoordinator)
    return actor.options(name=f"rulesqa-reloads-{name}", lifetime="detached", get_if_exists=True).remote()


class Listener:
    """In a replica: a thread that waits on the coordinator and runs `reload()` (which returns what the
    replica now serves) when the version of its role changes."""

    def __init__(self, name: str, replica: str, role: str, serves: dict, reload):
        self.handle = coordinator(name)
        self.replica, self.role, self.reload = replica, role, reload
        self._stop = threading.Event()
        import ray

        import os

        self.version = ray.get(self.handle.join.remote(replica, role, serves, os.getpid()))
        self.thread = threading.Thread(target=self._run, name=f"rulesqa-reload-{role}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import ray

        while not self._stop.is_set():
            try:
                version = ray.get(self.handle.wait.remote(self.replica, self.role, self.version))
            except Exception as exc:  # the actor restarting: try again shortly
                log.warning("coordinateur de rechargement injoignable (%s)", exc)
                time.sleep(1)
                continue
            if version == self.version:
                continue
            try:
                serves = self.reload()
            except Exception as exc:
                log.error("rechargement impossible : %s", exc)
                serves = {"error": str(exc)}
            self.version = version
            ray.get(self.handle.ack.remote(self.replica, self.role, version, serves))

    def stop(self) -> None:
        self._stop.set()
        try:
            import ray

            ray.get(self.handle.leave.remote(self.replica), timeout=5)
        except Exception:
            pass
