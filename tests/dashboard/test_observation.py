"""An observation's page: claims with citation chips, the evidence trail opened in place (and in
the URL), the structure and episode-graph pictures, history, audit — for the owner, a member and
an outsider."""

from __future__ import annotations

import re

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from dashboard.access import observation_for_user
from memory.models import Claim, Entity, Episode, Fact, FactEvidence, Graph, Observation
from tests.dashboard.conftest import htmx, signed_in
from tests.factories import (
    MONDAY,
    EntityFactory,
    EpisodeFactory,
    LLMCallFactory,
    MembershipFactory,
    ObservationFactory,
    chain_structure,
)

pytestmark = pytest.mark.django_db

CLARA = "The checkout flow can't move forward because the payments integration isn't ready."


def detail_url(observation: Observation, query: str = "") -> str:
    url = reverse("observation", args=[observation.graph.slug, observation.uuid])
    return url + (f"?{query}" if query else "")


def position_citing(observation: Observation, author: str) -> int:
    """The first claim citing a fact that ``author``'s episode supports."""
    return Claim.objects.filter(
        observation=observation, facts__evidence__episode__author=author
    ).order_by("position").values_list("position", flat=True)[0]


# --- Who may see it ----------------------------------------------------------------------------


def test_the_owner_reads_the_summary_as_claims_with_citation_chips(
    client: Client, owner, seeded: Observation
) -> None:
    response = signed_in(client, owner).get(detail_url(seeded))

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>Auth Service Refactor blocking 3 workstreams</h1>" in html
    claims = list(seeded.claims.order_by("position"))
    for claim in claims:
        assert claim.text.replace("'", "&#x27;") in html
    chips = html.count('class="chip"')
    assert chips == sum(c.facts.count() for c in claims)
    assert f'hx-get="?claim={claims[0].position}"' in html
    assert 'hx-target="#claims"' in html


def test_a_member_reads_the_same_page(client: Client, member, seeded) -> None:
    response = signed_in(client, member).get(detail_url(seeded))

    assert response.status_code == 200
    assert response.context["observation"] == seeded


def test_an_outsider_gets_404_for_the_page_and_its_fragment(
    client: Client, outsider, seeded
) -> None:
    signed_in(client, outsider)

    assert client.get(detail_url(seeded)).status_code == 404
    assert client.get(detail_url(seeded, "claim=0"), **htmx("claims")).status_code == 404


def test_an_observation_is_404_under_another_graphs_address(
    client: Client, graph: Graph, owner, seeded
) -> None:
    other = MembershipFactory(user=owner, graph__slug="support").graph
    url = reverse("observation", args=[other.slug, seeded.uuid])

    assert signed_in(client, owner).get(url).status_code == 404


def test_an_unknown_observation_is_404(client: Client, graph, owner) -> None:
    url = reverse("observation", args=[graph.slug, "00000000-0000-0000-0000-000000000000"])

    assert signed_in(client, owner).get(url).status_code == 404


# --- The evidence trail ------------------------------------------------------------------------


def test_opening_a_claim_shows_its_facts_and_claras_words_highlighted(
    client: Client, owner, seeded
) -> None:
    position = position_citing(seeded, "Clara")

    response = signed_in(client, owner).get(detail_url(seeded, f"claim={position}"))

    html = response.content.decode()
    assert "Evidence for this claim" in html
    checkout = Entity.objects.get(graph=seeded.graph, name="Checkout Flow")
    page = reverse("entity", args=[seeded.graph.slug, checkout.uuid])
    assert (f'<a class="entity-link" href="{page}">Checkout Flow</a> '
            '<span class="relation">waits on</span>') in html
    assert "<strong>Clara</strong>" in html
    assert f"<mark>{CLARA.replace(chr(39), '&#x27;')}</mark>" in html
    assert "Current" in html and "valid since 27 Nov 2026, 09:00" in html
    clara = Episode.objects.get(graph=seeded.graph, author="Clara")
    assert f'href="#episode-{clara.uuid}"' in html
    assert f'id="episode-{clara.uuid}"' in html


