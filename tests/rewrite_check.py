"""Run ``setup`` + a version of the cell + ``check`` in a fresh process, for the rewrite proof set.

Reads ``{"setup", "runs": {"rewrite": code, "wrong_fix": code}, "check"}`` as JSON on stdin; each run gets
a fresh namespace. Prints, after the marker, ``{"rewrite": null | "Class: message", "wrong_fix": …}``:
null means setup, code and check all ran clean.

``--serve`` reads one such job per line and answers one JSON line each. It imports JAX and the libraries
once, before any backend starts, and forks a child per job: the child is as fresh as a new process (no
backend, no compiled code, no config changed) without paying for the imports again.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import traceback

MARKER = "@@REWRITE-CHECK@@"


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


def main() -> None:
    if sys.argv[1:] == ["--serve"]:
        serve()
        return
    job = json.load(sys.stdin)
    out = _answer(job)
    print(MARKER)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
