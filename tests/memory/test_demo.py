"""The bundled demo: ``python manage.py demo`` loads three graphs whose observations are what a PM
or a support lead would want to see, with a month of history, and a login to look at them."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from memory import resolution
from memory.demo import ARRIVAL_DELAY, demo_graphs, demo_origin, schedule, squeeze_future
from memory.exports import root_blockers
from memory.ingestion import ingest_records, parse_episode
from memory.models import Entity, Episode, Fact, Graph, Membership, Observation, PipelineRun
from memory.ontology import default_ontology
from memory.pipeline import run_pipeline
from memory.processing import process_episode

CAUSAL_WORDS = ("because", "caused by", "due to")


def run_demo(*args: str) -> str:
    out = StringIO()
    call_command("demo", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def printed_password(output: str) -> str:
    match = re.search(r"password: (\S+)", output)
    assert match, output
    return match[1]


def active(slug: str, kind: str | None = None) -> list[Observation]:
    observations = Observation.objects.filter(graph__slug=slug, status=Observation.Status.ACTIVE)
    if kind:
        observations = observations.filter(kind=kind)
    return list(observations.order_by("name"))


def top_blocker(observation: Observation) -> dict[str, Any]:
    return root_blockers(observation)[0]


def entity_name(entity_id: int | None) -> str:
    return "*" if entity_id is None else Entity.objects.get(pk=entity_id).name


@pytest.fixture(scope="class")
def demo(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """The demo loaded as on a fresh install, once for all the tests of a class (loading takes a
    couple of seconds); yields what the command printed. It is loaded in a transaction rolled back
    after the class, and each test runs in a savepoint inside it: every test sees the same demo
    and none leaves anything behind."""
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield run_demo()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            # The name indexes cache entity ids that the rollback removed.
            for graph_id in list(resolution._indexes):
                resolution.forget_name_index(graph_id)


@pytest.mark.django_db
class TestAFreshDemo:
    """What ``python manage.py demo`` leaves on a fresh install."""

    # -- the login -------------------------------------------------------------------------

    def test_it_creates_three_graphs_owned_by_a_demo_login_that_works(
        self, demo: str, client: Client
    ) -> None:
        assert sorted(Graph.objects.values_list("slug", "name")) == [
            ("atlas", "Project Atlas"), ("seed", "Seed example"), ("support", "Support queue")]
        user = get_user_model().objects.get(username="demo")
        assert user.is_staff and user.is_superuser
        roles = dict(Membership.objects.filter(user=user).values_list("graph__slug", "role"))
        assert roles == {slug: Membership.Role.OWNER for slug in ("seed", "atlas", "support")}
        assert "http://127.0.0.1:8000/" in demo
        assert client.login(username="demo", password=printed_password(demo))

    def test_it_prints_what_each_graph_holds_and_names_its_observations(self, demo: str) -> None:
        for heading in ("Seed example (seed)", "Project Atlas (atlas)", "Support queue (support)"):
            assert heading in demo
        assert re.search(r"3 episodes · \d+ facts \(\d+ current, 0 ended\) · \d+ entities", demo)
        assert "observations: 1 active, 1 retired" in demo
        for observation in Observation.objects.filter(status=Observation.Status.ACTIVE):
            assert observation.name in demo

    # -- the seed --------------------------------------------------------------------------

    def test_the_seed_is_one_chain_rooted_at_the_auth_refactor_that_reaches_three_people(
        self, demo: str
    ) -> None:
        (observation,) = active("seed")

        assert observation.kind == Observation.Kind.DEPENDENCY_CHAIN
        assert top_blocker(observation) == {
            "entity": "Auth Service Refactor", "owner": "Backend Team",
            "reach_people": 3, "reach_work_items": 3,
        }
        assert sorted(observation.episodes.values_list("external_id", flat=True)) == [
            "seed-alice", "seed-bob", "seed-clara"]

    def test_the_seed_was_written_on_monday_wednesday_and_friday_of_last_week(
        self, demo: str
    ) -> None:
        written = Episode.objects.filter(graph__slug="seed").values_list(
            "external_id", "reference_time")
        last_monday = demo_origin(datetime.now(UTC)) + timedelta(weeks=2)

        assert {key: (when - last_monday).days for key, when in written} == {
            "seed-alice": 0, "seed-bob": 2, "seed-clara": 4}

    # -- Project Atlas ---------------------------------------------------------------------

    def test_atlas_ends_with_one_dependency_chain_per_root_blocker_each_with_its_owner(
        self, demo: str
    ) -> None:
        chains = active("atlas", Observation.Kind.DEPENDENCY_CHAIN)

        blockers = {top_blocker(o)["entity"]: top_blocker(o) for o in chains}
        assert set(blockers) == {"Notification Service", "Warehouse Migration", "SSO Rollout"}
        assert blockers["Notification Service"]["owner"] == "Backend Team"
        assert blockers["Notification Service"]["reach_work_items"] == 4
        # The deep chain: the warehouse migration holds up the reporting revamp, which holds up
        # the analytics dashboard and the usage report.
        assert blockers["Warehouse Migration"]["owner"] == "Erik"
        assert blockers["Warehouse Migration"]["reach_work_items"] == 3
        assert blockers["SSO Rollout"]["owner"] == "Grace"

    def test_atlas_observations_retire_as_blockers_are_resolved_naming_the_closed_facts(
        self, demo: str
    ) -> None:
        retired = Observation.objects.filter(graph__slug="atlas",
                                             status=Observation.Status.RETIRED)

        closed_dependencies = set()
        for observation in retired:
            for fact in Fact.objects.filter(pk__in=observation.retirement["closed_facts"]):
                assert fact.invalid_at is not None
                if fact.relation == "DEPENDS_ON":
                    closed_dependencies.add((fact.source.name, fact.target.name))
        # The platform team shipped the identity service upgrade, Wei finished the database
        # upgrade and the platform team finished the staging database refresh.
        assert {
            ("SSO Rollout", "Identity Service Upgrade"),
            ("Billing Migration", "Identity Service Upgrade"),
            ("Warehouse Migration", "Database Upgrade"),
            ("Load Testing", "Staging Database Refresh"),
            ("Performance Report", "Staging Database Refresh"),
        } <= closed_dependencies
        ended = retired.get(retired_reason=Observation.RetiredReason.EVIDENCE_ENDED)
        assert ended.name == "Staging Database Refresh blocking 2 workstreams"
        assert not ended.successors.exists()

    def test_atlas_an_upstream_blocker_of_the_sso_rollout_becomes_its_root_with_its_owner(
        self, demo: str
    ) -> None:
        graph = Graph.objects.get(slug="atlas")
        sso = next(o for o in active("atlas") if o.name.startswith("SSO Rollout"))
        try:
            report = ingest_records(graph, [(1, {
                "author": "Grace", "source": "slack-standup", "type": "message",
                "reference_time": datetime.now(UTC).isoformat(),
                "content": "The SSO rollout is blocked on the security review, which the "
                           "security team owns."})], process=False)
            (episode_id,) = report.stored_ids
            assert process_episode(episode_id) == "processed"
            run = run_pipeline(graph)
        finally:
            resolution.forget_name_index(graph.pk)

        assert run is not None and run.status == PipelineRun.Status.SUCCEEDED
        (chain,) = [o for o in active("atlas") if o.lineage == sso.lineage]
        assert chain.version == sso.version + 1
        assert top_blocker(chain) == {
            "entity": "Security Review", "owner": "Security Team",
            "reach_people": 2, "reach_work_items": 2}
        assert chain.summary.startswith(
            "The Security Review, owned by the Security Team, is the root blocker")
        assert chain.episodes.filter(pk=episode_id).exists()

    def test_atlas_chains_re_form_around_what_still_blocks_work_after_a_resolution(
        self, demo: str
    ) -> None:
        versions = Observation.objects.filter(
            graph__slug="atlas", name__startswith="Identity Service Upgrade")
        shipped = versions.order_by("-version").first()

        assert shipped is not None and shipped.status == Observation.Status.RETIRED
        (successor,) = shipped.successors.all()
        assert successor.lineage == shipped.lineage
        assert successor.name.startswith("SSO Rollout")

    def test_the_atlas_template_boilerplate_is_suppressed_as_a_hub_in_every_run(
        self, demo: str
    ) -> None:
        runs = PipelineRun.objects.filter(graph__slug="atlas")

        assert runs.count() > 1
        for run in runs:
            suppressed = {
                (entity_name(c["signature"]["source"]), c["signature"]["relation"],
                 entity_name(c["signature"]["target"]))
                for c in run.audit["clustering"]["hub_candidates"] if c["suppressed"]
            }
            assert ("Priya", "RESPONSIBLE_FOR", "Project Atlas") in suppressed
            assert ("*", "CHAIN", "Security Review") in suppressed
        # So no observation chains the weekly notes together through them.
        for observation in Observation.objects.filter(graph__slug="atlas"):
            assert not observation.entities.filter(
                name__in=["Project Atlas", "Security Review"]).exists()

    def test_atlas_backfilled_updates_keep_their_time_but_arrive_days_later(
        self, demo: str
    ) -> None:
        backfilled = Episode.objects.filter(
            graph__slug="atlas", external_id__in=["atlas-w0-fri-farah", "atlas-w1-wed-hiro"])

        assert backfilled.count() == 2
        for episode in backfilled:
            assert episode.ingested_at - episode.reference_time > timedelta(days=3)

    def test_atlas_has_a_month_of_daily_history(self, demo: str) -> None:
        replays = PipelineRun.objects.filter(graph__slug="atlas", as_of__isnull=False)
        as_of = sorted(replays.values_list("as_of", flat=True))

        assert len(as_of) >= 10
        assert as_of[-1] - as_of[0] >= timedelta(days=14)
        assert 60 <= Episode.objects.filter(graph__slug="atlas").count() <= 90

    # -- the support queue -----------------------------------------------------------------

    def test_support_timeouts_after_the_nightly_backfill_are_a_pattern_worth_investigating(
        self, demo: str
    ) -> None:
        issues = {o.name: o for o in active("support", Observation.Kind.RECURRING_ISSUE)}

        timeouts = issues["Timeout Errors reported by 7 customers"]
        assert "worth investigating" in timeouts.summary
        assert "Nightly Backfill" in timeouts.summary
        for observation in issues.values():
            assert not any(word in observation.summary.lower() for word in CAUSAL_WORDS)

    def test_support_one_customers_resolved_ends_only_their_report_of_the_502s(
        self, demo: str
    ) -> None:
        """Soylent Foods wrote that the 502 errors are resolved; Wayne Retail had written that
        checkout still fails. Only Soylent's report ends, and the issue stays open."""
        reports = {f.source.name: f for f in Fact.objects.filter(
            graph__slug="support", relation="REPORTED", target__name="502 Errors")}
        assert set(reports) == {"Wayne Retail", "Soylent Foods", "Globex",
                                "Vandelay Industries"}
        assert reports["Soylent Foods"].close_reason == Fact.CloseReason.EXPLICIT
        assert reports["Soylent Foods"].closed_by_episode.external_id == "zd-4136"
        assert reports["Wayne Retail"].is_open

        (issue,) = [o for o in active("support", Observation.Kind.RECURRING_ISSUE)
                    if o.name.startswith("502 Errors")]
        assert issue.name == "502 Errors reported by 4 customers, 1 reports it resolved"
        assert "Soylent Foods (" in issue.summary
        assert "reports it resolved for them" in issue.summary
        assert issue.episodes.filter(external_id="zd-4136").exists()
        assert issue.facts.filter(pk=reports["Soylent Foods"].pk).exists()

    def test_support_plan_changes_close_the_plan_they_replace(self, demo: str) -> None:
        plans = Fact.objects.filter(graph__slug="support", relation="ON_PLAN",
                                    source__name="Acme Corp").order_by("valid_at")

        assert [(f.target.name, f.invalid_at is None) for f in plans] == [
            ("Pro", False), ("Enterprise", True)]

    # -- running it again ------------------------------------------------------------------

    def test_running_it_again_duplicates_nothing_and_only_changes_the_password(
        self, demo: str, client: Client
    ) -> None:
        def counts() -> tuple[int, ...]:
            return tuple(model.objects.count()
                         for model in (Episode, Fact, Observation, PipelineRun, Membership))

        before = counts()

        again = run_demo()

        assert counts() == before
        assert again.count("already loaded, nothing new") == 3
        assert not client.login(username="demo", password=printed_password(demo))
        assert client.login(username="demo", password=printed_password(again))