def test_htmx_gets_only_the_claims_fragment_with_the_trail(client: Client, owner, seeded) -> None:
    position = position_citing(seeded, "Clara")

    response = signed_in(client, owner).get(
        detail_url(seeded, f"claim={position}"), **htmx("claims")
    )

    html = response.content.decode()
    assert html.lstrip().startswith('<div id="claims"')
    assert "<html" not in html and "Why these belong together" not in html
    assert "<mark>" in html
    assert "HX-Request" in response["Vary"]


def test_a_closed_fact_says_when_and_what_ended_it(client: Client, owner, shipped) -> None:
    position = position_citing(shipped, "Alice")

    html = signed_in(client, owner).get(detail_url(shipped, f"claim={position}")).content.decode()

    assert "Ended" in html
    assert "Resolution rule" in html
    assert "ended by Dana on 2 Dec 2026" in html


@pytest.mark.parametrize("query", ["claim=abc", "claim=-1", "claim=99"])
def test_a_bad_or_unknown_claim_opens_nothing(client: Client, owner, seeded, query) -> None:
    response = signed_in(client, owner).get(detail_url(seeded, query))

    assert response.status_code == 200
    assert response.context["expanded"] is None


# --- Structure, why together, history, audit ---------------------------------------------------


def test_the_dependency_chain_is_drawn_with_the_root_blocker_highlighted(
    client: Client, owner, seeded
) -> None:
    html = signed_in(client, owner).get(detail_url(seeded)).content.decode()

    assert '<svg class="chain"' in html
    root = html.index('class="node node--root"')
    assert "Auth Service Refactor" in html[root:root + 500]
    assert html.count('class="edge') >= 3
    assert "Unblocking it clears <strong>3 people</strong> (Alice, Bob, Clara)" in html
    assert "Checkout Flow" in html and "via Payments Integration" in html


def test_why_together_lists_the_shared_signatures_and_draws_the_episode_graph(
    client: Client, owner, seeded
) -> None:
    response = signed_in(client, owner).get(detail_url(seeded))

    html = response.content.decode()
    assert '<svg class="episode-graph"' in html
    texts = [s.text for s in response.context["signatures"]]
    assert texts == ["… the dependencies of Auth Service Refactor",
                     "… the dependencies of Payments Integration",
                     "Backend Team is responsible for Auth Service Refactor",
                     "Bob is responsible for Payments Integration"]
    assert html.count('class="node node--episode"') == 3
    assert html.count('class="episode"') == 3


def test_the_history_lists_every_version_and_the_retired_banner_explains_why(
    client: Client, owner, shipped: Observation
) -> None:
    successor = shipped.successors.get()

    html = signed_in(client, owner).get(detail_url(shipped)).content.decode()

    assert ": superseded by a new version</h2>" in html
    assert "2 facts closed" in html
    assert re.search(r">API Migration</a> <em>waits on</em> <a [^>]+>Auth Service Refactor<", html)
    assert re.search(r">Payments Integration</a> <em>waits on</em> <a [^>]+>Auth Service Refactor<",
                     html)
    assert "by Dana" in html
    assert f'href="{detail_url(successor)}"' in html
    assert "Version 1" in html and "Version 2" in html


def test_the_successor_shows_its_history_back_to_the_first_version(
    client: Client, owner, shipped: Observation
) -> None:
    successor = shipped.successors.get()

    response = signed_in(client, owner).get(detail_url(successor))

    history = response.context["history"]
    assert [line.version.version for line in history] == [1, 2]
    assert history[0].change == "first seen"
    assert history[1].change != "first seen"  # what the new version changed, in words
    assert b"banner--retired" not in response.content
    assert f'href="{detail_url(shipped)}"'.encode() in response.content


def test_each_version_says_what_changed_and_when_it_was_restated_in_place(
    client: Client, owner, graph
) -> None:
    from tests.factories import ObservationFactory, PipelineRunFactory

    run = PipelineRunFactory(graph=graph)
    first = ObservationFactory(graph=graph, created_by_run=run, version=1, episode_count=3,
                               fact_count=4, status=Observation.Status.RETIRED,
                               retired_reason=Observation.RetiredReason.SUPERSEDED)
    second = ObservationFactory(
        graph=graph, created_by_run=run, lineage=first.lineage, version=2, episode_count=5,
        fact_count=3, restatements=[{"at": "2026-11-16T09:00:00+00:00", "run": run.pk,
                                     "episodes": 2}])

    response = signed_in(client, owner).get(detail_url(second))

    assert [line.change for line in response.context["history"]] == [
        "first seen", "2 more updates, 1 fact fewer"]
    assert "restated by 2 updates on 16 Nov 2026" in response.content.decode()


