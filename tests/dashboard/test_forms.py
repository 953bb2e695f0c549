"""Date ranges in the list filters: a range that ends before it starts is refused, on every form
that takes one."""

from __future__ import annotations

import pytest

from dashboard.forms import EpisodeFilterForm, RetiredFilterForm, TimelineForm


@pytest.mark.parametrize(
    ("form_class", "first", "last"),
    [(EpisodeFilterForm, "since", "until"), (RetiredFilterForm, "since", "until"),
     (TimelineForm, "start", "end")],
)
def test_a_range_ending_before_it_starts_is_an_error_on_its_end(
    form_class: type, first: str, last: str
) -> None:
    backwards = form_class({first: "2026-11-20", last: "2026-11-10"})
    forwards = form_class({first: "2026-11-10", last: "2026-11-20"})

    assert not backwards.is_valid()
    assert backwards.errors[last] == ["The end date is before the start date."]
    assert forwards.is_valid(), forwards.errors


def test_the_timeline_refuses_more_days_than_it_shows() -> None:
    form = TimelineForm({"start": "2025-01-01", "end": "2026-11-10"})
    assert not form.is_valid()
    assert form.errors["end"] == [f"Show at most {TimelineForm.MAX_DAYS} days at once."]
