"""Input tokens per paid probe call, per prompt file, at 100 and 1,000 graph nodes.

The prompt sends a bounded view of the graph (the focus cluster and the heaviest nodes, see
``rolling_graph/probe/prompt.py``), not all of it: the input per call must stay flat as the
graph grows. For each prompt in ``rolling_graph/prompts/`` and each graph size, prints the rendered prompt's
characters and estimated tokens (``ceil(chars / 3.5)``, the project's estimator, which errs
high), split into the fixed instructions, the graph view and the turns, plus what each
backend adds around it (the anthropic forced tool's schema, the openai system message and
``response_format`` schema). The turns are a fixed, realistic buffer of 8 turns; the graph is
synthetic (labels, aliases, domains and edges like those of replayed sessions).

Usage: .venv/bin/python bench/probe_prompt.py [--nodes 100,1000]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rolling_graph.core.model import DOMAINS, KINDS  # noqa: E402
from rolling_graph.core.tokens import estimate_tokens  # noqa: E402
from rolling_graph.probe import anthropic_backend, openai_backend  # noqa: E402
from rolling_graph.probe.base import NodeView, ProbeRequest, TurnDigest, patch_schema  # noqa: E402
from rolling_graph.probe.prompt import (  # noqa: E402
    format_graph,
    format_turns,
    load_prompt,
    prompt_ids,
    render_probe_prompt,
)

WORDS = [
    "cache",
    "order",
    "invoice",
    "retry",
    "webhook",
    "schema",
    "migration",
    "token",
    "session",
    "queue",
    "worker",
    "billing",
    "export",
    "report",
    "search",
    "index",
    "login",
    "redirect",
    "upload",
    "thumbnail",
    "email",
    "digest",
    "config",
    "parser",
]


def graph(n: int, seed: int = 7) -> tuple[list[NodeView], list[tuple[str, str, str]]]:
    rnd = random.Random(seed)
    nodes = []
    for i in range(n):
        label = " ".join(rnd.sample(WORDS, 3)).title() + f" {i}"
        nid = label.lower().replace(" ", "-")
        nodes.append(
            NodeView(
                id=nid,
                label=label,
                domain=rnd.choice(DOMAINS),
                weight=round(rnd.random(), 2),
                kind=rnd.choice(KINDS),
                aliases=[rnd.choice(WORDS)] if rnd.random() < 0.3 else [],
                last_activated=rnd.randrange(1, 60),
                focus=i < 5,
            )
        )
    edges = [
        (rnd.choice(nodes).id, rnd.choice(("uses", "part-of", "relates-to")), rnd.choice(nodes).id)
        for _ in range(int(n * 1.5))
    ]
    return nodes, edges


def turns() -> list[TurnDigest]:
    out = []
    for t in range(1, 9):
        out.append(
            TurnDigest(
                turn=t,
                user=(
                    f"Turn {t}: the invoice export times out for big accounts; let's move it to "
                    "the queue worker and email a link when it is ready. Priya needs it by Friday."
                ),
                assistant=(
                    "I moved the export into a background job, added a signed download link and "
                    "a retry with backoff. Two options for storage: (1) S3 with lifecycle rules, "
                    "(2) the local disk with a cleanup cron. " * 2
                ),
                tools=[
                    "Edit src/billing/export.py | ids: export_invoices, ExportJob",
                    "Bash: pytest -q tests/billing (error: TimeoutError)",
                    "Read src/queue/worker.py",
                ],
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", default="100,1000")
    a = ap.parse_args(argv)
    sizes = [int(x) for x in a.nodes.split(",")]
    ids = [pid for pid in prompt_ids() if pid.startswith("probe.v")]
    schema = json.dumps(patch_schema())
    tool = estimate_tokens(anthropic_backend.SYSTEM + schema)
    oai = estimate_tokens(openai_backend.SYSTEM + schema)
    print(
        f"{'prompt':<10} {'nodes':>6} {'chars':>7} {'tokens':>7} {'of which graph':>15} "
        f"{'turns':>6} {'+anthropic tool':>16} {'+openai schema':>15}"
    )
    for pid in ids:
        prompt = load_prompt(pid)
        for n in sizes:
            nodes, edges = graph(n)
            req = ProbeRequest("bench", 60, turns(), nodes, edges, prompt_id=pid)
            _, text = render_probe_prompt(req, prompt)
            g = estimate_tokens(format_graph(req))
            t = estimate_tokens(format_turns(req.turns))
            total = estimate_tokens(text)
            print(
                f"{pid:<10} {n:>6} {len(text):>7} {total:>7} {g:>15} {t:>6} "
                f"{total + tool:>16} {total + oai:>15}"
            )
    print(
        "tokens: ceil(chars / 3.5) estimates; '+anthropic tool' adds the system prompt and the "
        "emit_patch input schema, '+openai schema' the system message and response_format schema"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
