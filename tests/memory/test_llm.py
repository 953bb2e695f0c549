"""The model boundary against a real HTTP server: every attempt audited, nothing raised."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from memory.llm import (
    Breaker,
    LLMResult,
    complete_json,
    endpoint_state,
    mark_invalid,
    parse_retry_after,
)
from memory.models import Graph, LLMCall, ModelEndpoint, PromptText
from memory.spend import Budget
from tests.factories import GraphFactory
from tests.fake_openai import FAKE_MODEL, FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["answer"],
    "properties": {"answer": {"type": "string"}},
}
MESSAGES = [
    {"role": "system", "content": "Answer in JSON."},
    {"role": "user", "content": "What is the answer?"},
]


def ask(graph: Graph, **kwargs: Any) -> LLMResult:
    return complete_json(
        graph=graph, purpose=LLMCall.Purpose.SUMMARY, prompt_version="test@1",
        messages=MESSAGES, schema=SCHEMA, schema_name="test_answer", **kwargs,
    )


def outcomes(graph: Graph) -> list[str]:
    return list(LLMCall.objects.filter(graph=graph).order_by("pk").values_list("outcome",
                                                                             flat=True))


def test_a_valid_answer_is_parsed_and_audited_with_prompt_tokens_and_latency(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.reply_json({"answer": "42"}, prompt_tokens=30, completion_tokens=5)

    result = ask(graph, cache_key="k" * 64)

    assert result.ok
    assert result.data == {"answer": "42"}
    assert (result.tokens_in, result.tokens_out, result.attempts) == (30, 5, 1)
    row = LLMCall.objects.get(pk=result.call_id)
    assert row.outcome == LLMCall.Outcome.OK
    assert row.model == FAKE_MODEL
    assert row.prompt_version == "test@1"
    assert row.messages() == MESSAGES
    assert row.response == '{"answer": "42"}'
    assert (row.tokens_in, row.tokens_out) == (30, 5)
    assert row.latency_ms >= 0
    assert row.cache_key == "k" * 64


def test_successive_calls_share_one_kept_alive_connection(fake_openai: FakeOpenAI) -> None:
    graph = GraphFactory()
    for answer in ("1", "2", "3"):
        fake_openai.reply_json({"answer": answer})

    results = [ask(graph) for _ in range(3)]

    assert [r.data for r in results] == [{"answer": "1"}, {"answer": "2"}, {"answer": "3"}]
    assert len({request.client_port for request in fake_openai.completions()}) == 1


def test_the_request_is_a_strict_json_schema_chat_completion_with_the_configured_key(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.reply_json({"answer": "yes"})

    ask(GraphFactory())

    (request,) = fake_openai.completions()
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-fake"
    assert request.body["model"] == FAKE_MODEL
    assert request.body["messages"] == MESSAGES
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "test_answer", "schema": SCHEMA, "strict": True},
    }


def test_a_429_then_success_is_retried_after_retry_after_and_both_attempts_are_audited(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.fail(429, retry_after=0.3)
    fake_openai.reply_json({"answer": "after the wait"})

    result = ask(graph)

    assert result.ok
    assert result.data == {"answer": "after the wait"}
    assert result.attempts == 2
    assert outcomes(graph) == ["rate_limited", "ok"]
    first, second = fake_openai.completions()
    assert second.received_at - first.received_at >= 0.3
    limited = LLMCall.objects.get(pk=result.call_ids[0])
    assert "HTTP 429" in limited.error
    assert "retrying" in limited.error
    assert limited.request["attempt"] == 1


def test_a_server_that_keeps_failing_gets_a_bounded_number_of_attempts_all_audited(
    fake_openai: FakeOpenAI, settings: Any,
) -> None:
    graph = GraphFactory()
    settings.LLM_MAX_RETRIES = 2
    fake_openai.fail(500, times=10)

    result = ask(graph)

    assert result.outcome == "error"
    assert result.data is None
    assert "HTTP 500" in result.error
    assert len(fake_openai.completions()) == 3  # the SDK adds no hidden retries of its own
    assert outcomes(graph) == ["error", "error", "error"]


def test_with_no_retries_configured_a_failure_costs_exactly_one_request(
    fake_openai: FakeOpenAI, settings: Any,
) -> None:
    settings.LLM_MAX_RETRIES = 0
    fake_openai.fail(503, times=5)

    result = ask(GraphFactory())

    assert result.outcome == "error"
    assert len(fake_openai.completions()) == 1


def test_a_retry_after_longer_than_the_cap_is_not_waited_for(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.fail(429, retry_after=600)

    result = ask(graph)

    assert result.outcome == "rate_limited"
    assert len(fake_openai.completions()) == 1
    assert "not retried" in LLMCall.objects.get(pk=result.call_id).error


def test_once_the_format_is_known_a_bad_request_is_not_retried(fake_openai: FakeOpenAI) -> None:
    graph = GraphFactory()
    fake_openai.reply_json({"answer": "the format works"})
    ask(graph)
    fake_openai.fail(400, message="the context is too long")

    result = ask(graph)

    assert result.outcome == "error"
    assert "the context is too long" in result.error
    assert outcomes(graph) == ["ok", "error"]
    assert "the context is too long" in LLMCall.objects.get(pk=result.call_id).response


def test_a_model_slower_than_the_timeout_ends_as_timeout_without_a_retry(
    fake_openai: FakeOpenAI, settings: Any,
) -> None:
    graph = GraphFactory()
    settings.LLM_TIMEOUT_SECONDS = 0.3
    fake_openai.stall(5)

    result = ask(graph)

    assert result.outcome == "timeout"
    assert outcomes(graph) == ["timeout"]
    assert len(fake_openai.completions()) == 1
    assert LLMCall.objects.get(pk=result.call_id).latency_ms >= 250


def test_content_that_is_not_json_is_invalid_and_kept_verbatim_for_the_audit(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.reply_text("Sure! Here is the answer: {answer: 42")

    result = ask(graph)

    assert result.outcome == "invalid"
    assert result.data is None
    assert "not valid JSON" in result.error
    row = LLMCall.objects.get(pk=result.call_id)
    assert row.response == "Sure! Here is the answer: {answer: 42"
    assert row.tokens_in > 0  # an unusable answer still cost tokens
    assert len(fake_openai.completions()) == 1


def test_json_that_is_not_an_object_is_invalid(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json(["answer", 42])

    assert ask(GraphFactory()).outcome == "invalid"


def test_an_answer_cut_off_by_the_length_limit_is_invalid(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_text('{"answer": "tru', finish_reason="length")

    result = ask(GraphFactory())

    assert result.outcome == "invalid"
    assert "cut off" in result.error


def test_json_wrapped_in_a_markdown_fence_by_a_lenient_local_server_is_accepted(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.reply_text('```json\n{"answer": "fenced"}\n```')

    assert ask(GraphFactory()).data == {"answer": "fenced"}


def test_an_unreachable_server_is_an_error_retried_and_audited(settings: Any) -> None:
    graph = GraphFactory()
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.OPENAI_API_KEY = "sk-fake"
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{port}/v1"
    settings.LLM_MODEL = FAKE_MODEL
    settings.LLM_ENABLED = True
    settings.LLM_MAX_RETRIES = 1
    settings.LLM_RETRY_BACKOFF_SECONDS = 0.01

    result = ask(graph)

    assert result.outcome == "error"
    assert "connection failed" in result.error
    assert outcomes(graph) == ["error", "error"]


def test_with_the_model_disabled_nothing_is_sent_and_nothing_is_stored(
    fake_openai: FakeOpenAI, settings: Any,
) -> None:
    graph = GraphFactory()
    settings.LLM_ENABLED = False

    result = ask(graph)

    assert result.outcome == "skipped"
    assert result.call_id is None
    assert fake_openai.requests == []
    assert outcomes(graph) == []


def test_a_caller_rejecting_a_well_formed_answer_marks_its_row_invalid_with_the_reason(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.reply_json({"answer": "cites fact 999999"})
    result = ask(GraphFactory())

    mark_invalid(result, ["claim 0 cites facts outside the cluster: [999999]"])

    row = LLMCall.objects.get(pk=result.call_id)
    assert row.outcome == "invalid"
    assert "999999" in row.error


def test_retry_after_is_read_from_milliseconds_seconds_or_an_http_date() -> None:
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({}) is None


# -- what the audit stores ------------------------------------------------------------------------


def test_each_distinct_text_is_stored_once_and_the_rows_point_at_it(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()

    for _ in range(3):
        fake_openai.reply_json({"answer": "same question"})
        ask(graph)

    rows = list(LLMCall.objects.filter(graph=graph))
    assert len(rows) == 3
    # The system prompt, the user message and the schema: three texts for three calls.
    assert PromptText.objects.count() == 3
    assert all(row.messages() == MESSAGES for row in rows)
    assert all("content" not in m for row in rows for m in row.request["messages"])
    assert rows[0].schema_text() == '{"type":"object","additionalProperties":false,' \
        '"required":["answer"],"properties":{"answer":{"type":"string"}}}'


# -- response formats -----------------------------------------------------------------------------


def test_a_server_refusing_json_schema_is_asked_again_with_json_object_and_that_is_remembered(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.refuse_json_schema()
    fake_openai.reply_json({"answer": "one"})
    fake_openai.reply_json({"answer": "two"})

    first = ask(graph)
    second = ask(graph)

    assert first.ok and second.ok
    formats = [(r.body.get("response_format") or {}).get("type")
               for r in fake_openai.completions()]
    # Detected once: the refused json_schema, then json_object for this call and the next.
    assert formats == ["json_schema", "json_object", "json_object"]
    assert outcomes(graph) == ["error", "ok", "ok"]
    refused = LLMCall.objects.filter(graph=graph).order_by("pk").first()
    assert "trying json_object" in refused.error
    endpoint = ModelEndpoint.objects.get()
    assert (endpoint.response_format, endpoint.usable) == ("json_object", True)
    # Without an enforced schema the model reads it in the system prompt.
    system = fake_openai.completions()[-1].messages[0]["content"]
    assert system.startswith("Answer in JSON.")
    assert '"required":["answer"]' in system


def test_a_server_refusing_every_response_format_gets_plain_text_with_the_schema_checked_here(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.fail(400, message="response_format json_schema unsupported")
    fake_openai.fail(400, message="response_format json_object unsupported")
    fake_openai.reply_text('{"answer": 42}')  # plain text, and not the schema's string

    result = ask(graph)

    assert result.outcome == "invalid"
    assert "does not match the schema at answer" in result.error
    assert "response_format" not in fake_openai.completions()[-1].body
    assert ModelEndpoint.objects.get().response_format == "plain"


def test_a_model_that_refuses_every_format_is_recorded_unusable_and_then_not_asked(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    fake_openai.fail(400, message="unknown model fake-model-1", times=3)

    first = ask(graph)
    second = ask(graph)

    assert first.outcome == "error"
    assert len(fake_openai.completions()) == 3  # json_schema, json_object, plain: then nothing
    assert second.outcome == "skipped"
    assert second.failure.startswith("model unusable: every response format refused")
    state = endpoint_state()
    assert not state.usable and "unknown model" in state.detail


def test_an_answer_that_breaks_the_schema_is_invalid_with_where_it_breaks(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.reply_json({"answer": "yes", "extra": "not allowed"})

    result = ask(GraphFactory())

    assert result.outcome == "invalid"
    assert "does not match the schema" in result.error
    assert "'extra' was unexpected" in result.error


def test_an_answer_without_choices_is_invalid_not_an_exception(fake_openai: FakeOpenAI) -> None:
    fake_openai.empty_choices()

    result = ask(GraphFactory())

    assert result.outcome == "invalid"
    assert result.error == "the answer has no choices"
    assert result.answered  # the caller may ask again about it


# -- breakers and budgets --------------------------------------------------------------------------


class Clock:
    """A clock the test moves by hand (the breaker's only notion of time)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_open_breaker_skips_calls_until_its_cooldown_then_lets_one_trial_through(
    fake_openai: FakeOpenAI,
) -> None:
    graph = GraphFactory()
    clock = Clock()
    breaker = Breaker("test", failures=2, cooldown=60, clock=clock)
    fake_openai.fail(500, times=6)  # three attempts each for the two failing calls

    assert [ask(graph, breaker=breaker).outcome for _ in range(2)] == ["error", "error"]
    skipped = ask(graph, breaker=breaker)
    assert skipped.outcome == "skipped"
    assert skipped.failure == "model paused after 2 failures in a row (error)"
    assert len(fake_openai.completions()) == 6

    clock.now += 59
    assert ask(graph, breaker=breaker).outcome == "skipped"
    clock.now += 1  # half-open: one trial goes out, and it answers
    assert breaker.state == "half_open"
    fake_openai.reply_json({"answer": "back"})
    assert ask(graph, breaker=breaker).ok
    assert breaker.state == "closed"
    assert len(fake_openai.completions()) == 7


