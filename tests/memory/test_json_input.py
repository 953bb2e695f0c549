"""Untrusted JSON: one hostile value spoils only itself; everything else decodes as json.loads
would, and the problem is found with its path and reason."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.json_input import DECODE_DEPTH, MAX_DEPTH, Unreadable, decode, first_problem

DEEP = "[" * 100_000 + "]" * 100_000
TOO_DEEP_FOR_JSON_LOADS = "[" * 5_000 + "]" * 5_000

documents = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@given(documents)
def test_ordinary_json_decodes_as_json_loads_does(value: Any) -> None:
    text = json.dumps(value)

    assert decode(text) == json.loads(text)


@settings(max_examples=40)
@given(documents)
def test_beside_a_value_too_deep_for_json_loads_the_rest_decodes_the_same(value: Any) -> None:
    text = (f'{{"good": {json.dumps(value)}, "deep": {TOO_DEEP_FOR_JSON_LOADS}, '
            f'"after": [1, "two"]}}')

    decoded = decode(text)

    assert decoded["good"] == json.loads(json.dumps(value))
    assert decoded["after"] == [1, "two"]
    assert first_problem(decoded["deep"], "deep", max_depth=DECODE_DEPTH + 1) == (
        "deep", f"is nested more than {DECODE_DEPTH} levels deep")


def test_numbers_json_loads_cannot_or_the_database_will_not_take_become_unreadable() -> None:
    decoded = decode('{"big": ' + "9" * 5000 + ', "huge": 1e999, "nan": NaN, "ok": 1.5}')

    assert decoded["ok"] == 1.5
    assert first_problem(decoded["big"], "big") == (
        "big", "is a number of 5,000 digits; the limit is 4,300")
    assert first_problem(decoded["huge"], "huge") == ("huge", "is a number out of range (1e999)")
    assert first_problem(decoded["nan"], "nan") == ("nan", "NaN is not a number JSON allows")


def test_the_first_unstorable_text_is_named_by_its_path() -> None:
    record = decode('{"content": "fine", "facts": [{"source": "a"}, {"target": "b\\u0000c"}]}')

    assert first_problem(record) == (
        "facts[1].target", "contains a NUL character (U+0000), which cannot be stored")
    assert first_problem({"author": "x\ud800"}) == (
        "author", "contains an unpaired surrogate (U+D800), which is not valid Unicode")
    assert first_problem({"data": {"k\x00": 1}}) == (
        "data", "has a key that contains a NUL character (U+0000), which cannot be stored")


def test_a_real_astral_character_is_not_a_surrogate() -> None:
    assert decode('"\\ud83d\\ude00"') == "😀"
    assert first_problem("😀") is None


def test_nesting_is_limited_inside_the_value_checked() -> None:
    nested: Any = "leaf"
    for _ in range(MAX_DEPTH):
        nested = [nested]

    assert first_problem(nested) is None
    assert first_problem([nested], "data") == (
        "data", f"is nested more than {MAX_DEPTH} levels deep")
    assert first_problem({"metadata": [nested], "ok": 1}) == (
        "metadata", f"is nested more than {MAX_DEPTH} levels deep")


def test_a_record_nested_100k_levels_deep_decodes_to_a_marker_and_its_neighbours() -> None:
    decoded = decode(f'[{{"content": "good"}}, {{"content": "x", "data": {DEEP}}}]')

    assert decoded[0] == {"content": "good"}
    assert first_problem(decoded[1]["data"], "data")[1] == (
        f"is nested more than {MAX_DEPTH} levels deep")


def test_malformed_json_is_still_an_error_even_past_the_depth_json_loads_handles() -> None:
    for text in ("{", DEEP + ",", '{"a" 1}', "[1 2]", DEEP[:-1], "[" * 3000 + "x"):
        try:
            decode(text)
        except ValueError:
            continue
        raise AssertionError(f"decoded malformed JSON {text[:20]!r}")


def test_an_unreadable_value_says_why() -> None:
    assert isinstance(decode("NaN"), Unreadable)
