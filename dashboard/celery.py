"""The Celery app. Tasks live in ``memory.tasks``; the periodic schedule is here, in code
(django-celery-beat does not support Django 6.1, and plain ``celery beat`` needs nothing more)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dashboard.settings")

# DjangoTask adds delay_on_commit / apply_async_on_commit: nothing is enqueued before the
# transaction that created its rows has committed.
app = Celery("observations", task_cls="celery.contrib.django.task:DjangoTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["memory"])

app.conf.beat_schedule = {
    "sweep": {
        "task": "memory.sweep",  # the name memory.tasks registers it under
        "schedule": float(os.environ.get("SWEEP_INTERVAL_SECONDS", "60")),
    },
}
