"""One queued pipeline run per graph and as-of time, held by the database.

Concurrent requests for a run each looked for a queued one and, finding none, queued their own
(up to five redundant runs). Duplicates queued before this migration are marked abandoned, the
earliest of each group stays queued."""

from django.db import migrations, models
from django.db.models import Count, Min, Q
from django.utils import timezone


def abandon_duplicate_queued_runs(apps, schema_editor):
    PipelineRun = apps.get_model("memory", "PipelineRun")
    queued = PipelineRun.objects.filter(status="queued")
    groups = (queued.values("graph_id", "as_of")
              .annotate(runs=Count("id"), first=Min("id")).filter(runs__gt=1))
    for group in groups.iterator():
        (queued.filter(graph_id=group["graph_id"], as_of=group["as_of"])
         .exclude(pk=group["first"])
         .update(status="abandoned", finished_at=timezone.now(),
                 error=f"a duplicate of queued run {group['first']}"))


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0010_observation_restatements_and_stalled"),
    ]

    operations = [
        migrations.RunPython(abandon_duplicate_queued_runs, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="pipelinerun",
            constraint=models.UniqueConstraint(
                condition=Q(as_of__isnull=True, status="queued"), fields=("graph",),
                name="run_one_queued_per_graph",
            ),
        ),
        migrations.AddConstraint(
            model_name="pipelinerun",
            constraint=models.UniqueConstraint(
                condition=Q(as_of__isnull=False, status="queued"), fields=("graph", "as_of"),
                name="run_one_queued_per_graph_as_of",
            ),
        ),
    ]
