"""Stalled observations written before the board sorted them by their tracker's priority get the
``urgency`` their stall now stores (``Stall.as_dict``), from the priority and labels they kept.
Data only; reversing leaves it (older code ignores the key)."""

from django.db import migrations

from memory.engine.item_priority import urgency


def add_urgency(apps, schema_editor):  # type: ignore[no-untyped-def]
    Observation = apps.get_model("memory", "Observation")
    changed = []
    stalled = Observation.objects.filter(kind="stalled").only("pk", "structure")
    for observation in stalled.iterator():
        stall = (observation.structure or {}).get("stalled")
        if not isinstance(stall, dict) or "urgency" in stall:
            continue
        stall["urgency"] = list(
            urgency(
                str(stall.get("priority") or ""),
                [str(label) for label in stall.get("labels") or ()],
            )
        )
        changed.append(observation)
    Observation.objects.bulk_update(changed, ["structure"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0018_episode_author_role"),
    ]

    operations = [
        migrations.RunPython(add_urgency, migrations.RunPython.noop),
    ]
