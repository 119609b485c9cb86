"""The IPython side: the custom exception handler, its chaining, load and unload.

IPython has one custom-exception slot. We keep what was there, pass it every error that is not
ours (and ours too when it was a catch-all, after our panel), and put it back on unload. IPython
unregisters a handler that raises, so ours never does.
"""

from __future__ import annotations

import sys
from typing import Any

_ATTR = "_jaxerrs_state"
# IPython shows these errors of the parse step with showsyntaxerror (see InteractiveShell.run_cell_async).
_PARSE_ERRORS = (OverflowError, SyntaxError, ValueError, TypeError, MemoryError)


class State:
    """One shell's jaxerrs state (a plain class: ``@dataclass`` would cost ``%load_ext`` a millisecond)."""

    def __init__(self, shell: Any, prev_exceptions: tuple[type[BaseException], ...], prev_custom_tb: Any) -> None:
        self.shell = shell
        self.prev_exceptions = prev_exceptions
        self.prev_custom_tb = prev_custom_tb
        self.enabled = True
        self.force = 0  # > 0 while %%jaxerr runs a cell
        self.cell_id = ""
        self.last: Any = None  # the last Diagnosis shown
        self.failures = 0
        self.warmed = False
        self.watcher: Any = None  # the import watcher, until jax is imported
        self.hooks: dict[str, Any] = {}

    @property
    def active(self) -> bool:
        return self.enabled or self.force > 0


def get_state(shell: Any) -> State | None:
    return getattr(shell, _ATTR, None)


def load(shell: Any) -> None:
    """Install the handler and the magics; a second load does nothing."""
    if get_state(shell) is not None:
        return
    state = State(shell, tuple(shell.custom_exceptions or ()), getattr(shell, "CustomTB", None))
    setattr(shell, _ATTR, state)
    extra = tuple(c for c in state.prev_exceptions if not issubclass(c, Exception))
    shell.set_custom_exc((Exception, *extra), _make_handler(state))
    state.hooks = {"pre_run_cell": _pre_run_cell_hook(state), "post_run_cell": _warm_up_hook(state)}
    for event, hook in state.hooks.items():
        shell.events.register(event, hook)
    if "jax" not in sys.modules:
        state.watcher = _JaxImportWatcher(state)
        sys.meta_path.insert(0, state.watcher)
    from jaxerrs.magics import JaxerrMagics

    shell.register_magics(JaxerrMagics(shell, state))


def unload(shell: Any) -> None:
    """Put back exactly the handler that was there before ``load``."""
    state = get_state(shell)
    if state is None:
        return
    shell.custom_exceptions = state.prev_exceptions
    shell.CustomTB = state.prev_custom_tb
    for event, hook in state.hooks.items():
        try:
            shell.events.unregister(event, hook)
        except ValueError:
            pass
    _remove_watcher(state)
    magics = shell.magics_manager.magics
    for kind in ("line", "cell"):
        magics[kind].pop("jaxerr", None)
    delattr(shell, _ATTR)


def _pre_run_cell_hook(state: State) -> Any:
    def pre_run_cell(info: Any = None) -> None:
        state.cell_id = str(getattr(info, "cell_id", "") or "")

    return pre_run_cell


def _warm_up_hook(state: State) -> Any:
    """Once the user has imported jax, load records, catalog, LibCST and the views in the background.

    The first panel then costs what the others do, instead of imports and file parsing.
    """

    def post_run_cell(result: Any = None) -> None:
        if "jax" in sys.modules:
            _remove_watcher(state)
        if "jax" in sys.modules:
            _start_warm_up(state)

    return post_run_cell


def _start_warm_up(state: State) -> None:
    """Once per session: warm up in a background thread."""
    if state.warmed:
        return
    state.warmed = True
    import threading

    threading.Thread(target=_warm_up, name="jaxerrs-warm-up", daemon=True).start()


