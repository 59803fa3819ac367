"""The plugin contract: every hook is documented, built-ins are default plugins, and third-party
plugins can hook every event and use every extension point."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import click
from click.testing import CliRunner

from rolling_graph.config import load_settings
from rolling_graph.core.hook_event import HookEvent
from rolling_graph.pipeline import hookspecs
from rolling_graph.pipeline.engine import Engine
from rolling_graph.pipeline.hookspecs import EventContext, hookimpl
from rolling_graph.pipeline.plugins import DEFAULT_PLUGINS, get_plugin_manager

README = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
SPECS = sorted(
    n
    for n, f in inspect.getmembers(hookspecs, inspect.isfunction)
    if hasattr(f, "rolling_graph_spec")
)


def test_every_hookspec_has_a_docstring_and_is_in_the_readme() -> None:
    assert set(SPECS) >= {
        "session_start",
        "prompt_submit",
        "tool_use",
        "pre_compact",
        "session_end",
        "register_gate_rules",
        "register_probe_backends",
        "register_commands",
    }
    text = README.read_text()
    for name in SPECS:
        assert (getattr(hookspecs, name).__doc__ or "").strip(), name
        assert f"`{name}`" in text, f"{name} is not documented in docs/plugins.md"


def test_built_ins_are_registered_as_default_plugins() -> None:
    pm = get_plugin_manager(load_entry_points=False)
    names = {pm.get_name(p) for p in pm.get_plugins()}
    assert set(DEFAULT_PLUGINS) <= names
    impls = {
        impl.plugin_name
        for name in ("prompt_submit", "session_start", "pre_compact")
        for impl in getattr(pm.hook, name).get_hookimpls()
    }
    assert {
        "rolling_graph.pipeline.default_plugins.gate_plugin",
        "rolling_graph.pipeline.default_plugins.render_plugin",
        "rolling_graph.pipeline.default_plugins.warm_plugin",
    } <= impls


class BananaRule:
    name = "banana"

    def check(self, text: str, doc: Any, state: Any, graph: Any) -> list[str] | None:
        return ["banana"] if "banana" in text.lower() else None


class ThirdParty:
    def __init__(self) -> None:
        self.seen: list[str] = []

    @hookimpl
    def register_gate_rules(self, register: Any) -> None:
        register(BananaRule())

    @hookimpl
    def session_start(self, ctx: EventContext, source: str) -> None:
        self.seen.append(f"session_start:{source}")

    @hookimpl
    def prompt_submit(self, ctx: EventContext, prompt: str) -> None:
        self.seen.append(f"prompt_submit:{[t.name for t in ctx.triggers]}")

    @hookimpl
    def tool_use(
        self, ctx: EventContext, tool_name: str, phase: str
    ) -> None:  # fewer args than the spec
        self.seen.append(f"tool_use:{tool_name}:{phase}")

    @hookimpl
    def pre_compact(self, ctx: EventContext, trigger: str) -> None:
        self.seen.append(f"pre_compact:{trigger}")

    @hookimpl
    def session_end(self, ctx: EventContext, reason: str) -> None:
        self.seen.append(f"session_end:{reason}")


def test_third_party_plugin_sees_every_event_and_adds_a_gate_rule(tmp_path: Path) -> None:
    plugin = ThirdParty()
    pm = get_plugin_manager(load_entry_points=False, extra=[plugin])
    engine = Engine(load_settings(home=tmp_path, probe="offline"), pm=pm, replay=True)
    try:
        engine.handle(HookEvent("session_start", "p1", source="startup"))
        out = engine.handle(HookEvent("prompt_submit", "p1", prompt="a banana for scale"))
        engine.handle(
            HookEvent(
                "tool_use", "p1", tool_name="Bash", tool_input={"command": "ls"}, phase="post"
            )
        )
        engine.handle(HookEvent("pre_compact", "p1", trigger="manual"))
        engine.handle(HookEvent("session_end", "p1", reason="other"))
    finally:
        engine.close()
    assert "banana" in [t["name"] for t in out.triggers]
    assert plugin.seen[0] == "session_start:startup"
    assert "banana" in plugin.seen[1]  # the gate (tryfirst) ran before the plugin
    assert plugin.seen[2:] == ["tool_use:Bash:post", "pre_compact:manual", "session_end:other"]


def test_register_commands_adds_a_cli_command() -> None:
    group = click.Group("rg")

    class Commands:
        @hookimpl
        def register_commands(self, cli: click.Group) -> None:
            @cli.command()
            def hello() -> None:
                click.echo("hello from a plugin")

    pm = get_plugin_manager(load_entry_points=False, extra=[Commands()])
    pm.hook.register_commands(cli=group)
    res = CliRunner().invoke(group, ["hello"])
    assert res.exit_code == 0 and "hello from a plugin" in res.output
