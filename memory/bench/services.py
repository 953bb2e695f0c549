"""The production stack as local processes, for ``manage.py chaos`` and the fault tests: a Redis
server, the web app under gunicorn, a Celery worker and Celery beat — each in a process group of
its own, so that it can be killed with SIGKILL mid-work (the pool's children too), stopped and
started again. Commands are those of docker-compose.yml; logs go to ``log_dir``."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import yaml
from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def deployed_worker_switches() -> list[str]:
    """The ``--without-*`` switches of the worker command in docker-compose.yml."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return [word for word in shlex.split(compose["services"]["worker"]["command"])
            if word.startswith("--without-")]


class Service:
    """One long-running process in its own process group."""

    def __init__(self, name: str, command: list[str], *, env: dict[str, str],
                 log_dir: Path) -> None:
        self.name = name
        self.command = command
        self.env = env
        self.log = log_dir / f"{name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.log_offset = 0
        log_dir.mkdir(parents=True, exist_ok=True)

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> Service:
        self.log_offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_ready()
        return self

    def wait_ready(self) -> None:
        """Subclasses wait until the service answers."""

    def kill(self) -> None:
        """SIGKILL to the whole group: no goodbye, work in flight is lost."""
        if self.alive:
            assert self.process is not None
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if not self.alive:
            return
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()

    def _wait(self, ready: Callable[[], bool], what: str, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not ready():
            if not self.alive or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not come up; see {self.log}")
            time.sleep(0.05)


class RedisService(Service):
    """``redis-server`` with an append-only file fsynced on every write (as the compose file
    runs it), so that stopping and starting it keeps the queued tasks."""

    def __init__(self, *, port: int, log_dir: Path) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed")
        self.port = port
        self.dir = Path(tempfile.mkdtemp(prefix=f"redis-{port}-"))
        super().__init__(f"redis-{port}", [
            "redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(self.dir),
            "--appendonly", "yes", "--appendfsync", "always", "--save", "",
        ], env=dict(os.environ), log_dir=log_dir)

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"

    def start(self) -> RedisService:
        if redis_answers(self.port):
            raise RuntimeError(f"something already answers on port {self.port}")
        super().start()
        return self

    def wait_ready(self) -> None:
        self._wait(lambda: redis_answers(self.port), f"redis-server on {self.port}")

    def stop(self) -> None:
        super().stop()
        while redis_answers(self.port):  # pragma: no cover - released with the process
            time.sleep(0.05)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class WebService(Service):
    """The web app under gunicorn, as docker-compose.yml runs it."""

    def __init__(self, *, port: int, env: dict[str, str], log_dir: Path,
                 workers: int = 2) -> None:
        self.port = port
        super().__init__(f"web-{port}", [
            sys.executable, "-m", "gunicorn", "dashboard.wsgi:application", "--bind",
            f"127.0.0.1:{port}", "--workers", str(workers), "--timeout", "120",
        ], env=env, log_dir=log_dir)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self) -> None:
        def ready() -> bool:
            try:
                return httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200
            except httpx.TransportError:
                return False

        self._wait(ready, f"gunicorn on {self.port}")


class WorkerService(Service):
    """A Celery worker with the switches docker-compose.yml gives it."""

    def __init__(self, *, name: str, queue: str, env: dict[str, str], log_dir: Path,
                 concurrency: int = 2) -> None:
        super().__init__(f"worker-{name}", [
            sys.executable, "-m", "celery", "-A", "dashboard", "worker", "--queues", queue,
            "--concurrency", str(concurrency), "--loglevel", "INFO",
            "--hostname", f"{name}@%h", *deployed_worker_switches(),
        ], env=env, log_dir=log_dir)

    def wait_ready(self) -> None:
        def ready() -> bool:
            with self.log.open("rb") as log:
                log.seek(self.log_offset)
                return b" ready." in log.read()

        self._wait(ready, f"the {self.name} worker")


class BeatService(Service):
    """Celery beat: the sweep on its schedule."""

    def __init__(self, *, name: str, env: dict[str, str], log_dir: Path) -> None:
        self.schedule = Path(tempfile.mkdtemp(prefix="beat-")) / "schedule"
        super().__init__(f"beat-{name}", [
            sys.executable, "-m", "celery", "-A", "dashboard", "beat", "--loglevel", "INFO",
            "--schedule", str(self.schedule),
        ], env=env, log_dir=log_dir)

    def stop(self) -> None:
        super().stop()
        shutil.rmtree(self.schedule.parent, ignore_errors=True)
