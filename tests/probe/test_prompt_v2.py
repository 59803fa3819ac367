"""The v2 probe prompt: the extraction kinds and rules, a bounded graph view, shipped once
as package data, chosen by config, and its id and hash in the audit log."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.config import Settings
from rolling_graph.core.tokens import estimate_tokens
from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest
from rolling_graph.probe.prompt import (
    DEFAULT_PROMPT,
    PromptError,
    load_prompt,
    prompt_ids,
    render_probe_prompt,
)


def request(n_nodes: int, prompt_id: str = "") -> ProbeRequest:
    nodes = [
        NodeView(f"node-{i}", f"Node {i}", "technical", weight=(i % 97) / 97, focus=i < 5)
        for i in range(n_nodes)
    ]
    edges = [(f"node-{i}", "relates-to", f"node-{i + 1}") for i in range(n_nodes - 1)]
    turns = [TurnDigest(1, "Priya Raman needs the export by Friday; go with option 2")]
    return ProbeRequest("s", 1, turns, nodes, edges, prompt_id=prompt_id)


def test_v3_is_the_default_and_carries_the_extraction_rules() -> None:
    assert DEFAULT_PROMPT == "probe.v3" and Settings().prompt == "probe.v3"
    prompt, text = render_probe_prompt(request(3))
    assert prompt.id == "probe.v3" and "$" not in text.replace("$$", "")
    for rule in (
        "option 2",  # choices resolved against the assistant's offer
        "supersedes",
        "**task**",
        "**person**",
        "Never make nodes of days",
        "personal",
        "Leave out generic words and shell verbs",
    ):
        assert rule in text, rule


def test_prompt_id_from_the_request_selects_the_file() -> None:
    prompt, _ = render_probe_prompt(request(3, "probe.v1"))
    assert prompt.id == "probe.v1" and prompt.hash == load_prompt("probe.v1").hash


def test_graph_view_is_bounded() -> None:
    small = estimate_tokens(render_probe_prompt(request(100))[1])
    big = estimate_tokens(render_probe_prompt(request(5000))[1])
    assert big <= small * 1.1  # 50× the nodes, about the same input
    assert "more nodes: files, tools, lighter ones" in render_probe_prompt(request(5000))[1]


def test_prompts_ship_once_as_package_data() -> None:
    """One copy, in prompts/ at the repository root (where the design puts it), which the
    package's rolling_graph/prompts links to: read through importlib.resources, so the wheel
    ships the same files and an edit cannot leave a second copy behind."""
    from importlib import resources

    root = Path(__file__).resolve().parents[2]
    link = root / "rolling_graph" / "prompts"
    assert link.is_symlink() and link.resolve() == (root / "prompts").resolve()
    assert {"probe.v1", "probe.v2"} <= set(prompt_ids())
    shipped = resources.files("rolling_graph").joinpath("prompts", "probe.v2.md")
    assert load_prompt("probe.v2").text == shipped.read_text(encoding="utf-8")
    assert load_prompt("probe.v2").text == (root / "prompts" / "probe.v2.md").read_text()
    assert '"prompts/*.md"' in (root / "pyproject.toml").read_text()  # in the wheel too


def test_unknown_prompt_names_the_known_ones() -> None:
    with pytest.raises(PromptError, match=r"no prompt 'probe\.v9'.*probe\.v1, probe\.v2"):
        load_prompt("probe.v9")


def test_prompt_id_and_hash_reach_the_audit_log(tmp_path: Path) -> None:
    """Through the runner and a real paid call (openai SDK, local stand-in)."""
    pytest.importorskip("openai")
    from rolling_graph.core.hook_event import HookEvent
    from rolling_graph.core.hotstore import HotStore
    from rolling_graph.pipeline.engine import Engine
    from tests.probe.standins import OpenAIStandIn

    with OpenAIStandIn("ok") as srv:
        settings = Settings(home=tmp_path, probe="openai", openai_base_url=f"{srv.url}/v1")
        eng = Engine(settings, store=HotStore(settings.home), replay=True)
        eng.handle(
            HookEvent("prompt_submit", "s", prompt="Let's use Postgres for the Orders service")
        )
        eng.close()
    assert srv.calls == 1
    recs = list(eng.store.audit("s").records())
    probe = [r for r in recs if r.get("type") == "probe"][-1]
    patch = [r for r in recs if r.get("type") == "patch"][-1]
    p = load_prompt()
    assert probe["prompt_id"] == "probe.v3" and probe["prompt_hash"] == p.hash
    assert patch["source"]["prompt_id"] == "probe.v3" and patch["source"]["prompt_hash"] == p.hash
