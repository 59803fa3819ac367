"""aider's ``.aider.chat.history.md``: an invented history of two runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from rolling_graph.transcripts import (
    AssistantText,
    IncrementalReader,
    SlashCommand,
    ToolResult,
    UnsupportedFormatError,
    UserShellCommand,
    detect_format,
    read_transcript,
)

_WRITTEN = """
# aider chat started at 2026-03-02 09:00:00

> Aider v0.99.0
> Main model: some-model with diff edit format
> Git repo: .git with 12 files

#### rename load() to read() in kite/reader.py
#### and keep the old name as an alias

I'll rename it.

kite/reader.py
```python
<<<<<<< SEARCH
def load(path):
=======
def read(path):
>>>>>>> REPLACE
> not aider's note: a quote inside the code
#### not an input either
```

> Tokens: 2.1k sent, 90 received.
> kite/reader.py
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y
> Applied edit to kite/reader.py
> Commit 1a2b3c4 refactor: rename load to read

#### Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: skip

#### /add tests/test_reader.py
> Added tests/test_reader.py to the chat

# aider chat started at 2026-03-02 10:30:00

#### !pytest -q
> Add command output to the chat? (Y)es/(N)o [Yes]: y

#### > why does the alias warn?

Because it is deprecated.

> Run shell command? (Y)es/(N)o [Yes]: y
> Running pytest -q tests/test_reader.py
> 3 passed
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: n
"""
# aider ends every line of its own and of the person's with two spaces (a Markdown break)
HISTORY = "\n".join(x + "  " if x.startswith(("> ", "#### ")) else x for x in _WRITTEN.split("\n"))


@pytest.fixture
def history(tmp_path: Path) -> Path:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY, encoding="utf-8")
    return path


def test_detected_from_content(history: Path, tmp_path: Path) -> None:
    other = tmp_path / "session-notes.md"  # the name says nothing: the content does
    other.write_bytes(history.read_bytes())
    assert detect_format(other) == "aider"


def test_inputs(history: Path) -> None:
    tr = read_transcript(history)
    assert tr.format == "aider"
    assert [p.text for p in tr.user_prompts] == [
        "rename load() to read() in kite/reader.py\nand keep the old name as an alias",
        "> why does the alias warn?",
    ]
    (add,) = tr.of_type(SlashCommand)
    assert (add.name, add.args) == ("add", "tests/test_reader.py")
    (shell,) = tr.of_type(UserShellCommand)
    assert shell.command == "pytest -q"
    assert tr.stats.injected_lines == 1  # the answer to aider's own question
    first, second = tr.user_prompts
    assert first.timestamp is not None and second.timestamp is not None
    assert (second.timestamp - first.timestamp).total_seconds() == 90 * 60


def test_replies_keep_code_blocks_whole(history: Path) -> None:
    texts = [t.text for t in read_transcript(history).of_type(AssistantText)]
    assert len(texts) == 2
    assert texts[0].startswith("I'll rename it.") and texts[0].endswith("```")
    assert "> not aider's note" in texts[0] and "#### not an input either" in texts[0]
    assert texts[1] == "Because it is deprecated."


def test_edits_and_commands_are_tool_calls(history: Path) -> None:
    tr = read_transcript(history)
    assert [(u.name, u.input) for u in tr.tool_uses] == [
        ("Edit", {"file_path": "kite/reader.py"}),
        ("Bash", {"command": "pytest -q tests/test_reader.py"}),
    ]
    results = tr.of_type(ToolResult)
    assert [r.tool_use_id for r in results] == [u.tool_use_id for u in tr.tool_uses]
    assert results[1].content == "3 passed"


def test_replay_only(history: Path) -> None:
    with pytest.raises(UnsupportedFormatError, match="replay-only format"):
        IncrementalReader(history).read(0)