@pytest.mark.django_db
def test_without_replay_each_graph_gets_a_single_run_at_the_present() -> None:
    run_demo("--no-replay", "--quiet")

    for slug in ("seed", "atlas", "support"):
        runs = PipelineRun.objects.filter(graph__slug=slug)
        assert list(runs.values_list("as_of", flat=True)) == [None]
    (observation,) = active("seed")
    assert top_blocker(observation)["entity"] == "Auth Service Refactor"


@pytest.mark.django_db
def test_quiet_prints_only_where_and_how_to_log_in() -> None:
    output = run_demo("--no-replay", "--quiet")

    lines = output.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("Log in at http://127.0.0.1:8000/")
    assert lines[1:] == ["  username: demo", f"  password: {printed_password(output)}"]


# --- Placing the month in time (no database) ----------------------------------------------------


def test_the_demo_month_is_the_four_iso_weeks_ending_with_the_current_one() -> None:
    thursday = datetime(2026, 11, 26, 15, 30, tzinfo=UTC)

    origin = demo_origin(thursday)

    assert origin == datetime(2026, 11, 2, tzinfo=UTC)
    assert origin.isocalendar().week == thursday.isocalendar().week - 3


def test_updates_due_later_this_week_are_squeezed_just_before_now_in_their_order() -> None:
    limit = datetime(2026, 11, 23, 8, 0, tzinfo=UTC)
    moments = [limit - timedelta(days=3), limit + timedelta(days=2), limit + timedelta(hours=1),
               limit - timedelta(hours=1)]

    placed = squeeze_future(moments, limit)

    assert (placed[0], placed[3]) == (moments[0], moments[3])
    assert moments[3] < placed[2] < placed[1] < limit


