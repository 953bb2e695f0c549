"""Which product of its tracker a customer's problem affects (``memory.extraction.
support_products``, read by ``memory.extraction.rules``): the product the customer was using when
the problem showed. Phrasings from the corpus's dev episodes (ids in the comments)."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.extraction import Extraction
from memory.extraction.rules import extract_with_rules
from memory.extraction.support_products import (
    names_product_inside,
    product_in_use,
    product_words,
)

REFERENCE_TIME = datetime(2026, 5, 8, 9, 30, tzinfo=UTC)
POSTMAN = product_words("postmanlabs/postman-app-support#10800")
WARP = product_words("warpdotdev/warp#5861")


def read(text: str, product: frozenset[str]) -> Extraction:
    return extract_with_rules(
        text, author="kim", reference_time=REFERENCE_TIME, author_type="Customer", product=product
    )


def signatures(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(f.source, f.relation, f.target) for f in extraction.facts}


def test_a_trackers_product_is_named_by_its_repository_not_its_platform_or_packaging() -> None:
    assert product_words("docker/for-mac#370") == {"docker"}
    assert product_words("postmanlabs/postman-app-support#10800") == {"postman", "postmanlabs"}
    assert product_words("signalapp/Signal-Desktop#3084") == {"signal", "signalapp"}
    assert product_words("#370") == frozenset()


def test_the_product_in_use_when_the_problem_showed_is_found_in_its_clause() -> None:
    # pm-10800-dajneem23-2022-03-29; warp-5861-haibaradc-2025-02-20; pm-12370-CZT0-2024-01-21
    assert product_in_use("i'm stuck in white screen when open postman", POSTMAN) == "postman"
    assert product_in_use("hight memory when warp was started", WARP) == "warp"
    assert (
        product_in_use(
            "I'm also experiencing the white screen issue on startup with Postman"
            " on my Mac M1 Pro, running macOS 14.2.1.",
            POSTMAN,
        )
        == "Postman"
    )


def test_neither_a_platform_a_feature_nor_another_clause_is_the_product_in_use() -> None:
    # bw-6832-DjKilla2-2023-11-08, ts-10397-has12zen-2023-11-28, dfw-9639-johan974-2020-11-28
    assert (
        product_in_use(
            "Auto fill issues with version 2023.10.1.", product_words("bitwarden/clients#6832")
        )
        is None
    )
    assert (
        product_in_use(
            "When I try to use the exit node the internet stops working.",
            product_words("tailscale/tailscale#10397"),
        )
        is None
    )
    assert (
        product_in_use(
            "It fails when using my windows 10 pro.", product_words("docker/for-win#9639")
        )
        is None
    )
    assert product_in_use("It froze. I restarted when postman started.", POSTMAN) is None


def test_a_problem_whose_own_words_hold_the_product_names_no_second_one() -> None:
    assert names_product_inside("Postman not loading when I open it (#13757)", POSTMAN)
    assert not names_product_inside("hight memory when warp was started (#5861)", WARP)


def test_the_body_saying_what_was_in_use_gives_the_titles_problem_its_product() -> None:
    # pm-10800-dajneem23-2022-03-29
    extraction = read(
        "# Stuck in white screen #10800\n### Describe the Issue\n"
        "i'm stuck in white screen when open postman",
        POSTMAN,
    )

    assert signatures(extraction) == {
        ("kim", "REPORTED", "Stuck in white screen (#10800)"),
        ("Stuck in white screen (#10800)", "AFFECTS", "Postman"),
    }


def test_a_title_saying_when_the_problem_shows_gives_its_product() -> None:
    # warp-5861-haibaradc-2025-02-20
    extraction = read("# hight memory when warp was started #5861\n", WARP)

    assert ("hight memory when warp was started (#5861)", "AFFECTS", "Warp") in signatures(
        extraction
    )


def test_a_reported_problem_with_the_product_gets_it() -> None:
    # pm-12370-CZT0-2024-01-21
    extraction = read(
        "I'm also experiencing the white screen issue on startup with Postman on "
        "my Mac M1 Pro, running macOS 14.2.1.",
        POSTMAN,
    )

    assert ("white screen", "AFFECTS", "Postman") in signatures(extraction)


def test_without_a_tracker_the_words_name_no_product_of_it() -> None:
    extraction = read(
        "# Stuck in white screen #10800\ni'm stuck in white screen when open postman", frozenset()
    )

    assert not [f for f in extraction.facts if f.relation == "AFFECTS"]
