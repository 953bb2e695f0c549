"""The ``fake_openai`` fixture: a real OpenAI-compatible HTTP server on loopback, for tests that
exercise the model boundary. The server is ``memory.bench.fake_openai`` (``manage.py bench``
counts model calls against it too); this module adds the fixture.

The SDK really talks HTTP to it (nothing is patched), so base-URL handling, status codes, headers,
timeouts and JSON shapes are exercised exactly as with Ollama or vLLM. It speaks
``POST /v1/chat/completions`` (and ``GET /v1/models``).

Use it through the ``fake_openai`` fixture. Import it into a test module or a conftest; the
fixture is registered under the name ``fake_openai`` whatever name it is imported as, so the
alias below keeps ruff quiet (a plain ``import fake_openai`` makes every test that takes it as an
argument an F811 "redefinition")::

    from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

    def test_something(fake_openai, db):
        fake_openai.reply_json({"name": "...", "summary": "...", "claims": [...]})
        fake_openai.fail(429, retry_after=0)            # the next request gets a 429
        fake_openai.stall(5)                            # ...then one that never answers in time
        ...
        assert len(fake_openai.requests) == 3           # every request it received, in order

Behaviours are queued and consumed one per request, in order. When the queue is empty the
``responder`` answers; the default one (``default_responder``) builds a valid answer from the
request itself: an observation summary citing the ``<fact id="...">`` tags it finds in the prompt,
and an empty extraction (so the caller falls back to its rules). Replace it with
``fake_openai.responder = my_function`` (a function of ``FakeRequest`` returning a ``Behaviour``).

The fixture points the settings at the server (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``LLM_MODEL`` = ``FAKE_MODEL``, ``LLM_ENABLED`` on, ``LLM_TIMEOUT_SECONDS`` = 2, retry waits of a
few milliseconds) with pytest-django's ``settings`` fixture, and stops the server afterwards.
``LLM_EXTRACTION`` is left as it was: tests that want model extraction turn it on themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memory.bench.fake_openai import (  # noqa: F401 (re-exported for the tests)
    FAKE_MODEL,
    Behaviour,
    FakeOpenAI,
    FakeRequest,
    Responder,
    default_responder,
    json_reply,
    render,
)


@pytest.fixture(name="fake_openai")
def fake_openai(settings: Any) -> Iterator[FakeOpenAI]:
    """A started fake server with the settings pointing at it; stopped after the test."""
    from memory.llm import reset_worker_breakers

    # A worker's breakers outlive one test in this process: every test starts with closed ones.
    reset_worker_breakers()
    server = FakeOpenAI().start()
    settings.OPENAI_API_KEY = "sk-fake"
    settings.OPENAI_BASE_URL = server.base_url
    settings.LLM_MODEL = FAKE_MODEL
    settings.LLM_ENABLED = True
    settings.LLM_TIMEOUT_SECONDS = 2.0
    settings.LLM_MAX_RETRIES = 2
    settings.LLM_RETRY_BACKOFF_SECONDS = 0.01
    settings.LLM_RETRY_MAX_WAIT_SECONDS = 2.0
    try:
        yield server
    finally:
        server.stop()
        reset_worker_breakers()
