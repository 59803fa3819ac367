"""Observers: what tool events say for certain, read deterministically (DESIGN §3a).

:mod:`.observers` turns a finished tool call into graph patches (files, code written, the
agent's plan as tasks, test outcomes); :mod:`.tool_events` reads one tool event (the file, the
code, the failure); :mod:`.worktree_changes` reads what changed in the work tree (git).

May import: core, nlp, privacy (a digest line is redacted again on the way out).
"""
