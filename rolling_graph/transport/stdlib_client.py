"""The hook client as one file, loaded at the interpreter floor.

Installed hooks run ``<python> -I -S …/transport/stdlib_hook.py [--harness NAME] [--event
NAME]`` (:func:`rolling_graph.harness.install.claude_code.hook_command`), a stub that imports this file as a
top-level module (its bytecode cached) and calls :func:`main`. ``-I -S`` skips ``site`` (and with it every
``.pth`` file of the environment) and the package: this file imports only modules the
interpreter has already loaded or builds in (``posix``, ``sys``, ``time``, ``_json``, ``_socket``),
not even ``json`` (it pulls in ``re``, a third of the interpreter's start-up) nor ``os`` (not
loaded under ``-S``: with ``_collections_abc`` it is a tenth of the start-up); the few path
rules it needs are copied from ``posixpath`` below.

The common case, a running worker of the same version, is handled here: read the event, hand it
over the socket (:mod:`rolling_graph.transport.protocol`, version 1), print the reply, exit 0.
Everything else is rare and delegated to the package client
(:func:`rolling_graph.transport.client.run_hook`), after loading ``site`` by hand: the start
event (waits up to 20 s for a cold worker), an absent worker (started, then the event
delivered), an unusable socket directory, an older worker (replaced), no reply within the budget
(the fallback block), ``ROLLING_GRAPH_WORKER=0`` and errors. The socket-location rules are copied
from the protocol module (the package cannot be imported here); a test keeps both in step.

``--ping`` sends the protocol's ``ping`` instead of an event: a whole round trip through the
worker without touching a session (``doctor`` times it against the interpreter floor).
"""

import posix
import sys
import time

# What the package client does too (transport.client); repeated: this file imports no package.
DEFAULT_BUDGET_MS = 300
HARNESSES = ("claude-code", "codex", "gemini", "copilot")
MAX_STDIN = 32 * 1024 * 1024
MAX_REPLY = 4 * 1024 * 1024
_UNIX_PATH_MAX = 104


def _env(name: str) -> str | None:
    """An environment variable: ``os.environ`` where ``os`` is loaded (a process that imported
    this module may have changed it), else the process's own environment."""
    os = sys.modules.get("os")
    if os is not None:
        value: str | None = os.environ.get(name)
        return value
    raw = posix.environ.get(name.encode("utf-8", "surrogateescape"))
    return None if raw is None else raw.decode("utf-8", "surrogateescape")


# posixpath's rules for str paths (join, normpath, abspath, expanduser), without loading os.
def _join(a: str, *rest: str) -> str:
    path = a
    for b in rest:
        if b.startswith("/"):
            path = b
        elif not path or path.endswith("/"):
            path += b
        else:
            path += "/" + b
    return path


def _normpath(path: str) -> str:
    if not path:
        return "."
    slashes = 2 if path.startswith("//") and not path.startswith("///") else int(path[:1] == "/")
    comps: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp != ".." or (not slashes and not comps) or (comps and comps[-1] == ".."):
            comps.append(comp)
        elif comps:
            comps.pop()
    return ("/" * slashes + "/".join(comps)) or "."


def _abspath(path: str) -> str:
    return _normpath(path if path.startswith("/") else _join(posix.getcwd(), path))


def _dirname(path: str) -> str:
    head = path[: path.rfind("/") + 1]
    return head.rstrip("/") or head if head else head


def _expanduser(path: str) -> str:
    if not path.startswith("~"):
        return path
    i = path.find("/", 1)
    i = len(path) if i < 0 else i
    if i == 1:
        home = _env("HOME")
        if home is None:
            import pwd

            try:
                home = pwd.getpwuid(posix.getuid()).pw_dir
            except KeyError:
                return path
    else:
        import pwd

        try:
            home = pwd.getpwnam(path[1:i]).pw_dir
        except KeyError:
            return path
    return (home.rstrip("/") + path[i:]) or "/"


#: the package root: <root>/rolling_graph/transport/stdlib_client.py
PACKAGE = _dirname(_dirname(_abspath(__file__)))


class _Delegate(Exception):
    """Hand the event to the package client (the rare paths in the module docstring)."""


