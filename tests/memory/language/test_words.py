"""Words: parts of speech, lemmas and the language check (TextBlob's tagger, simplemma)."""

from __future__ import annotations

import pytest

from memory.language.words import is_common_word, language_of, lemma, lemmas, tag


@pytest.mark.parametrize(
    ("word", "expected"),
    [("says", "VBZ"), ("slipped", "VBD"), ("probably", "RB"), ("my", "PRP$"), ("the", "DT"),
     ("migration", "NN"), ("2", "CD"), ("11.0.1", "CD"), ("Farah", "NNP")],
)
def test_a_word_gets_its_part_of_speech_from_the_taggers_lexicon(word: str, expected: str) -> None:
    assert tag(word) == expected


def test_a_blank_word_has_no_tag() -> None:
    assert tag("   ") == ""


@pytest.mark.parametrize(
    ("word", "expected"),
    [("crashed", "crash"), ("timed", "time"), ("Locked", "lock"), ("accounts", "account"),
     ("#123", "#123")],
)
def test_a_word_has_its_lemma_in_lower_case(word: str, expected: str) -> None:
    assert lemma(word) == expected


def test_a_texts_lemmas_leave_punctuation_out() -> None:
    assert lemmas("Requests timed out, again!") == ["request", "time", "out", "again"]


def test_common_words_are_told_from_names() -> None:
    assert is_common_word("hope") and is_common_word("Move")
    assert not is_common_word("Brian") and not is_common_word("scottmcm")


@pytest.mark.parametrize(
    "text",
    ["The API migration is blocked. I'm waiting on the auth service refactor.",
     "Our amber falcon exports keep failing after the crimson maintenance window 5.",
     "KEP-4671 is owned by sig-scheduling"],
)
def test_english_reads_as_english(text: str) -> None:
    assert language_of(text) == "en"


@pytest.mark.parametrize(
    "text",
    ["Die App ist seit dem Update sehr langsam und ich kann mich nicht anmelden",
     "L'application est très lente depuis la mise à jour d'hier et je ne peux pas me connecter",
     "La aplicación no funciona desde la actualización de ayer, no puedo entrar",
     "Привет, у меня не работает вход в аккаунт уже третий день",
     "אני לא מצליח להתחבר לחשבון שלי מאז העדכון האחרון"],
)
def test_other_languages_and_scripts_read_as_other(text: str) -> None:
    assert language_of(text) == "other"


def test_telegraphic_notes_with_a_capital_on_every_item_read_as_english() -> None:
    """A standup's items each open with a capital ("Done:", "Working on npm-on-ipfs"): the
    dictionary is asked in lower case (ipfs-2018-06-25-js-core-dev-team-weekly-achingbrain)."""
    notes = (
        "### Week Update\n\n@achingbrain\n  - Done:\n    - Working on npm-on-ipfs\n"
        "    - Adding interop tests\n  - Next:\n    - Q3 OKRs\n    - Adding interop tests\n"
    )
    assert language_of(notes) == "en"


@pytest.mark.parametrize("text", ["", "LGTM", "+1", "r? @nikomatsakis", "🎉🎉🎉"])
def test_a_text_too_short_to_tell_has_no_language(text: str) -> None:
    assert language_of(text) is None