def test_the_audit_block_shows_the_run_settings_and_generator(
    client: Client, owner, seeded
) -> None:
    html = signed_in(client, owner).get(detail_url(seeded)).content.decode()

    audit = html[html.index('id="audit"'):]
    assert str(seeded.created_by_run.uuid) in audit
    assert "Template summary" in audit
    assert "<code>hub_min_episodes</code>" in audit
    assert seeded.evidence_fingerprint in audit


def test_each_update_of_the_page_links_to_where_it_was_written(
    client: Client, graph, owner
) -> None:
    # A stalled support thread: "bitwarden/clients#9262 reported and open since 20 May 2024".
    episode = EpisodeFactory(graph=graph, author="kensaiD2591",
                             source="support:bitwarden/clients",
                             url="https://github.com/bitwarden/clients/issues/9262",
                             content="Login fails after the update #9262")
    observation = ObservationFactory(
        graph=graph, kind=Observation.Kind.STALLED,
        name="bitwarden/clients#9262 reported and open since 20 May 2024")
    observation.episodes.add(episode)

    html = signed_in(client, owner).get(detail_url(observation)).content.decode()

    assert ('<a href="https://github.com/bitwarden/clients/issues/9262" rel="noopener noreferrer '
            'external">support:bitwarden/clients ↗</a>') in html


# --- Escaping ----------------------------------------------------------------------------------

EVIL = '<script>alert("x")</script>'


def test_text_from_updates_and_models_is_always_escaped(client: Client, graph, owner) -> None:
    blocker = EntityFactory(graph=graph, name=EVIL)
    episode = EpisodeFactory(graph=graph, author=EVIL, content=f"We wait on {EVIL}.")
    observation = ObservationFactory(
        graph=graph, name=EVIL, summary=EVIL,
        structure=chain_structure(blocker=blocker.pk, names={blocker.pk: EVIL}),
    )
    fact = Fact.objects.create(
        graph=graph, source=EntityFactory(graph=graph), target=blocker, relation="DEPENDS_ON",
        sentence=EVIL, valid_at=MONDAY, created_at=MONDAY, extractor="rules",
    )
    FactEvidence.objects.create(fact=fact, episode=episode, sentence=f"We wait on {EVIL}.",
                                extractor="rules", created_at=MONDAY)
    observation.episodes.add(episode)
    Claim.objects.create(observation=observation, position=0, text=EVIL).facts.add(fact)
    signed_in(client, owner)

    for url in [detail_url(observation, "claim=0"), reverse("board", args=[graph.slug])]:
        html = client.get(url).content.decode()
        assert EVIL not in html
        assert "&lt;script&gt;" in html


# --- Query counts ------------------------------------------------------------------------------


def large_observation(graph: Graph, *, episodes: int = 60, facts: int = 150) -> Observation:
    """An observation with a large evidence set: ``episodes`` episodes, ``facts`` facts each
    supported by two episodes, eight claims citing twenty facts each."""
    entities = EntityFactory.create_batch(30, graph=graph)
    rows = Episode.objects.bulk_create(EpisodeFactory.build_batch(episodes, graph=graph))
    fact_rows = Fact.objects.bulk_create([
        Fact(graph=graph, source=entities[i % 30], target=entities[(i + 1) % 30],
             relation="DEPENDS_ON", sentence=f"Item {i} waits.", valid_at=MONDAY,
             created_at=MONDAY, extractor="rules")
        for i in range(facts)
    ])
    FactEvidence.objects.bulk_create([
        FactEvidence(fact=f, episode=rows[(i + k) % episodes], sentence=f.sentence,
                     extractor="rules", created_at=MONDAY)
        for i, f in enumerate(fact_rows) for k in (0, 7)
    ])
    links = [{"signature": {"source": None, "relation": "DEPENDS_ON", "target": e.pk},
              "episodes": [rows[i].pk, rows[i + 1].pk], "facts": []}
             for i, e in enumerate(entities[:20])]
    structure = chain_structure(blocker=entities[0].pk, waiting=entities[1].pk,
                                owner=entities[2].pk)
    structure["links"] = links
    structure["names"] = {str(e.pk): e.name for e in entities}
    observation = ObservationFactory(graph=graph, structure=structure, episode_count=episodes,
                                     fact_count=facts)
    observation.episodes.add(*rows)
    observation.facts.add(*fact_rows)
    observation.entities.add(*entities)
    for position in range(8):
        claim = Claim.objects.create(observation=observation, position=position,
                                     text=f"Claim {position}.")
        claim.facts.add(*fact_rows[position * 18: position * 18 + 20])
    return observation


