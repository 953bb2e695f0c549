"""Forms of the pages. Query strings are validated here too: a view reads ``cleaned_data``, never
``request.GET`` directly, and a bad value shows as a field error instead of a 500."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.template.defaultfilters import filesizeformat
from django.utils import timezone

from dashboard import throttle
from memory.importers import FORMAT_LABELS
from memory.ingestion import MAX_AUTHOR_LENGTH, MAX_CONTENT_BYTES, MAX_SOURCE_LENGTH
from memory.models import Episode, Observation
from memory.ontology import ENTITY_TYPES

FIRST_DAY = date(2, 1, 1)
LAST_DAY = date(9998, 12, 31)
"""The days a page accepts: Python's own first and last years are left out, so a window that
reaches a day or a few weeks past the chosen one (the end of a day, a week, a timeline) never
overflows ``datetime``."""


class DayField(forms.DateField):
    """A date within ``FIRST_DAY`` … ``LAST_DAY``."""

    def clean(self, value: Any) -> date | None:
        day = super().clean(value)
        if day is not None and not FIRST_DAY <= day <= LAST_DAY:
            raise forms.ValidationError(
                f"Enter a date from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}.",
                code="out_of_range")
        return day


def check_date_order(form: forms.Form, cleaned: dict[str, Any], first: str, last: str) -> bool:
    """Flag ``last`` when it is before ``first``. True when both are given and in order."""
    start, end = cleaned.get(first), cleaned.get(last)
    if start and end and end < start:
        form.add_error(last, "The end date is before the start date.")
        return False
    return bool(start and end)


# --- Signing in ---------------------------------------------------------------------------------


class ThrottledLoginMixin:
    """Refuses sign-in attempts once a username or an address has failed too often."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "throttled": "Too many failed sign-ins. Wait a few minutes and try again.",
    }

    def clean(self) -> dict[str, Any]:
        form: AuthenticationForm = self  # type: ignore[assignment]
        username = form.cleaned_data.get("username") or ""
        if throttle.is_throttled(form.request, username):
            raise forms.ValidationError(self.error_messages["throttled"], code="throttled")
        try:
            cleaned = super().clean()  # type: ignore[misc]
        except forms.ValidationError as error:
            if any(e.code == "invalid_login" for e in error.error_list):
                throttle.record_failure(form.request, username)
            raise
        throttle.clear(form.request, username)
        return cleaned

    @property
    def throttled(self) -> bool:
        form: AuthenticationForm = self  # type: ignore[assignment]
        return any(e.code == "throttled" for e in form.non_field_errors().as_data())


class LoginForm(ThrottledLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(ThrottledLoginMixin, AdminAuthenticationForm):
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "throttled": ThrottledLoginMixin.error_messages["throttled"],
    }


# --- Query strings ------------------------------------------------------------------------------


class QueryForm(forms.Form):
    """A form over a query string. Invalid fields fall back to their default (and show an
    error), so a hand-edited URL still renders a page; ``canonical_query`` rebuilds the URL from
    the values in effect, leaving out defaults, so shared links stay short."""

    defaults: dict[str, Any] = {}

    def values(self) -> dict[str, Any]:
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        values = dict(self.defaults)
        for name in self.fields:
            if name in self.errors:
                continue
            value = cleaned.get(name)
            if value not in (None, "", []):
                values[name] = value
        return values

    def canonical_query(self, **overrides: Any) -> str:
        values = {**self.values(), **overrides}
        pairs = []
        for name in self.fields:
            value = values.get(name)
            if value in (None, "") or value == self.defaults.get(name):
                continue
            pairs.append((name, value.isoformat() if hasattr(value, "isoformat") else value))
        return urlencode(pairs)


