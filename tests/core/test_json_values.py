"""core.json_values: the value a JSON round trip gives back, computed without the text, is the
round trip's; the copy shares no container with the original."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.core.json_values import json_copy, round_tripped

_SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
)
_KEYS = st.text(max_size=4) | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_round_tripped_is_what_json_gives_back(value: Any) -> None:
    assert round_tripped(value) == json.loads(json.dumps(value, ensure_ascii=False))


def test_what_json_cannot_hold_is_refused_as_json_refuses_it() -> None:
    for bad in ({"a": {1, 2}}, [object()], {(1, 2): "tuple key"}):
        with pytest.raises(TypeError):
            json.dumps(bad)
        with pytest.raises(TypeError):
            round_tripped(bad)


def test_special_numbers_and_subclasses_come_back_plain() -> None:
    from enum import IntEnum

    class Level(IntEnum):
        HIGH = 2

    class Name(str):
        pass

    value = round_tripped({"n": Level.HIGH, "s": Name("x"), "inf": math.inf, 1.5: True})
    assert value == json.loads(json.dumps({"n": Level.HIGH, "s": "x", "inf": math.inf, 1.5: True}))
    assert type(value["n"]) is int and type(value["s"]) is str


def test_copy_shares_no_container() -> None:
    original = {"turns": [{"tools": ["a"], "user": "text"}], "pair": (1, [2])}
    copy = json_copy(original)
    copy["turns"][0]["tools"].append("b")
    copy["pair"][1].append(3)
    assert original == {"turns": [{"tools": ["a"], "user": "text"}], "pair": (1, [2])}