@pytest.fixture(params=["small", "large"])
def evidence_set(request, graph: Graph, ingest) -> Observation:  # type: ignore[no-untyped-def]
    if request.param == "small":
        return request.getfixturevalue("seeded")
    return large_observation(graph)


def test_the_page_takes_eleven_queries_whatever_the_evidence(
    client: Client, owner, evidence_set: Observation, django_assert_num_queries
) -> None:
    signed_in(client, owner)
    url = detail_url(evidence_set)

    # 1 session, 2 user, 3 membership + graph, 4 the observation with its runs and model call,
    # 5 claims, 6 the facts they cite (with what closed them), 7 the cluster's episodes,
    # 8 the uuids of its entities (to link their names), 9 the lineage's versions, 10 related
    # observations of other lineages, 11 the switcher. The lifecycle timeline is drawn from
    # these rows.
    with django_assert_num_queries(11):
        client.get(url)


def test_an_open_trail_adds_one_query_whatever_the_evidence(
    client: Client, owner, evidence_set: Observation, django_assert_num_queries
) -> None:
    signed_in(client, owner)
    url = detail_url(evidence_set, "claim=1")

    # The eleven above, plus 12 the episodes supporting the open claim's facts.
    with django_assert_num_queries(12):
        response = client.get(url)
    assert response.context["expanded"] is not None


def test_the_claims_fragment_takes_seven_queries_whatever_the_evidence(
    client: Client, owner, evidence_set: Observation, django_assert_num_queries
) -> None:
    signed_in(client, owner)
    url = detail_url(evidence_set, "claim=1")

    # 1 session, 2 user, 3 membership + graph, 4 observation, 5 claims, 6 their facts,
    # 7 the open claim's evidence.
    with django_assert_num_queries(7):
        client.get(url, **htmx("claims"))


def test_a_retired_page_adds_a_query_for_the_facts_that_retired_it(
    client: Client, owner, shipped: Observation, django_assert_num_queries
) -> None:
    signed_in(client, owner)
    url = detail_url(shipped)

    # The eleven of an active page, plus 12 the closed facts. (Episodes that left the pattern
    # are a thirteenth; here none did, and an empty id list costs no query.)
    assert shipped.retirement["dropped_episodes"] == []
    with django_assert_num_queries(12):
        client.get(url)


def test_entities_are_not_queried_for_names(client: Client, owner, seeded) -> None:
    # Names come from the structure's own name map: renaming an entity afterwards does not
    # change the picture of what was observed.
    Entity.objects.filter(graph=seeded.graph, name="Backend Team").update(name="Platform Team")

    html = signed_in(client, owner).get(detail_url(seeded)).content.decode()

    assert "Backend Team" in html


