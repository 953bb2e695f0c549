"""The model boundary: the only module that talks to an OpenAI-compatible model (OpenAI, Azure,
Ollama, vLLM... through ``OPENAI_BASE_URL``).

Every call is a Chat Completions request for one JSON object matching a schema, and every HTTP
attempt is stored as an ``LLMCall`` row: pointers to its texts (each distinct text is stored once
in ``PromptText``), the raw response, model, tokens, latency, outcome and error.
``complete_json`` never raises for model or network trouble; it returns an ``LLMResult`` whose
``outcome`` says what happened, and the caller falls back to its deterministic path.

Response formats
----------------
Servers differ in what they accept. The first call of a configuration (server and model) asks
for ``json_schema`` (the server enforces the schema); a 400 or 422 then means the server does not
take it, and the same request is sent again as ``json_object`` with the schema in the system
prompt, then as plain text with the schema in the prompt. The first format that is answered is
recorded in ``ModelEndpoint`` and used from then on; if none is, the configuration is recorded as
unusable (the runs page and ``manage.py check`` say so) and calls are skipped until
``LLM_ENDPOINT_RECHECK_SECONDS`` have passed. Whatever the format, the answer is checked against
the schema here (``jsonschema``): a server that only promises JSON is not trusted to follow it.

Retries and the audit
---------------------
The SDK's own retries are switched off (``max_retries=0``): a retry inside the SDK is invisible
from the outside, and the audit must show that a 429 or a 500 happened before a success. This
module retries instead, one ``LLMCall`` row per attempt:

* retried, up to ``LLM_MAX_RETRIES`` more times: 429 (``rate_limited``), 408, 409, 5xx and
  connection failures (``error``);
* the wait before a retry honours the server's ``retry-after-ms`` / ``Retry-After``; without
  one it is exponential, ``LLM_RETRY_BACKOFF_SECONDS * 2**(n-1)`` less up to 25 % jitter; a
  wait longer than ``LLM_RETRY_MAX_WAIT_SECONDS`` is not waited for (the attempt stays the last)
  so that a worker holding a graph's run never sleeps for minutes;
* never retried: timeouts (``timeout`` — the model already had the whole
  ``LLM_TIMEOUT_SECONDS``), other 4xx once the format is known (configuration errors), and
  answers that arrived but are unusable (``invalid``: not JSON, not the schema, truncated, no
  choices, refused). Asking again about an unusable answer is the caller's decision, because only
  the caller can say what was wrong (``mark_invalid`` records a semantic rejection on the row).

Breakers and budgets
--------------------
A ``Breaker`` stops asking a model that keeps failing: after ``LLM_BREAKER_FAILURES`` failed
calls in a row (timeouts, errors, rate limits — not answers it did not like) it opens, and calls
are skipped without a request; after ``LLM_BREAKER_COOLDOWN_SECONDS`` one trial call goes through
(half-open): an answer closes it, a failure opens it for another cooldown. Skipped calls change
nothing, so a run's breaker stays open across the clusters it skips. A pipeline run has its own
breaker for summaries; extraction and entity summaries share one breaker each per worker process
(``worker_breaker``). A ``memory.spend.Budget`` passed in (or read for the graph) refuses calls
once the graph's monthly token budget is spent. A skipped call has the outcome ``skipped`` and
says why in ``failure``.
"""

from __future__ import annotations

import email.utils
import functools
import hashlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import jsonschema
import openai
from django.conf import settings
from django.utils import timezone

from memory.models import Episode, Graph, LLMCall, ModelEndpoint, PipelineRun, PromptText

logger = logging.getLogger(__name__)

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""

MAX_STORED_CHARS = 100_000
"""Responses and errors longer than this are cut in the audit row (a runaway model)."""

_RETRYABLE_STATUS = frozenset({408, 409, 429})
_FORMAT_REJECTED = frozenset({400, 415, 422})
"""What a server answers to a response format it does not take (vLLM 400, some proxies 422)."""
_OK = LLMCall.Outcome.OK
_INVALID = LLMCall.Outcome.INVALID
_ERROR = LLMCall.Outcome.ERROR
_TIMEOUT = LLMCall.Outcome.TIMEOUT
_RATE_LIMITED = LLMCall.Outcome.RATE_LIMITED
SKIPPED = "skipped"
"""The outcome of a call that made no request (breaker open, budget spent, model unusable)."""
FAILED = frozenset({_ERROR, _TIMEOUT, _RATE_LIMITED})
"""Outcomes that count against a breaker: the model did not answer."""

