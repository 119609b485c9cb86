"""``%jaxerr`` (a router with one parser per subcommand) and ``%%jaxerr``.

Cheap to import: ``%load_ext`` registers ``JaxerrMagics``; the subcommands' parsers are built on first use.
"""

from __future__ import annotations

import argparse
import functools
import shlex
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.core.magic_arguments import MagicArgumentParser, argument, magic_arguments, parse_argstring

from jaxerrs.extension import State, in_kernel, show

if TYPE_CHECKING:
    from collections.abc import Callable


class _HelpShown(Exception):
    """--help printed its text; the command must stop there."""


class _Parser(MagicArgumentParser):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(add_help=True, **kwargs)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            print(message)
        raise _HelpShown()


@functools.cache
def _parsers() -> dict[str, _Parser]:
    """The subcommands' parsers, built on the first ``%jaxerr`` (not at load: seven parsers cost ~1 ms)."""
    p: dict[str, _Parser] = {}
    s = p["search"] = _Parser(prog="jaxerr search", description="Search the knowledge base and JAX's raise sites.")
    s.add_argument("query", nargs="+", help="words, an error message or a whole traceback")
    s.add_argument("--tag", "-t", action="append", default=[], help="only records with this tag (repeatable)")
    s.add_argument("--class", "-c", dest="cls", default=None, help="only records of this error class")
    s.add_argument("--limit", "-n", type=int, default=10, help="at most this many results (default 10)")
    p["last"] = _Parser(prog="jaxerr last", description="Show the panel of the last JAX error again.")
    sh = p["show"] = _Parser(prog="jaxerr show", description="Show one record's panel.")
    sh.add_argument("id", help="a record id (see %%jaxerr search)")
    f = p["fix"] = _Parser(prog="jaxerr fix", description="Put a fix into the next input cell.")
    f.add_argument("id", nargs="?", default=None, help="a record id; default: the last JAX error's record")
    p["on"] = _Parser(prog="jaxerr on", description="Show a panel under every JAX error (the default).")
    p["off"] = _Parser(prog="jaxerr off", description="Stop automatic panels; %%jaxerr still explains.")
    p["status"] = _Parser(prog="jaxerr status", description="Say whether automatic panels are on.")
    d = p["draft"] = _Parser(prog="jaxerr draft", description="A record skeleton for the last JAX error, when no "
                             "record explains it (see CONTRIBUTING.md).")
    d.add_argument("--write", metavar="FILE", default=None, help="write it to FILE instead of printing it")
    d.add_argument("--force", action="store_true", help="draft even when a record explains the error")
    return p


SUBCOMMANDS = ("search", "last", "show", "fix", "on", "off", "status", "draft")