def version() -> str:
    """The package's ``__version__``, read from its source (importing it would need ``site``)."""
    with open(_join(PACKAGE, "__init__.py"), encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("__version__"):
                return line.split("=", 1)[1].strip().strip("\"'")
    return "0"


def version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in str(text).split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def data_home() -> str:
    explicit = _env("ROLLING_GRAPH_HOME")
    if explicit:
        return _expanduser(explicit)
    xdg = _env("XDG_DATA_HOME") or _join(_expanduser("~"), ".local", "share")
    return _join(_expanduser(xdg), "rolling-graph")


def worker_socket() -> tuple[str, str]:
    """(socket directory, socket) by the rules of ``protocol.socket_dir`` and ``worker_files``."""
    explicit = _env("ROLLING_GRAPH_SOCKET_DIR")
    runtime = _env("XDG_RUNTIME_DIR")
    if explicit:
        d = _expanduser(explicit)
    elif runtime and runtime.startswith("/"):
        d = _join(runtime, "rolling-graph")
    else:
        d = _join(data_home(), "run")
        if len(d) + 30 > _UNIX_PATH_MAX:
            d = _join("/tmp", f"rolling-graph-{posix.getuid()}")
    h = 0x811C9DC5  # fnv32 of the data home, as protocol.fnv32
    for b in _abspath(data_home()).encode("utf-8", "surrogateescape"):
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return d, _join(d, f"worker-{h:08x}.sock")


def socket_path() -> str:
    """The worker's socket; ``_Delegate`` unless its directory exists and is ours alone."""
    d, path = worker_socket()
    try:
        st = posix.lstat(d)
    except OSError:
        raise _Delegate("no socket directory yet: the package client makes it") from None
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != posix.getuid() or st.st_mode & 0o077:
        raise _Delegate("socket directory is not ours alone")  # the package says why
    return path


def read_stdin(deadline: float) -> bytes:
    """All of stdin up to MAX_STDIN bytes; never waits on a terminal or past ``deadline``.

    The harness has usually written the whole payload by the time the interpreter is up: read
    without blocking, and load ``select`` to wait only when it has not."""
    if posix.isatty(0):
        return b""
    chunks: list[bytes] = []
    size = 0
    blocking = posix.get_blocking(0)
    try:
        posix.set_blocking(0, False)
        while size <= MAX_STDIN:
            try:
                chunk = posix.read(0, 1 << 20)
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                import select

                select.select([0], [], [], remaining)
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        posix.set_blocking(0, blocking)
    data = b"".join(chunks)
    return b"" if len(data) > MAX_STDIN else data


def _decode(raw: bytes) -> object:
    """One JSON value through the C scanner behind ``json`` (without importing ``re``)."""
    import _json

    class Ctx:
        strict = True
        object_hook = object_pairs_hook = None
        parse_float, parse_int = float, int

        @staticmethod
        def parse_constant(name: str) -> float:
            return float(name.lower().replace("infinity", "inf"))

    return _json.make_scanner(Ctx())(raw.decode("utf-8"), 0)[0]


def request(
    op: str, body: bytes | None, deadline: float, fields: dict[str, str | None]
) -> dict[str, object]:
    """One request to the worker; its reply. Not reaching the worker raises ``_Delegate``;
    a worker that got the event but did not answer raises ``TimeoutError`` (never resent)."""
    from _json import encode_basestring_ascii as quote
    from _socket import AF_UNIX, SOCK_STREAM
    from _socket import socket as unix_socket

    path = socket_path()
    head = f'{{"v":1,"op":{quote(op)},"client":{quote(version())}'
    head += "".join(f",{quote(k)}:{'null' if v is None else quote(v)}" for k, v in fields.items())
    head += f',"len":{len(body)}}}\n' if body is not None else "}\n"
    s = unix_socket(AF_UNIX, SOCK_STREAM)
    try:
        s.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            s.connect(path)
        except OSError as err:
            raise _Delegate(f"no worker at {path} ({type(err).__name__})") from None
        data = head.encode()
        s.sendall(data + body if body is not None else data)
        chunks: list[bytes] = []
        size = 0
        while size <= MAX_REPLY:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            s.settimeout(remaining)
            chunk = s.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if chunk.endswith(b"\n"):
                break
    finally:
        s.close()
    reply = _decode(b"".join(chunks))
    if not isinstance(reply, dict):
        raise TimeoutError
    return reply


def parse_args(argv: list[str]) -> tuple[str, str | None]:
    harness, event = "claude-code", None
    for i, arg in enumerate(argv[:-1]):
        if arg == "--harness":
            harness = argv[i + 1]
        elif arg == "--event":
            event = argv[i + 1]
    return (harness if harness in HARNESSES else "claude-code"), event


def _package_client():  # noqa: ANN202 - the module, typed by the package
    """The package client, after loading ``site`` (the environment's packages, .pth files)."""
    import site

    site.main()
    if _dirname(PACKAGE) not in sys.path:
        sys.path.append(_dirname(PACKAGE))
    from rolling_graph.transport import client

    return client


def _hot(raw: bytes, harness: str, event: str | None, deadline: float) -> str:
    """The event through a running worker of this version; ``_Delegate`` for anything else."""
    start = "sessionStart" if harness == "copilot" else "SessionStart"
    if (event or "") == start or (event is None and f'"{start}"'.encode() in raw[:4096]):
        raise _Delegate("start event: the package client waits for a cold worker")
    if (_env("ROLLING_GRAPH_WORKER") or "1") in ("0", "false", "no", "off"):
        raise _Delegate("in-process handling")
    fields = {"harness": harness, "event": event} if harness != "claude-code" else {}
    try:
        reply = request("hook", raw, deadline, fields)
    except TimeoutError:
        return _fallback(raw, harness, event, "worker did not answer within the budget")
    out = reply.get("out")
    if not reply.get("ok") or not isinstance(out, str):
        return _fallback(raw, harness, event, f"worker error: {reply.get('error')}")
    if version_tuple(str(reply.get("version") or "0")) < version_tuple(version()):
        _emit(out)  # the answer first, then the restart
        client = _package_client()
        client.replace_older_worker(client.worker_files(), str(reply.get("version")))
        return ""
    return out


def _fallback(raw: bytes, harness: str, event: str | None, why: str) -> str:
    client = _package_client()
    client.log(why)
    return client.fallback_output(raw, harness, event)


def _emit(text: str) -> None:
    if text:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except Exception:  # noqa: BLE001 - a closed stdout is not ours to report
            pass


def exit_now(code: int) -> None:
    """End the process without the interpreter's finalization (~1.5 ms, a sixth of its
    start-up): on the hot path nothing is left to clean up once stdout is flushed. Returns
    (the caller exits normally) where the package client ran: its logging and spawned worker
    are left to the ordinary exit."""
    if "rolling_graph.transport.client" in sys.modules:
        return
    try:  # noqa: SIM105 - contextlib would cost an import on every hook
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed stdout is not ours to report
        pass
    posix._exit(code)


def main(argv: list[str]) -> int:
    """Always 0: a hook never fails the person's prompt."""
    try:
        if _env("ROLLING_GRAPH_PROBE_CHILD") == "1":
            return 0  # recursion guard: the claude-cli probe's own session
        harness, event = parse_args(argv)
        started = time.monotonic()
        try:
            ms = float(_env("ROLLING_GRAPH_HOOK_BUDGET_MS") or DEFAULT_BUDGET_MS)
        except ValueError:
            ms = DEFAULT_BUDGET_MS
        deadline = started + max(ms, 1.0) / 1000.0
        if "--ping" in argv:
            try:
                return 0 if request("ping", None, deadline, {}).get("ok") else 1
            except (_Delegate, OSError):
                return 1
        raw = read_stdin(deadline)
        if not raw.strip():
            return 0
        try:
            _emit(_hot(raw, harness, event, deadline))
        except _Delegate:
            client = _package_client()
            if (_env("ROLLING_GRAPH_WORKER") or "1") in ("0", "false", "no", "off"):
                _emit(client._in_process(raw, harness, event))
                return 0
            budget = client._start_budget_s(raw, harness, event)
            _emit(client.run_hook(raw, started + budget if budget else deadline, harness, event))
    except BaseException:  # noqa: BLE001 - never fail the prompt; the package logs what it can
        try:  # noqa: SIM105 - contextlib would cost an import on every hook
            _package_client().log(f"stdlib hook client failed: {sys.exc_info()[1]!r}")
        except BaseException:  # noqa: BLE001
            pass
    return 0


if __name__ == "__main__":  # also runnable by path itself (compiled on each start: slower)
    sys.exit(main(sys.argv[1:]))
