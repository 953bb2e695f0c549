"""A real OpenAI-compatible HTTP server on loopback: the bench counts the model calls a
pipeline makes against it, and the tests exercise the model boundary with it (the pytest fixture
is in ``tests/fake_openai.py``).

The SDK really talks HTTP to it (nothing is patched), so base-URL handling, status codes, headers,
timeouts and JSON shapes are exercised exactly as with Ollama or vLLM. It speaks
``POST /v1/chat/completions`` (and ``GET /v1/models``).

Behaviours are queued and consumed one per request, in order. When the queue is empty the
``responder`` answers; the default one (``default_responder``) builds a valid answer from the
request itself: for each ``<cluster>`` of a summary prompt, one grounded claim per shown fact
("API Migration waits on Auth Service Refactor."), and for an extraction prompt an empty
extraction of each episode (so the caller falls back to its rules). Replace it with
``server.responder = my_function`` (a function of ``FakeRequest`` returning a ``Behaviour``).

Usage: an answer reports the tokens ``Behaviour`` gives, else counts them with
``memory.bench.tokens`` (o200k_base when ``tiktoken`` is installed): the messages, the reply's
priming and a ``json_schema`` response format's schema.

Modes beyond the queue: ``refuse_json_schema()`` answers 400 to every request that asks for a
``json_schema`` response format (as servers without structured outputs do); ``hold()`` keeps
every answer until ``release()`` (a model that is slow for as long as a test needs).
"""

from __future__ import annotations

import html
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_MODEL = "fake-model-1"
_CLUSTER = re.compile(r'<cluster id="(\d+)"[^>]*>(.*?)</cluster>', re.DOTALL)
_FACT_LINE = re.compile(r"^(\d+): (.+?) ([A-Z][A-Z_]{2,}) (.+)$", re.MULTILINE)
_EPISODE = re.compile(r'<ep id="(\d+)"')
PHRASES = {
    "DEPENDS_ON": "waits on", "RESPONSIBLE_FOR": "owns", "MEMBER_OF": "is a member of",
    "HAS_STATUS": "is", "REPORTED": "reported", "AFFECTS": "affects",
    "PRECEDED_BY": "came after", "ON_PLAN": "is on", "USES": "uses",
}
"""How the default responder words each relation (what the grounding check accepts)."""


@dataclass(frozen=True)
class FakeRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    """Names in lower case (HTTP/2-style clients send them so)."""
    body: dict[str, Any]
    received_at: float
    """``time.monotonic()`` when it arrived (to check the waits between retries)."""
    client_port: int = 0
    """The client's TCP port: the same port means the same (kept-alive) connection."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def prompt(self) -> str:
        """All message contents joined (what the model was shown)."""
        return "\n".join(str(m.get("content", "")) for m in self.messages)

    @property
    def schema_name(self) -> str:
        fmt = self.body.get("response_format") or {}
        return str((fmt.get("json_schema") or {}).get("name", ""))

    @property
    def schema(self) -> dict[str, Any]:
        fmt = self.body.get("response_format") or {}
        return dict((fmt.get("json_schema") or {}).get("schema") or {})


@dataclass(frozen=True)
class Behaviour:
    """How to answer one request."""

    status: int = 200
    content: str | None = None
    """The message content of a 200 answer (any text: valid JSON or not)."""
    body: bytes | None = None
    """A raw body, sent as is instead of a chat completion (error bodies, garbage)."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (longer than the client's timeout = a timeout)."""
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    """``None``: counted (see the module text)."""
    no_choices: bool = False
    """Answer 200 with an empty ``choices`` list."""


Responder = Callable[[FakeRequest], Behaviour]


def json_reply(content: Any, **kwargs: Any) -> Behaviour:
    return Behaviour(content=json.dumps(content), **kwargs)


def default_responder(request: FakeRequest) -> Behaviour:
    """A valid answer built from the request: grounded claims for each cluster of a summary
    prompt, an empty extraction for each episode of an extraction prompt."""
    prompt = request.prompt
    if "<cluster " in prompt:
        return json_reply(summaries_for(prompt))
    if "summary" in request.schema_name:  # an entity summary
        return json_reply({"summary": "Nothing to add."})
    episodes = [int(i) for i in _EPISODE.findall(prompt)]
    return json_reply({"episodes": [{"id": i, "entities": [], "facts": []}
                                    for i in episodes]})


def summaries_for(prompt: str) -> dict[str, Any]:
    """One claim per shown fact (at most five a cluster), worded by its relation."""
    clusters = []
    for number, body in _CLUSTER.findall(prompt):
        claims = []
        for fact, source, relation, target in _FACT_LINE.findall(body)[:5]:
            phrase = PHRASES.get(relation, "relates to")
            text = f"{html.unescape(source)} {phrase} {html.unescape(target)}"
            if relation == "PRECEDED_BY":
                text += ", a recurring pattern worth investigating"
            claims.append({"text": text + ".", "facts": [int(fact)]})
        first = _FACT_LINE.search(body)
        name = f"Pattern around {html.unescape(first.group(4))}" if first else "Pattern"
        clusters.append({"id": int(number), "name": name, "claims": claims})
    return {"clusters": clusters}


