"""Lines of discussion that assert nothing a reading should take as fact
(``memory.extraction.assertions``, issue #17 precision on sources no reading was tuned on):
a proposal or question by its label, another's belief, a quantified group, what someone will
say. Sentences are written like the dev-extra2 minutes (tc39, nodejs-tsc, ossf-tac), not copied;
each test also reads the line the guard must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction.assertions import asserts, names_a_group, says_content
from memory.extraction.rules import extract_with_rules

REFERENCE_TIME = datetime(2024, 4, 17, tzinfo=UTC)


def facts(text: str) -> set[tuple[str, str, str]]:
    extraction = extract_with_rules(text, author="", reference_time=REFERENCE_TIME)
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_a_proposal_by_its_label_states_no_ownership() -> None:
    assert facts("### Governance\n\n* Proposal: the TAC owns the security baseline.\n") == set()
    assert facts("### Domains\n\n* Option 2: the Foundation takes over the domain.\n") == set()
    assert facts("### Tooling\n\n* Suggestion: Bob maintains the release tooling.\n") == set()


def test_a_decision_by_its_label_still_states_it() -> None:
    assert ("TAC", "RESPONSIBLE_FOR", "Security Baseline") in facts(
        "### Governance\n\n* Decision: the TAC owns the security baseline.\n")


def test_someone_elses_belief_states_no_status() -> None:
    assert facts("### Node.js 22\n\n* Matteo thinks the undici work is done.\n") == set()
    assert facts("### Iterators\n\n* KG: Jordan hopes the helpers work is merged.\n") == set()
    assert not asserts("Priya believes the loader work is blocked on the hooks redesign")


def test_reported_speech_is_still_read() -> None:
    """GUIDE §2: "Farah says the warehouse migration slipped" is read, the speaker left out."""
    assert asserts("Farah says the warehouse migration slipped again")
    assert asserts("Niko would like to see a full matrix (Niko to comment)")


def test_a_quantified_group_waits_on_nothing() -> None:
    """tc39 notes: "Multiple frontend web frameworks are eagerly waiting for X to ship"."""
    text = ("### Async context\n\n* Several web frameworks are waiting for `AsyncContext` to "
            "land in browsers.\n")
    assert facts(text) == set()
    assert names_a_group("multiple frontend frameworks")
    assert names_a_group("a number of bundlers")
    assert not names_a_group("the loader hooks")


def test_what_someone_will_say_is_no_work_taken_on() -> None:
    """nodejs-tsc minutes: "Richard, will point out it has already been shipped"."""
    text = ("### Remove the legacy timers integration (nodejs/node#58123)\n\n"
            "* Dana, will point out it has already been released, so harder to change\n"
            "* Bob will ask Alice whether the sqlite work is blocked.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for _, relation, _ in facts(text))
    assert says_content("point", "out that it has shipped")
    assert says_content("ask", "Alice whether it is blocked")


def test_a_request_or_a_plain_action_is_still_work() -> None:
    """cpc minutes: "Michael will ask that board vote starts" is his action."""
    assert not says_content("ask", "that the board vote starts")
    assert not says_content("ping", "mara to find out the extent of her review")
    text = ("### Add a post-graduation checklist (openjs-foundation/cross-project-council#512)\n\n"
            "* Dana will ask that the board vote starts.\n")
    assert ("Dana", "RESPONSIBLE_FOR", "openjs-foundation/cross-project-council#512") in {
        (s, r, t.split(" (")[-1].rstrip(")")) for s, r, t in facts(text)}


def test_a_standup_item_that_only_talks_about_work_takes_none_on() -> None:
    """ipfs-2018-08-13-golang-core-dev-team-weekly-keks: "discuss gx-gomod with @…" under Next;
    the same verbs the commitments leave out (``minutes.NO_WORK_VERBS``)."""
    talk = ("### Week Update\n\n@keks\n- Next:\n"
            "  - discuss the gomod migration with @alice and @bob\n  - attend the IPFS camp\n")
    work = "### Week Update\n\n@keks\n- Next:\n  - finish the gomod migration\n"
    assert facts(talk) == set()
    assert ("keks", "RESPONSIBLE_FOR", "Gomod Migration") in facts(work)


def test_a_quantified_group_has_no_status_by_decision() -> None:
    """Minutes of a network upgrade: "Multiple FIPs moved to Accepted" names none of them."""
    text = ("### Network upgrade\n\n* Multiple FIPs successfully moved from Last Call → Accepted\n"
            "* FIP 0077 - Moved to Accepted\n")
    assert facts(text) == {("FIP 0077", "HAS_STATUS", "Accepted")}


def test_a_gerund_inside_the_subject_is_no_work_under_way() -> None:
    """"Interoperability testing in Butterfly was valuable": "testing" heads the subject of
    "was"; "NV28 planning active": a name with digits is no one's. "@darcyclarke planning
    kick-off meeting" (cpc-meetings-2021-2021-04-13-s8) stays work under way."""
    from memory.extraction.responsibility import find_responsibility

    assert find_responsibility(
        "Interop testing in the testnet was valuable, especially for FIP-115") is None
    assert find_responsibility("NV31 planning active") is None
    found = find_responsibility("@dana planning kick-off meeting with initial members")
    assert found is not None and found.who == "@dana"