def _warm_up() -> None:
    """What the first panel needs, in the order it needs it: records, LibCST (the panel waits for the
    rewrite), the catalog's anchors, then the views (pygments, the markdown parser)."""
    try:
        from jaxerrs import catalog, matcher, templates
        from jaxerrs.kb.records import all_records

        for rec in all_records().values():
            for pattern in rec.all_patterns:
                templates.compile_template(pattern)
        import jaxerrs.rewrite.rules  # noqa: F401 - LibCST and the rewrite rules
        cat = catalog.get_nowait()
        cat.text_candidates("")  # the templates' anchors
        matcher._jax_class_names(cat)
        from jaxerrs import prose, views

        prose.parser()
        views.highlight("x = 1")
    except Exception:  # noqa: BLE001 - warming up is an optimisation; the error path loads what it needs
        pass


class _JaxImportWatcher:
    """Starts the warm-up the moment the user's code starts importing jax; finds nothing itself.

    A meta path finder needs only ``find_spec``; no ``importlib.abc`` base, so loading imports nothing.
    """

    def __init__(self, state: State) -> None:
        self.state = state

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "jax":
            _start_warm_up(self.state)
        return None


def _remove_watcher(state: State) -> None:
    if state.watcher is not None and state.watcher in sys.meta_path:
        sys.meta_path.remove(state.watcher)
    state.watcher = None


def _is_parse_error(tb: Any) -> bool:
    """True for errors raised while IPython parsed the cell (before any of it ran)."""
    return tb is not None and tb.tb_frame.f_code.co_name != "run_code"


def _show_as_ipython_would(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any) -> None:
    if _is_parse_error(tb) and issubclass(etype, _PARSE_ERRORS):
        if issubclass(etype, IndentationError):
            shell.showindentationerror()
        else:
            shell.showsyntaxerror()
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)


def _make_handler(state: State) -> Any:
    def handler(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: Any = None) -> None:
        prev = state.prev_exceptions
        prev_owns = bool(prev) and state.prev_custom_tb is not None and issubclass(etype, prev)
        diagnosis, failed = None, None
        if state.active and issubclass(etype, Exception) and not _is_parse_error(tb):
            try:
                from jaxerrs.matcher import diagnose_exception

                diagnosis = diagnose_exception(value)
            except BaseException as e:  # noqa: BLE001 - never let IPython unregister us
                failed = e
        ours = diagnosis is not None and diagnosis.is_jax
        try:
            if prev_owns and not ours:
                return state.prev_custom_tb(etype, value, tb, tb_offset)
            _show_as_ipython_would(shell, etype, value, tb, tb_offset)
            if ours:
                try:
                    _display(state, diagnosis)
                except BaseException as e:  # noqa: BLE001
                    failed = e
                if prev_owns and (Exception in prev or BaseException in prev):
                    state.prev_custom_tb(etype, value, tb, tb_offset)
        except BaseException as e:  # noqa: BLE001
            failed = failed or e
        if failed is not None:
            state.failures += 1
            _one_line(f"jaxerrs could not explain this error ({type(failed).__name__}); "
                      "the traceback above is IPython's own.")
        return None

    return handler


def _one_line(text: str) -> None:
    try:
        print(text, file=sys.stderr)
    except Exception:  # noqa: BLE001
        pass


def in_kernel(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


def _display(state: State, diagnosis: Any) -> None:
    state.last = diagnosis
    show(state.shell, diagnosis, state.cell_id)


def show(shell: Any, diagnosis: Any, cell_id: str = "") -> None:
    """Display a panel: the display bundle in a kernel (``jaxerrs.panel``), the compact text panel in a terminal."""
    if in_kernel(shell):
        from IPython.display import display

        from jaxerrs.panel import Panel

        display(Panel(diagnosis, cell_id=cell_id))
    else:
        from jaxerrs.views import render_text

        color = str(getattr(shell, "colors", "nocolor")).lower() not in ("nocolor", "no_color")
        print(render_text(diagnosis, color=color and sys.stdout.isatty(), compact=True))
