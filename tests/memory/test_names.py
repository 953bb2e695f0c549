"""Names as shown: a phrase read from prose is capitalized, an author's name is kept as written."""

from __future__ import annotations

from memory.names import author_name, display_name, normalize_name


def test_an_author_is_shown_as_written_a_login_keeping_its_case() -> None:
    # the GitHub logins of the audit's finding 8 (warp-1780-dannyneira-2022-08-30, docker/for-win)
    assert author_name("dannyneira") == "dannyneira"
    assert author_name(" stephen-turner ") == "stephen-turner"
    assert author_name("kensaiD2591") == "kensaiD2591"
    assert author_name("Dana  Whitlock") == "Dana Whitlock"


def test_matching_an_author_does_not_care_how_it_was_written() -> None:
    assert normalize_name(author_name("dannyneira")) == normalize_name("Dannyneira")


def test_a_phrase_from_prose_is_capitalized_and_a_handle_in_it_kept() -> None:
    assert display_name("the api migration") == "Api Migration"
    assert display_name("head of sales") == "Head of Sales"
    assert display_name("@dannyneira") == "@dannyneira"
