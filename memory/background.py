"""Model work after the response, in the web process: the embedded default's stand-in for a
worker when a model is configured.

Without a broker, tasks run in-process (``CELERY_TASK_ALWAYS_EAGER``), which would make a page or
an API call that stores an update wait for the model to extract it, summarize the graph's
observations and write an entity's summary: seconds at best, the whole timeout when the model
stalls. Work that may call the model is therefore queued here while a request is being served
(``after_response``) and handed, once the view has returned, to one background thread of the
process, which runs the jobs one at a time (SQLite has one writer) in due order. Jobs may be
delayed (``delay``): an update waits a little for others to share its extraction call.

Outside a request (commands, the tests' direct calls) jobs run at once, in the caller's thread,
as before. ``drain`` waits for the thread's queue to empty (tests; a command that used it).
The queue lives in memory: jobs not run when the process stops are not lost, because their
work is in the database (pending episodes, pending summaries) and the sweep picks it up.
"""

from __future__ import annotations

import contextvars
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import close_old_connections, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

Job = tuple[Callable[..., Any], tuple[Any, ...], float]

_request_jobs: contextvars.ContextVar[list[Job] | None] = contextvars.ContextVar(
    "request_jobs", default=None)


def in_request() -> bool:
    """Whether a request is being served in this context (by ``AfterResponseMiddleware``)."""
    return _request_jobs.get() is not None


def after_response(fn: Callable[..., Any], *args: Any, delay: float = 0.0) -> None:
    """Run ``fn(*args)`` in the background thread once the current response is made, ``delay``
    seconds later (at once, in this thread, outside a request and without a delay)."""
    jobs = _request_jobs.get()
    if jobs is not None:
        jobs.append((fn, args, delay))
    elif delay > 0:
        runner().submit(fn, args, delay)
    else:
        fn(*args)


def later(fn: Callable[..., Any], *args: Any, delay: float) -> None:
    """Run ``fn(*args)`` in the background thread in ``delay`` seconds."""
    runner().submit(fn, args, delay)


class AfterResponseMiddleware:
    """Collects the jobs a request queues and starts them when its view has returned. The first
    request a process serves also queues the catch-up of model work a previous process left
    waiting (its delayed jobs died with it)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.resumed = False

    def __call__(self, request: HttpRequest) -> HttpResponse:
        jobs: list[Job] = []
        if not self.resumed:
            self.resumed = True
            from memory.tasks import resume_model_work

            jobs.append((resume_model_work, (), 0.0))
        token = _request_jobs.set(jobs)
        try:
            return self.get_response(request)
        finally:
            _request_jobs.reset(token)
            # Also after an error: the jobs belong to transactions that committed.
            for fn, args, delay in jobs:
                runner().submit(fn, args, delay)


class Runner:
    """One daemon thread running submitted jobs in due order."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Callable[..., Any], tuple[Any, ...]]] = []
        self._order = itertools.count()
        self._condition = threading.Condition()
        self._running = 0
        self._thread: threading.Thread | None = None

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], delay: float) -> None:
        with self._condition:
            heapq.heappush(self._heap, (time.monotonic() + max(0.0, delay), next(self._order),
                                        fn, args))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, daemon=True,
                                                name="model-work")
                self._thread.start()
            self._condition.notify_all()

    def drain(self, timeout: float = 60.0, *, later: bool = True) -> bool:
        """Wait until no job is queued (``later=False``: none due now) or running; False if
        that took longer than ``timeout``."""
        deadline = time.monotonic() + timeout
        with self._condition:
            while self._running or (self._heap and (later or self._heap[0][0] <= time.monotonic())):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._condition.wait(min(left, 0.05))
        return True

    def cancel(self) -> int:
        """Drop every queued job (tests; a job's work is in the database anyway)."""
        with self._condition:
            dropped = len(self._heap)
            self._heap.clear()
            self._condition.notify_all()
            return dropped

    def _loop(self) -> None:
        while True:
            with self._condition:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    wait = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._condition.wait(wait)
                _, _, fn, args = heapq.heappop(self._heap)
                self._running += 1
            try:
                close_old_connections()
                fn(*args)
            except Exception:
                logger.exception("background job %s failed", getattr(fn, "__name__", fn))
            finally:
                try:
                    connections.close_all()
                except Exception:
                    logger.exception("closing the background thread's connections failed")
                with self._condition:
                    self._running -= 1
                    self._condition.notify_all()


_runner: Runner | None = None
_runner_lock = threading.Lock()


def runner() -> Runner:
    global _runner
    with _runner_lock:
        if _runner is None:
            _runner = Runner()
        return _runner


def drain(timeout: float = 60.0, *, later: bool = True) -> bool:
    """Wait for the background thread's jobs (see ``Runner.drain``)."""
    return runner().drain(timeout, later=later)