def test_a_failed_trial_opens_the_breaker_for_another_cooldown(fake_openai: FakeOpenAI) -> None:
    graph = GraphFactory()
    clock = Clock()
    breaker = Breaker("test", failures=1, cooldown=60, clock=clock)
    fake_openai.stall(5)
    fake_openai.stall(5)
    from django.conf import settings

    settings.LLM_TIMEOUT_SECONDS = 0.2

    assert ask(graph, breaker=breaker).outcome == "timeout"
    clock.now += 60
    assert ask(graph, breaker=breaker).outcome == "timeout"  # the trial
    assert breaker.state == "open"
    assert ask(graph, breaker=breaker).outcome == "skipped"
    assert len(fake_openai.completions()) == 2


def test_an_answer_the_caller_rejects_does_not_count_against_the_breaker(
    fake_openai: FakeOpenAI,
) -> None:
    breaker = Breaker("test", failures=1, cooldown=60)
    fake_openai.reply_text("not json")

    assert ask(GraphFactory(), breaker=breaker).outcome == "invalid"
    assert breaker.state == "closed"


def test_a_spent_budget_makes_no_request(fake_openai: FakeOpenAI) -> None:
    budget = Budget(limit=100, used=100)

    result = ask(GraphFactory(), budget=budget)

    assert result.outcome == "skipped"
    assert result.failure == "monthly model budget spent"
    assert fake_openai.requests == []


def test_a_budget_counts_down_with_each_call(fake_openai: FakeOpenAI) -> None:
    budget = Budget(limit=50, used=0)
    fake_openai.reply_json({"answer": "1"}, prompt_tokens=40, completion_tokens=20)

    assert ask(GraphFactory(), budget=budget).ok
    assert budget.used == 60 and budget.spent
    assert ask(GraphFactory(), budget=budget).outcome == "skipped"