@magics_class
class JaxerrMagics(Magics):
    def __init__(self, shell: Any, state: State) -> None:
        super().__init__(shell)
        self.state = state

    @magic_arguments()
    @argument("subcommand", nargs="?", default="last", help="search | last | show | fix | on | off | status")
    @argument("args", nargs=argparse.REMAINDER, help="the subcommand's arguments (SUBCOMMAND --help)")
    @line_cell_magic
    def jaxerr(self, line: str = "", cell: str | None = None) -> Any:
        """Explain JAX errors.

        Line magic, one subcommand at a time:

          %jaxerr                     the panel of the last JAX error (same as %jaxerr last)
          %jaxerr search QUERY [--tag T] [--class C] [--limit N]
                                      search records and JAX's raise sites; words, a message or a traceback
          %jaxerr show ID             one record's panel
          %jaxerr fix [ID]            put your cell, fixed (or the record's example fix), into the next input
          %jaxerr on | off | status   automatic panels under JAX errors

        Cell magic: %%jaxerr runs the cell and explains its JAX error even when panels are off.
        Each subcommand takes --help.
        """
        if cell is not None:
            if line.strip():
                raise UsageError("%%jaxerr takes no arguments: it runs the cell and explains its JAX error")
            return self._run_cell(cell)
        try:
            words = shlex.split(line, posix=True)
        except ValueError as e:
            raise UsageError(f"%jaxerr: cannot parse the line ({e})") from None
        if words and words[0] in ("-h", "--help"):
            print(self.jaxerr.__doc__)
            return None
        if not words or words[0].startswith("-"):
            parse_argstring(self.jaxerr, line)  # reports unknown options as a UsageError
            words = ["last", *words]
        sub, rest = words[0], words[1:]
        if sub not in SUBCOMMANDS:
            raise UsageError(f"%jaxerr: unknown subcommand {sub!r}; choose one of {', '.join(SUBCOMMANDS)}")
        try:
            args = _parsers()[sub].parse_args(rest)
        except _HelpShown:
            return None
        return getattr(self, f"_{sub}")(args)

    # -- subcommands

    def _search(self, args: argparse.Namespace) -> Any:
        from jaxerrs.search_index import SearchResults, search

        if args.limit < 1:
            raise UsageError("%jaxerr search: --limit must be at least 1")
        query = " ".join(args.query)
        hits = search(query, limit=args.limit, tags=args.tag, error_class=args.cls)
        results = SearchResults(query, hits)
        if in_kernel(self.shell):
            from IPython.display import display

            display(results.widget())
        else:
            print(results.text())
        return None

    def _last(self, args: argparse.Namespace) -> None:
        if self.state.last is None:
            print("jaxerrs: no JAX error yet in this session.")
            return
        show(self.shell, self.state.last, self.state.cell_id)

    def _record(self, rid: str) -> Any:
        from jaxerrs.kb.records import find

        rec = find(rid)
        if rec is None:
            raise UsageError(f"%jaxerr: no record with id {rid!r}; try %jaxerr search WORDS")
        return rec

    def _show(self, args: argparse.Namespace) -> None:
        from jaxerrs.views import record_diagnosis

        show(self.shell, record_diagnosis(self._record(args.id)))

    def _fix(self, args: argparse.Namespace) -> None:
        last = self.state.last
        if not args.id and last is not None and last.rewrite is not None:
            rw = last.rewrite
            self.shell.set_next_input(rw.insertable(), replace=False)
            print(f"jaxerrs: {rw.where or 'your cell'}, fixed ({rw.safety}), is in the next input: {rw.summary}")
            return
        if args.id:
            rec = self._record(args.id)
        elif last is not None and last.record is not None:
            rec = self.state.last.record
        else:
            print("jaxerrs: no fix to insert: the last JAX error has no curated record (give an ID).")
            return
        self.shell.set_next_input(rec.fix.after, replace=False)
        print(f"jaxerrs: the fix for {rec.id!r} is in the next input.")

    def _draft(self, args: argparse.Namespace) -> None:
        import linecache
        from pathlib import Path

        from jaxerrs.draft import draft

        last = self.state.last
        if last is None:
            print("jaxerrs: no JAX error yet in this session: nothing to draft.")
            return
        if last.record is not None and not args.force:
            print(f"jaxerrs: record {last.record.id!r} already explains it (--force drafts one anyway).")
            return
        uf = last.evidence.user_frame
        cell = "".join(linecache.getlines(uf.filename)) if uf is not None else None
        text = draft(last, cell)
        if args.write:
            try:
                Path(args.write).write_text(text, encoding="utf-8")
            except OSError as e:
                raise UsageError(f"%jaxerr draft: cannot write {args.write} ({e})") from None
            print(f"jaxerrs: record skeleton written to {args.write}; CONTRIBUTING.md says how to finish it.")
        else:
            print(text)

    def _on(self, args: argparse.Namespace) -> None:
        self.state.enabled = True
        print("jaxerrs: panels on.")

    def _off(self, args: argparse.Namespace) -> None:
        self.state.enabled = False
        print("jaxerrs: panels off (%%jaxerr still explains one cell).")

    def _status(self, args: argparse.Namespace) -> None:
        on = "on" if self.state.enabled else "off"
        print(f"jaxerrs: panels {on}; {self.state.failures} error(s) could not be explained this session.")

    def _run_cell(self, cell: str) -> None:
        shell = self.shell
        outer = getattr(shell.displayhook, "exec_result", None)  # the result of the cell that holds %%jaxerr
        undo = _cache_code_as(shell, _running_cell_count(shell))
        self.state.force += 1
        try:
            shell.run_cell(cell, store_history=False)
        finally:
            self.state.force -= 1
            undo()
            if outer is not None:  # run_cell set it to None; the rest of the cell is still the outer one's
                shell.displayhook.exec_result = outer


def _running_cell_count(shell: Any) -> int:
    """The execution count of the cell that holds ``%%jaxerr`` (the number its prompt shows).

    The nested ``run_cell`` names its code after ``shell.execution_count``. IPython 9.8 and later advance
    that counter when a cell starts (before, at its end), so during cell [7] it already says 8 and the
    traceback would read ``Cell In[8]``. The ExecutionResult IPython gives the displayhook for the running
    cell carries the cell's own count in every version.
    """
    result = getattr(shell.displayhook, "exec_result", None)
    count = getattr(result, "execution_count", None)
    return count if isinstance(count, int) else shell.execution_count


def _cache_code_as(shell: Any, count: int) -> Callable[[], None]:
    """Until the returned undo, the shell's compiler names cached code after ``count``: ``Cell In[count]``."""
    compiler = shell.compile
    if count == shell.execution_count:  # IPython before 9.8, or a cell run without history: already right
        return lambda: None
    had_own = "cache" in vars(compiler)  # someone's instance attribute: wrapped, then put back
    previous = compiler.cache

    def cache_as_this_cell(transformed_code: str, number: int = 0, raw_code: str | None = None) -> str:
        return previous(transformed_code, count, raw_code)

    compiler.cache = cache_as_this_cell

    def undo() -> None:
        if had_own:
            compiler.cache = previous
        else:
            del compiler.cache

    return undo