class FakeOpenAI:
    """The server and its script. Thread-safe: the SDK's requests arrive on handler threads."""

    def __init__(self) -> None:
        self.requests: list[FakeRequest] = []
        self.responder: Responder = default_responder
        self.refusing_json_schema = False
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._released = threading.Event()
        self._released.set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # Do not join handler threads on close: a client's idle keep-alive connection would
        # hold the test's teardown until the client let go of it.
        self._server.block_on_close = False
        # A short poll interval keeps shutdown (and so each test's teardown) quick.
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        daemon=True, name="fake-openai")

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        assert isinstance(host, str)  # an AF_INET server's; typeshed allows bytes for others
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        # Wake any handler sleeping in a stall so the thread ends with the test.
        self._stopping.set()
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- the script ------------------------------------------------------------------------------

    def enqueue(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    def reply_json(self, content: Any, **kwargs: Any) -> None:
        """Answer the next request with ``content`` serialized as the message content."""
        self.enqueue(json_reply(content, **kwargs))

    def reply_text(self, text: str, **kwargs: Any) -> None:
        """Answer with arbitrary message content (malformed JSON, prose...)."""
        self.enqueue(Behaviour(content=text, **kwargs))

    def fail(self, status: int, *, retry_after: float | None = None,
             message: str = "fake failure", times: int = 1) -> None:
        """Answer the next ``times`` requests with an OpenAI-style error body."""
        headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
        body = json.dumps({"error": {"message": message, "type": "fake_error",
                                     "code": str(status)}}).encode()
        self.enqueue(*[Behaviour(status=status, body=body, headers=headers)] * times)

    def stall(self, seconds: float) -> None:
        """Answer the next request only after ``seconds`` (longer than the client's timeout)."""
        self.enqueue(Behaviour(delay=seconds, content="{}"))

    def empty_choices(self) -> None:
        """Answer the next request with a 200 whose ``choices`` list is empty."""
        self.enqueue(Behaviour(no_choices=True))

    def refuse_json_schema(self, refuse: bool = True) -> None:
        """Answer 400 to every request asking for a ``json_schema`` response format."""
        self.refusing_json_schema = refuse

    def hold(self) -> None:
        """Keep every answer (of requests already waiting and to come) until ``release``."""
        self._released.clear()

    def release(self) -> None:
        self._released.set()

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> bool:
        """Block until ``count`` completion requests have arrived (for tests of work that runs
        in another thread); False if they did not within ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.completions()) >= count:
                return True
            time.sleep(0.01)
        return False

    @property
    def pending(self) -> int:
        """Queued behaviours not yet consumed."""
        with self._lock:
            return len(self._queue)

    def completions(self) -> list[FakeRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def _next(self, request: FakeRequest) -> Behaviour:
        with self._lock:
            self.requests.append(request)
            fmt = (request.body.get("response_format") or {}).get("type")
            if self.refusing_json_schema and fmt == "json_schema":
                body = json.dumps({"error": {
                    "message": "response_format.type 'json_schema' is not supported",
                    "type": "invalid_request_error", "code": "400"}}).encode()
                return Behaviour(status=400, body=body)
            if self._queue:
                return self._queue.popleft()
        return self.responder(request)

    # -- HTTP ------------------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes: with Nagle's algorithm on, the body waits
            # for the client's delayed ACK (~40 ms a call on Linux), which is no model's latency.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    payload = {"object": "list", "data": [
                        {"id": FAKE_MODEL, "object": "model", "created": 0, "owned_by": "fake"}]}
                    self._send(200, json.dumps(payload).encode(), {})
                else:
                    self._send(404, b'{"error": {"message": "not found"}}', {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode(errors="replace")}
                request = FakeRequest(
                    method="POST", path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body, received_at=time.monotonic(),
                    client_port=self.client_address[1],
                )
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "not found"}}', {})
                    return
                behaviour = fake._next(request)
                fake._released.wait()
                if fake._stopping.is_set():
                    return
                if behaviour.delay and fake._stopping.wait(behaviour.delay):
                    return
                self._send(behaviour.status, render(behaviour, body), behaviour.headers)

            def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    # The client gave up (its timeout): nothing to answer to.
                    pass

        return Handler


def render(behaviour: Behaviour, request_body: dict[str, Any]) -> bytes:
    """The HTTP body for a behaviour: its raw body, else an OpenAI ``chat.completion`` with its
    usage given or counted."""
    from memory.bench.tokens import chat_prompt_tokens, count

    if behaviour.body is not None:
        return behaviour.body
    prompt_tokens = behaviour.prompt_tokens
    if prompt_tokens is None:
        prompt_tokens = chat_prompt_tokens(request_body.get("messages") or [],
                                           request_body.get("response_format"))
    completion_tokens = behaviour.completion_tokens
    if completion_tokens is None:
        completion_tokens = count(behaviour.content or "")
    choices = [] if behaviour.no_choices else [{
        "index": 0,
        "message": {"role": "assistant", "content": behaviour.content, "refusal": None},
        "finish_reason": behaviour.finish_reason,
        "logprobs": None,
    }]
    completion = {
        "id": f"chatcmpl-fake-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": str(request_body.get("model", FAKE_MODEL)),
        "choices": choices,
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return json.dumps(completion).encode()
