"""Path converters of the pages."""

from __future__ import annotations


class IsoWeekConverter:
    """An ISO week as ``2026-W48``. Only the shape is checked here; a week that does not exist
    (``2026-W54``) is a 404 from the view."""

    regex = r"[0-9]{4}-W[0-9]{2}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(value)
