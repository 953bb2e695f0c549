"""``manage.py check`` warns when the model is unusable, from what the calls found."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from memory.llm import record_endpoint
from tests.fake_openai import FakeOpenAI
from tests.fake_openai import fake_openai as fake_openai_fixture  # noqa: F401

pytestmark = pytest.mark.django_db


def check() -> str:
    out = StringIO()
    call_command("check", stdout=out, stderr=out)
    return out.getvalue()


def test_an_unusable_model_is_a_warning(fake_openai: FakeOpenAI) -> None:
    record_endpoint("", usable=False, detail="every response format refused: HTTP 400: "
                                             "unknown model")

    output = check()

    assert "memory.W001" in output
    assert "The model fake-model-1 is unusable: every response format refused" in output


def test_warnings_fail_the_check_when_asked_to(fake_openai: FakeOpenAI) -> None:
    record_endpoint("", usable=False, detail="refused")

    with pytest.raises(SystemCheckError):
        call_command("check", "--fail-level", "WARNING", stdout=StringIO(), stderr=StringIO())


def test_a_server_without_json_schema_is_noted(fake_openai: FakeOpenAI) -> None:
    record_endpoint("json_object", usable=True)

    assert "memory.I001" in check()


def test_a_usable_model_and_no_model_are_silent(fake_openai: FakeOpenAI, settings: Any) -> None:
    record_endpoint("json_schema", usable=True)
    assert "memory." not in check()
    settings.LLM_ENABLED = False
    record_endpoint("", usable=False, detail="refused")
    assert "memory." not in check()