class BoardFilterForm(QueryForm):
    """The board's filters and sort (DESIGN §7: state in the URL)."""

    SORTS = [
        ("reach", "Unblock reach"),
        ("latest", "Latest evidence"),
        ("newest", "Newest"),
    ]
    STATUSES = [("active", "Active"), ("retired", "Retired")]
    defaults = {"status": "active", "sort": "reach", "page": 1}

    q = forms.CharField(required=False, max_length=200, label="Search")
    kind = forms.ChoiceField(
        required=False, choices=[("", "All kinds"), *Observation.Kind.choices], label="Kind"
    )
    entity = forms.UUIDField(required=False, label="Entity")
    """Any entity of the graph by uuid (the cards link to theirs); the page offers those most
    observations involve (``selectors.entity_choices``)."""
    since = DayField(required=False, label="Changed since")
    status = forms.ChoiceField(required=False, choices=STATUSES, label="Status")
    sort = forms.ChoiceField(required=False, choices=SORTS, label="Sort by")
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def since_moment(self) -> datetime | None:
        since = self.values().get("since")
        return start_of_day(since) if since else None


class RetiredFilterForm(QueryForm):
    REASONS = [("", "Any reason"), *Observation.RetiredReason.choices]

    reason = forms.ChoiceField(required=False, choices=REASONS, label="Reason")
    since = DayField(required=False, label="Retired from")
    until = DayField(required=False, label="Retired until")
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}

    def clean(self) -> dict[str, Any]:
        super().clean()  # Form.clean returns cleaned_data (typed Optional for overrides)
        cleaned = self.cleaned_data
        check_date_order(self, cleaned, "since", "until")
        return cleaned


class RunProgressForm(QueryForm):
    """Which run the board's progress bar watches."""

    run = forms.UUIDField(required=False)


class ObservationStateForm(QueryForm):
    """What is expanded on an observation's page: the evidence trail of one claim."""

    claim = forms.IntegerField(required=False, min_value=0, max_value=10_000)


class EpisodeFilterForm(QueryForm):
    """The episode list's filters. Dates are world time: when the update was written."""

    STATUSES = [("", "Any status"), *Episode.Status.choices]

    author = forms.CharField(required=False, max_length=MAX_AUTHOR_LENGTH, label="Author")
    source = forms.CharField(required=False, max_length=MAX_SOURCE_LENGTH, label="Source")
    status = forms.ChoiceField(required=False, choices=STATUSES, label="Status")
    since = DayField(required=False, label="Written from")
    until = DayField(required=False, label="Written until")
    entity = forms.UUIDField(required=False, label="Mentions")
    """An entity's uuid: the episodes that support its facts (its page links here)."""
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}

    def clean(self) -> dict[str, Any]:
        super().clean()  # Form.clean returns cleaned_data (typed Optional for overrides)
        cleaned = self.cleaned_data
        check_date_order(self, cleaned, "since", "until")
        return cleaned


class UploadBatchForm(QueryForm):
    """Which upload the progress poll watches: its episodes share the ingestion time."""

    batch = forms.DateTimeField(required=False)


class TimelineForm(QueryForm):
    """The timeline's range (world time), the day its knowledge is cut at (system time: what was
    known at the end of that day) and which entities make its rows."""

    MAX_DAYS = 366
    DEFAULT_DAYS = 28
    TYPES = [("", "All entities"), *((t, t) for t in ENTITY_TYPES if t != "Status")]

    start = DayField(required=False, label="From")
    end = DayField(required=False, label="To")
    as_of = DayField(required=False, label="Known as of")
    type = forms.ChoiceField(required=False, choices=TYPES, label="Rows")
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}

    def clean(self) -> dict[str, Any]:
        super().clean()  # Form.clean returns cleaned_data (typed Optional for overrides)
        cleaned = self.cleaned_data
        if (check_date_order(self, cleaned, "start", "end")
                and (cleaned["end"] - cleaned["start"]).days > self.MAX_DAYS):
            self.add_error("end", f"Show at most {self.MAX_DAYS} days at once.")
        return cleaned

    def window(self, today: date) -> tuple[date, date, date | None]:
        """(first day, last day, as-of day) in effect: by default the four weeks up to the as-of
        day (today without one)."""
        values = self.values()
        as_of = values.get("as_of")
        end = values.get("end") or as_of or today
        start = values.get("start") or end - timedelta(days=self.DEFAULT_DAYS - 1)
        if "end" in self.errors or start > end:
            start = end - timedelta(days=self.DEFAULT_DAYS - 1)
        return start, end, as_of


