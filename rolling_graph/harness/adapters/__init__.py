"""Payload adapters, one per harness (standard library only: the hook path imports them).

Each turns a harness's hook payload into a :class:`~rolling_graph.core.hook_event.HookEvent`
and an outcome into the output the harness expects; :mod:`.registry` says which adapter speaks
for which harness; :mod:`.transcript_feed` reads the live transcript for an event.

May import: core, paths, privacy, transcripts.
"""
