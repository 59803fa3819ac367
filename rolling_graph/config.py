"""All configuration in one place: ``ROLLING_GRAPH_*`` environment variables over a TOML file.

Read at the edges (CLI, worker, replay) and passed down; core modules take plain arguments.
The hook client does not import this module (pydantic is too slow to import on the hot path);
it reads the two or three variables it needs directly.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from rolling_graph import paths

DEFAULT_RELATIONSHIPS: tuple[str, ...] = (
    "blocks",
    "informs",
    "contradicts",
    "extends",
    "supersedes",
    "uses",
    "depends-on",
    "part-of",
    "relates-to",
)
#: user turns in which nothing touches the task in progress before it is only open: an
#: autonomous run does not advance the count, a person moving on to other things does
TASK_IDLE_TURNS = 6


class Settings(BaseSettings):
    """Every knob rolling-graph has. Environment: ``ROLLING_GRAPH_<NAME>``; file: ``config.toml``."""

    model_config = SettingsConfigDict(env_prefix="ROLLING_GRAPH_", extra="ignore")

    home: Path = Field(default_factory=paths.data_home)

    # Rendering
    budget: int = Field(800, ge=100, le=2500, description="token budget of the injected block")

    # Graph limits
    extra_relationships: Annotated[list[str], NoDecode] = Field(default_factory=list)
    max_nodes: int = 20_000
    max_edges: int = 100_000
    max_patch_ops: int = 64

    # Decay (DESIGN §4)
    decay_rate: float = Field(0.5, ge=0, le=1)
    tau_turns: float = Field(8.0, gt=0)
    d_max: int = Field(4, ge=1)
    focus_size: int = Field(5, ge=3, le=5)

    # Gate (DESIGN §3)
    dead_man_turns: int = 8
    dead_man_steps: int = 25
    probe_gap_turns: int = Field(
        5, ge=1, description="turns a non-urgent trigger may wait, coalesced"
    )
    task_idle_turns: int = Field(
        TASK_IDLE_TURNS,
        ge=1,
        description="user turns untouched before a task is open, not in progress",
    )
    spacy_model: str = ""  # a trained pipeline name to add statistical NER; blank = rules only
    # Observers (DESIGN §3a): tool events enter the graph at once, deterministically.
    observers: bool = True
    acted_requests: bool = True  # a prompt no rule placed is a task once the agent works on it
    # Memory written by the models already in the loop (issue 28): the harness's compaction
    # summary harvested into the graph, and the agent's own ``memory_note`` calls.
    summary_harvest: bool = True
    agent_notes: bool = True
    agent_notes_per_turn: int = Field(6, ge=1, le=50, description="memory_note calls per turn")

    # Probe (DESIGN §7)
    # auto | anthropic | claude-cli | offline, or a backend a plugin registers
    # (``register_probe_backends``); an unknown name is reported when the probe is built.
    probe: str = Field("auto", pattern=r"^[a-z][a-z0-9_-]{0,40}$")
    model: str = "claude-haiku-4-5"
    probe_timeout: float = 30.0
    probe_retries: int = 2
    claude_bin: str = "claude"
    prompt: str = Field("probe.v3", pattern=r"^[a-z0-9][a-z0-9._-]{0,40}$")
    # Anthropic prompt caching of the static prefix (tools, instructions, examples): a paid
    # probe comes every few minutes, so the 1-hour cache (written at 2x) outlives the gaps that
    # the 5-minute one (1.25x) would not; "off" sends no cache_control.
    probe_cache_ttl: Literal["1h", "5m", "off"] = "1h"

    # Paid probes (anthropic, claude-cli, openai, plugins): when they run and what they cost.
    # ``judgement``: only for what needs it (corrections at once; decisions, new names and topic
    # shifts coalesced; tool activity never); the offline probe covers the other due probes.
    # ``always``: every due probe is paid (the pre-issue-19 behaviour).
    paid_probes: Literal["judgement", "always"] = "judgement"
    paid_gap_turns: int = Field(8, ge=1, description="turns a non-urgent paid probe waits")
    paid_dead_man_turns: int = Field(15, ge=0, description="0: no forced paid probe")
    paid_session_cap: int = Field(40, ge=0, description="paid calls per session; 0: no cap")
    daily_token_budget: int = Field(2_000_000, ge=0, description="in+out tokens a day; 0: none")
    price_in: float | None = Field(None, ge=0, description="USD per million input tokens")
    price_out: float | None = Field(None, ge=0, description="USD per million output tokens")
    backoff_s: float = Field(60.0, ge=0, description="pause after a paid failure, doubling")
    backoff_max_s: float = Field(1800.0, ge=0)

    # The openai backend: any OpenAI-compatible /v1/chat/completions (Ollama, llama.cpp, vLLM…)
    openai_base_url: str = ""  # blank: the SDK's default (OPENAI_BASE_URL or api.openai.com)
    openai_model: str = "gpt-4o-mini"
    openai_api_key: str = ""  # blank: OPENAI_API_KEY, else a placeholder (local servers)
    # auto: JSON schema, downgraded to json_object then plain text when the server refuses it
    openai_response_format: Literal["auto", "json_schema", "json_object", "none"] = "auto"

    # Privacy: projects under these paths (or with a .rolling-graph-ignore file) are ignored.
    ignore_paths: Annotated[list[str], NoDecode] = Field(default_factory=list)

    # Worker and hook client
    hook_budget_ms: int = 300
    # SessionStart waits this long for a cold worker (read by the stdlib hook client itself)
    start_budget_ms: int = 20_000
    # A resume or compaction block checks that the files and symbols it names still exist in
    # the work tree (rolling_graph.render.freshness) within this time; 0 turns the check off.
    freshness_budget_ms: int = Field(100, ge=0, le=2000)
    worker_idle_s: float = 900.0

    # MCP server (``rolling-graph mcp``): the agent's questions to its memory
    mcp_answer_tokens: int = Field(
        1200, ge=200, le=8000, description="token budget of one tool answer"
    )
    # Whether the block's first line names the tools: auto = when ``install`` registered the
    # server (a marker in the data home), on, or off.
    mcp_hint: Literal["auto", "on", "off"] = "auto"
    mcp_timeout_s: float = Field(20.0, gt=0, description="how long a tool waits for the worker")
    mcp_session: str = ""  # pin the server to one session (default: the latest one in its cwd)

    # Warm store (DESIGN §6)
    warm: str = ""  # empty: SQLite in home; or sqlite:///path, postgresql://…
    merge: Literal["max", "recency"] = "max"
    new_node_penalty: float = Field(0.8, gt=0, le=1)
    project: str = ""
    # Team store (issue #20): whose memory this is (blank: the database role on PostgreSQL,
    # else the OS user), and whether notes about colleagues and clients reach the team.
    person: str = ""
    share_relationships: bool = False
    flat_memory: Path | None = None

    @field_validator("extra_relationships", "ignore_paths", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [p.strip() for p in v.split(",") if p.strip()]
        return v

    @property
    def relationships(self) -> frozenset[str]:
        return frozenset(DEFAULT_RELATIONSHIPS) | frozenset(self.extra_relationships)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Precedence: explicit arguments > environment > config.toml > defaults.
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=paths.config_file()),
        )


def load_settings(**overrides: Any) -> Settings:
    """Read the settings now (environment and file), with explicit overrides on top. A bad
    value raises :class:`SettingsError`: one line naming the setting and what it expects."""
    from pydantic import ValidationError

    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as err:
        raise SettingsError(explain(err, paths.config_file())) from None


# ---- one line per bad setting, naming where it came from and what it expects (instead of
# pydantic's report with its URL): ``ROLLING_GRAPH_BUDGET='abc' expects an integer``

ENV_PREFIX = "ROLLING_GRAPH_"


class SettingsError(ValueError):
    """A setting (environment variable, config.toml or argument) that cannot be used."""


def _expects(err: dict[str, Any]) -> str:
    kind = str(err.get("type", ""))
    ctx = err.get("ctx") or {}
    if kind.startswith("int_"):
        return "an integer"
    if kind.startswith("float_"):
        return "a number"
    if kind.startswith("bool_"):
        return "true or false"
    if kind == "literal_error":
        return f"one of {ctx.get('expected', '?')}"
    bounds = {
        "greater_than_equal": "≥ {ge}",
        "greater_than": "> {gt}",
        "less_than_equal": "≤ {le}",
        "less_than": "< {lt}",
    }
    if kind in bounds:
        return "a value " + bounds[kind].format(**ctx)
    return str(err.get("msg", "another value")).removeprefix("Value error, ")


def explain(err: Any, config_file: Any = None) -> str:
    """``err`` (a pydantic ValidationError of Settings) as one line per bad setting."""
    lines = []
    for e in err.errors():
        name = str(e.get("loc", ("?",))[0])
        env = ENV_PREFIX + name.upper()
        if env in os.environ:
            where = f"{env}={os.environ[env]!r}"
        elif config_file is not None:
            where = f"{name} = {e.get('input')!r} in {config_file}"
        else:
            where = f"{name}={e.get('input')!r}"
        lines.append(f"{where} expects {_expects(e)}")
    return "; ".join(lines)
