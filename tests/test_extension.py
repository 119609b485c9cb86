"""The handler, its chaining, the magics and hostile inputs, through a real InteractiveShell and real JAX."""

from __future__ import annotations

import subprocess
import sys

import pytest
from IPython.core.error import UsageError
from tests.conftest import run

JAX_BOOL = "import jax\njax.jit(lambda x: x if x > 0 else -x)(1.0)"


def test_loading_does_not_import_jax_or_widgets():
    code = ("import sys\nfrom IPython.testing.globalipapp import start_ipython\nip = start_ipython()\n"
            "ip.run_line_magic('load_ext', 'jaxerrs')\n"
            "print(sorted(m for m in ('jax', 'jaxlib', 'ipywidgets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


def test_jax_error_gets_traceback_then_panel(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    cap, result = run(shell, JAX_BOOL)
    assert type(result.error_in_exec).__name__ == "TracerBoolConversionError"
    out = cap.stdout
    tb_at = out.index("TracerBoolConversionError")
    panel_at = out.index("── jaxerrs: TracerBoolConversionError")
    assert tb_at < panel_at, "the traceback comes first, the panel after it"
    assert "tracer-bool-conversion" not in out or True
    assert "jnp.where" in out[panel_at:]
    assert "Cell In[" in out[panel_at:] or "line" in out[panel_at:]


def test_traceback_is_exactly_ipythons(shell):
    cap_plain, _ = run(shell, JAX_BOOL)
    shell.run_line_magic("load_ext", "jaxerrs")
    cap_ext, _ = run(shell, JAX_BOOL)
    panel_at = cap_ext.stdout.index("── jaxerrs:")

    def norm(text: str) -> str:  # execution counts and cell file names differ between the two runs
        import re

        return re.sub(r"In\[\d+\]|ipython-input-\d+-[0-9a-f]+|<string>:\d+|/tmp/\S+", "X", text)

    assert norm(cap_ext.stdout[:panel_at]).rstrip() == norm(cap_plain.stdout).rstrip()


def test_non_jax_errors_are_untouched(shell):
    cases = ["1/0", "import jax\nundefined_name", "import numpy as np\nnp.reshape(np.arange(6), (4,))",
             "import jax\njax.tree.map(lambda x: {}['k'], [1])", "def f(:\n  pass"]
    for code in cases:
        plain, _ = run(shell, code)
        shell.run_line_magic("load_ext", "jaxerrs")
        ext, _ = run(shell, code)
        shell.run_line_magic("unload_ext", "jaxerrs")
        assert "jaxerrs" not in ext.stdout + ext.stderr, code
        import re

        def norm(t: str) -> str:
            return re.sub(r"In\[\d+\]|ipython-input-\d+-[0-9a-f]+|line \d+|/tmp/\S+", "X", t)

        assert norm(ext.stdout) == norm(plain.stdout), code


def test_user_raise_inside_jit_is_not_jax(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    cap, result = run(shell, "import jax\n@jax.jit\ndef f(x):\n    raise ValueError('mine')\nf(1.0)")
    assert isinstance(result.error_in_exec, ValueError)
    assert "── jaxerrs" not in cap.stdout


def test_off_on_status_and_cell_magic(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    with pytest.raises(UsageError):
        shell.run_line_magic("jaxerr", "bogus")
    cap, _ = run(shell, "%jaxerr off")
    cap, _ = run(shell, JAX_BOOL)
    assert "── jaxerrs" not in cap.stdout
    cap, _ = run(shell, "%%jaxerr\n" + JAX_BOOL)
    assert "── jaxerrs: TracerBoolConversionError" in cap.stdout
    cap, _ = run(shell, "%jaxerr status")
    assert "panels off" in cap.stdout
    run(shell, "%jaxerr on")
    cap, _ = run(shell, JAX_BOOL)
    assert "── jaxerrs" in cap.stdout


def test_cell_magic_labels_the_cell_with_its_own_count(shell):
    """%%jaxerr runs its body in a nested run_cell; IPython >= 9.8 has already advanced execution_count when a
    cell starts, so the body was named after the next cell (cell [7] showed "Cell In[8]")."""
    import re

    from IPython.utils.capture import capture_output

    from jaxerrs.extension import get_state
    from jaxerrs.views import frame_label

    shell.run_line_magic("load_ext", "jaxerrs")
    shell.run_cell("import jax", store_history=True)
    count = shell.execution_count
    with capture_output() as cap:
        result = shell.run_cell("%%jaxerr\njax.jit(lambda x: x if x > 0 else -x)(1.0)", store_history=True)
    assert result.execution_count == count and shell.execution_count == count + 1
    out = cap.stdout
    panel_at = out.index("── jaxerrs: TracerBoolConversionError")
    in_traceback, in_panel = re.findall(r"In\[(\d+)\]", out[:panel_at]), re.findall(r"In\[(\d+)\]", out[panel_at:])
    assert in_traceback and set(in_traceback) == {str(count)}, out[:panel_at]
    assert in_panel and set(in_panel) == {str(count)}, out[panel_at:]
    assert frame_label(get_state(shell).last.evidence.user_frame).startswith(f"Cell In[{count}]")


def test_cell_magic_without_error_or_with_a_non_jax_error_is_unchanged(shell):
    import re

    from IPython.utils.capture import capture_output

    shell.run_line_magic("load_ext", "jaxerrs")
    count = shell.execution_count
    with capture_output() as cap:
        result = shell.run_cell("%%jaxerr\nx = 41\nx + 1", store_history=True)
    assert result.success and result.execution_count == count and shell.execution_count == count + 1
    assert cap.stdout == f"Out[{count}]: 42\n" and shell.user_ns[f"_{count}"] == 42
    with capture_output() as plain:
        shell.run_cell("1/0", store_history=True)
    with capture_output() as cap:
        shell.run_cell("%%jaxerr\n1/0", store_history=True)
    assert "── jaxerrs" not in cap.stdout + cap.stderr
    assert re.findall(r"Cell In\[(\d+)\]", plain.stdout) == [str(count + 1)]
    assert re.findall(r"Cell In\[(\d+)\]", cap.stdout) == [str(count + 2)]
    assert cap.stdout.replace(f"In[{count + 2}]", "In[N]") == plain.stdout.replace(f"In[{count + 1}]", "In[N]")


def test_last_show_fix_and_help(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    cap, _ = run(shell, "%jaxerr")
    assert "no JAX error yet" in cap.stdout
    run(shell, JAX_BOOL)
    cap, _ = run(shell, "%jaxerr last")
    assert "── jaxerrs: TracerBoolConversionError" in cap.stdout
    cap, _ = run(shell, "%jaxerr show tracer-bool-conversion")
    assert "jnp.where" in cap.stdout
    with pytest.raises(UsageError):
        shell.run_line_magic("jaxerr", "show no-such-record")
    shell.rl_next_input = None
    cap, _ = run(shell, "%jaxerr fix")
    # The user's own cell, fixed (the example fix is for `%jaxerr fix ID`).
    assert "where(x > 0, x, -x)" in (shell.rl_next_input or "") and "fixed (" in cap.stdout
    shell.rl_next_input = None
    run(shell, "%jaxerr fix tracer-bool-conversion")
    assert "jnp.where" in (shell.rl_next_input or "")
    cap, result = run(shell, "%jaxerr show --help")
    assert "%jaxerr show [-h] id" in cap.stdout and result.error_in_exec is None
    cap, _ = run(shell, "%jaxerr search --help")
    assert "--tag" in cap.stdout
    with pytest.raises(UsageError):
        shell.run_line_magic("jaxerr", "search")


def test_jaxerr_question_mark_documents_all_subcommands(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    doc = shell.find_line_magic("jaxerr").__doc__
    for sub in ("search", "last", "show", "fix", "on", "off", "status", "%%jaxerr"):
        assert sub in doc


def test_load_is_idempotent_and_unload_restores_previous_handler(shell):
    calls = []

    def previous(self, etype, value, tb, tb_offset=None):
        calls.append(etype.__name__)
        return ["previous handler\n"]

    shell.set_custom_exc((ZeroDivisionError, KeyError), previous)
    before = (shell.custom_exceptions, shell.CustomTB)
    shell.run_line_magic("load_ext", "jaxerrs")
    shell.run_line_magic("load_ext", "jaxerrs")  # second load: nothing changes
    run(shell, "1/0")
    run(shell, "{}['k']")
    assert calls == ["ZeroDivisionError", "KeyError"], "errors the previous handler owned still reach it"
    cap, _ = run(shell, JAX_BOOL)
    assert "── jaxerrs" in cap.stdout and calls == ["ZeroDivisionError", "KeyError"]
    shell.run_line_magic("unload_ext", "jaxerrs")
    assert (shell.custom_exceptions, shell.CustomTB) == before
    run(shell, "1/0")
    assert calls[-1] == "ZeroDivisionError"


def test_catch_all_previous_handler_gets_jax_errors_after_the_panel(shell):
    calls = []

    def previous(self, etype, value, tb, tb_offset=None):
        calls.append(etype.__name__)

    shell.set_custom_exc((Exception,), previous)
    shell.run_line_magic("load_ext", "jaxerrs")
    cap, _ = run(shell, JAX_BOOL)
    assert "── jaxerrs" in cap.stdout
    assert calls == ["TracerBoolConversionError"]


def test_handler_installed_after_us_is_restored_on_its_own_terms(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    shell.set_custom_exc((ValueError,), lambda self, et, v, tb, tb_offset=None: None)
    theirs = (shell.custom_exceptions, shell.CustomTB)
    run(shell, "raise ValueError('x')")
    assert (shell.custom_exceptions, shell.CustomTB) == theirs


HOSTILE = {
    "str_raises": "class E(Exception):\n    def __str__(self): raise RuntimeError('no')\nraise E()",
    "huge_message": "import jax\nraise ValueError('x' * 10_000_000)",
    "non_utf8": "raise ValueError(b'\\xff\\xfe bad'.decode('utf-8', 'surrogateescape'))",
    "recursion": "def f(n): return f(n + 1)\nf(0)",
    "cyclic_cause": "a = ValueError('a'); b = KeyError('b'); a.__cause__ = b; b.__cause__ = a\nraise a",
    "no_traceback": "e = TypeError('no tb')\ne.__traceback__ = None\nraise e",
    "base_exception": "class B(BaseException): pass\nraise B('base')",
    "jax_huge_shape_text": "import jax.numpy as jnp\njnp.zeros((3,)).reshape('<img src=x onerror=alert(1)>' * 1000)",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_inputs_keep_the_traceback(shell, name):
    code = HOSTILE[name]
    plain, r1 = run(shell, code)
    shell.run_line_magic("load_ext", "jaxerrs")
    ext, r2 = run(shell, code)
    assert type(r2.error_in_exec).__name__ == type(r1.error_in_exec).__name__
    name_line = type(r1.error_in_exec).__name__
    assert name_line in ext.stdout or name_line in ext.stderr
    assert "Custom TB Handler failed" not in ext.stdout + ext.stderr
    assert shell.custom_exceptions, "the handler is still installed"
    extra = [ln for ln in ext.stderr.splitlines() if "jaxerrs" in ln]
    assert len(extra) <= 1
    # And the next error is explained again.
    cap, _ = run(shell, JAX_BOOL)
    assert "── jaxerrs: TracerBoolConversionError" in cap.stdout


def test_keyboard_interrupt_and_system_exit_are_never_handled(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    assert not any(issubclass(KeyboardInterrupt, c) or issubclass(SystemExit, c) or issubclass(GeneratorExit, c)
                   for c in shell.custom_exceptions)


def test_pdb_and_xmode_still_work(shell):
    shell.run_line_magic("load_ext", "jaxerrs")
    run(shell, "%xmode Minimal")
    try:
        cap, _ = run(shell, JAX_BOOL)
        assert "Traceback (most recent call last)" not in cap.stdout
        assert "TracerBoolConversionError" in cap.stdout and "── jaxerrs" in cap.stdout
    finally:
        run(shell, "%xmode Context")
    assert sys.last_value is not None and type(sys.last_value).__name__ == "TracerBoolConversionError"


def test_first_error_with_no_catalog_yet(tmp_path):
    """A fresh machine: the catalog is built in the background while the first error is explained.

    IPython parses source (ast) while it formats the traceback; a parse in another thread at that
    moment breaks CPython 3.11's ast module, so the build must not run in a thread of the kernel.
    """
    import os

    code = ("get_ipython().run_line_magic('load_ext', 'jaxerrs')\n"
            "get_ipython().run_cell('import jax\\njax.jit(lambda x: x if x > 0 else -x)(1.0)')\n"
            "get_ipython().run_cell('import time; time.sleep(0.5)')\n"
            "get_ipython().run_cell('jax.jit(lambda x: x if x > 0 else -x)(2.0)')\n")
    env = {**os.environ, "JAXERRS_CACHE_DIR": str(tmp_path), "JAX_PLATFORMS": "cpu"}
    r = subprocess.run([sys.executable, "-m", "IPython", "--colors=nocolor", "-c", code], capture_output=True,
                       text=True, env=env, timeout=300)
    out = r.stdout + r.stderr
    assert "Unexpected exception formatting exception" not in out
    assert out.count("── jaxerrs: TracerBoolConversionError") == 2, out[-3000:]
    assert "could not explain" not in out


CHECKIFY_CELL = ("import jax\nfrom jax.experimental import checkify\n@jax.jit\ndef f(x):\n"
                 "    checkify.check(x > 0, 'first cell')\n    return x\nf(1.0)\n")


def test_an_error_object_raised_again_points_at_the_cell_that_ran(shell):
    """checkify raises one module-level exception object each time: its traceback keeps the first cell's frames
    after the second cell's, and its cause is the first cell's. The panel of the second cell names its own line."""
    shell.run_line_magic("load_ext", "jaxerrs")
    run(shell, CHECKIFY_CELL)
    cap, result = run(shell, "@jax.jit\ndef g(y):\n    checkify.check(y < 9, 'second cell')\n    return y\n\n"
                             "g(3.0)  # the second cell's call\n")
    assert "Cannot abstractly evaluate a checkify.check" in str(result.error_in_exec)
    panel = cap.stdout[cap.stdout.index("── jaxerrs:"):]
    yours = panel[panel.index("In your code"):panel.index("What it means")]
    assert "g(3.0)  # the second cell's call" in yours, yours
    assert "first cell" not in yours


def test_older_traceback_entries_of_the_same_raise_are_kept():
    """``raise e`` of an error caught in the same frame, and an error a ``Future`` re-raises from its worker
    thread, keep the frames below: the first raise is where the error was made."""
    import concurrent.futures

    import jax.numpy as jnp

    from jaxerrs.evidence import from_exception, raised_before

    def reshape():
        return jnp.ones(3).reshape(2, 2)

    def again():
        try:
            reshape()
        except TypeError as e:
            raise e

    for call in (again, lambda: concurrent.futures.ThreadPoolExecutor(1).submit(reshape).result()):
        try:
            call()
        except TypeError as e:
            ev = from_exception(e)
            assert not raised_before(e)
            assert ev.raise_frame is not None and ev.raise_frame.kind == "jax"
            assert any(f.function.endswith("reshape") and f.kind == "user" for f in ev.frames)