FORMATS = (ModelEndpoint.Format.JSON_SCHEMA, ModelEndpoint.Format.JSON_OBJECT,
           ModelEndpoint.Format.PLAIN)


@dataclass(frozen=True)
class LLMResult:
    """What one ``complete_json`` call produced, over all its attempts."""

    outcome: str
    """The last attempt's ``LLMCall.Outcome`` value, or ``skipped``."""
    data: dict[str, Any] | None
    """The parsed JSON object when ``outcome`` is ``ok``."""
    text: str
    """The raw content of the last answer (or the error body)."""
    model: str
    call_ids: tuple[int, ...] = ()
    """One ``LLMCall`` row per HTTP attempt, in order."""
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    error: str = ""
    skipped_because: str = ""
    """Why no request was made, for a ``skipped`` call ("monthly model budget spent")."""

    @property
    def ok(self) -> bool:
        return self.outcome == _OK

    @property
    def call_id(self) -> int | None:
        """The row of the last attempt (the one whose answer is ``data``)."""
        return self.call_ids[-1] if self.call_ids else None

    @property
    def attempts(self) -> int:
        return len(self.call_ids)

    @property
    def answered(self) -> bool:
        """The model answered (well or badly): the caller may ask it again about the answer."""
        return self.outcome in (_OK, _INVALID)

    @property
    def failure(self) -> str:
        """The short reason a stand-in shows: "model failed: timeout", "monthly model budget
        spent"...; empty when the model answered."""
        if self.outcome == SKIPPED:
            return self.skipped_because
        if self.outcome in FAILED:
            label = "rate limited" if self.outcome == _RATE_LIMITED else self.outcome
            return f"model failed: {label}"
        return ""


@dataclass
class _Attempt:
    """One HTTP attempt, before it is stored."""

    outcome: str
    text: str = ""
    data: dict[str, Any] | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    latency_ms: int = 0
    error: str = ""
    retryable: bool = False
    retry_after: float | None = None
    """Seconds the server asked us to wait (``Retry-After``), when it said."""
    status: int | None = None
    """The HTTP status of an error answer."""
    notes: list[str] = field(default_factory=list)


def llm_enabled() -> bool:
    """Whether summaries and extraction may call the model at all."""
    return bool(settings.LLM_ENABLED and settings.LLM_MODEL)


def model_name() -> str:
    return str(settings.LLM_MODEL)


def configuration_key() -> str:
    """Identifies the configured server and model (what a response format is detected for)."""
    base = str(settings.OPENAI_BASE_URL or "")
    return hashlib.sha256(f"{base}|{model_name()}".encode()).hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def schema_text(schema: Mapping[str, Any]) -> str:
    """The schema as the prompt and the audit carry it: compact, keys in a stable order."""
    return json.dumps(schema, separators=(",", ":"), sort_keys=False)


# -- breakers ----------------------------------------------------------------------------------