def test_on_a_monday_just_after_midnight_every_update_is_past_and_arrives_after_it_was_written(
) -> None:
    monday = datetime(2026, 11, 23, 0, 10, tzinfo=UTC)

    for demo_graph in demo_graphs():
        for item in schedule(demo_graph, monday):
            assert item.reference_time < item.arrival < monday
            if item.backfilled:
                assert item.arrival - item.reference_time > timedelta(days=3)
            else:
                assert item.arrival - item.reference_time < timedelta(hours=1)


def test_updates_in_the_past_arrive_a_few_minutes_after_they_were_written() -> None:
    sunday_night = datetime(2026, 11, 29, 23, 0, tzinfo=UTC)

    for item in schedule(demo_graphs()[0], sunday_night):
        assert item.arrival - item.reference_time == ARRIVAL_DELAY


def test_every_demo_update_is_a_valid_ingestion_record_with_its_own_id() -> None:
    thursday = datetime(2026, 11, 26, 15, 30, tzinfo=UTC)

    for demo_graph in demo_graphs():
        records = [item.record() for item in schedule(demo_graph, thursday)]
        for record in records:
            parse_episode(record, default_ontology())
            assert "{date:" not in record["content"]
        ids = [record["external_id"] for record in records]
        assert len(ids) == len(set(ids))
