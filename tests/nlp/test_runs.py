"""Patterns searched only inside the runs of non-space characters that hold a mark they need
(rolling_graph.nlp.runs) find exactly what a search of the whole text finds: the code
patterns of the rule layer (paths, file names, dotted names, versions, and the bare file names
that hold no mark), on invented prose and code and on generated strings of the characters that
matter; and a run holding no mark is never searched."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rolling_graph.nlp import entities, runs

TEXTS = [
    "Edit src/rolling_graph/nlp/entities.py and ~/notes/todo.md, then ../x/y and ./run.sh.",
    "Bump os.path.join to v1.2.3-rc1 (and 2.0); e.g. the x.org site, i.e. not 3.14.15.9.2.",
    "The Makefile, a README.md and CLAUDE.md; LICENSE, Dockerfile.dev and a makefile.",
    "Ends with a path/to/file.py",
    "A kelvin sign \u212a and a long s \u017f next to MAKEFILE.txt and dir/\u0130/file.ts",
    "no marks at all here",
    "",
    "x.y.z() call, obj.method(), .hidden/file, @scope/pkg/dir, a/b/c/ and foo.py.bak",
]


def _spans(matches: object) -> list[tuple[int, int]]:
    return [m.span() for m in matches]  # type: ignore[attr-defined]


def _restricted(label: str, text: str) -> list[tuple[int, int]]:
    pattern = dict(entities._PATTERNS)[label]
    return _spans(entities._finditer(label, pattern, text, runs.spans(text, runs.DOTTED)))


@pytest.mark.parametrize("label", [label for label, _ in entities._PATTERNS])
@pytest.mark.parametrize("text", TEXTS)
def test_the_same_matches_as_the_whole_text_search(label: str, text: str) -> None:
    whole = _spans(dict(entities._PATTERNS)[label].finditer(text))
    assert _restricted(label, text) == whole


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "foo",
                "Bar",
                ".py",
                "/",
                "v1",
                ".2",
                "Makefile",
                "readme",
                ".md",
                " ",
                "\n",
                "@",
                "~",
                "..",
                "()",
                "-",
                "_x",
                "\u017f",
                "\u212a",
                "1.0",
                "src",
                "os.path",
                "e.g.",
            ]
        ),
        max_size=16,
    ).map("".join)
)
def test_the_same_matches_on_generated_text(text: str) -> None:
    for label in entities._IN_DOTTED_RUNS:
        whole = _spans(dict(entities._PATTERNS)[label].finditer(text))
        assert _restricted(label, text) == whole, label


def test_only_runs_holding_a_mark_are_searched() -> None:
    text = "plain words, a path/to/x and a file.py here"
    assert runs.spans(text, r"[./]") == [(15, 24), (31, 38)]
    probe = re.compile(r"\w+")  # would match every word of the text
    assert [m.group() for m in runs.finditer(probe, text, runs.spans(text, r"[./]"))] == [
        "path",
        "to",
        "x",
        "file",
        "py",
    ]


def test_a_bare_file_name_is_found_where_the_text_names_one() -> None:
    # No "." or "/" in the name: the file pattern reads the whole text (any case, and where
    # a character beyond ASCII matches a letter of one under re.I).
    for text in ("see the Makefile", "SEE THE MAKEFILE", "a ma\u212aefile"):
        assert entities._may_name_bare_file(text)
        assert _restricted("FILE", text) == _spans(dict(entities._PATTERNS)["FILE"].finditer(text))
    assert not entities._may_name_bare_file("no file named here")


def test_a_class_of_marks_finds_the_runs_the_lazy_pattern_finds() -> None:
    # "[./]" is read without going back; any other regex keeps the lazy form it replaces
    import random
    import re

    lazy = re.compile(r"(?<!\S)\S*?(?:[./])\S*")
    rng = random.Random(5)
    for _ in range(5000):
        text = "".join(rng.choice("ab./ \n\tc/") for _ in range(rng.randint(0, 30)))
        assert runs.spans(text, r"[./]") == [m.span() for m in lazy.finditer(text)], repr(text)
    assert runs.spans("see v2 or x.y", r"\d") == [(4, 6)]