class Breaker:
    """Stops calling a model that keeps failing, and tries again after a cooldown (see the module
    text). Thread-safe: a worker's threads share the per-worker breakers."""

    def __init__(self, name: str, *, failures: int | None = None, cooldown: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.threshold = max(1, int(failures if failures is not None
                                    else getattr(settings, "LLM_BREAKER_FAILURES", 3)))
        self.cooldown = float(cooldown if cooldown is not None
                              else getattr(settings, "LLM_BREAKER_COOLDOWN_SECONDS", 60.0))
        self.clock = clock
        self.failures_in_a_row = 0
        self.opened_at: float | None = None
        self.trial_running = False
        self.last_failure = ""
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        if self.opened_at is None:
            return "closed"
        return "half_open" if self.clock() - self.opened_at >= self.cooldown else "open"

    def allow(self) -> bool:
        """Whether a call may go out now. In the half-open state exactly one trial does."""
        with self._lock:
            state = self.state
            if state == "closed":
                return True
            if state == "half_open" and not self.trial_running:
                self.trial_running = True
                return True
            return False

    def record(self, outcome: str) -> None:
        """The outcome of a call that went out (a skipped call is not recorded)."""
        with self._lock:
            self.trial_running = False
            if outcome in FAILED:
                self.failures_in_a_row += 1
                self.last_failure = outcome
                if self.opened_at is not None or self.failures_in_a_row >= self.threshold:
                    self.opened_at = self.clock()
            elif outcome != SKIPPED:
                self.failures_in_a_row = 0
                self.opened_at = None

    @property
    def reason(self) -> str:
        label = ("rate limited" if self.last_failure == _RATE_LIMITED
                 else self.last_failure)
        return f"model paused after {self.failures_in_a_row} failures in a row ({label})"


_worker_breakers: dict[tuple[str, str], Breaker] = {}
_worker_lock = threading.Lock()


def worker_breaker(purpose: str) -> Breaker:
    """This process's breaker for ``purpose`` and the configured model (extraction, entity
    summaries): shared by every task the worker runs, so a dead model costs a few calls per
    cooldown, not one per episode."""
    key = (purpose, configuration_key())
    with _worker_lock:
        if key not in _worker_breakers:
            _worker_breakers[key] = Breaker(f"{purpose} (this worker)")
        return _worker_breakers[key]


def reset_worker_breakers() -> None:
    """Forget every per-worker breaker (a new configuration, a test)."""
    with _worker_lock:
        _worker_breakers.clear()


# -- the response format of the configured server -----------------------------------------------


@dataclass(frozen=True)
class EndpointState:
    response_format: str
    """The format to use: the detected one, else the strictest (``json_schema``) to try."""
    confirmed: bool
    usable: bool
    detail: str = ""


def endpoint_state() -> EndpointState:
    """What this configuration's server is known to accept (one query)."""
    row = ModelEndpoint.objects.filter(key=configuration_key()).first()
    if row is None or (not row.response_format and row.usable):
        return EndpointState(FORMATS[0], confirmed=False, usable=True)
    if not row.usable:
        recheck = float(getattr(settings, "LLM_ENDPOINT_RECHECK_SECONDS", 3600))
        if timezone.now() - row.checked_at >= timedelta(seconds=recheck):
            return EndpointState(FORMATS[0], confirmed=False, usable=True)
        return EndpointState(row.response_format or FORMATS[0], confirmed=False, usable=False,
                             detail=row.detail)
    return EndpointState(row.response_format, confirmed=True, usable=True, detail=row.detail)


def record_endpoint(response_format: str, *, usable: bool, detail: str = "") -> None:
    ModelEndpoint.objects.update_or_create(
        key=configuration_key(),
        defaults={"base_url": str(settings.OPENAI_BASE_URL or ""), "model": model_name(),
                  "response_format": response_format, "usable": usable,
                  "detail": detail[:2000], "checked_at": timezone.now()},
    )


def response_format_for(fmt: str, name: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` parameter for a format (``None``: not sent)."""
    if fmt == ModelEndpoint.Format.JSON_SCHEMA:
        return {"type": "json_schema",
                "json_schema": {"name": name, "schema": dict(schema), "strict": True}}
    if fmt == ModelEndpoint.Format.JSON_OBJECT:
        return {"type": "json_object"}
    return None


def messages_for(fmt: str, messages: Sequence[Message], schema: Mapping[str, Any]
                 ) -> list[Message]:
    """Without an enforced schema the model reads it in the system prompt."""
    if fmt == ModelEndpoint.Format.JSON_SCHEMA:
        return [dict(m) for m in messages]
    note = ("Answer with one JSON object, and nothing else, matching this JSON Schema:\n"
            + schema_text(schema))
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0]['content']}\n{note}"
    else:
        out.insert(0, {"role": "system", "content": note})
    return out


# -- the call ----------------------------------------------------------------------------------


def complete_json(
    *,
    graph: Graph,
    purpose: str,
    prompt_version: str,
    messages: Sequence[Message],
    schema: Mapping[str, Any],
    schema_name: str,
    run: PipelineRun | None = None,
    episode: Episode | None = None,
    episode_ids: Sequence[int] = (),
    cache_key: str = "",
    breaker: Breaker | None = None,
    budget: Any = None,
) -> LLMResult:
    """Ask the model for one JSON object matching ``schema``; store every attempt for audit.

    Never raises for model or network trouble: ``outcome`` is ``ok`` (``data`` holds the object),
    ``invalid`` (an answer arrived but is not a usable JSON object of the schema), ``error``,
    ``timeout``, ``rate_limited`` or ``skipped`` (no request: ``breaker`` open, ``budget``
    spent — a ``memory.spend.Budget``, read for the graph when not given — or the model unusable).
    ``episode_ids``: the episodes a batched call reads (kept in its audit row). Database errors
    while auditing do raise: they are ours, not the model's.
    """
    from memory.spend import Budget

    model = model_name()
    if not llm_enabled():
        return LLMResult(outcome=SKIPPED, data=None, text="", model=model,
                         error="the model is not configured (LLM_ENABLED is off)",
                         skipped_because="no model configured")
    budget = budget if budget is not None else Budget.for_graph(graph)
    if not budget.allows():
        return LLMResult(outcome=SKIPPED, data=None, text="", model=model,
                         skipped_because="monthly model budget spent")
    endpoint = endpoint_state()
    if not endpoint.usable:
        return LLMResult(outcome=SKIPPED, data=None, text="", model=model,
                         skipped_because=f"model unusable: {endpoint.detail}"[:200])
    if breaker is not None and not breaker.allow():
        return LLMResult(outcome=SKIPPED, data=None, text="", model=model,
                         skipped_because=breaker.reason)
    result = _CallMaker(
        graph=graph, purpose=purpose, prompt_version=prompt_version, messages=messages,
        schema=schema, schema_name=schema_name, run=run, episode=episode,
        episode_ids=episode_ids, cache_key=cache_key, endpoint=endpoint,
    ).call()
    if breaker is not None:
        breaker.record(result.outcome)
    budget.spend(result.tokens_in + result.tokens_out)
    return result


class _CallMaker:
    """One ``complete_json``: its attempts, the format detection, the audit rows."""

    def __init__(self, *, graph: Graph, purpose: str, prompt_version: str,
                 messages: Sequence[Message], schema: Mapping[str, Any], schema_name: str,
                 run: PipelineRun | None, episode: Episode | None, episode_ids: Sequence[int],
                 cache_key: str, endpoint: EndpointState) -> None:
        self.graph, self.purpose, self.prompt_version = graph, purpose, prompt_version
        self.messages, self.schema, self.schema_name = messages, schema, schema_name
        self.run, self.episode, self.episode_ids = run, episode, list(episode_ids)
        self.cache_key = cache_key
        self.endpoint = endpoint
        self.model = model_name()
        self.rows: list[LLMCall] = []

    def call(self) -> LLMResult:
        fmt = self.endpoint.response_format
        max_attempts = 1 + max(0, int(settings.LLM_MAX_RETRIES))
        attempt = _Attempt(outcome=_ERROR)
        number = 0
        while number < max_attempts:
            number += 1
            sent = messages_for(fmt, self.messages, self.schema)
            response_format = response_format_for(fmt, self.schema_name, self.schema)
            attempt = send_once(self.model, sent, response_format)
            if attempt.outcome == _OK:
                check_schema(attempt, self.schema)
            downgrade = self.next_format(fmt, attempt)
            wait = None
            if downgrade is None and number < max_attempts:
                wait = retry_wait(attempt, number)
                if attempt.retryable and wait is not None:
                    attempt.notes.append(
                        f"retrying in {wait:.2f}s (attempt {number} of {max_attempts})")
            if downgrade is not None:
                attempt.notes.append(f"the server refused response format {fmt}; "
                                     f"trying {downgrade}")
            self.rows.append(self.record(attempt, sent, response_format, fmt, number,
                                         max_attempts))
            if downgrade is not None:
                fmt = downgrade
                number -= 1  # finding the format is not a retry
                continue
            if attempt.outcome in (_OK, _INVALID) and not self.endpoint.confirmed:
                record_endpoint(fmt, usable=True, detail="answered")
            if not attempt.retryable or wait is None:
                break
            time.sleep(wait)
        return LLMResult(
            outcome=attempt.outcome,
            data=attempt.data if attempt.outcome == _OK else None,
            text=attempt.text,
            model=self.model,
            call_ids=tuple(row.pk for row in self.rows),
            tokens_in=sum(row.tokens_in for row in self.rows),
            tokens_out=sum(row.tokens_out for row in self.rows),
            latency_ms=sum(row.latency_ms for row in self.rows),
            error=attempt.error,
        )

    def next_format(self, fmt: str, attempt: _Attempt) -> str | None:
        """The format to try next when the server refused this one, while it is not known;
        after the last one the configuration is recorded as unusable."""
        if self.endpoint.confirmed or attempt.status not in _FORMAT_REJECTED:
            return None
        position = FORMATS.index(fmt)
        if position + 1 < len(FORMATS):
            return FORMATS[position + 1]
        record_endpoint("", usable=False, detail=f"every response format refused: "
                                                 f"{attempt.error}")
        return None

    def record(self, attempt: _Attempt, sent: Sequence[Message],
               response_format: dict[str, Any] | None, fmt: str, number: int,
               max_attempts: int) -> LLMCall:
        error = "; ".join(part for part in (attempt.error, *attempt.notes) if part)
        texts = {text_hash(m["content"]): m["content"] for m in sent}
        schema_key = text_hash(schema_text(self.schema))
        texts[schema_key] = schema_text(self.schema)
        store_texts(texts)
        request: dict[str, Any] = {
            "messages": [{"role": m["role"], "text": text_hash(m["content"])} for m in sent],
            "response_format": {"type": fmt, "name": self.schema_name, "schema": schema_key,
                                "sent": bool(response_format)},
            "attempt": number,
            "max_attempts": max_attempts,
        }
        if self.episode_ids:
            request["episodes"] = self.episode_ids
        return LLMCall.objects.create(
            graph=self.graph, run=self.run, episode=self.episode, purpose=self.purpose,
            model=self.model, prompt_version=self.prompt_version, request=request,
            response=truncate(attempt.text), tokens_in=attempt.tokens_in,
            tokens_out=attempt.tokens_out, latency_ms=attempt.latency_ms,
            outcome=attempt.outcome, error=truncate(error), cache_key=self.cache_key,
        )


def store_texts(texts: Mapping[str, str]) -> None:
    """Each text once (by hash): a conflict on an existing hash is ignored (one query)."""
    PromptText.objects.bulk_create(
        [PromptText(sha256=key, text=text) for key, text in texts.items()],
        ignore_conflicts=True,
    )


def check_schema(attempt: _Attempt, schema: Mapping[str, Any]) -> None:
    """An answer that is JSON but not the schema's is ``invalid``, with the first violation."""
    try:
        jsonschema.validate(attempt.data, dict(schema))
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "the answer"
        attempt.outcome = _INVALID
        attempt.data = None
        attempt.error = f"the answer does not match the schema at {where}: {exc.message}"[:1000]


def mark_invalid(result: LLMResult, problems: Sequence[str]) -> None:
    """Record on the answer's row that the caller rejected it (ids outside the cluster, an
    invented sentence...), so the audit shows why a well-formed answer was not used."""
    if result.call_id is None:
        return
    LLMCall.objects.filter(pk=result.call_id).update(
        outcome=_INVALID, error=truncate("rejected: " + "; ".join(problems))
    )


def annotate_call(result: LLMResult, note: str) -> None:
    """Add a note to the answer's row without changing its outcome (an answer that was used,
    minus the parts the caller dropped)."""
    if result.call_id is None:
        return
    LLMCall.objects.filter(pk=result.call_id).update(error=truncate(note))


# -- one attempt ---------------------------------------------------------------------------------


def build_client() -> openai.OpenAI:
    """The client for the configured model, shared by every call with the same configuration:
    building one costs tens of milliseconds (its TLS context), more than a loopback answer."""
    return _client_for(
        settings.OPENAI_API_KEY or "not-needed",
        settings.OPENAI_BASE_URL or None,
        float(settings.LLM_TIMEOUT_SECONDS),
    )


@functools.lru_cache(maxsize=8)
def _client_for(api_key: str, base_url: str | None, timeout: float) -> openai.OpenAI:
    # Retries are ours (see the module docstring), so the SDK must not retry on its own.
    return openai.OpenAI(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=0)


def send_once(
    model: str, messages: Sequence[Message], response_format: dict[str, Any] | None
) -> _Attempt:
    """Make exactly one HTTP request and classify what came back."""
    extra: dict[str, Any] = {}
    temperature = getattr(settings, "LLM_TEMPERATURE", None)
    if temperature is not None:
        # Only when configured: some models (reasoning models) reject any temperature.
        extra["temperature"] = float(temperature)
    if response_format is not None:
        extra["response_format"] = response_format
    started = time.monotonic()
    try:
        completion = build_client().chat.completions.create(
            model=model,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            **extra,
        )
    except openai.APITimeoutError:
        return _Attempt(outcome=_TIMEOUT, latency_ms=elapsed_ms(started),
                        error=f"no answer within {settings.LLM_TIMEOUT_SECONDS}s")
    except openai.APIStatusError as exc:
        return classify_status_error(exc, elapsed_ms(started))
    except openai.APIConnectionError as exc:
        return _Attempt(outcome=_ERROR, latency_ms=elapsed_ms(started), retryable=True,
                        error=f"connection failed: {exc.__cause__ or exc}")
    except Exception as exc:
        # Anything else the SDK or the HTTP stack throws (a malformed HTTP body, a bad base URL)
        # is still model trouble from the caller's point of view: fall back, keep it in the audit.
        logger.warning("model call failed unexpectedly: %r", exc)
        return _Attempt(outcome=_ERROR, latency_ms=elapsed_ms(started),
                        error=f"{type(exc).__name__}: {exc}")
    return read_completion(completion, elapsed_ms(started))


def classify_status_error(exc: openai.APIStatusError, latency_ms: int) -> _Attempt:
    status = exc.status_code
    body = safe_text(exc.response)
    retryable = status in _RETRYABLE_STATUS or status >= 500
    return _Attempt(
        outcome=_RATE_LIMITED if status == 429 else _ERROR,
        text=body,
        latency_ms=latency_ms,
        error=f"HTTP {status}: {exc.message}",
        retryable=retryable,
        retry_after=parse_retry_after(exc.response.headers) if retryable else None,
        status=status,
    )


def read_completion(completion: Any, latency_ms: int) -> _Attempt:
    """Turn a 200 answer into an attempt: ``ok`` with a JSON object, else ``invalid``."""
    usage = getattr(completion, "usage", None)
    attempt = _Attempt(
        outcome=_INVALID,
        latency_ms=latency_ms,
        tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
    )
    choices = getattr(completion, "choices", None) or []
    if not choices:
        attempt.error = "the answer has no choices"
        return attempt
    choice = choices[0]
    message = choice.message
    attempt.text = message.content or ""
    if getattr(message, "refusal", None):
        attempt.text = attempt.text or message.refusal
        attempt.error = f"the model refused: {message.refusal}"
        return attempt
    if choice.finish_reason == "length":
        attempt.error = "the answer was cut off (finish_reason=length)"
        return attempt
    data, problem = parse_json_object(attempt.text)
    if data is None:
        attempt.error = problem
        return attempt
    attempt.outcome = _OK
    attempt.data = data
    return attempt


def parse_json_object(text: str) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in ``text`` and ``""``, or ``None`` and what is wrong with it. A single
    Markdown code fence is tolerated: local servers that do not enforce the schema add one."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`").removeprefix("json").strip()
    if not stripped:
        return None, "the answer is empty"
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        return None, f"the answer is not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"the answer is JSON but not an object ({type(value).__name__})"
    return value, ""


# -- retry policy ----------------------------------------------------------------------------------


def retry_wait(attempt: _Attempt, number: int) -> float | None:
    """Seconds to wait before attempt ``number + 1``; ``None`` when it should not be made."""
    if not attempt.retryable:
        return None
    cap = float(getattr(settings, "LLM_RETRY_MAX_WAIT_SECONDS", 20.0))
    if attempt.retry_after is not None:
        if attempt.retry_after > cap:
            attempt.notes.append(
                f"not retried: the server asked for {attempt.retry_after:.1f}s, more than "
                f"LLM_RETRY_MAX_WAIT_SECONDS={cap:g}"
            )
            return None
        return max(0.0, attempt.retry_after)
    base = float(getattr(settings, "LLM_RETRY_BACKOFF_SECONDS", 1.0))
    # Jitter spreads the retries of parallel workers hitting the same rate limit.
    return min(cap, base * 2 ** (number - 1) * (1 - 0.25 * random.random()))


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` (OpenAI's), else ``Retry-After`` (seconds or an HTTP
    date); ``None`` when absent or unreadable."""
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return float(value) / divisor
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - time.time())


# -- audit helpers ---------------------------------------------------------------------------------


def elapsed_ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))


def safe_text(response: Any) -> str:
    try:
        return str(response.text)
    except Exception:  # a streamed or already-closed body: the status line is enough
        return ""


def truncate(text: str) -> str:
    return text if len(text) <= MAX_STORED_CHARS else text[:MAX_STORED_CHARS] + "…[cut]"
