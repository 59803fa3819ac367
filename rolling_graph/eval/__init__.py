"""Replays and measurements: saved transcripts through the whole pipeline.

:mod:`.replay` turns a transcript into the hook events a harness would have sent and runs them
in process, on the transcript's clock (:mod:`.clock`); :mod:`.evaluate` measures context
recovery at compaction boundaries; :mod:`.extraction` scores extraction against a labelled set;
:mod:`.prompt_replay` runs a list of prompts through the offline probe alone.

May import: core, config, paths, privacy, nlp, probe, render, pipeline, harness.adapters,
transcripts.
"""
