"""Merging entities, journaled and reversible.

A merge moves the merged entity's facts, aliases and authored episodes onto the kept entity, adds
the merged name as an alias and marks the merged entity ``merged_into`` the kept one. The journal
(``MergeRecord.moved``) lists every id it moved, so ``undo_merge`` puts each one back.

Used by entity resolution (automatic merges), the merge review page, the admin and the API —
always through these functions.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from memory.models import Alias, Entity, Episode, Fact, Graph, MergeRecord, MergeSuggestion


class MergeError(ValueError):
    pass


def merge_entities(
    kept: Entity,
    merged: Entity,
    *,
    automatic: bool = False,
    score: float | None = None,
    user: User | None = None,
    suggestion: MergeSuggestion | None = None,
    now: datetime | None = None,
) -> MergeRecord:
    if kept.graph_id != merged.graph_id:
        raise MergeError("entities belong to different graphs")
    if kept.pk == merged.pk:
        raise MergeError("an entity cannot be merged into itself")
    if merged.merged_into_id is not None or kept.merged_into_id is not None:
        raise MergeError("one of these entities is already merged")
    now = now or timezone.now()
    with transaction.atomic():
        # Facts between the two would become self-loops; they stay where they are.
        between = Fact.objects.filter(source=merged, target=kept) | Fact.objects.filter(
            source=kept, target=merged
        )
        between_ids = set(between.values_list("pk", flat=True))
        source_ids = list(
            Fact.objects.filter(source=merged).exclude(pk__in=between_ids).values_list("pk",
                                                                                      flat=True)
        )
        target_ids = list(
            Fact.objects.filter(target=merged).exclude(pk__in=between_ids).values_list("pk",
                                                                                      flat=True)
        )
        alias_ids = list(Alias.objects.filter(entity=merged).values_list("pk", flat=True))
        episode_ids = list(
            Episode.objects.filter(author_entity=merged).values_list("pk", flat=True)
        )
        Fact.objects.filter(pk__in=source_ids).update(source=kept)
        Fact.objects.filter(pk__in=target_ids).update(target=kept)
        Alias.objects.filter(pk__in=alias_ids).update(entity=kept)
        Episode.objects.filter(pk__in=episode_ids).update(author_entity=kept)
        merged.merged_into = kept
        merged.save(update_fields=["merged_into"])
        name_alias = Alias.objects.create(
            graph_id=kept.graph_id,
            entity=kept,
            name=merged.name,
            normalized_name=merged.normalized_name,
            created_at=now,
        )
        if suggestion is not None:
            suggestion.status = MergeSuggestion.Status.ACCEPTED
            suggestion.decided_at = now
            suggestion.decided_by = user
            suggestion.save(update_fields=["status", "decided_at", "decided_by"])
        # Other open suggestions about the merged entity are moot now.
        MergeSuggestion.objects.filter(
            graph_id=kept.graph_id, status=MergeSuggestion.Status.OPEN, entity=merged
        ).update(status=MergeSuggestion.Status.REJECTED, decided_at=now)
        record = MergeRecord.objects.create(
            graph_id=kept.graph_id,
            kept=kept,
            merged=merged,
            automatic=automatic,
            score=score,
            suggestion=suggestion,
            performed_by=user,
            created_at=now,
            moved={
                "source_facts": source_ids,
                "target_facts": target_ids,
                "aliases": alias_ids,
                "episodes": episode_ids,
                "name_alias": name_alias.pk,
            },
        )
        Graph.objects.filter(pk=kept.graph_id).update(data_version=F("data_version") + 1)
    _forget(kept.graph_id)
    return record


def undo_merge(
    record: MergeRecord, *, user: User | None = None, now: datetime | None = None
) -> MergeRecord:
    if record.undone_at is not None:
        raise MergeError("this merge was already undone")
    now = now or timezone.now()
    moved = record.moved
    with transaction.atomic():
        merged = Entity.objects.select_for_update().get(pk=record.merged_id)
        if Entity.objects.filter(
            graph_id=record.graph_id,
            normalized_name=merged.normalized_name,
            merged_into__isnull=True,
        ).exclude(pk=merged.pk).exists():
            raise MergeError(f"another entity is now called {merged.name!r}")
        Alias.objects.filter(pk=moved.get("name_alias")).delete()
        Fact.objects.filter(pk__in=moved.get("source_facts", [])).update(source=merged)
        Fact.objects.filter(pk__in=moved.get("target_facts", [])).update(target=merged)
        Alias.objects.filter(pk__in=moved.get("aliases", [])).update(entity=merged)
        Episode.objects.filter(pk__in=moved.get("episodes", [])).update(author_entity=merged)
        merged.merged_into = None
        merged.save(update_fields=["merged_into"])
        record.undone_at = now
        record.undone_by = user
        record.save(update_fields=["undone_at", "undone_by"])
        if record.suggestion_id:
            MergeSuggestion.objects.filter(pk=record.suggestion_id).update(
                status=MergeSuggestion.Status.OPEN, decided_at=None, decided_by=None
            )
        Graph.objects.filter(pk=record.graph_id).update(data_version=F("data_version") + 1)
    _forget(record.graph_id)
    return record


def accept_suggestion(
    suggestion: MergeSuggestion, *, user: User | None = None
) -> MergeRecord:
    if suggestion.status != MergeSuggestion.Status.OPEN:
        raise MergeError("this suggestion was already decided")
    return merge_entities(
        suggestion.into, suggestion.entity, score=suggestion.score, user=user,
        suggestion=suggestion,
    )


def reject_suggestion(
    suggestion: MergeSuggestion, *, user: User | None = None
) -> MergeSuggestion:
    if suggestion.status != MergeSuggestion.Status.OPEN:
        raise MergeError("this suggestion was already decided")
    suggestion.status = MergeSuggestion.Status.REJECTED
    suggestion.decided_at = timezone.now()
    suggestion.decided_by = user
    suggestion.save(update_fields=["status", "decided_at", "decided_by"])
    return suggestion


def _forget(graph_id: int) -> None:
    from memory.resolution import forget_name_index

    forget_name_index(graph_id)


def suggest_declared_duplicates(graph_id: int, pairs: list[tuple[int, int]],
                                now: datetime | None = None) -> None:
    """A tracker said an item duplicates another (``DUPLICATE_OF``): suggest merging it into the
    other, for a person to decide — never merged automatically: the duplicate has its own history
    (its reporter, its "duplicate" status), which would land on the other item. A pair already
    suggested (open, accepted or rejected) is not suggested again."""
    if not pairs:
        return
    MergeSuggestion.objects.bulk_create(
        [MergeSuggestion(graph_id=graph_id, entity_id=duplicate, into_id=kept, score=1.0,
                         created_at=now or timezone.now())
         for duplicate, kept in dict.fromkeys(pairs)],
        ignore_conflicts=True,
    )
