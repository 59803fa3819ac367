"""People on an invented mini-corpus (tests/fixtures/people): named humans in varied phrasings
("Sam said…", "cc Dana", "per Alex's review", "ask X", "X wants", "@handle", "my boss Henrik",
"Tomasz from the billing team") become person nodes with role/team; product names,
sentence-initial words and code identifiers do not. Scored for recall and precision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rolling_graph.core.session import HotSession
from tests.probe.helpers import kinds, say

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "people" / "prompts.jsonl"


def _cases() -> list[dict[str, Any]]:
    return [json.loads(x) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x.strip()]


def _people(prompt: str) -> dict[str, Any]:
    sess = HotSession.in_memory("s")
    say(sess, prompt)
    return kinds(sess, "person")


def score_corpus() -> tuple[float, float, list[str]]:
    expected = found = predicted = correct = 0
    problems: list[str] = []
    for case in _cases():
        got = _people(case["prompt"])
        names = {n.label.lower(): n for n in got.values()}
        for n in got.values():
            for a in n.aliases or []:
                names.setdefault(a.lower(), n)
        want = {p["name"].lower(): p for p in case["people"]}
        expected += len(want)
        predicted += len(got)
        for name, p in want.items():
            node = names.get(name)
            attrs = (node.attrs or {}) if node else {}
            ok = node is not None and all(
                attrs.get(k, "").lower() == p[k] for k in ("role", "team") if k in p
            )
            found += ok
            if not ok:
                problems.append(f"missed {p} in {case['prompt']!r} (got {attrs})")
        good = {n.id for name, n in names.items() if name in want}
        correct += len(good)
        problems += [
            f"extra {n.label!r} in {case['prompt']!r}" for n in got.values() if n.id not in good
        ]
    return found / expected, correct / predicted, problems


def test_corpus_is_varied() -> None:
    cases = _cases()
    assert len(cases) >= 30
    assert sum(1 for c in cases if c["people"]) >= 20
    assert sum(1 for c in cases if not c["people"]) >= 10


def test_people_recall_and_precision_on_the_corpus() -> None:
    recall, precision, problems = score_corpus()
    assert recall >= 0.9, problems
    assert precision >= 0.85, problems


def test_full_name_and_first_name_are_one_person() -> None:
    sess = HotSession.in_memory("s")
    say(sess, "Our client Beatriz Souza asked for a PDF version of the quote.")
    say(sess, "Beatriz wants the logo on every page too.")
    people = kinds(sess, "person")
    assert list(people) == ["Beatriz Souza"]
    assert "Beatriz" in people["Beatriz Souza"].aliases
    assert people["Beatriz Souza"].attrs["role"] == "client"


def test_a_mention_of_a_whole_channel_names_nobody() -> None:
    from rolling_graph.probe.offline.people import people

    found = [p.name for p in people("post the verdict with @everyone, and ask @sara-k to review")]
    assert found == ["@sara-k"], found
    assert people("ping @here when the deploy is done") == []
