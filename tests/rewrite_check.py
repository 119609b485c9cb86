"""Run ``setup`` + a version of the cell + ``check`` in this fresh process, for the rewrite proof set.

Reads ``{"setup", "runs": {"rewrite": code, "wrong_fix": code}, "check"}`` as JSON on stdin; each run gets
a fresh namespace. Prints, after the marker, ``{"rewrite": null | "Class: message", "wrong_fix": …}``:
null means setup, code and check all ran clean.
"""

from __future__ import annotations

import json
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


def main() -> None:
    job = json.load(sys.stdin)
    out = {name: run(job["setup"], code, job["check"]) for name, code in job["runs"].items()}
    print(MARKER)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
