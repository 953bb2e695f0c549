"""A GIN index for observation search on PostgreSQL (``memory.search.observation_document``);
nothing on SQLite, whose search is the portable fallback."""

from django.db import migrations

INDEX = "observation_search_document"


def create(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from django.contrib.postgres.indexes import GinIndex

    from memory.search import observation_document

    Observation = apps.get_model("memory", "Observation")
    schema_editor.add_index(Observation, GinIndex(observation_document(), name=INDEX))


def drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(f"DROP INDEX IF EXISTS {INDEX}")


class Migration(migrations.Migration):
    dependencies = [("memory", "0002_api_keys_and_idempotency")]

    operations = [migrations.RunPython(create, drop)]
