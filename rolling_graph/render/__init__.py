"""Rendering: the level-of-detail block and its variants (DESIGN §5).

:mod:`.lod` renders a hot graph within the token budget; :mod:`.block` is the block being
filled; :mod:`.work` the current-work lines; :mod:`.resume` the "where we left off" block;
:mod:`.addendum` the line after a harness's compaction summary; :mod:`.in_play` the names the
last turns used.

May import: core, nlp, observe, warm.
"""
