"""Run ``setup`` + a version of the cell + ``check`` in a fresh process, for the rewrite proof set.

A job is ``{"setup", "runs": {"rewrite": code, "wrong_fix": code}, "check"}``; each run gets a fresh
namespace, and the answer is ``{"rewrite": null | "Class: message", "wrong_fix": …}``: null means setup, code
and check all ran clean.

Run as a script, this is a server: it reads one job per JSON line on stdin and answers one JSON line each. It
imports JAX and the libraries once, before any backend starts, and forks a child per job: the child is as
fresh as a new process (no backend, no compiled code, no config changed) without paying for the imports
again. ``CheckPool`` is the client, for the proof set and the held-out figures.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import traceback


def run(setup: str, code: str, check: str) -> str | None:
    ns: dict = {"__name__": "__main__"}
    try:
        for part, src in (("setup", setup), ("cell", code), ("check", check)):
            exec(compile(src, f"<{part}>", "exec"), ns)
    except BaseException as e:  # noqa: BLE001
        tb = traceback.format_exception_only(type(e), e)[-1].strip()
        return f"{part}: {tb[:500]}"
    return None


def _answer(job: dict) -> dict:
    return {name: run(job["setup"], code, job["check"]) for name, code in job["runs"].items()}


def _forked(job: dict, limit_s: int) -> dict:
    """``_answer`` in a forked child, its output silenced; a child that dies or overruns is reported."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(r)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        signal.alarm(limit_s)  # the default action ends the child
        try:
            data = json.dumps(_answer(job)).encode()
        except BaseException as e:  # noqa: BLE001
            data = json.dumps({k: f"check crashed: {e!r}"[:500] for k in job["runs"]}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if not data:
        return {k: f"check process died (wait status {status})" for k in job["runs"]}
    return json.loads(data)


def serve() -> None:
    import jax  # noqa: F401 - preloaded for every child; importing starts no backend
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401
    for name in ("flax.linen", "flax.nnx", "optax", "equinox", "chex"):
        try:
            __import__(name)
        except ImportError:
            pass
    from jax._src import xla_bridge

    assert not xla_bridge._backends, "a preloaded import started a JAX backend: children would share it"
    for line in sys.stdin:
        print(json.dumps(_forked(json.loads(line), 600)), flush=True)


class _Server:
    """One server process, started on first use and again after it dies."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env, self.proc = env, None

    def ask(self, job: dict) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, __file__], text=True, env=self.env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        try:
            self.proc.stdin.write(json.dumps(job) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError as e:
            line, why = "", repr(e)
        else:
            why = f"exit {self.proc.poll()}"
        if not line:  # the server itself died: say so for this job; the next one starts a new server
            self.close()
            return {k: f"check server died ({why})" for k in job["runs"]}
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


class CheckPool:
    """``n`` check servers for ``n`` threads: ``ask(job)`` answers a job on a free server."""

    def __init__(self, n: int, env: dict[str, str]) -> None:
        self.servers = [_Server(env) for _ in range(n)]
        self.free: queue.Queue[_Server] = queue.Queue()
        for s in self.servers:
            self.free.put(s)

    def ask(self, job: dict) -> dict:
        server = self.free.get()
        try:
            return server.ask(job)
        finally:
            self.free.put(server)

    def __enter__(self) -> CheckPool:
        return self

    def __exit__(self, *exc: object) -> None:
        for s in self.servers:
            s.close()


if __name__ == "__main__":
    serve()
