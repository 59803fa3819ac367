"""The names of the last turns (``rolling_graph.render.in_play``) and the block's "last in play" line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.nlp import runs
from rolling_graph.probe.buffer import buffer_prompt, buffer_tool, consume_buffer, load_buffer
from rolling_graph.render import in_play as in_play_module
from rolling_graph.render.in_play import in_play, input_names, merge_names, names_in, names_in_play
from rolling_graph.render.lod import render
from tests.helpers import graph_of, node


def _names(text: str) -> list[str]:
    return [n for _, n in sorted(names_in(text))]


def test_names_are_paths_identifiers_and_mid_sentence_capitals() -> None:
    text = (
        "Moved the retry loop into src/net/backoff.py and renamed fetch_with_retry to fetchOnce.\n"
        "Then the Grafana panel reads `queue_depth` from Prometheus, see https://x.example/a/b."
    )
    names = _names(text)
    for want in ("net/backoff.py", "fetch_with_retry", "fetchOnce", "queue_depth", "Grafana"):
        assert want in names, (want, names)
    assert "Prometheus" in names
    # sentence-initial capitals are ordinary words; URLs are not paths
    assert "Moved" not in names and "Then" not in names
    assert not any("example" in n for n in names)


def test_dates_are_not_names() -> None:
    names = _names("The Grafana board is due by Friday, March 14, and the Ops review in May.")
    assert "Grafana" in names and "Ops" in names
    assert not {"Friday", "March", "May"} & set(names)


def test_latin_abbreviations_are_not_names() -> None:
    text = (
        "Pick a glaze like Celadon, e.g. `shino_base`, i.e. one the Studio stocks (cf. the list)."
    )
    names = [n for _, n in names_in(text)]
    assert "shino_base" in names and "Celadon" in names and "Studio" in names
    assert not {"e.g", "e.g.", "i.e", "i.e.", "cf"} & {n.lower() for n in names}, names


def test_hashes_ids_and_redactions_are_not_names() -> None:
    names = _names(
        "Checked out 8e1f899571345d06 for [REDACTED_TOKEN] and ran the Suite on a1b2c3d4e5."
    )
    assert names == ["Suite"]


def test_newest_turn_first_and_its_reply_before_its_request() -> None:
    turns = [
        {"user": "please look at the Kafka consumer", "assistant": "The consumer uses poll_batch."},
        {
            "user": "now switch to the Redis cache",
            "names": ["cache/redis_client.py", "REDIS_URL"],
            "assistant": "Done: the Redis client reads REDIS_URL and sets ttl_seconds.",
        },
    ]
    names = in_play(turns)
    assert names.index("ttl_seconds") < names.index("cache/redis_client.py") < names.index("Kafka")
    assert names.index("poll_batch") < names.index("Kafka")
    assert names.count("REDIS_URL") == 1 and names.count("Redis") == 1


def test_merge_counts_a_path_and_its_file_name_once() -> None:
    merged = merge_names(["src/app.py", "Billing"], ["app.py", "billing", "Ledger"], 10)
    assert merged == ["src/app.py", "Billing", "Ledger"]
    assert merge_names(["a_b", "c_d", "e_f"], [], 2) == ["a_b", "c_d"]


def test_input_names_read_the_text_fields_of_a_tool_call() -> None:
    names = input_names(
        {"file_path": "/home/u/proj/api/routes.py", "new_string": "def list_orders(req):\n", "n": 3}
    )
    assert names[:2] == ["api/routes.py", "list_orders"]


def test_probed_turns_keep_their_names_for_the_block(tmp_path: Path) -> None:
    store = HotStore(tmp_path)
    buffer_prompt(store, "s", 1, "wire the Stripe webhook into billing/hooks.py")
    buffer_tool(store, "s", 1, "Edit billing/hooks.py", ["billing/hooks.py", "verify_signature"])
    buf = store.read_state("s", "probe_buffer")
    consume_buffer(store, "s", buf["seq"])
    assert store.read_state("s", "probe_buffer")["turns"] == []
    buffer_prompt(store, "s", 2, "and log the Sentry event id")
    names = names_in_play(load_buffer(store, "s"))
    assert names.index("Sentry") < names.index("verify_signature") < names.index("Stripe")


def test_the_full_block_lists_what_it_does_not_show_yet_within_budget() -> None:
    g = graph_of(
        [node("auth", label="auth/session.py", turn=5), node("jwt", label="JWT", turn=4)], turn=5
    )
    names = [
        "auth/session.py",
        "refresh_token",
        "RotatingKey",
        "JWT",
        *[f"name_{i}" for i in range(300)],
    ]
    full = render(g, budget=400, in_play=names)
    line = next(x for x in full.text.splitlines() if x.startswith("Last in play"))
    assert "refresh_token, RotatingKey" in line
    assert "auth/session.py" not in line and "JWT" not in line  # already in the block
    assert full.tokens <= 400 and estimate_tokens(full.text) <= 400
    compact = render(g, budget=400, in_play=names, breadth=False)
    assert "Last in play" not in compact.text


def test_a_name_whose_parts_are_shown_is_not_listed_again() -> None:
    g = graph_of([node("q", label="Ledger", turn=2)], turn=2)
    names = [
        "max_rows",
        "Enum",
        "Enum.take(@max_rows)",
        "line.max_rows",
        "Ledger.post",
        "orders.py",
    ]
    line = next(
        x for x in render(g, budget=400, in_play=names).text.splitlines() if "Last in play" in x
    )
    assert "max_rows, Enum" in line
    assert "Enum.take" not in line and "line.max_rows" not in line and "Ledger.post" not in line
    assert "orders.py" in line  # plain lower-case parts are no names: the path is new


def test_the_full_block_lists_edited_files_it_does_not_show() -> None:
    # older files were edited more; the focus shows the newest
    files = [
        node(
            f"f{i}", label=f"src/pkg/mod_{i}.py", kind="file", turn=i, attrs={"edits": str(20 - i)}
        )
        for i in range(1, 13)
    ]
    g = graph_of([*files, node("r", label="docs/read_only.md", kind="file", turn=13)], turn=13)
    full = render(g, budget=800).text
    line = next(x for x in full.splitlines() if x.startswith("Also edited this session"))
    rest = full.replace(line, "")
    listed = [i for i in range(1, 13) if f"mod_{i}.py" in line]
    assert listed and listed == sorted(listed)  # most edits first
    assert not any(f"mod_{i}.py" in rest for i in listed)  # not said twice
    assert "read_only.md" not in line and "pkg/mod_1.py" in line  # edited only; short paths
    assert "Also edited" not in render(g, budget=800, breadth=False).text


PATTERN_TEXTS = [
    "Edit src/app/main.py and ~/notes/todo.md; see ../x/y, ./run.sh and the e.g. case.",
    "The Deploy step of HotStore runs FooBar, not The or A; ARM64 and x.Y and Title Case Words.",
    "path/ends/here",
    "",
]


@pytest.mark.parametrize("text", PATTERN_TEXTS)
def test_paths_are_searched_only_in_runs_that_hold_a_mark(text: str) -> None:
    whole = [m.span() for m in in_play_module._PATH.finditer(text)]
    assert [
        m.span() for m in runs.finditer(in_play_module._PATH, text, runs.spans(text, r"[./]"))
    ] == whole


@pytest.mark.parametrize("text", PATTERN_TEXTS)
def test_capitals_checked_after_the_capital_match_the_boundary_first_form(text: str) -> None:
    reference = re.compile(r"\b[A-Z][A-Za-z0-9]{2,}\b")
    assert [m.span() for m in in_play_module._CAP.finditer(text)] == [
        m.span() for m in reference.finditer(text)
    ]


def test_identifiers_are_found_as_the_backtracking_pattern_found_them() -> None:
    # the possessive pattern is a speed-up only: same matches on any text
    import random
    import re

    from rolling_graph.render import in_play

    before = re.compile(
        r"\b[A-Za-z_][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b"
        r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\(?"
    )
    rng = random.Random(3)
    for _ in range(5000):
        text = "".join(rng.choice("aBc_Z9 .-(x)é") for _ in range(rng.randint(0, 30)))
        got = [m.span() for m in in_play._IDENT.finditer(text)]
        assert got == [m.span() for m in before.finditer(text)], repr(text)
