"""An import started from the page or the API runs as a Celery task on a real worker (Redis,
PostgreSQL), as in production: the run reports its progress and outcome, its episodes are
processed there too."""

from __future__ import annotations

import pytest
from django.db import transaction

from memory.importers.runs import start_import
from memory.models import Episode, Graph, ImportRun
from tests.memory.importers.conftest import fixture_bytes
from tests.worker import (
    Worker,
    broker_mode,
    new_queue,
    require_worker_services,
    wait_for,
    worker_env,
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_runs_the_import_and_processes_its_episodes() -> None:
    redis = require_worker_services()
    queue = new_queue()
    graph = Graph.objects.create(slug="jira", name="Jira", settings={"debounce_seconds": 1})
    worker = Worker(queue=queue, env=worker_env(redis, queue), name="import").start()
    try:
        with broker_mode(redis, queue), transaction.atomic():
            run = start_import(graph, "jira", fixture_bytes("jira-search-changelog.json"))

        done = wait_for(lambda: ImportRun.objects.filter(pk=run.pk, status="succeeded").first(),
                        what="the import run")
        assert (done.items, done.episodes, done.processed, done.stored) == (4, 11, 11, 11)
        wait_for(lambda: Episode.objects.filter(graph=graph, status="processed").count() == 11,
                 what="its episodes processed")
    finally:
        worker.stop()
