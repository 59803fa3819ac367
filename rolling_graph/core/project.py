"""Project identity: which warm graph a session belongs to.

:func:`project_key` is the one function that answers it (the warm store's ``scope``):

1. ``ROLLING_GRAPH_PROJECT`` (``project =`` in the config file), when set;
2. the normalized URL of the repository's remote (``origin``, else the first remote by name):
   ``github.com/owner/repo`` for ``git@github.com:Owner/repo.git`` and
   ``https://user:token@github.com/owner/repo`` alike — two clones of one repository share
   memory wherever they are checked out, and credentials in a URL never reach the store;
3. else ``git:<root commit>`` (a local repository without a remote; clones share the root);
4. else ``path:<absolute work-tree path>`` (a repository without commits yet);
5. outside any git work tree: ``""``, the person's own scope (nothing project-specific to
   share, and nothing keyed by a folder name that another project could happen to share).

:func:`legacy_project_key` is the key used before (the slug of the work tree's folder name),
kept so that warm data written under it can be found and moved (see
``rolling_graph.warm.rekey``). Answers are cached per (directory, override): git runs at
most a few times per directory per process, at session start, never per prompt.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from pathlib import Path

from rolling_graph.core.slug import slugify

PERSONAL = ""  # the person's own scope (warm.records.DEFAULT_SCOPE)
GIT_TIMEOUT_S = 2.0
_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@host:owner/repo.git


def normalize_remote(url: str) -> str:
    """``host/path`` of a git remote URL, lower-case host, no user, port, ``.git`` or slash.

    ``ssh://git@github.com:22/o/r.git``, ``git@github.com:o/r`` and ``https://github.com/o/r/``
    all give ``github.com/o/r``. The path keeps its case (some hosts are case-sensitive); the
    host does not. A local path remote gives ``file:<path>``.
    """
    url = url.strip()
    if not url:
        return ""
    if "://" in url:
        scheme, rest = url.split("://", 1)
        host, _, path = rest.partition("/")
        if scheme == "file" or not host:
            return "file:" + ("/" + path).rstrip("/").removesuffix(".git")
        host = host.rsplit("@", 1)[-1].split(":", 1)[0]
    elif m := _SCP_LIKE.match(url):
        host, path = m.group(1), m.group(2)
    else:
        return "file:" + os.path.abspath(url).rstrip("/").removesuffix(".git")
    path = path.strip("/").removesuffix(".git").strip("/")
    return f"{host.lower()}/{path}" if path else host.lower()


def git_env() -> dict[str, str]:
    """The environment of every git call this package makes in the person's work tree: no
    prompt, C messages, and no optional locks. ``git status`` otherwise takes ``index.lock``
    to refresh the index; killed at its deadline, or run while the agent commits, it leaves
    the person's next ``git commit`` failing on that lock."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"}


def git_output(cwd: str, *args: str, strip: bool = True) -> str:
    """``git -C cwd args…``'s stdout, stripped; "" when git is missing, fails or hangs."""
    try:
        proc = subprocess.run(
            ["git", "-C", cwd, *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            env=git_env(),
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    if proc.returncode != 0:
        return ""
    return proc.stdout.strip() if strip else proc.stdout


def work_tree(cwd: str | os.PathLike[str]) -> Path | None:
    """The git work tree containing ``cwd`` (the nearest parent with a ``.git``), or None.

    A relative ``cwd`` is None: harnesses send absolute paths, and a relative one (a Windows
    path read on POSIX, say) would otherwise resolve against this process's own directory."""
    start = Path(cwd).expanduser()
    if not start.is_absolute():
        return None
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


@functools.lru_cache(maxsize=256)
def _repo_key(root: str) -> str:
    remotes = git_output(root, "remote").split()
    if remotes:
        name = "origin" if "origin" in remotes else sorted(remotes)[0]
        url = normalize_remote(git_output(root, "remote", "get-url", name))
        if url:
            return url
    # Several roots (merged histories): the oldest listed last by rev-list is arbitrary,
    # the sorted first is stable.
    roots = sorted(git_output(root, "rev-list", "--max-parents=0", "HEAD").split())
    if roots:
        return f"git:{roots[0]}"
    return f"path:{root}"


def project_key(cwd: str | os.PathLike[str] | None, override: str = "") -> str:
    """The warm-graph scope of a session started in ``cwd`` (see the module docstring)."""
    if override.strip():
        return override.strip()
    if not cwd:
        return PERSONAL
    root = work_tree(cwd)
    if root is not None:
        return _repo_key(str(root))
    if not _exists_here(cwd):
        # A folder this machine does not have (a replayed transcript of someone else's work,
        # a Windows path read on POSIX): its sessions belong together, apart from any other
        # project, so the path itself is the key.
        path = str(cwd).replace("\\", "/").rstrip("/")
        return f"path:{path.lower() if re.match(r'^[A-Za-z]:/', path) else path}"
    return PERSONAL


def _exists_here(cwd: str | os.PathLike[str]) -> bool:
    start = Path(cwd).expanduser()
    return start.is_absolute() and start.exists()


def legacy_project_key(cwd: str | os.PathLike[str] | None) -> str:
    """The scope used before project identity: the slug of the work tree's folder name (of
    ``cwd`` itself outside a repository)."""
    if not cwd:
        return PERSONAL
    start = Path(cwd.replace("\\", "/") if isinstance(cwd, str) else cwd).expanduser()
    root = work_tree(start) or start
    return slugify(root.name) if root.name else PERSONAL