class RunListForm(QueryForm):
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}


class MergeListForm(QueryForm):
    page = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    defaults = {"page": 1}


# --- Writing ------------------------------------------------------------------------------------


class EpisodeForm(forms.Form):
    """One update typed into the page: stored like any other episode (``memory.ingestion``).
    Its fields' ids start with ``add_``: the list's filters beside it have an author and a
    source too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "add_%s")
        super().__init__(*args, **kwargs)

    content = forms.CharField(
        label="Update", widget=forms.Textarea(attrs={"rows": 4}),
        help_text="What happened, in the author's words.",
    )
    author = forms.CharField(
        label="Author", max_length=MAX_AUTHOR_LENGTH,
        widget=forms.TextInput(attrs={"list": "authors", "autocomplete": "off"}),
    )
    reference_time = forms.DateTimeField(
        label="Written at", widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        help_text="When it was said (a date in the past is a backfill).",
    )
    source = forms.CharField(
        label="Source", max_length=MAX_SOURCE_LENGTH, required=False,
        help_text="Where it came from, e.g. weekly-status or standup.",
    )

    def clean_content(self) -> str:
        content: str = self.cleaned_data["content"]
        if len(content.encode()) > MAX_CONTENT_BYTES:
            raise forms.ValidationError(f"The limit is {MAX_CONTENT_BYTES // 1024} KB.")
        return content

    def record(self) -> dict[str, Any]:
        """The ingestion record (``memory.ingestion``); a time without an offset is read in the
        site's time zone."""
        when: datetime = self.cleaned_data["reference_time"]
        if timezone.is_naive(when):
            when = timezone.make_aware(when)
        return {
            "type": Episode.Type.TEXT,
            "author": self.cleaned_data["author"],
            "content": self.cleaned_data["content"],
            "reference_time": when.isoformat(),
            "source": self.cleaned_data.get("source") or "dashboard",
        }


JSON_LINES = "jsonl"


class UploadForm(forms.Form):
    format = forms.ChoiceField(
        label="Format",
        choices=[(JSON_LINES, "JSON Lines (our episode format)"), *FORMAT_LABELS.items()],
        initial=JSON_LINES,
        required=False,
        help_text="JSON Lines: one episode per line, the format of manage.py ingest. A tracker's "
                  "export becomes one episode per change (manage.py import).",
    )
    file = forms.FileField(label="File")
    mapping = forms.CharField(
        label="Mapping", required=False, max_length=2000,
        help_text="CSV: which column is which field (reference_time=Created, "
                  "content=Description, customer=Organization, status=Status…) — or preview "
                  "the columns and choose. Zendesk: the fields that name the issue, product "
                  "and plan (issue=custom_field:27642, plan=organization_field:plan). The graph "
                  "keeps the last one used.",
    )
    encoding = forms.CharField(
        label="Encoding", required=False, max_length=40,
        help_text="CSV: when the file is not UTF-8 (latin-1, cp1252…).",
    )

    def __init__(self, *args: Any, max_bytes: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.max_bytes = max_bytes

    def clean_format(self) -> str:
        return self.cleaned_data.get("format") or JSON_LINES

    def clean_file(self) -> Any:
        upload = self.cleaned_data["file"]
        if upload.size > self.max_bytes:
            raise forms.ValidationError(
                f"The file is {filesizeformat(upload.size)}; the limit is "
                f"{filesizeformat(self.max_bytes)}. Split it, or use manage.py ingest."
            )
        return upload


def start_of_day(day: Any) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min))


def end_of_day(day: Any) -> datetime:
    return start_of_day(day) + timedelta(days=1)


class WeeklyViewForm(QueryForm):
    """Which view of a week: what was known at its end (the default) or today's hindsight."""

    VIEWS = [("known", "As known then"), ("hindsight", "With hindsight")]

    view = forms.ChoiceField(required=False, choices=VIEWS)

    defaults = {"view": "known"}
