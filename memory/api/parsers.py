"""The APIs' JSON parser: ``memory.json_input.decode`` instead of ``json.load``, so a body with one
hostile value (nesting 100,000 levels deep, a 5,000-digit number, NaN) is still read and only
the record holding it is refused — with its field and reason — instead of the whole request
failing (``RecursionError`` was a 500, the rest a 400 for every record of a bulk request)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

from memory import json_input


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        # DRF's own helper; djangorestframework-stubs 3.18.1 do not declare it.
        encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
        try:
            text = stream.read().decode(encoding) if stream is not None else ""
        except UnicodeDecodeError as exc:
            raise ParseError(f"The body is not valid {encoding} ({exc.reason} at byte "
                             f"{exc.start}).") from None
        try:
            return json_input.decode(text)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
