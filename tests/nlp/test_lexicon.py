"""The lexicon (``rolling_graph/nlp/lexicon.toml``): every class resolves, no class lists a word
twice, and no word list of the language rules is written twice in code: a list the gate's cues
or the offline probe's rules need in two places, or one the lexicon already holds, is read
from the lexicon."""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path

from rolling_graph.nlp import lexicon

ROOT = Path(__file__).resolve().parents[2] / "rolling_graph"
# The packages whose regexes read the person's and the agent's language.
LANGUAGE = ("nlp", "gate", "probe", "render")
# A regex group of plain words: "(?:can|could|would|will)"; a list means four or more.
_GROUP = re.compile(r"\(\?:((?:[a-z][a-z']+\|){3,}[a-z][a-z']+)\)")


def test_every_word_class_resolves_its_references() -> None:
    # "@other" stands for another class's words: every class resolves, without a cycle
    for name in lexicon.classes():
        resolved = lexicon.words(name)
        assert resolved and not any(w.startswith("@") for w in resolved), name
    assert set(lexicon.words("question_word")) <= set(lexicon.words("question_open"))


def test_no_word_class_lists_a_word_twice() -> None:
    for name, ws in lexicon.data()["words"].items():
        assert len(ws) == len(set(ws)), f"{name} repeats a word"


def word_lists(source: str) -> list[tuple[int, frozenset[str]]]:
    """(line, words) of each group of plain words in the string literals of ``source``."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING:
            out += [
                (tok.start[0], frozenset(m.group(1).split("|")))
                for m in _GROUP.finditer(tok.string)
            ]
    return out


def _sites() -> dict[frozenset[str], list[str]]:
    sites: dict[frozenset[str], list[str]] = defaultdict(list)
    for package in LANGUAGE:
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, ws in word_lists(path.read_text(encoding="utf-8")):
                sites[ws].append(f"{path.relative_to(ROOT)}:{line}")
    return sites


def test_no_word_list_is_written_twice() -> None:
    classes = {frozenset(lexicon.words(name)): name for name in lexicon.classes()}
    twice = {tuple(sorted(ws)): where for ws, where in _sites().items() if len(where) > 1}
    copies = {classes[ws]: where for ws, where in _sites().items() if ws in classes}
    assert not twice, f"written in two places (make it a class of lexicon.toml): {twice}"
    assert not copies, f"a class of lexicon.toml written out again: {copies}"


def test_the_scan_finds_a_word_list() -> None:
    # the check above can fail: it reads a list where one is written
    src = 'X = re.compile(r"^(?:can|could|would|will) you")\nY = "(?:a|b)"\n'
    assert word_lists(src) == [(1, frozenset({"can", "could", "would", "will"}))]
