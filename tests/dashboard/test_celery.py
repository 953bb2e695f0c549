"""The Celery app: what beat schedules must exist, or the worker drops it as "unregistered"."""

from __future__ import annotations

import importlib

from dashboard.celery import app


def test_every_beat_schedule_entry_names_a_registered_task() -> None:
    importlib.import_module("memory.tasks")  # what the worker's autodiscovery imports

    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}

    assert scheduled, "beat schedules nothing"
    assert scheduled <= set(app.tasks), scheduled - set(app.tasks)


def test_beat_schedules_the_sweep() -> None:
    from memory.tasks import sweep

    assert sweep.name in {entry["task"] for entry in app.conf.beat_schedule.values()}
