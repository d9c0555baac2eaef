"""A throwaway PostgreSQL cluster for the tests, from Debian's `postgresql` package (`make db-deps`).

initdb in a temporary folder, a free loopback port, the unix socket in that folder; stopped and removed at
the end. initdb refuses to run as root, so as root every server command runs as the `postgres` user.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from testbed.ports import free_port as _free_port


def pg_bin() -> Path | None:
    """The newest /usr/lib/postgresql/<version>/bin holding initdb and pg_ctl, or None."""
    found = [Path(d) for d in glob.glob("/usr/lib/postgresql/*/bin")
             if (Path(d) / "initdb").exists() and (Path(d) / "pg_ctl").exists()]
    return max(found, key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0) if found else None



class Cluster:
    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        # Not under pytest's tmp folder: that one is private to root, and the server runs as postgres.
        self.root = Path(tempfile.mkdtemp(prefix="rulesqa-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        os.chmod(self.root, 0o700)

    def _run(self, *args: str) -> None:
        command = [*(["runuser", "-u", "postgres", "--"] if self.as_root else []), *args]
        result = subprocess.run(command, capture_output=True, text=True, cwd="/", timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed: {result.stderr.strip() or result.stdout.strip()}")

    def start(self) -> Cluster:
        user = "postgres" if self.as_root else os.environ.get("USER", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", user, "--auth=trust", "-E", "UTF8",
                  "--no-sync")
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")
        self.user = user
        return self

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=self.user, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
