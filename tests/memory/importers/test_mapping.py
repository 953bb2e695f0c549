"""The one mapping layer: items and changes of any tool → episode records with facts."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.importers.mapping import map_items
from memory.importers.model import Change, Item, ItemLink, LinkKind, Party

T0 = datetime(2026, 11, 2, 9, tzinfo=UTC)


def at(day: int) -> datetime:
    return T0.replace(day=day)


def item(key: str, *changes: Change, tracker: bool = False, reporter: str = "Alice",
         created: int = 2) -> Item:
    return Item(tool="tracker", key=key, title=f"Title of {key}", created_at=at(created),
                url=f"https://tracker.example/{key}", reporters=(Party(reporter),),
                tracker=tracker, changes=[Change(at=at(created), key="created", created=True,
                                                 status="Open"), *changes])


def facts(record: dict) -> set[tuple[str, str, str, bool]]:
    return {(f["source"], f["relation"], f["target"], "invalid_at" in f) for f in record["facts"]}


def test_each_change_is_one_episode_at_its_time_linking_back_to_the_item() -> None:
    mapped = map_items([item("A-1", Change(at=at(3), key="c1", actor=Party("Bob"),
                                           assignees_added=(Party("Bob"),)))])

    created, assigned = (m.record for m in mapped)
    assert created["external_id"] == "tracker:A-1:created"
    assert created["url"] == "https://tracker.example/A-1"
    assert facts(created) == {("Alice", "REPORTED", "A-1", False),
                              ("A-1", "HAS_STATUS", "Open", False)}
    assert assigned["reference_time"] == at(3).isoformat()
    assert assigned["author"] == "Bob"
    assert facts(assigned) == {("Alice", "REPORTED", "A-1", False),
                               ("Bob", "RESPONSIBLE_FOR", "A-1", False)}


def test_a_removed_link_is_the_same_fact_given_with_only_its_end() -> None:
    mapped = map_items([item("A-1", Change(at=at(4), key="c1", links_removed=(
        ItemLink(LinkKind.BLOCKS, "A-2"),)))])

    removal = mapped[-1].record["facts"]
    assert removal == [{"source": "A-2", "source_type": "WorkItem", "relation": "DEPENDS_ON",
                        "target": "A-1", "target_type": "WorkItem",
                        "fact": "A-1 no longer blocks A-2.", "invalid_at": at(4).isoformat()}]


def test_a_tracking_items_dependencies_are_tracked_from_both_sides() -> None:
    meta = item("META", Change(at=at(3), key="c1",
                               links_added=(ItemLink(LinkKind.DEPENDS_ON, "A-1"),)), tracker=True)
    child = item("A-1", Change(at=at(3), key="c1", links_added=(
        ItemLink(LinkKind.BLOCKS, "META"),)))

    records = [m.record for m in map_items([meta, child])]
    stated = {f for r in records for f in facts(r) if f[1] in ("TRACKS", "DEPENDS_ON")}
    assert stated == {("META", "TRACKS", "A-1", False)}
    # Adding a child is the tracker's bookkeeping: it restates no thread.
    bookkeeping = next(r for r in records if r["external_id"] == "tracker:META:c1")
    assert facts(bookkeeping) == {("META", "TRACKS", "A-1", False)}


def test_a_dependency_joins_both_items_threads() -> None:
    waiting = item("A-1", Change(at=at(4), key="c1", links_added=(
        ItemLink(LinkKind.DEPENDS_ON, "A-2"),)))
    blocker = item("A-2", reporter="Bob")

    record = next(m.record for m in map_items([waiting, blocker])
                  if m.record["external_id"] == "tracker:A-1:c1")
    assert facts(record) == {("Alice", "REPORTED", "A-1", False),
                             ("Bob", "REPORTED", "A-2", False),
                             ("A-1", "DEPENDS_ON", "A-2", False)}


def test_a_final_item_no_longer_restates_its_thread() -> None:
    mapped = map_items([item("A-1",
                             Change(at=at(4), key="c1", status="Done"),
                             Change(at=at(5), key="c2", assignees_added=(Party("Bob"),)),
                             Change(at=at(6), key="c3", status="Reopened"))])

    done, later, reopened = (m.record for m in mapped[1:])
    assert ("Alice", "REPORTED", "A-1", False) not in facts(done)
    assert ("Alice", "REPORTED", "A-1", False) not in facts(later)
    assert ("Alice", "REPORTED", "A-1", False) in facts(reopened)


def test_the_graphs_ontology_decides_what_is_final() -> None:
    changes = (Change(at=at(4), key="c1", status="Shipped to staging"),
               Change(at=at(5), key="c2", assignees_added=(Party("Bob"),)))

    def final(status: str) -> bool:
        return status == "Shipped to staging"

    later = map_items([item("A-1", *changes)], is_final=final)[-1].record
    assert ("Alice", "REPORTED", "A-1", False) not in facts(later)


def test_a_change_that_says_nothing_recorded_is_no_episode() -> None:
    mapped = map_items([item("A-1", Change(at=at(3), key="label", note="Labeled: ui"),
                             Change(at=at(4), key="self", links_added=(
                                 ItemLink(LinkKind.DEPENDS_ON, "A-1"),)))])

    assert [m.record["external_id"] for m in mapped] == ["tracker:A-1:created"]


def test_since_keeps_only_later_changes_in_time_order() -> None:
    items = [item("B-1", Change(at=at(6), key="c1", status="Done"), created=5),
             item("A-1", Change(at=at(4), key="c1", status="Done"))]

    mapped = map_items(items, since=at(4))
    assert [m.record["external_id"] for m in mapped] == [
        "tracker:A-1:c1", "tracker:B-1:created", "tracker:B-1:c1"]


def test_a_support_desk_item_can_be_an_issue_reported_by_a_customer() -> None:
    ticket = Item(tool="zendesk", key="Ticket 35436", title="Exports fail", created_at=at(2),
                  type="Issue", reporters=(Party("Jane Doe"), Party("Acme Corp", "Customer")),
                  changes=[Change(at=at(2), key="created", created=True, status="new")])

    record = map_items([ticket])[0].record
    assert {(f["source"], f["source_type"], f["target_type"]) for f in record["facts"]
            if f["relation"] == "REPORTED"} == {("Jane Doe", "Person", "Issue"),
                                                 ("Acme Corp", "Customer", "Issue")}


def test_a_tracking_item_in_anothers_dependencies_is_tracked_by_it() -> None:
    """A [meta] bug that "blocks" a bigger effort is one of its parts, never its root blocker."""
    meta = item("META", Change(at=at(3), key="c1", links_added=(
        ItemLink(LinkKind.BLOCKS, "BIGGER"),)), tracker=True)

    record = map_items([meta])[-1].record
    assert facts(record) == {("BIGGER", "TRACKS", "META", False)}


# --- What people wrote, and facts kept in fields (support desks and chat) ---------------------


def test_a_changes_words_are_its_content_read_beside_the_facts_joining_the_thread() -> None:
    ticket = Item(tool="desk", key="Ticket #7", title="Cannot log in", created_at=at(2),
                  type="WorkItem", reporters=(Party("Acme Corp", "Customer"),),
                  source="desk:Acme Mobile", url="https://desk.example/7", changes=[
                      Change(at=at(2), key="created", created=True, status="New",
                             actor=Party("Acme Corp", "Customer"),
                             text="Our users get an error on sign-in."),
                      Change(at=at(3), key="comment-1", actor=Party("Dana", "Person"),
                             text="Could you send a screenshot?")])

    created, comment = (m.record for m in map_items([ticket]))
    assert created["content"] == "Cannot log in\n\nOur users get an error on sign-in."
    assert created["read_text"] is True
    assert created["source"] == "desk:Acme Mobile"
    assert facts(created) == {("Acme Corp", "REPORTED", "Ticket #7", False),
                              ("Ticket #7", "HAS_STATUS", "New", False)}
    assert comment["content"] == "Could you send a screenshot?"
    assert comment["author"] == "Dana"
    assert {"name": "Dana", "type": "Person"} in comment["entities"]
    # The ticket keeps its key as its name; its title rides along for the prose.
    assert {"name": "Ticket #7", "type": "WorkItem", "title": "Cannot log in"} in \
        comment["entities"]
    assert facts(comment) == {("Acme Corp", "REPORTED", "Ticket #7", False)}


def test_words_on_a_finished_item_are_an_episode_without_its_thread() -> None:
    ticket = item("A-1", Change(at=at(3), key="solved", status="Done"),
                  Change(at=at(4), key="comment", actor=Party("Bob"), text="Thanks, all good."))

    last = map_items([ticket])[-1].record
    assert last["content"] == "Thanks, all good."
    assert last["facts"] == [] and "read_text" not in last


def test_statements_are_recorded_as_given_and_join_the_thread() -> None:
    from memory.importers.model import Statement

    ticket = item("A-1", Change(at=at(3), key="fields", statements=(
        Statement(Party("Acme", "Customer"), "ON_PLAN", Party("Enterprise", "Plan")),)))

    fields = map_items([ticket])[-1].record
    assert facts(fields) == {("Alice", "REPORTED", "A-1", False),
                             ("Acme", "ON_PLAN", "Enterprise", False)}
    plan = next(f for f in fields["facts"] if f["relation"] == "ON_PLAN")
    assert (plan["source_type"], plan["target_type"]) == ("Customer", "Plan")
