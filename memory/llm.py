"""The model boundary: the only module that talks to an OpenAI-compatible model (OpenAI, Azure,
Ollama, vLLM... through ``OPENAI_BASE_URL``).

Every call is a Chat Completions request constrained by a strict JSON schema
(``response_format={"type": "json_schema", ...}``), and every HTTP attempt is stored as an
``LLMCall`` row: the messages, the raw response text, model, tokens, latency, outcome and error.
``complete_json`` never raises for model or network trouble; it returns an ``LLMResult`` whose
``outcome`` says what happened, and the caller falls back to its deterministic path.

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
  ``LLM_TIMEOUT_SECONDS``; retrying would multiply the worst case per cluster, and the next run
  tries again because failures are not cached), other 4xx (configuration errors), and answers
  that arrived but are unusable (``invalid``: not JSON, truncated, refused). Asking again about
  an unusable answer is the caller's decision, because only the caller can say what was wrong
  (``mark_invalid`` records a semantic rejection on the attempt's row).

The waits are read from settings with defaults (``LLM_RETRY_BACKOFF_SECONDS`` = 1.0,
``LLM_RETRY_MAX_WAIT_SECONDS`` = 20.0) so tests can make them tiny.
"""

from __future__ import annotations

import email.utils
import functools
import json
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai
from django.conf import settings

from memory.models import Episode, Graph, LLMCall, PipelineRun

logger = logging.getLogger(__name__)

Message = dict[str, str]
"""A chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``."""

MAX_STORED_CHARS = 100_000
"""Responses and errors longer than this are cut in the audit row (a runaway model)."""

_RETRYABLE_STATUS = frozenset({408, 409, 429})
_OK = LLMCall.Outcome.OK
_INVALID = LLMCall.Outcome.INVALID
_ERROR = LLMCall.Outcome.ERROR
_TIMEOUT = LLMCall.Outcome.TIMEOUT
_RATE_LIMITED = LLMCall.Outcome.RATE_LIMITED


@dataclass(frozen=True)
class LLMResult:
    """What one ``complete_json`` call produced, over all its attempts."""

    outcome: str
    """The last attempt's ``LLMCall.Outcome`` value."""
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
    notes: list[str] = field(default_factory=list)


def llm_enabled() -> bool:
    """Whether summaries and extraction may call the model at all."""
    return bool(settings.LLM_ENABLED and settings.LLM_MODEL)


def model_name() -> str:
    return str(settings.LLM_MODEL)


def json_schema_format(name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The ``response_format`` of a strict structured-output request."""
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": dict(schema), "strict": True},
    }


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
    cache_key: str = "",
) -> LLMResult:
    """Ask the model for one JSON object matching ``schema``; store every attempt for audit.

    Never raises for model or network trouble: ``outcome`` is ``ok`` (``data`` holds the object),
    ``invalid`` (an answer arrived but is not a usable JSON object), ``error``, ``timeout`` or
    ``rate_limited``. Database errors while auditing do raise: they are ours, not the model's.
    """
    model = model_name()
    if not llm_enabled():
        return LLMResult(outcome=_ERROR, data=None, text="", model=model,
                         error="the model is not configured (LLM_ENABLED is off)")
    response_format = json_schema_format(schema_name, schema)
    max_attempts = 1 + max(0, int(settings.LLM_MAX_RETRIES))
    rows: list[LLMCall] = []
    attempt = _Attempt(outcome=_ERROR)
    for number in range(1, max_attempts + 1):
        attempt = send_once(model, messages, response_format)
        wait = retry_wait(attempt, number) if number < max_attempts else None
        if attempt.retryable and wait is not None:
            attempt.notes.append(f"retrying in {wait:.2f}s (attempt {number} of {max_attempts})")
        rows.append(
            record_attempt(
                attempt,
                graph=graph, run=run, episode=episode, purpose=purpose, model=model,
                prompt_version=prompt_version, messages=messages,
                response_format=response_format, cache_key=cache_key,
                number=number, max_attempts=max_attempts,
            )
        )
        if not attempt.retryable or wait is None:
            break
        time.sleep(wait)
    return LLMResult(
        outcome=attempt.outcome,
        data=attempt.data if attempt.outcome == _OK else None,
        text=attempt.text,
        model=model,
        call_ids=tuple(row.pk for row in rows),
        tokens_in=sum(row.tokens_in for row in rows),
        tokens_out=sum(row.tokens_out for row in rows),
        latency_ms=sum(row.latency_ms for row in rows),
        error=attempt.error,
    )


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
    model: str, messages: Sequence[Message], response_format: dict[str, Any]
) -> _Attempt:
    """Make exactly one HTTP request and classify what came back."""
    extra: dict[str, Any] = {}
    temperature = getattr(settings, "LLM_TEMPERATURE", None)
    if temperature is not None:
        # Only when configured: some models (reasoning models) reject any temperature.
        extra["temperature"] = float(temperature)
    started = time.monotonic()
    try:
        completion = build_client().chat.completions.create(
            model=model,
            messages=[dict(m) for m in messages],  # type: ignore[misc]
            response_format=response_format,  # type: ignore[arg-type]
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


# -- audit -----------------------------------------------------------------------------------------


def record_attempt(
    attempt: _Attempt,
    *,
    graph: Graph,
    run: PipelineRun | None,
    episode: Episode | None,
    purpose: str,
    model: str,
    prompt_version: str,
    messages: Sequence[Message],
    response_format: dict[str, Any],
    cache_key: str,
    number: int,
    max_attempts: int,
) -> LLMCall:
    error = "; ".join(part for part in (attempt.error, *attempt.notes) if part)
    return LLMCall.objects.create(
        graph=graph,
        run=run,
        episode=episode,
        purpose=purpose,
        model=model,
        prompt_version=prompt_version,
        request={
            "messages": [dict(m) for m in messages],
            "response_format": response_format,
            "attempt": number,
            "max_attempts": max_attempts,
        },
        response=truncate(attempt.text),
        tokens_in=attempt.tokens_in,
        tokens_out=attempt.tokens_out,
        latency_ms=attempt.latency_ms,
        outcome=attempt.outcome,
        error=truncate(error),
        cache_key=cache_key,
    )


def elapsed_ms(started: float) -> int:
    return max(0, round((time.monotonic() - started) * 1000))


def safe_text(response: Any) -> str:
    try:
        return str(response.text)
    except Exception:  # a streamed or already-closed body: the status line is enough
        return ""


def truncate(text: str) -> str:
    return text if len(text) <= MAX_STORED_CHARS else text[:MAX_STORED_CHARS] + "…[cut]"
