"""A Redis server of the test's own, for the faults: started, stopped (an outage) and started
again on the same port and data directory. Never the shared Redis on 6379, which other test runs
and engineers use. Its port is ``FAULT_REDIS_PORT`` (6391 by default)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.conftest import require
from tests.worker import ARTIFACTS

PORT = int(os.environ.get("FAULT_REDIS_PORT", "6391"))


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """``redis-server`` on ``port``, with an append-only file fsynced on every write (as the
    compose file runs it), so a stop and a start keep the queued tasks like production does."""

    def __init__(self, port: int = PORT) -> None:
        require(shutil.which("redis-server") is not None, "redis-server is not installed")
        self.port = port
        self.dir = Path(tempfile.mkdtemp(prefix=f"redis-{port}-"))
        self.process: subprocess.Popen[bytes] | None = None
        ARTIFACTS.mkdir(exist_ok=True)
        self.log = ARTIFACTS / f"redis-{port}.log"

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> RedisServer:
        if _answers(self.port):
            raise AssertionError(f"something already answers on port {self.port}; the fault "
                                 "tests need it for their own Redis (FAULT_REDIS_PORT)")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.dir), "--appendonly", "yes", "--appendfsync", "always",
             "--save", "", "--logfile", str(self.log)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while not _answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"redis-server on {self.port} did not come up; "
                                     f"see {self.log}")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """An outage: the server goes away (SIGTERM; what it had is on disk)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        self.process.wait(timeout=30)
        while _answers(self.port):  # pragma: no cover - the port is released with the process
            time.sleep(0.05)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
