"""``manage.py check``: what the product knows about the configured model.

No call is made here (``check`` runs before every ``migrate`` and ``runserver``): the check reads
what the calls found (``ModelEndpoint``): a model whose server refused every response format is
unusable — the rules and the template write instead — and says so as a warning; a server that
takes JSON but not a JSON schema is noted, since the schema then travels in the prompt.
"""

from __future__ import annotations

from typing import Any

from django.core.checks import CheckMessage, Info, Warning, register
from django.db import DatabaseError


@register("llm")
def model_is_usable(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    from memory.llm import endpoint_state, llm_enabled, model_name

    if not llm_enabled():
        return []
    try:
        state = endpoint_state()
    except DatabaseError:  # not migrated yet: nothing is known
        return []
    if not state.usable:
        return [Warning(
            f"The model {model_name()} is unusable: {state.detail}",
            hint="Check OPENAI_BASE_URL, LLM_MODEL and OPENAI_API_KEY. Meanwhile the rules "
                 "extractor and the template write; the model is tried again within "
                 "LLM_ENDPOINT_RECHECK_SECONDS.",
            id="memory.W001",
        )]
    if state.confirmed and state.response_format != "json_schema":
        return [Info(
            f"The model's server does not take a JSON schema; it answers as "
            f"{state.response_format}, with the schema in the prompt and every answer checked.",
            id="memory.I001",
        )]
    return []
