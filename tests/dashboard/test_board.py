"""The observation board: cards, filters and sort in the query string, the htmx fragment, the run
progress, empty states — for the owner, a member and an outsider."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.selectors import ENTITY_CHOICES, entity_choices
from memory.models import Entity, Episode, Graph, Membership, Observation, PipelineRun
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import (
    MONDAY,
    EntityFactory,
    EpisodeFactory,
    GraphFactory,
    MembershipFactory,
    ObservationFactory,
    PipelineRunFactory,
    chain_structure,
)

pytestmark = pytest.mark.django_db


def board_url(graph: Graph, query: str = "") -> str:
    return reverse("board", args=[graph.slug]) + (f"?{query}" if query else "")


def card_names(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [c.observation.name for c in response.context["cards"]]


# --- Who may see it ----------------------------------------------------------------------------


def test_the_owner_sees_the_seed_observation_with_its_root_blocker_and_reach(
    client: Client, graph: Graph, owner, seeded: Observation
) -> None:
    response = signed_in(client, owner).get(board_url(graph))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Auth Service Refactor blocking 3 workstreams" in html
    assert "Root blocker" in html and "Auth Service Refactor" in html
    assert "clears 3 people, 3 work items" in html
    assert "3 episodes · 10 facts · 3 people" in html
    assert "23 Nov – 27 Nov 2026" in html
    assert "Template summary" in html
    assert reverse("observation", args=[graph.slug, seeded.uuid]) in html


def test_a_member_sees_the_same_board(client: Client, graph: Graph, member, seeded) -> None:
    response = signed_in(client, member).get(board_url(graph))

    assert response.status_code == 200
    assert card_names(response) == [seeded.name]
    assert b"Viewer" in response.content


def test_an_outsider_gets_404_for_the_board_and_its_fragments(
    client: Client, graph: Graph, outsider, seeded
) -> None:
    signed_in(client, outsider)

    assert client.get(board_url(graph)).status_code == 404
    assert client.get(board_url(graph), **htmx("board-results")).status_code == 404
    progress = reverse("run-progress", args=[graph.slug])
    assert client.get(progress, **htmx("run-progress")).status_code == 404


def test_an_unknown_graph_is_404_like_a_foreign_one(client: Client, owner) -> None:
    assert signed_in(client, owner).get("/g/no-such-graph/").status_code == 404


def test_signing_in_is_required(client: Client, graph: Graph) -> None:
    response = client.get(board_url(graph))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_an_htmx_request_after_the_session_ended_redirects_the_whole_page(
    client: Client, graph: Graph
) -> None:
    response = client.get(board_url(graph), **htmx("board-results"),
                          HTTP_HX_CURRENT_URL=f"http://testserver{board_url(graph)}")

    assert response.status_code == 200
    assert response["HX-Redirect"] == f"{reverse('login')}?next=%2Fg%2F{graph.slug}%2F"


def test_the_switcher_lists_only_the_users_graphs(client: Client, graph: Graph, owner) -> None:
    MembershipFactory(user=owner, graph__slug="support", graph__name="Support Queue")
    GraphFactory(slug="secret", name="Secret Project")

    html = signed_in(client, owner).get(board_url(graph)).content.decode()

    assert "Support Queue" in html
    assert "Secret Project" not in html


# --- Filters, sort and pages -------------------------------------------------------------------


@pytest.fixture
def three(graph: Graph) -> dict[str, Observation]:
    """Three active observations that differ in kind, reach, evidence time and age."""
    run = PipelineRunFactory(graph=graph)
    blocker = EntityFactory(graph=graph, name="Auth Service Refactor")
    wide = ObservationFactory(
        graph=graph, created_by_run=run, name="Auth refactor blocks four", reach_people=4,
        reach_work_items=4, window_end=MONDAY + timedelta(days=1),
        created_at=MONDAY - timedelta(days=20),
        structure=chain_structure(blocker=blocker.pk, names={blocker.pk: blocker.name}),
    )
    wide.entities.add(blocker)
    recent = ObservationFactory(
        graph=graph, created_by_run=run, name="Payments waits on vendor", reach_people=1,
        reach_work_items=1, window_end=MONDAY + timedelta(days=9), created_at=MONDAY,
    )
    issue = ObservationFactory(
        graph=graph, created_by_run=run, name="Timeout errors reported by 3 customers",
        kind=Observation.Kind.RECURRING_ISSUE, reach_people=0, reach_work_items=0,
        summary="Three customers reported timeout errors after the deploy.",
        window_end=MONDAY + timedelta(days=5), created_at=MONDAY - timedelta(days=2),
        structure={"kind": "recurring_issue", "links": [], "recurring": {"issues": []},
                   "names": {}},
    )
    return {"wide": wide, "recent": recent, "issue": issue}


def test_the_board_sorts_by_unblock_reach_by_default(client: Client, graph, owner, three) -> None:
    response = signed_in(client, owner).get(board_url(graph))

    assert card_names(response) == [
        "Auth refactor blocks four", "Payments waits on vendor",
        "Timeout errors reported by 3 customers",
    ]


@pytest.mark.parametrize(
    ("sort", "expected"),
    [
        ("latest", ["recent", "issue", "wide"]),
        ("newest", ["recent", "issue", "wide"]),
    ],
)
def test_the_board_sorts_by_latest_evidence_or_newest(
    client: Client, graph, owner, three, sort: str, expected: list[str]
) -> None:
    response = signed_in(client, owner).get(board_url(graph, f"sort={sort}"))

    assert card_names(response) == [three[key].name for key in expected]


def test_the_kind_filter_keeps_one_kind(client: Client, graph, owner, three) -> None:
    response = signed_in(client, owner).get(board_url(graph, "kind=recurring_issue"))

    assert card_names(response) == ["Timeout errors reported by 3 customers"]


def test_the_entity_filter_keeps_observations_involving_it(
    client: Client, graph, owner, three
) -> None:
    blocker = Entity.objects.get(graph=graph, name="Auth Service Refactor")

    response = signed_in(client, owner).get(board_url(graph, f"entity={blocker.uuid}"))

    assert card_names(response) == ["Auth refactor blocks four"]
    # The card's root blocker links to the same filter, and the select shows it chosen.
    html = response.content.decode()
    assert f'?entity={blocker.uuid}"' in html
    assert f'<option value="{blocker.uuid}" selected>Auth Service Refactor</option>' in html


def test_the_text_search_looks_in_names_and_summaries(client: Client, graph, owner, three) -> None:
    signed_in(client, owner)

    assert card_names(client.get(board_url(graph, "q=vendor"))) == ["Payments waits on vendor"]
    assert card_names(client.get(board_url(graph, "q=DEPLOY"))) == [
        "Timeout errors reported by 3 customers"]


def test_since_keeps_what_changed_and_marks_it_new_or_updated(
    client: Client, graph, owner, three
) -> None:
    later = ObservationFactory(
        graph=graph, lineage=three["wide"].lineage, version=2, name="Auth refactor blocks five",
        created_by_run=three["wide"].created_by_run, created_at=MONDAY,
    )

    response = signed_in(client, owner).get(board_url(graph, "since=2026-11-22"))

    changes = {c.observation.name: c.change for c in response.context["cards"]}
    # The issue (written 21 Nov) and the lineage's first version (3 Nov) are older: left out.
    assert changes == {"Payments waits on vendor": "new", later.name: "updated"}
    assert b"badge--updated" in response.content


def test_the_status_filter_shows_retired_observations(client: Client, graph, owner, three) -> None:
    three["issue"].status = Observation.Status.RETIRED
    three["issue"].retired_reason = Observation.RetiredReason.EVIDENCE_ENDED
    three["issue"].retired_at = MONDAY
    three["issue"].save()
    # A version superseded by a newer one is no ending: it lives in its successor's history.
    three["wide"].status = Observation.Status.RETIRED
    three["wide"].retired_reason = Observation.RetiredReason.SUPERSEDED
    three["wide"].retired_at = MONDAY
    three["wide"].save()

    response = signed_in(client, owner).get(board_url(graph, "status=retired"))

    assert card_names(response) == ["Timeout errors reported by 3 customers"]
    assert b"Retired \xc2\xb7 evidence ended" in response.content


def test_bad_query_values_are_ignored_and_said_so(client: Client, graph, owner, three) -> None:
    response = signed_in(client, owner).get(
        board_url(graph, "kind=nonsense&since=yesterday&sort=best&page=0")
    )

    assert response.status_code == 200
    assert len(card_names(response)) == 3
    html = response.content.decode()
    assert "Kind: Select a valid choice." in html
    assert "Changed since: Enter a valid date." in html


def test_the_board_pages_through_many_observations(client: Client, graph: Graph, owner) -> None:
    run = PipelineRunFactory(graph=graph)
    ObservationFactory.create_batch(30, graph=graph, created_by_run=run)
    signed_in(client, owner)

    first = client.get(board_url(graph))
    second = client.get(board_url(graph, "page=2"))

    assert len(first.context["cards"]) == 24 and len(second.context["cards"]) == 6
    assert b"Page 1 of 2" in first.content
    assert 'href="?page=2"' in first.content.decode()


# --- htmx --------------------------------------------------------------------------------------


def test_htmx_gets_only_the_results_fragment_and_the_canonical_url(
    client: Client, graph, owner, three
) -> None:
    response = signed_in(client, owner).get(
        board_url(graph, "q=&kind=recurring_issue&entity=&since=&status=active&sort=reach"),
        **htmx("board-results"),
    )

    html = response.content.decode()
    assert html.lstrip().startswith('<section id="board-results"')
    assert "<html" not in html and 'class="filters"' not in html
    assert card_names(response) == ["Timeout errors reported by 3 customers"]
    assert response["HX-Push-Url"] == board_url(graph, "kind=recurring_issue")
    assert "HX-Request" in response["Vary"]


def test_the_full_page_also_varies_on_hx_request(client: Client, graph, owner, seeded) -> None:
    response = signed_in(client, owner).get(board_url(graph))

    assert "HX-Request" in response["Vary"]
    assert "HX-Push-Url" not in response


def test_the_same_url_without_javascript_renders_the_same_cards(
    client: Client, graph, owner, three
) -> None:
    signed_in(client, owner)
    query = "kind=dependency_chain&sort=latest"

    page = client.get(board_url(graph, query))
    fragment = client.get(board_url(graph, query), **htmx("board-results"))

    assert card_names(page) == card_names(fragment) == [
        "Payments waits on vendor", "Auth refactor blocks four"]


# --- Empty states ------------------------------------------------------------------------------


def test_a_graph_without_updates_says_how_to_add_them(client: Client, graph, owner) -> None:
    html = signed_in(client, owner).get(board_url(graph)).content.decode()

    assert "No updates yet" in html
    assert f"manage.py ingest updates.jsonl --graph {graph.slug}" in html


def test_a_graph_with_updates_but_no_pattern_says_so(client: Client, graph, owner) -> None:
    EpisodeFactory(graph=graph)

    html = signed_in(client, owner).get(board_url(graph)).content.decode()

    assert "No observations yet" in html


def test_filters_that_match_nothing_offer_to_clear_them(
    client: Client, graph, owner, seeded
) -> None:
    html = signed_in(client, owner).get(board_url(graph, "q=zebra")).content.decode()

    assert "No observations match these filters" in html
    assert "Clear filters" in html


# --- A pipeline run in progress ----------------------------------------------------------------


@pytest.fixture
def running(graph: Graph) -> PipelineRun:
    return PipelineRunFactory(
        graph=graph, status=PipelineRun.Status.RUNNING, finished_at=None,
        progress={"percent": 50, "stages": [
            {"name": "load", "status": "done", "done": 1, "total": 1},
            {"name": "summarize", "status": "running", "done": 2, "total": 5},
        ]},
    )


def test_the_board_shows_an_active_runs_progress_and_polls_it(
    client: Client, graph, owner, running: PipelineRun
) -> None:
    html = signed_in(client, owner).get(board_url(graph)).content.decode()

    assert '<progress max="100" value="50"' in html
    assert "summarize" in html and "2/5" in html
    assert f'hx-get="{reverse("run-progress", args=[graph.slug])}?run={running.uuid}"' in html
    assert 'hx-trigger="every 2s"' in html


def test_the_progress_fragment_keeps_polling_while_the_run_is_active(
    client: Client, graph, member, running: PipelineRun
) -> None:
    url = reverse("run-progress", args=[graph.slug]) + f"?run={running.uuid}"

    response = signed_in(client, member).get(url, **htmx("run-progress"))

    assert response.status_code == 200
    assert 'hx-trigger="every 2s"' in response.content.decode()
    assert "HX-Trigger" not in response


def test_when_the_run_publishes_polling_stops_and_the_board_reloads_its_cards(
    client: Client, graph, owner, running: PipelineRun
) -> None:
    running.status = PipelineRun.Status.SUCCEEDED
    running.counts = {"created": 1, "updated": 2, "retired": 1}
    running.save()
    url = reverse("run-progress", args=[graph.slug]) + f"?run={running.uuid}"

    response = signed_in(client, owner).get(url, **htmx("run-progress"))

    assert response.status_code == 286  # htmx stops polling
    assert "runPublished" in response["HX-Trigger-After-Settle"]
    assert "Run published: 1 new, 2 updated, 1 retired." in response.content.decode()
    board = client.get(board_url(graph)).content.decode()
    assert 'hx-trigger="runPublished from:body"' in board


def test_a_failed_run_stops_polling_without_reloading(
    client: Client, graph, owner, running: PipelineRun
) -> None:
    running.status = PipelineRun.Status.FAILED
    running.save()
    url = reverse("run-progress", args=[graph.slug]) + f"?run={running.uuid}"

    response = signed_in(client, owner).get(url, **htmx("run-progress"))

    assert response.status_code == 286
    assert "HX-Trigger-After-Settle" not in response
    assert "failed" in response.content.decode()


def test_the_progress_route_without_htmx_goes_back_to_the_board(
    client: Client, graph, owner
) -> None:
    response = signed_in(client, owner).get(reverse("run-progress", args=[graph.slug]))

    assert response.status_code == 302 and response["Location"] == board_url(graph)


def test_a_run_of_another_graph_is_not_watched(client: Client, graph, owner, running) -> None:
    other = PipelineRunFactory(status=PipelineRun.Status.RUNNING, finished_at=None)
    url = reverse("run-progress", args=[graph.slug]) + f"?run={other.uuid}"

    response = signed_in(client, owner).get(url, **htmx("run-progress"))

    assert response.context["run"] == running


# --- Query counts ------------------------------------------------------------------------------


def many_observations(graph: Graph, count: int) -> None:
    """``count`` active observations, each involving two of five entities."""
    run = PipelineRunFactory(graph=graph)
    entities = EntityFactory.create_batch(5, graph=graph)
    rows = Observation.objects.bulk_create(
        ObservationFactory.build_batch(count, graph=graph, created_by_run=run)
    )
    through = Observation.entities.through
    through.objects.bulk_create([
        through(observation_id=o.pk, entity_id=entities[(i + k) % 5].pk)
        for i, o in enumerate(rows) for k in (0, 1)
    ])


@pytest.mark.parametrize("count", [10, 1000])
def test_the_board_takes_the_same_nine_queries_at_10_and_1000_observations(
    client: Client, graph: Graph, owner, count: int, django_assert_num_queries
) -> None:
    many_observations(graph, count)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph (the access check), 4 count of the filtered
    # observations, 5 one page of them (with their lineage's start), 6 their entities,
    # 7 the entity filter's options, 8 the active run, 9 the switcher's graphs.
    with django_assert_num_queries(9):
        response = client.get(board_url(graph))

    assert len(response.context["cards"]) == min(count, 24)


@pytest.mark.parametrize("count", [10, 1000])
def test_the_results_fragment_takes_the_same_six_queries(
    client: Client, graph: Graph, owner, count: int, django_assert_num_queries
) -> None:
    many_observations(graph, count)
    signed_in(client, owner)

    # 1 session, 2 user, 3 membership + graph, 4 count, 5 page, 6 their entities.
    with django_assert_num_queries(6):
        client.get(board_url(graph, "sort=latest"), **htmx("board-results"))


def test_roles_do_not_change_what_the_board_shows(client: Client, graph, seeded) -> None:
    roles = [Membership.Role.OWNER, Membership.Role.EDITOR, Membership.Role.VIEWER]
    pages = []
    for role in roles:
        user = MembershipFactory(graph=graph, role=role).user
        pages.append(card_names(signed_in(Client(), user).get(board_url(graph))))

    assert pages == [[seeded.name]] * 3


def test_an_episode_count_in_the_empty_state_is_not_queried_when_there_are_cards(
    client: Client, graph, owner, seeded, django_assert_num_queries
) -> None:
    assert Episode.objects.filter(graph=graph).exists()
    signed_in(client, owner)

    with django_assert_num_queries(9):  # as above: no "has episodes?" query
        client.get(board_url(graph))


# --- The entity filter's choices -----------------------------------------------------------------


def test_the_entity_choices_put_the_most_involved_first_then_names_and_count_only_active() -> None:
    graph = GraphFactory()
    often, bravo, alpha, retired_only = (
        EntityFactory(graph=graph, name=name) for name in ("Often", "Bravo", "Alpha", "Gone"))
    for involved in ([often, bravo], [often, alpha], [often]):
        ObservationFactory(graph=graph).entities.add(*involved)
    ObservationFactory(graph=graph, status=Observation.Status.RETIRED).entities.add(
        retired_only, alpha)
    other_graph = ObservationFactory()
    other_graph.entities.add(EntityFactory(graph=other_graph.graph, name="Elsewhere"))

    assert entity_choices(graph) == [
        (str(often.uuid), "Often"), (str(alpha.uuid), "Alpha"), (str(bravo.uuid), "Bravo")]
    assert entity_choices(graph, selected=retired_only.uuid)[-1] == (
        str(retired_only.uuid), "Gone")


def test_the_entity_choices_stop_at_the_cap_keeping_every_tie_in_name_order() -> None:
    graph = GraphFactory()
    observation = ObservationFactory(graph=graph)
    entities = [EntityFactory(graph=graph, name=f"Item {n:03}") for n in range(ENTITY_CHOICES + 5)]
    observation.entities.add(*entities)
    ObservationFactory(graph=graph).entities.add(entities[-1])

    choices = entity_choices(graph)

    assert len(choices) == ENTITY_CHOICES
    assert choices[0] == (str(entities[-1].uuid), entities[-1].name)
    assert [name for _, name in choices[1:]] == [e.name for e in entities[:ENTITY_CHOICES - 1]]
