"""drf-spectacular hooks: the committed schema documents the native API only (the Zep-compatible
API is Zep's protocol, documented by its SDK)."""

from __future__ import annotations

from typing import Any


def native_only(endpoints: list[tuple[str, str, str, Any]], **kwargs: Any) -> list[Any]:
    return [e for e in endpoints if e[0].startswith("/api/v1/") and "/schema" not in e[0]]
