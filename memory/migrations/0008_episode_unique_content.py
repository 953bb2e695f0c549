"""One episode per content in a graph when records carry no external id, held by the database.

Ingestion looked duplicates up and then inserted, so concurrent requests with the same records
could both store them (20 parallel posts of 200 identical items stored up to 2,600 rows). Copies
stored that way before this migration keep their rows (episodes are immutable, facts cite them)
but lose their hash, so the first of each group stays the one a new copy is matched against."""

from django.db import migrations, models
from django.db.models import Count, Min, Q


def unhash_earlier_copies(apps, schema_editor):
    Episode = apps.get_model("memory", "Episode")
    plain = Episode.objects.filter(external_id__isnull=True).exclude(content_hash="")
    groups = (plain.values("graph_id", "content_hash")
              .annotate(copies=Count("id"), first=Min("id")).filter(copies__gt=1))
    for group in groups.iterator():
        (plain.filter(graph_id=group["graph_id"], content_hash=group["content_hash"])
         .exclude(pk=group["first"]).update(content_hash=""))


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0007_fewer_indexes_to_write"),
    ]

    operations = [
        migrations.RunPython(unhash_earlier_copies, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="episode",
            constraint=models.UniqueConstraint(
                condition=Q(external_id__isnull=True) & ~Q(content_hash=""),
                fields=("graph", "content_hash"),
                name="episode_unique_content_per_graph",
            ),
        ),
    ]