def test_a_recurring_issue_lists_its_reporters_what_it_affects_and_what_came_before(
    client: Client, graph, owner
) -> None:
    structure = {
        "kind": "recurring_issue", "links": [], "dependency": None,
        "recurring": {"issues": [{
            "issue": 1, "episodes": [],
            "reports": [{"reporter": 2, "facts": [], "episodes": [],
                         "first_reported": "2026-11-09T10:00:00+00:00"},
                        {"reporter": 3, "facts": [], "episodes": [],
                         "first_reported": "2026-11-10T10:00:00+00:00"}],
            "affected": [{"entity": 4, "facts": []}],
            "preceded_by": [{"event": 5, "facts": [], "episodes": [7, 8], "recurring": True}],
        }], "recurring_events": []},
        "names": {"1": "Timeout Errors", "2": "Acme Corp", "3": "Initech", "4": "CSV Export",
                  "5": "Nightly Backfill"},
    }
    observation = ObservationFactory(graph=graph, kind=Observation.Kind.RECURRING_ISSUE,
                                     structure=structure)

    html = signed_in(client, owner).get(detail_url(observation)).content.decode()

    assert "Recurring issue: Timeout Errors" in html
    assert 'Acme Corp <span class="muted small">first 9 Nov 2026</span>' in html
    assert "<li>CSV Export</li>" in html
    assert "Nightly Backfill" in html and "2 episodes · recurring" in html
    assert "not a cause" in html
    assert '<svg class="chain"' not in html


def test_a_reporter_of_years_ago_is_listed_with_the_year_of_their_first_report(
    client: Client, graph, owner
) -> None:
    # warpdotdev/warp's Login Failures: first reported in August 2022, last in July 2026.
    structure = {
        "kind": "recurring_issue", "links": [], "dependency": None,
        "recurring": {"issues": [{
            "issue": 1, "episodes": [], "affected": [], "preceded_by": [],
            "reports": [{"reporter": 2, "facts": [], "episodes": [],
                         "first_reported": "2022-08-30T10:00:00+00:00"},
                        {"reporter": 3, "facts": [], "episodes": [],
                         "first_reported": "2026-07-09T10:00:00+00:00"}],
        }], "recurring_events": []},
        "names": {"1": "Login Failures", "2": "hhinma", "3": "Sicken-jarvis"},
    }
    observation = ObservationFactory(graph=graph, kind=Observation.Kind.RECURRING_ISSUE,
                                     structure=structure)

    html = signed_in(client, owner).get(detail_url(observation)).content.decode()

    assert 'hhinma <span class="muted small">first 30 Aug 2022</span>' in html
    assert 'Sicken-jarvis <span class="muted small">first 9 Jul 2026</span>' in html


def test_the_history_draws_the_lifecycle_of_the_lineage(
    client: Client, owner, shipped: Observation
) -> None:
    successor = shipped.successors.get()

    response = signed_in(client, owner).get(detail_url(successor))

    lifecycle = response.context["lifecycle"]
    bands = [b for b in lifecycle.bars if "obs" in b.kind]
    assert [b.href for b in bands] == [detail_url(shipped), detail_url(successor)]
    assert "ended" in bands[0].kind and bands[1].open_end
    assert '<svg class="tl-chart"' in response.content.decode()


def test_open_episode_leads_to_the_episodes_page_at_the_fact(
    client: Client, owner, seeded: Observation
) -> None:
    position = position_citing(seeded, "Clara")

    html = signed_in(client, owner).get(detail_url(seeded, f"claim={position}")).content.decode()

    clara = Episode.objects.get(graph=seeded.graph, external_id="clara")
    assert f'href="{reverse("episode", args=[seeded.graph.slug, clara.uuid])}#fact-' in html


def test_the_root_blocker_and_what_waits_on_it_link_to_their_pages(
    client: Client, owner, seeded: Observation
) -> None:
    html = signed_in(client, owner).get(detail_url(seeded)).content.decode()

    for name in ("Auth Service Refactor", "API Migration", "Checkout Flow"):
        entity = Entity.objects.get(graph=seeded.graph, name=name)
        assert f'<a href="{reverse("entity", args=[seeded.graph.slug, entity.uuid])}">{name}</a>' \
            in html


def test_an_observation_is_read_with_its_model_call_but_not_the_calls_request_and_response(
    rf: RequestFactory, graph: Graph, owner, django_assert_num_queries
) -> None:
    call = LLMCallFactory(graph=graph, request={"messages": []}, response='{"choices": []}')
    observation = ObservationFactory(graph=graph, llm_call=call)
    request = rf.get("/")
    request.user = owner

    found, _ = observation_for_user(request, graph.slug, observation.uuid)

    with django_assert_num_queries(0):  # the page names the model; the texts can be long
        assert found.llm_call.model == call.model
    assert found.llm_call.get_deferred_fields() == {"request", "response"}
