"""Opt-in auto-load: ``jaxerrs enable`` adds a marked block to IPython's profile config.

The block loads the extension in every new kernel and terminal (both read ``ipython_config.py``).
``jaxerrs disable`` removes exactly that block, so the file returns to its prior bytes; a file
that ``enable`` created is deleted again.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

BEGIN = "# >>> jaxerrs: added by `jaxerrs enable`; `jaxerrs disable` removes it >>>"
END = "# <<< jaxerrs <<<"
LINE = 'c.InteractiveShellApp.extensions.append("jaxerrs")'
CREATED = "# jaxerrs created this file"
NEWLINE = "# jaxerrs added the newline above"


def config_path() -> Path:
    from IPython.paths import get_ipython_dir

    return Path(get_ipython_dir()) / "profile_default" / "ipython_config.py"


def _read(path: Path) -> str:
    """The file's text exactly: no newline translation (CRLF stays), undecodable bytes kept as they are."""
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def _write(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))


_ASSIGN = re.compile(r"^\s*c\.(?:InteractiveShellApp|TerminalIPythonApp|IPKernelApp)\.extensions\s*=(?!=)", re.M)


def is_enabled(path: Path | None = None) -> bool:
    path = path or config_path()
    return path.exists() and BEGIN in _read(path)


def overridden(path: Path | None = None) -> bool:
    """True when a line after the block assigns the extensions list anew, dropping jaxerrs from it."""
    path = path or config_path()
    if not is_enabled(path):
        return False
    text = _read(path)
    end = text.find(END, text.index(BEGIN))
    return end >= 0 and _ASSIGN.search(text, end) is not None


def enable(path: Path | None = None) -> bool:
    """Add the block; False when it was already there."""
    path = path or config_path()
    if is_enabled(path):
        return False
    existed = path.exists()
    old = _read(path) if existed else ""
    marks = []
    prefix = ""
    if not existed:
        marks.append(CREATED)
    elif old and not old.endswith("\n"):
        prefix = "\n"
        marks.append(NEWLINE)
    block = "\n".join([BEGIN, *marks, LINE, END]) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8", newline="") as fh:
        fh.write(prefix + block)
    return True


def disable(path: Path | None = None) -> bool:
    """Remove the block; False when there was none."""
    path = path or config_path()
    if not is_enabled(path):
        return False
    text = _read(path)
    start = text.index(BEGIN)
    end = text.find(END, start)
    if end < 0:
        raise OSError(f"the jaxerrs block has no end line ({END!r}); remove it by hand")
    end += len(END)
    if text[end:end + 1] == "\n":
        end += 1
    block = text[start:end]
    if NEWLINE in block and start > 0 and text[start - 1] == "\n":
        start -= 1
    rest = text[:start] + text[end:]
    if CREATED in block and not rest.strip():
        path.unlink()
    else:
        _write(path, rest)
    return True


def run_cli(command: str) -> int:
    path = config_path()
    override = ("; but a later `c.InteractiveShellApp.extensions = [...]` line replaces the list, so it is not "
                "loaded: move that line above the jaxerrs block or add \"jaxerrs\" to it")
    if command == "status":
        print(f"jaxerrs is {'enabled' if is_enabled(path) else 'not enabled'} in {path}"
              f"{override if overridden(path) else ''}")
        return 0
    try:
        changed = enable(path) if command == "enable" else disable(path)
    except OSError as e:
        print(f"jaxerrs: cannot change {path} ({e.strerror or e})", file=sys.stderr)
        return 2
    if command == "enable":
        print(f"jaxerrs: {'enabled' if changed else 'already enabled'}: new IPython kernels and terminals "
              f"load it ({path})")
        if overridden(path):
            print(f"jaxerrs: warning{override}", file=sys.stderr)
    else:
        print(f"jaxerrs: {'disabled' if changed else 'was not enabled'} ({path})")
    return 0