def test_someone_asked_to_remain_takes_no_work_on() -> None:
    """"The FVM team has asked Core Devs to remain flexible": a state, no work."""
    text = ("### Network v16\n\n* The release team has asked Core Devs to remain flexible and "
            "responsive to changing requirements.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for _, relation, _ in facts(text))


def test_a_nouns_purpose_before_a_past_verb_is_no_action_item() -> None:
    """Working-group minutes: "The PR to add it to node-addon-api landed" says what happened
    to the PR; "Tim to merge the PR that was approved" is still Tim's action."""
    from memory.extraction.minutes import find_commitment

    assert find_commitment("The PR to add the helper to the addon repo landed.") is None
    assert find_commitment("Rick, PR to move to the mono-repo landed, next meeting first.") is None
    found = find_commitment("Tim to merge the PR that was approved")
    assert found is not None and found.who == "Tim"
    text = ("### Support info in modules (nodejs/package-maintenance#413)\n\n"
            "* The PR to add the helper to the addon repo landed.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for _, relation, _ in facts(text))


def test_mostly_complete_is_still_in_progress() -> None:
    """A degree of a completion ("mostly complete", as "nearly complete") is no Done."""
    text = "### SIMD\n\n* The instructions are mostly complete, though more are coming.\n"
    assert ("Instructions", "HAS_STATUS", "In Progress") in facts(text)
    assert ("Instructions", "HAS_STATUS", "Done") not in facts(text)


def test_a_heading_that_concludes_an_item_is_no_item() -> None:
    """Plenary notes: "### Conclusion" and "### Speaker's Summary of Key Points" close an item;
    a commitment or decision under them is not about a "Conclusion"."""
    for heading in ("Conclusion", "Speaker's Summary of Key Points"):
        found = facts(f"### {heading}\n\n* MF will ask to revert the metadata proposal to stage 2."
                      "\n* The committee declined to change the specified behavior.\n")
        assert not any(heading in target or heading in source for source, _, target in found)


def test_a_number_or_a_particle_is_no_name() -> None:
    from memory.extraction.names_evidence import can_name

    assert not can_name("2023")
    assert not can_name("up")
    assert can_name("ES2023")


def test_a_documents_design_uses_no_product() -> None:
    """"The new proposal uses static methods on Map and Object": what it specifies."""
    text = "### Map grouping\n\n* The new proposal uses static methods on Map and Object.\n"
    assert not any(relation == "USES" for _, relation, _ in facts(text))


def test_a_suggestion_to_act_is_nobodys_action_item() -> None:
    """Release WG minutes: "Suggestion to add EOL release information to the website"."""
    text = ("### Add EOL dates (nodejs/Release#761)\n\n"
            "* Suggestion to add the end-of-life dates to the release page.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for _, relation, _ in facts(text))


def test_going_to_be_somewhere_is_no_work() -> None:
    """"Rafael is going to be at the summit": a state; "will be leading it" is work."""
    from memory.extraction.responsibility import commits_to_work

    assert not commits_to_work("is going to", " be at the summit but might have a conflict")
    assert commits_to_work("will", " be leading the session")
    assert commits_to_work("will", " write the release post")


def test_proposing_something_new_is_no_responsibility_for_the_item_above() -> None:
    """"Beth proposed a new bot that would comment …" under an issue's heading; "Sam opened an
    issue …" under that issue's heading is still who opened it."""
    new = ("### Confusion around semver-minor commits (nodejs/Release#820)\n\n"
           "* Dana proposed a new bot that would comment on the pull requests.\n")
    assert not any(relation == "RESPONSIBLE_FOR" for _, relation, _ in facts(new))
    opened = ("### Defining a word for all current releases (nodejs/Release#359)\n\n"
              "* Sam opened an issue mentioning that the documentation was fragmented.\n")
    assert any(relation == "RESPONSIBLE_FOR" and source == "Sam"
               for source, relation, _ in facts(opened))


def test_a_heading_for_questions_or_links_is_no_item() -> None:
    for heading in ("Q&A", "Links"):
        found = facts(f"### {heading}\n\n* Marco will open an issue about it.\n")
        assert not any(target == heading for _, _, target in found)
