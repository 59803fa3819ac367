"""The probe runner needs only its typed services (settings, hot store, plugin manager, replay
flag, locked sessions), not the engine: a host without an engine drives it end to end."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pluggy

from rolling_graph.config import Settings
from rolling_graph.core.hotstore import HotStore
from rolling_graph.core.session import HotSession
from rolling_graph.pipeline import hookspecs
from rolling_graph.pipeline.engine import Engine
from rolling_graph.probe.buffer import buffer_prompt
from rolling_graph.probe.runner import ProbeRunner
from rolling_graph.probe.services import ProbeServices
from tests.probe.conftest import VALID_PATCH
from tests.probe.test_runner import Scripted

SID = "svc-1"


class Host:
    """A ProbeServices that is not an engine: one store, no plugins, sessions opened on demand."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.store = HotStore(settings.home)
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.replay = False

    @contextlib.contextmanager
    def locked_session(self, session_id: str) -> Iterator[HotSession]:
        with self.store.lock(session_id):
            yield HotSession.open(self.store, session_id)


def test_a_host_without_an_engine_runs_a_probe_in_the_background(settings: Settings) -> None:
    host = Host(settings)
    services: ProbeServices = host  # the protocol is all the runner asks for
    with host.locked_session(SID) as sess:
        sess.advance_turn()
        sess.save()
        buffer_prompt(host.store, SID, sess.graph.turn, "let's use Resend for email")
    backend = Scripted(VALID_PATCH)
    runner = ProbeRunner(services, backend)
    try:
        assert runner.request(SID, [{"name": "decision", "words": ["use"]}]) == "started"
        assert runner.wait(SID, 10)
    finally:
        runner.close()
    assert backend.requests and backend.requests[0].turns[0].user == "let's use Resend for email"
    with host.locked_session(SID) as sess:
        assert sess.graph.nodes, "the patch reached the session through locked_session"
    applied = [r for r in host.store.audit(SID).records() if r.get("type") == "probe"]
    assert applied and applied[0]["status"] == "applied"


def test_the_engine_is_a_probe_services_host(settings: Settings) -> None:
    engine = Engine(settings)
    try:
        runner: Any = ProbeRunner(engine)
        assert runner.services is engine
        for name in ("settings", "store", "pm", "replay", "locked_session"):
            assert hasattr(engine, name), name
    finally:
        engine.close()
