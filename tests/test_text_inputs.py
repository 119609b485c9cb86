"""Text that is not a traceback: JAX's own log lines, and non-JAX errors through the CLI."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import jaxerrs

CUDNN = ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8900, "
         "which is newer. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)")


@pytest.mark.parametrize("log", [
    f"2026-11-29 10:00:01 step 0 loss 1.0\nWARNING:jax._src.xla_bridge:{CUDNN}\n",
    f"W1129 10:00:00.000000 1234 xla_bridge.py:879] {CUDNN}\n",
])
def test_jax_log_warning_is_explained(log):
    d = jaxerrs.diagnose_text(log)
    assert d.is_jax and d.record is not None and d.record.id == "cuda-backend-init-failed"
    assert d.evidence.module == "jax._src.xla_bridge"


def test_unknown_jax_log_line_is_not_claimed():
    assert not jaxerrs.diagnose_text("WARNING:jax._src.xla_bridge:something else happened\n").is_jax


XLA_LOGS = [
    # absl's layout (the file's name only), an error line among info lines and a later warning.
    ("I1201 09:00:00.000000 4321 service.cc:145] XLA service 0x55d0 initialized for platform CUDA\n"
     "E1201 09:00:02.000000 4321 pjrt_stream_executor_client.cc:3045] Execution of replica 0 failed: "
     "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n"
     "W1201 09:00:02.100000 4321 bfc_allocator.cc:291] some later warning", "gpu-out-of-memory"),
    # TensorFlow's older layout, with the C++ file's path; words no record quotes.
    ("2024-03-01 10:11:12.345678: W external/xla/xla/service/gpu/nvptx_compiler.cc:760] The NVIDIA driver's "
     "CUDA version is 12.2 which is older than the ptxas CUDA version (12.4.131). Because the driver is older than "
     "the ptxas version, XLA is disabling parallel compilation, which may slow down compilation.", None),
]


@pytest.mark.parametrize("log, record", XLA_LOGS)
def test_a_line_xla_logged_is_jax_s_and_only_a_record_s_own_words_name_a_record(log, record):
    d = jaxerrs.diagnose_text(log)
    assert d.is_jax and d.evidence.module == "jaxlib" and d.evidence.exc_class == "Warning"
    assert (d.record.id if d.record else None) == record, d.to_dict()
    if record is None:
        assert d.candidates == [] and d.site is None  # no search guess about another error
        assert "XLA" in jaxerrs.render_text(d) and "an XLA log line" in jaxerrs.render_text(d)


def test_jax_s_own_log_line_after_an_xla_warning_is_the_one_read():
    log = ("2023-09-01 10:00:00.100000: W external/xla/xla/service/platform_util.cc:198] unable to create "
           "StreamExecutor for CUDA:0: failed initializing StreamExecutor for CUDA device ordinal 0\n"
           "I0901 10:00:00.200000 1400 xla_bridge.py:513] Unable to initialize backend 'cuda': INTERNAL: no "
           "supported devices found for platform CUDA\n")
    d = jaxerrs.diagnose_text(log)
    assert d.evidence.module == "jax._src.xla_bridge"
    assert d.record is not None and d.record.id == "cuda-backend-init-failed", d.to_dict()


def test_another_library_s_cpp_log_line_is_not_claimed():
    line = ("2023-01-01 10:00:00.000000: W tensorflow/core/common_runtime/gpu/gpu_device.cc:1956] Cannot dlopen "
            "some GPU libraries. Please make sure the missing libraries are installed properly.")
    assert not jaxerrs.diagnose_text(line).is_jax


def _explain(text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxerrs", "explain", "-", *args], input=text,
                          capture_output=True, text=True, timeout=300)


def test_cli_says_a_non_jax_error_is_not_jax():
    r = _explain("ZeroDivisionError: division by zero\n")
    assert r.returncode == 1 and r.stdout == ""
    assert "not a JAX error (ZeroDivisionError: division by zero)" in r.stderr
    j = _explain("ZeroDivisionError: division by zero\n", "--format", "json")
    assert j.returncode == 1 and json.loads(j.stdout)["is_jax"] is False


def test_cli_explains_a_log_line_as_html():
    r = _explain(f"WARNING:jax._src.xla_bridge:{CUDNN}\n", "--format", "html")
    assert r.returncode == 0 and 'data-record="cuda-backend-init-failed"' in r.stdout


GPU = Path(__file__).parent / "data" / "gpu"


@pytest.mark.parametrize("name", ["gpu_oom_eager", "gpu_oom_jit", "gpu_oom_matmul"])
def test_real_gpu_out_of_memory_tracebacks(name):
    """Captured on an NVIDIA H200 (JAX 0.11.2) by tests/data/gpu/capture_gpu_errors.py, script form."""
    d = jaxerrs.diagnose_text((GPU / f"{name}.txt").read_text())
    assert d.is_jax and d.record is not None and d.record.id == "gpu-out-of-memory", d.to_dict()
    assert "GiB" in d.values.get("size", "")


TPU = Path(__file__).parent / "data" / "tpu"


@pytest.mark.parametrize("name, record, value", [
    ("tpu_oom_eager", "tpu-out-of-memory", ("size", "32.00G")),
    ("tpu_oom_jit", "tpu-out-of-memory", ("available", "15.75G")),
    ("tpu_oom_many", "tpu-buffer-allocation-failed", ("free", "765.93M")),
    ("tpu_busy_platforms_set", "tpu-backend-init-failed", ("reason", "libtpu multi-process lockfile")),
    ("tpu_busy_platforms_empty", "backend-failed-to-initialize", ("platform", "tpu")),
])
def test_real_tpu_tracebacks(name, record, value):
    """Captured on a TPU v5e VM (JAX 0.10.2) by tests/data/tpu/capture_tpu_errors.py, script form: the chip's
    memory exceeded, and a second process asking for the chip another one holds."""
    d = jaxerrs.diagnose_text((TPU / f"{name}.txt").read_text())
    assert d.is_jax and d.record is not None and d.record.id == record, d.to_dict()
    # How sure it is shown is the calibrated confidence's call (benchmarks/bench_text.py (12)), not this test's.
    assert d.candidates and d.candidates[0].record is not None and d.candidates[0].record.id == record
    assert value[1] in d.values.get(value[0], ""), d.values


# ------------------------------------------------------------------------------------ what people paste (#20)

GRAD = "Gradient only defined for scalar-output functions. Output had shape: (3,)."


@pytest.mark.parametrize("text", [
    f"FilteredStackTrace: TypeError: {GRAD}",
    f"jax._src.traceback_util.UnfilteredStackTrace: TypeError: {GRAD}",
    f"When I run it I get `TypeError: {GRAD}` every time.",
    f"> loss fails with TypeError: {GRAD}",
])
def test_wrappers_and_prose_around_the_class_are_read_through(text):
    d = jaxerrs.diagnose_text(text)
    assert d.error_class == "TypeError" and d.evidence.message == GRAD
    assert d.record is not None and d.record.id == "grad-non-scalar-output"


def test_a_lowercased_builtin_class_is_repaired_and_a_file_name_is_no_class():
    from jaxerrs.evidence import from_text

    assert from_text(f"optax valueError: {GRAD}").exc_class == "ValueError"
    assert from_text("klujax.py:249, in analyze\n").exc_class == ""


def test_stdlib_and_library_sources_are_never_the_users_frame():
    text = ('Traceback (most recent call last):\n'
            '  File "/home/me/train.py", line 7, in <module>\n    step(x)\n'
            '  File "/usr/lib/python3.11/contextlib.py", line 81, in inner\n    return func(*args, **kwds)\n'
            '  File "flax/nnx/variablelib.py", line 1419, in get_value\n    value = value[index]\n'
            '  File "C:\\Python311\\Lib\\dataclasses.py", line 5, in f\n    g()\n'
            'KeyError: Ellipsis\n')
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.user_frame is not None and d.evidence.user_frame.filename == "/home/me/train.py"
    assert [f.kind for f in d.evidence.frames][1::2] == ["lib", "lib"]
    assert d.to_dict()["ecosystem"] == "flax"
    # Python raised inside Flax's code, not a check of Flax's: where it was raised, but only as a best guess.
    assert d.confidence < 0.5


def _traceback_of(fn) -> str:
    import traceback

    try:
        fn()
    except Exception:
        return traceback.format_exc()
    raise AssertionError("no error")


@pytest.mark.parametrize("fn", [
    lambda: __import__("jax").tree.map(lambda a, b: a, {"a": 1}, [1]),     # a message of several lines
    lambda: __import__("jax").jit(lambda x: x[x > 0])(__import__("jax.numpy").numpy.ones(3)),
], ids=["tree-map-mismatch", "boolean-index-under-jit"])
def test_a_paste_that_starts_inside_the_innermost_frame_header_keeps_that_frame(fn):
    """Users paste from the innermost frame on and lose its start (`packages/jax/_src/tree_util.py", line
    398, in tree_map`): that first line is still JAX's frame, so the text reads as the whole traceback does."""
    whole = _traceback_of(fn)
    lines = whole.splitlines()
    last = max(i for i, ln in enumerate(lines) if ln.lstrip().startswith('File "'))
    tail = "\n".join(lines[last:])
    cut = tail[tail.index("/jax/") - len("packages"):]
    assert cut.startswith('packages/jax/') and '", line ' in cut.splitlines()[0]
    a, b = jaxerrs.diagnose_text(whole), jaxerrs.diagnose_text(cut)
    assert b.is_jax and b.record is not None and b.record.id == a.record.id
    assert b.evidence.raise_frame is not None and b.evidence.raise_frame.kind == "jax"
    assert b.evidence.raise_frame.function == a.evidence.raise_frame.function
    assert b.site is not None and b.site.function == a.site.function
    # Only the text's first line may be such a fragment: further down it is a line of the message.
    assert jaxerrs.diagnose_text("ValueError: bad\n" + cut).evidence.raise_frame is None


def test_older_ipython_frames_keep_their_name_and_read_the_arrow_line():
    text = ("ValueError                                Traceback (most recent call last)\n"
            "<ipython-input-27-144a56eb5cb3> in <module>()\n----> 1 f(jnp.arange(12))\n\n"
            "ValueError: something\n")
    frame = jaxerrs.diagnose_text(text).to_dict()["user_frame"]
    assert frame["file"] == "<ipython-input-27-144a56eb5cb3>" and frame["line"] == 1


@pytest.mark.parametrize("text, record", [
    ("RuntimeError: Array has been deleted.", "array-deleted"),  # a shorter wording of the record's message
    ("PRNGKey accepts a scalar seed, but was given a PRNGKeyArray.", "prng-seed-not-scalar"),  # a word drifted
    ("See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.TracerIntegerConversionError",
     "tracer-integer-conversion"),  # only the docs link
])
def test_a_record_found_by_its_words_alone_is_a_best_guess(text, record):
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == record
    assert d.confidence < 0.5 and d.how == "search"


def test_words_alone_do_not_make_a_python_error_jax():
    for text in ("KeyError: 'foo'", "ValueError: bad thing happened", "IndexError: list index out of range"):
        assert not jaxerrs.diagnose_text(text).is_jax, text


def test_a_paste_that_lost_markdown_backticks_still_matches():
    d = jaxerrs.diagnose_text("ValueError: unroll must be a bool or a non-negative int.")
    assert d.is_jax and d.site is not None and d.site.function in ("scan", "scan_nocarry")


def test_a_library_raise_no_record_covers_names_the_library_and_its_site():
    pytest.importorskip("optax")
    d = jaxerrs.diagnose_text("ValueError: Unknown initial guess strategy: foo").to_dict()
    assert d["is_jax"] and d["ecosystem"] == "optax"
    assert d["site"]["path"].startswith("optax/") and "/blob/v" in d["site"]["url"]


def test_jax_02s_filtered_stack_trace_note_is_no_part_of_the_message():
    text = ("jax.traceback_util.FilteredStackTrace: TypeError: <class 'function'> is not a valid JAX type\n\n"
            "The stack trace above excludes JAX-internal frames.\n"
            "The following is the original exception that occurred, unmodified.\n\n--------------------\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.message == "<class 'function'> is not a valid JAX type" and d.evidence.frames_removed
    assert d.is_jax and d.record is not None and d.record.id == "invalid-jax-type-argument"


def _ipython_traceback(ip, exc: BaseException) -> str:
    itb = ip.InteractiveTB
    return itb.stb2text(itb.structured_traceback(type(exc), exc, exc.__traceback__))


def _arange_under_jit() -> BaseException:
    import jax
    import jax.numpy as jnp

    try:
        jax.jit(lambda n: jnp.arange(n))(3)
    except Exception as e:  # noqa: BLE001 - the error is what the test reads
        return e
    raise AssertionError("jnp.arange of a traced argument ran")


def test_a_multiline_message_quoted_or_after_the_users_words_is_read_whole(_ipython):
    """A paste quoted as Markdown, or with the user's words before the class, keeps the message's later lines
    (the records for one API are told apart by them)."""
    whole = _ipython_traceback(_ipython, _arange_under_jit())
    message = whole.rstrip().splitlines()
    last = next(i for i in range(len(message) - 1, -1, -1) if message[i].startswith("ConcretizationTypeError"))
    for text in ("\n".join("> " + ln for ln in whole.splitlines()),
                 "I keep getting this:\n" + "\n".join(["Any idea? " + message[last], *message[last + 1:]])):
        d = jaxerrs.diagnose_text(text)
        assert d.record is not None and d.record.id == "concretization-arange", text
        assert "jnp.arange" in d.evidence.message


def test_a_message_cut_where_several_records_start_alike_is_a_best_guess():
    d = jaxerrs.diagnose_text("ConcretizationTypeError: Abstract tracer value encountered where concrete value is")
    assert d.is_jax and d.record is not None and d.confidence < 0.5
    listed = {c.record.id for c in d.candidates if c.record is not None}
    assert d.record.id in listed and len(listed) >= 2, listed


def test_the_kept_release_tracebacks_in_every_paste_style():
    """The corpus of tests/text_corpus.py (the kept tracebacks of older releases, in each way people paste
    them): each style names the reproducer's record for nearly all, and never a wrong one with confidence,
    except a message cut short, which can be the start of several records' words."""
    import text_corpus

    for style, (n, right, wrong) in text_corpus.figures(text_corpus.run(text_corpus.KEPT)).items():
        if style.startswith("release"):
            continue
        floor = 0.7 if style == "cut short" else 0.97
        assert right >= floor * n, f"{style}: {right} of {n} right"
        assert wrong <= (0.02 * n if style == "cut short" else 0), f"{style}: {wrong} confident wrong of {n}"


def _pasted_pjit_frame(line: int, shown: str) -> str:
    """A traceback pasted from another release, whose frame shows ``shown`` at ``line`` of pjit.py."""
    return "\n".join([
        "ValueError                                Traceback (most recent call last)",
        "Cell In[3], line 1",
        "----> 1 f(jnp.arange(5))",
        "",
        f"File ~/env/lib/python3.11/site-packages/jax/_src/pjit.py:{line}, in pjit_check_aval_sharding(shardings, "
        "flat_avals, names, what_aval, allow_uneven_sharding)",
        f"-> {line}     {shown}",
        "",
        "ValueError: One of pjit outputs was given the sharding of NamedSharding(mesh=Mesh('x': 4), "
        "spec=PartitionSpec('x',)), which implies that the global size of its dimension 0 should be divisible "
        "by 4, but it is equal to 5 (full shape: (5,))",
    ])


def test_a_raise_shown_in_a_frame_of_another_release_is_its_site():
    """The pasted frame shows the raise at a line where a release in the history index raises it from that
    function: that is the site, in that release, though the installed JAX has the function elsewhere."""
    from jaxerrs import history

    h = history.load()
    releases = [r for r in h.releases() if (hit := h.site_at("jax/_src/pjit.py", 1417, r)) is not None
                and hit.function == "pjit_check_aval_sharding"]
    assert releases, "the history index has no release raising at pjit.py:1417"
    d = jaxerrs.diagnose_text(_pasted_pjit_frame(1417, 'raise ValueError(f"One of {what_aval}{name_str} was "'))
    assert d.site is not None
    assert (d.site.path, d.site.function, d.site.line) == ("jax/_src/pjit.py", "pjit_check_aval_sharding", 1417)
    assert d.site.jax_version == releases[-1]
    # A shown raise of another class, or a line no release raises at, names no site.
    assert jaxerrs.diagnose_text(_pasted_pjit_frame(1417, 'raise TypeError("One of")')).site is None
    assert jaxerrs.diagnose_text(_pasted_pjit_frame(1402, 'raise ValueError(f"One of {what_aval}"')).site is None


def test_python_s_own_wording_under_frames_with_none_of_jax_s_is_python_s_raise():
    """``module 'jax' has no attribute …`` is how Python words any module's missing attribute, and how JAX's module
    ``__getattr__`` words it too. A traceback whose frames end in the user's line, with no frame of JAX's under
    it, was raised by Python's own lookup: the record, but no site of JAX's. A final line alone keeps the site."""
    text = "AttributeError: module 'jax' has no attribute 'tree_multimap'"
    user = ('Traceback (most recent call last):\n  File "/w/train.py", line 9, in <module>\n    main()\n'
            '  File "/w/train.py", line 3, in main\n    return jax.tree_multimap(f, a, b)\n' + text)
    d = jaxerrs.diagnose_text(user)
    assert d.is_jax and d.record is not None and d.record.id == "removed-tree-multimap"
    assert d.site is None and any("Python itself words" in n for n in d.notes)
    assert any(c.site is not None and c.site.path == "jax/_src/deprecations.py" for c in d.candidates)
    alone = jaxerrs.diagnose_text(text)
    assert alone.site is not None and alone.site.path == "jax/_src/deprecations.py"
    framed = user.replace("    return jax.tree_multimap(f, a, b)\n", "    return jax.tree_multimap(f, a, b)\n"
                             '  File "/env/lib/python3.11/site-packages/jax/_src/deprecations.py", line 57, in getattr\n'
                             '    raise AttributeError(f"module {module!r} has no attribute {name!r}")\n')
    placed = jaxerrs.diagnose_text(framed)
    assert placed.site is not None and placed.site.path == "jax/_src/deprecations.py"


def test_a_traceback_in_one_inline_code_span_or_a_fence_is_read_as_printed():
    """Markdown around a paste: one inline code span holding the whole traceback (its frames count), and a fenced
    block followed by the user's prose (the fence ends the message; the prose is no part of it)."""
    frame = ('File "/home/u/envs/a/lib/python3.11/site-packages/optax/_src/transform.py", line 80, in _update_moment\n'
             "    return jax.tree_multimap(\n")
    d = jaxerrs.diagnose_text("`" + frame + "AttributeError: module 'jax' has no attribute 'tree_multimap'`")
    assert d.evidence.frames and d.evidence.frames[-1].function == "_update_moment"
    assert d.evidence.message == "module 'jax' has no attribute 'tree_multimap'" and d.ecosystem == "optax"
    fenced = ("I get this:\n```python\nTraceback (most recent call last):\n"
              '  File "/w/train.py", line 3, in main\n    y = 1 if x > 0 else 0\n'
              "jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].\n"
              "```\nAny idea why? It worked before.")
    d = jaxerrs.diagnose_text(fenced)
    assert d.evidence.message == "Attempted boolean conversion of traced array with shape bool[]."
    assert d.record is not None and d.record.id == "tracer-bool-conversion"


def test_a_rich_traceback_is_read_frame_by_frame():
    """``rich.traceback`` boxes the frames (``│ path.py:6 in f │``, ``│ ❱ 6 │   code │``) and wraps the message at
    the console's width: the user's frame and line and the record come through as from Python's own print."""
    rich_console = pytest.importorskip("rich.console")
    import jax
    import jax.numpy as jnp
    from rich.traceback import Traceback

    def f(x):
        if x > 0:
            return x
        return -x

    try:
        jax.jit(f)(jnp.float32(1.0))
    except Exception as e:  # noqa: BLE001 - the real error, rendered by rich
        out = io.StringIO()
        rich_console.Console(width=100, file=out, color_system=None).print(
            Traceback.from_exception(type(e), e, e.__traceback__))
    text = out.getvalue()
    assert "╭" in text and "❱" in text
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "tracer-bool-conversion"
    u = d.evidence.user_frame
    assert u is not None and Path(u.filename).name == Path(__file__).name and u.line == "if x > 0:"


def test_a_chain_pasted_up_to_inside_its_last_block_takes_the_error_of_the_block_before():
    """JAX 0.2-0.4 printed the error twice: unfiltered (``UnfilteredStackTrace: …``), then "The above exception
    was the direct cause of the following exception" and the filtered frames. A paste that stops inside that
    last block, before its exception line, is still that error; its frames are the ones the paste ends with."""
    text = ("UnfilteredStackTrace: AttributeError: module 'jax' has no attribute 'tree_multimap'\n\n"
            "The stack trace below excludes JAX-internal frames.\n"
            "The preceding is the original exception that occurred, unmodified.\n\n--------------------\n\n"
            "The above exception was the direct cause of the following exception:\n\n"
            "AttributeError                            Traceback (most recent call last)\n"
            "/home/u/train.py in step(state)\n     41     done = state.t > 10\n"
            "---> 43     state = jax.tree_multimap(\n     44         lambda x, y: x + y, state, state\n")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.evidence.exc_class == "AttributeError"
    assert d.record is not None and d.record.id == "removed-tree-multimap"
    assert d.evidence.user_frame is not None and d.evidence.user_frame.lineno == 43


def test_a_paste_whose_frames_end_in_python_s_library_at_a_call_is_read_by_its_words():
    """Frames that end in the standard library at a call (``contextlib``'s ``return func(…)``) were cut above what
    raised: JAX's words still make it JAX's error, and Python's words still leave it alone."""
    stdlib = '  File "/usr/lib/python3.11/contextlib.py", line 81, in inner\n    return func(*args, **kwds)\n'
    d = jaxerrs.diagnose_text(stdlib + "TypeError: Attempted boolean conversion of traced array with shape bool[].")
    assert d.is_jax and d.record is not None and d.record.id == "tracer-bool-conversion"
    assert d.evidence.user_frame is None
    assert not jaxerrs.diagnose_text(stdlib + "KeyError: 'params'").is_jax
    # Under the user's line too: that line called into JAX, whose frames were filtered; it did not raise.
    user = '  File "/home/u/train.py", line 12, in <module>\n    g = jax.grad(f)(x)\n'
    under = jaxerrs.diagnose_text("Traceback (most recent call last):\n" + user + stdlib
                                  + "TypeError: Gradient only defined for scalar-output functions. Output had shape: (3,).")
    assert under.is_jax and under.record is not None and under.record.id == "grad-non-scalar-output", under.to_dict()
    assert under.evidence.user_frame is not None and under.evidence.user_frame.lineno == 12
    assert not jaxerrs.diagnose_text("Traceback (most recent call last):\n" + user + stdlib
                                     + "TypeError: cannot pickle '_thread.lock' object").is_jax


def test_the_link_flax_s_errors_end_with_names_the_class_when_none_was_pasted():
    """Flax's errors end with a link to their page (``…/flax.errors.html#flax.errors.ScopeParamNotFoundError``):
    pasted without its class, the message still names Flax and the class through it."""
    link = "(https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.ScopeParamNotFoundError)"
    d = jaxerrs.diagnose_text(f'Could not find parameter named "kernel" in scope "/Dense_0". {link}')
    assert d.is_jax and d.ecosystem == "flax" and d.evidence.exc_class == "ScopeParamNotFoundError"
    assert d.record is not None and d.record.id == "flax-linen-param-not-found"


def test_a_wording_with_an_inserted_clause_is_the_record_it_spells():
    """Another release added a clause inside the message ("during a call to 'f'"): every word of the record's
    pattern is still there, in order, so the text is that record's error (a best guess: no pattern matched)."""
    text = ("ValueError: Non-hashable static arguments are not supported. An error occurred during a call to "
            "'step' while trying to hash an object of type <class 'list'>, [1, 2]. The error was:\n"
            "TypeError: unhashable type: 'list'")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "jit-non-hashable-static-arg", d.to_dict()
    # A few of the record's words, in order, are not enough.
    assert not jaxerrs.diagnose_text("ValueError: could not hash the object of type list while calling step").is_jax


def test_an_older_library_wording_at_the_records_site_and_class_is_that_record():
    """No pattern words Flax 0.6.8-0.11.1's ScopeParamShapeError message, but Flax's history places it at the raise
    the record lists (``Scope.param``) and the class pasted is the record's own: the record, vouched by both."""
    text = ('flax.errors.ScopeParamShapeError: Initializer expected to generate shape (5, 4) but got shape (3, 4) '
            'instead for parameter "kernel" in "/Dense_0". '
            "(https://flax.readthedocs.io/en/latest/api_reference/flax.errors.html#flax.errors.ScopeParamShapeError)")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "flax-linen-param-shape-mismatch", d.to_dict()
    assert d.how == "raise site + class" and d.features["site_class"] == 1.0 and d.features["search"] == 0.0
    assert d.site is not None and d.site.function == "Scope.param" and d.ecosystem == "flax"


@pytest.mark.parametrize("text, record", [
    # A sentence quoting the message after "error:" (no class pasted).
    ('Running the model gives this error: "Submodules must be defined in `setup()` or in a method wrapped in '
     '`@compact`" and I do not see why', "flax-linen-submodule-outside-setup"),
    # A sentence naming only the class, in backticks.
    ("Calling the method afterwards ends in `CallCompactUnboundModuleError`.", "flax-linen-call-unbound-module"),
])
def test_a_users_sentence_about_the_error_is_read(text, record):
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == record, d.to_dict()
    assert d.confidence < 0.5  # words the user chose: a best guess


def test_a_message_quoted_as_code_after_the_users_words_is_read():
    text = ("Adding the attribute fails, the error is: `Module instance is frozen outside of setup method.` "
            "though `self.features` can be changed")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "flax-linen-set-attribute-frozen", d.to_dict()
    # Code in backticks after the same words is no message.
    assert not jaxerrs.diagnose_text("I get an error when calling `jax.jit(f, static_argnums=(0,))` on it").is_jax


def test_a_traceback_with_every_line_in_backticks_is_read_as_printed():
    text = "\n".join(f"`{ln}`" for ln in [
        "-" * 75,
        "TypeError                                 Traceback (most recent call last)",
        "Cell In[4], line 3",
        "      1 import jax",
        "      2 f = jax.jit(lambda x: x)",
        "----> 3 f(x=[1, 2])",
        "",
        "TypeError: unhashable type: 'list'"]) .replace("``", "")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "TypeError" and d.evidence.message == "unhashable type: 'list'"
    uf = d.evidence.user_frame
    assert uf is not None and (uf.filename, uf.lineno) == ("Cell In[4]", 3)


def test_a_library_s_source_checkout_is_not_the_users_code():
    text = ('Traceback (most recent call last):\n'
            '  File "/home/me/work/train.py", line 40, in <module>\n'
            '    model = Net(key)\n'
            '  File "/home/me/src/equinox/equinox/_not_in_any_release.py", line 12, in __call__\n'
            '    object.__setattr__(self, "x", 1)\n'
            "AttributeError: 'Net' object has no attribute 'x'")
    d = jaxerrs.diagnose_text(text)
    uf = d.evidence.user_frame
    assert uf is not None and uf.filename == "/home/me/work/train.py", d.to_dict()


@pytest.mark.parametrize("text, function", [
    # A library's constant prefix ("[Chex] ") fills the hole its template starts with; the rest was cut.
    ("AssertionError: [Chex] Function 'step' is traced > 2 times!", "assert_max_traces.<locals>.fn_wrapped"),
    # Its start left out: the words that say what is wrong, quoted from the middle of the message.
    ("AssertionError: expected shapes should be a list or tuple of ints, got (3, None)", "assert_shape"),
])
def test_a_library_message_cut_at_either_end_names_the_library_and_its_raise(text, function):
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.ecosystem == "chex", d.to_dict()
    assert d.site is not None and d.site.path == "chex/_src/asserts.py" and d.site.function == function
    assert d.confidence < 0.5  # a part of the words only: a best guess


def test_an_older_ipython_cell_frame_without_arguments_is_the_users_frame():
    text = ("-" * 75 + "\nValueError                                Traceback (most recent call last)\n"
            "<ipython-input-7-0a1b2c3d4e5f> in <module>\n----> 1 y = jnp.ones((2, 3)) @ jnp.ones((4, 5))\n\n"
            "/usr/local/lib/python3.7/site-packages/jax/_src/numpy/lax_numpy.py in matmul(a, b, precision)\n"
            "   2790     raise ValueError(msg)\n\n"
            "ValueError: matmul requires contracting dims to match")
    uf = jaxerrs.diagnose_text(text).evidence.user_frame
    assert uf is not None and (uf.filename, uf.lineno) == ("<ipython-input-7-0a1b2c3d4e5f>", 1)


def test_an_exception_line_made_a_markdown_heading_is_the_exception_line():
    text = ("# ValueError: Non-hashable static arguments are not supported. An error occured during a call to "
            "'step' while trying to hash an object of type <class 'list'>, [1, 2]. The error was:\n"
            "    TypeError: unhashable type: 'list'")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "ValueError"
    assert d.record is not None and d.record.id == "jit-non-hashable-static-arg", d.to_dict()


def test_a_library_class_under_its_older_name_raised_where_the_record_no_longer_lists_names_its_one_record():
    # Equinox 0.11.0-0.11.4 called EquinoxRuntimeError EqxRuntimeError and raised it elsewhere.
    text = ('  File "/home/u/venv/lib/python3.11/site-packages/equinox/_errors.py", line 70, in raises\n'
            "    raise EqxRuntimeError(msgs[_index.item()])\n"
            "equinox._errors.EqxRuntimeError: step size must be positive")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "equinox-error-if", d.to_dict()
    # No pattern words it: the raise the traceback shows, which the record lists (the check's host callback),
    # names the record (how sure, with the raise shown, is the fit's call).
    assert d.ecosystem == "equinox" and d.how == "raise site + class"
    assert d.site is not None and d.site.path == "equinox/_errors.py"  # the raise the traceback shows


def test_an_error_compiled_code_raised_is_placed_at_jax_s_call_not_at_another_raise_of_that_function():
    d = jaxerrs.diagnose_text("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
                              "trying to allocate 7406166528 bytes.")
    assert d.record is not None and d.record.id == "gpu-out-of-memory"
    # The function that called into XLA, not one of its raises (which word other errors).
    assert d.site is not None and d.site.function == "ExecuteReplicated.__call__" and d.site.template is None
    assert d.features["call_site"] == 1.0 and "no_execution" not in jaxerrs.render_text(d)


def test_words_only_a_library_s_messages_carry_name_the_library_without_frames():
    d = jaxerrs.diagnose_text("AssertionError: [Chex] Assertion assert_shape failed: Error in shape compatibility "
                              "check: input 0 has shape (2,) but expected (3,).")
    assert d.is_jax and d.ecosystem == "chex" and d.record is not None and d.record.id == "chex-assert-shape"
    # The same class with a user's own words is nobody's but the user's.
    assert not jaxerrs.diagnose_text("AssertionError: the loss went up after step 3").is_jax


def test_no_record_about_another_function_is_guessed_for_an_error_naming_its_own():
    d = jaxerrs.diagnose_text("AssertionError: [Chex] Assertion assert_tree_is_sharded failed: Tree leaf 'a' "
                              "is not sharded")
    assert d.is_jax and d.ecosystem == "chex"
    # chex-assert-tree-all-finite's words start alike but name assert_tree_all_finite: no guess at all.
    assert d.record is None and all(c.record is None for c in d.candidates), d.to_dict()
    named = jaxerrs.diagnose_text("AssertionError: [Chex] Assertion assert_tree_all_finite failed: Tree contains "
                                  "non-finite value: a.")
    assert named.record is not None and named.record.id == "chex-assert-tree-all-finite"


def test_a_sentence_naming_a_builtin_class_or_quoting_no_error_is_not_jax():
    assert not jaxerrs.diagnose_text("I get a `ValueError` when I call it").is_jax
    assert not jaxerrs.diagnose_text('my notes say "remember to restart the kernel before running"').is_jax


def test_a_short_pattern_whose_hole_holds_a_jax_object_calls_the_text_jax_s():
    # jax.tree.map's older wording spells 19 characters; the rest is the value it was handed. A Tracer there (a
    # user's prefix before the class, as pasted into an Optax thread) says JAX's values went through the raise.
    traced = jaxerrs.diagnose_text("optax valueError: Expected dict, got "
                                   "Traced<ShapedArray(float32[128,6])>with<DynamicJaxprTrace(level=1/0)>.")
    assert traced.is_jax and traced.record is not None and traced.record.id == "tree-map-node-type-mismatch"
    assert traced.confidence < 0.5, traced.to_dict()
    # The same words around a long value of the user's own: nothing says JAX raised it.
    plain = jaxerrs.diagnose_text("ValueError: Expected dict, got TrainConfig(learning_rate=0.1, "
                                  "schedule='cosine', warmup_steps=1000, decay=0.99, seed=0).")
    assert not plain.is_jax, plain.to_dict()


def test_a_message_that_starts_as_one_record_s_pattern_and_then_drifts_is_that_record_s_guess():
    # An older release's wording: the same first words, then another tracer repr and a sentence the record lacks.
    text = ("Exception: The numpy.ndarray conversion method __array__() was called on the JAX Tracer object "
            "Traced<ShapedArray(float32[4])>with<DynamicJaxprTrace(level=1/0)>. Use jnp instead of np.")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "tracer-array-conversion", d.to_dict()
    assert d.confidence < 0.5  # a guess from the words' start: shown as one


def test_a_start_shorter_than_the_shared_start_names_no_record():
    from jaxerrs import matcher
    from jaxerrs.kb import records

    # 28 characters of that record's words, then other words: no record is led by so short a start.
    assert matcher._shared_start("The numpy.ndarray conversion is unsupported", records.GENERATION) is None
    # 30 and more: that record.
    assert matcher._shared_start("The numpy.ndarray conversion method was removed", records.GENERATION) == (
        "tracer-array-conversion")


def test_a_library_raise_under_an_older_function_name_is_guessed_from_a_record_of_that_file_whose_words_agree():
    pytest.importorskip("flax")
    from jaxerrs import matcher
    from jaxerrs.kb import records

    frame = ('  File "/srv/env/lib/python3.10/site-packages/flax/linen/module.py", line 412, in wrapped_method\n'
             '    raise ValueError("Can\'t call compact methods on detached modules")\n')
    d = jaxerrs.diagnose_text(f"Traceback (most recent call last):\n{frame}"
                              "ValueError: Can't call compact methods on detached modules")
    assert matcher._shared_start(d.evidence.match_text, records.GENERATION) is None  # the file and words name it
    assert d.record is not None and d.record.id == "flax-linen-call-unbound-module", d.to_dict()
    # The same file raising Python's own words: no record of that file speaks them.
    other = jaxerrs.diagnose_text(
        'Traceback (most recent call last):\n'
        '  File "/srv/env/lib/python3.10/site-packages/flax/linen/module.py", line 98, in _map_over\n'
        '    raise ValueError("expected a sequence of length two")\n'
        "ValueError: expected a sequence of length two")
    assert other.record is None, other.to_dict()


@pytest.mark.parametrize(("collection", "function"), [("params", "Scope.param"), ("batch_stats", "Scope.variable")])
def test_a_flax_record_s_site_is_the_raise_whose_words_the_message_has(collection, function):
    pytest.importorskip("flax")
    text = (f'flax.errors.ScopeCollectionNotFound: Tried to access "kernel" from collection "{collection}" in '
            '"/Dense_0" but the collection is empty.')
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "flax-linen-collection-empty", d.to_dict()
    assert d.site is not None and (d.site.path, d.site.function) == ("flax/core/scope.py", function)


@pytest.mark.parametrize("text", [
    "TypeError: unhashable type: 'DynamicJaxprTracer'",
    "TypeError: unhashable type: 'BatchTracer'",
    "TypeError: unhashable type: 'jaxlib.xla_extension.ArrayImpl'",  # 0.4.x names its module so
])
def test_a_jax_array_or_tracer_hashed_is_jax_s_and_a_list_hashed_is_not(text):
    """Python's words, but the type it names is JAX's: an array or tracer used as a dict key, in a set or a cache."""
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "array-or-tracer-unhashable"
    assert not jaxerrs.diagnose_text("TypeError: unhashable type: 'list'").is_jax


def test_a_class_only_jax_raises_below_the_user_s_frame_is_jax_s_in_any_release_s_words():
    """JAX filters its own frames out, so the last frame shown is the user's line; IPython prints the class
    without its module. A class only JAX's Python raises is JAX's there too, also in an older release's words
    (0.4.12 and older said "… on the JAX Tracer object Traced<…>"), placed where those releases raised it."""
    text = ('  File "/home/me/model.py", line 40, in step\n    return onp.asarray(x)\n'
            "TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on the JAX "
            "Tracer object Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "tracer-array-conversion"
    assert d.site is not None and d.site.function == "Tracer.__array__" and d.site.jax_version == "0.4.12"
    assert d.evidence.user_frame is not None and d.evidence.user_frame.lineno == 40
    # A class of the user's own on the user's line stays the user's.
    assert not jaxerrs.diagnose_text(text.replace("TracerArrayConversionError", "MyConversionError")).is_jax


def test_a_record_quoting_only_the_cause_does_not_stop_the_guess_by_the_whole_message():
    """An older wording of the static-argument error ends with its cause, Python's "unhashable type: …Tracer":
    that clause's record (another class, later in the message) does not answer it; the words of the whole do."""
    text = ("ValueError: Non-hashable static arguments are not supported. An error occured during a call to 'step' "
            "while trying to hash an object of type <class 'jax.interpreters.partial_eval.DynamicJaxprTracer'>, "
            "Traced<ShapedArray(int32[])>with<DynamicJaxprTrace(level=1/0)>. The error was:\n"
            "TypeError: unhashable type: 'DynamicJaxprTracer'")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "jit-non-hashable-static-arg"
    assert d.confidence < 0.5  # a guess by words, shown as one
    # Quoted in one code span with no class printed: the cause's own class, inside the message, tells the cause
    # (another record's words) from the error.
    bare = ("I get this error:\n\n`Non-hashable static arguments are not supported. An error occurred during a call to "
            "'step' while trying to hash an object of type <class 'jax.interpreters.partial_eval.DynamicJaxprTracer'>, "
            "Traced<ShapedArray(int32[])>with<DynamicJaxprTrace(level=1/0)>. The error was:\n"
            "TypeError: unhashable type: 'DynamicJaxprTracer'`")
    d = jaxerrs.diagnose_text(bare)
    assert d.evidence.exc_class == "" and d.record is not None and d.record.id == "jit-non-hashable-static-arg"


_PYTEST_FAILING = '''
import jax
import jax.numpy as jnp


def loss(x):
    if x > 0:
        return x
    return -x


def test_traced_if():
    jax.jit(loss)(jnp.ones(()))


def test_shapes():
    a = jnp.ones((3, 4))
    assert (a @ jnp.ones((5, 6))).shape == (3, 6)
'''


@pytest.fixture(scope="module")
def pytest_outputs(tmp_path_factory):
    """Real pytest reports of two real JAX errors: each ``--tb`` style, with JAX's frames filtered and not."""
    import os

    d = tmp_path_factory.mktemp("pytest_report")
    (d / "test_fails.py").write_text(_PYTEST_FAILING)
    out = {}
    for filtering in ("auto", "off"):
        for tb in ("short", "long", "auto"):
            env = {**os.environ, "JAX_TRACEBACK_FILTERING": filtering, "JAX_PLATFORMS": "cpu"}
            env.pop("PYTEST_XDIST_WORKER", None)
            run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                                  f"--tb={tb}", "test_fails.py"], cwd=d, env=env, capture_output=True, text=True)
            assert "2 failed" in run.stdout, run.stdout[-2000:]
            out[filtering, tb] = run.stdout
    return out


@pytest.mark.parametrize("filtering", ["auto", "off"])
@pytest.mark.parametrize("tb", ["short", "long", "auto"])
def test_pytest_reports_give_their_frames(pytest_outputs, tb, filtering):
    """pytest's frames (``path.py:12: in fn`` over its line; or the source with its ``>`` line, then
    ``path.py:12: TypeError``) are read as frames: the user's frame is the test file's line, and the site and
    record are those of the failure the frames belong to (the last one, when the whole report is pasted)."""
    text = pytest_outputs[filtering, tb]
    head = "_ test_shapes _"
    first, last = text.split(head)[0], head + text.split(head)[1]
    for part, record, line in ((first, "tracer-bool-conversion", 7), (last, "dot-general-contracting-mismatch", 18),
                               (text, "dot-general-contracting-mismatch", 18)):
        d = jaxerrs.diagnose_text(part)
        assert d.record is not None and d.record.id == record
        frame = d.to_dict()["user_frame"]
        assert frame is not None and Path(frame["file"]).name == "test_fails.py" and frame["line"] == line
        if filtering == "off":  # JAX's frames are in the report: the raise is shown, and the answer sure
            assert d.site is not None and d.site.path.startswith("jax/") and d.confidence >= 0.5


def test_a_message_jax_and_a_library_word_alike_lists_both_raises():
    """JAX's array serialization and Orbax both raise ``Checkpoint path should be absolute. Got …``: from text,
    with no frame to tell them apart, both raises are candidates on one scale, the path (one token, however
    long) counted as the run's value, not as words either chose (JAX's first, the tie kept). The record written
    for both raises is the answer, as a best guess; no library is named, since either may have raised it."""
    pytest.importorskip("orbax.checkpoint")
    d = jaxerrs.diagnose_text("ValueError: Checkpoint path should be absolute. Got "
                              "checkpoints/experiments/model_with_a_long_name/best/3193/default")
    assert d.is_jax and d.confidence < 0.5
    assert d.record is not None and d.record.id == "orbax-checkpoint-path-not-absolute" and d.ecosystem is None
    paths = [c.site.path for c in d.candidates if c.site is not None]
    assert any(p.startswith("jax/") for p in paths) and any(p.startswith("orbax/checkpoint/") for p in paths)
    assert d.site is not None and d.site.path == paths[0]


def test_colab_frames_pasted_as_markdown_links_with_a_cell_line_name_are_read():
    """Colab's traceback copied from the rendered page: each frame header is a Markdown link to the file, and the
    cell's own frame is named ``<cell line: 0>`` (spaces in it); its arrow line gives the line that raised."""
    text = (
        "---------------------------------------------------------------------------\n"
        "AttributeError                            Traceback (most recent call last)\n"
        "[/tmp/ipython-input-123456789.py](https://localhost:8080/#) in <cell line: 0>()\n"
        "      1 import flax.nnx as nnx\n"
        "----> 2 opt = nnx.ModelAndOptimizer(model, tx)\n"
        "\n"
        "AttributeError: module 'flax.nnx' has no attribute 'ModelAndOptimizer'\n")
    d = jaxerrs.diagnose_text(text)
    frame = d.to_dict()["user_frame"]
    assert frame is not None and frame["file"] == "/tmp/ipython-input-123456789.py" and frame["line"] == 2
    assert frame["function"] == "<module>"
    assert d.ecosystem == "flax" and d.site is None
    assert all("JAX's place for these words" not in n for n in d.notes)  # a library's name, not JAX's raise


def test_compiled_code_raising_python_s_words_in_a_function_records_list_is_guessed_from_those_records():
    """``jnp.broadcast_to`` of JAX 0.4.25 zipped the shapes with jaxlib's compiled ``safe_zip``: its ``ValueError``
    speaks of ``safe_zip``, in the frame of ``_broadcast_to``. The records of that class listing the function are
    the guesses, by how their text fits; a call into compiled code that raises many errors (``apply_primitive``)
    guesses nothing from records whose text does not fit."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 4, in <module>\n'
        "    jnp.broadcast_to(jnp.ones((2, 3)), (3,))\n"
        '  File "/venv/lib/python3.11/site-packages/jax/_src/numpy/lax_numpy.py", line 1222, in broadcast_to\n'
        "    return util._broadcast_to(array, shape)\n"
        '  File "/venv/lib/python3.11/site-packages/jax/_src/numpy/util.py", line 425, in _broadcast_to\n'
        "    for arr_d, shape_d in safe_zip(arr_shape, shape_tail))\n"
        "ValueError: safe_zip() argument 2 is shorter than argument 1\n")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id.startswith("broadcast-to-")
    assert (d.site.path, d.site.function) == ("jax/_src/numpy/util.py", "_broadcast_to")
    assert d.confidence < 0.5  # a guess: no record words it
    other = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 9, in <module>\n'
        "    out = my_ffi_op(x)\n"
        '  File "/venv/lib/python3.11/site-packages/jax/_src/dispatch.py", line 90, in apply_primitive\n'
        "    outs = fun(*args)\n"
        "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Unsupported attribute type for attribute: array\n")
    assert jaxerrs.diagnose_text(other).record is None


def test_an_older_wording_is_placed_at_the_record_s_site_whose_raise_words_it_in_those_releases():
    """invalid-jax-type-argument lists several sites for its releases before 0.5.0; the "Value … with type … is
    not a valid JAX type" wording was raised by ``concrete_aval`` only (``git show jax-v0.4.31:jax/_src/core.py``),
    though ``dispatch.check_arg`` existed in all of them."""
    d = jaxerrs.diagnose_text("TypeError: Value <function <lambda>.<locals>.<lambda> at 0x7f00deadbeef> with type <class 'function'> is "
                              "not a valid JAX type")
    assert d.record is not None and d.record.id == "invalid-jax-type-argument"
    assert (d.site.path, d.site.function) == ("jax/_src/core.py", "concrete_aval")
    assert d.site.jax_version.startswith("0.4.")


@pytest.mark.parametrize("width", [90, 110])
def test_a_library_message_cut_inside_a_word_at_any_long_width_is_read_joined(width):
    """A log viewer or an issue's code block may cut a long line at a width no terminal uses, inside a word
    ("pass" / "ing"). The joined reading counts when a raise's words (Optax's here) fit it better."""
    message = ("ValueError: You are using a transformation that requires the current value of parameters, but you "
               "are not passing `params` when calling `update`.")
    d = jaxerrs.diagnose_text(message[:width] + "\n" + message[width:])
    assert d.record is not None and d.record.id == "optax-update-needs-params"
    assert d.ecosystem == "optax"


def test_an_older_wording_of_a_class_that_words_its_own_message_is_placed_in_its_releases():
    """JAX 0.2.10-0.4.12 worded ``TracerIntegerConversionError`` in the class's ``__init__`` ("…called on the JAX
    Tracer object Traced<…>"), raised from ``Tracer.__index__``; the installed JAX words it otherwise and raises
    it elsewhere. The history index holds the class's message per release, so the site is that release's."""
    d = jaxerrs.diagnose_text(
        "jax._src.errors.TracerIntegerConversionError: The __index__() method was called on the JAX Tracer object "
        "Traced<ShapedArray(int32[])>with<DynamicJaxprTrace(level=1/0)>\n"
        "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.TracerIntegerConversionError")
    assert d.record is not None and d.record.id == "tracer-integer-conversion"
    assert d.site is not None and d.site.function == "Tracer.__index__"
    assert d.site.path in ("jax/core.py", "jax/_src/core.py") and d.site.jax_version.startswith(("0.2.", "0.3.", "0.4."))
    assert any("0.2.10" in n for n in d.notes)  # the note names the releases that worded it so


@pytest.mark.parametrize("error", [
    "KeyReuseError: Previously-consumed key passed to jit-compiled function at index 0",
    "ValueError: Previously-consumed key passed to jit-compiled function at index 0",
    "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
])
def test_a_frame_of_a_file_the_installed_jax_lacks_with_no_raise_there_is_said_to_call_on(error):
    """``jax/_src/random.py`` is gone from the installed JAX (moved into a package), but ``uniform`` was there in
    releases the history index holds, with no raise in it: its frame called on into code the paste does not
    show (it had been claimed that no release had the function). Under a class of JAX's own the words say where
    it raised; under Python's class too where a raise of those releases words it as closely as JAX's own must.
    Python's own words (JAX's operators copy them) do not: the note says the frame calls on, and no site is
    guessed."""
    text = ("---------------------------------------------------------------------------\n"
            "KeyReuseError                             Traceback (most recent call last)\n"
            "Cell In[3], line 4\n"
            "      3 a = jax.random.uniform(key)\n"
            "----> 4 b = jax.random.uniform(key)\n\n"
            "File ~/venv/lib/python3.11/site-packages/jax/_src/random.py:398, in uniform(key, shape, dtype, "
            "minval, maxval)\n\n"
            f"{error}\n")
    d = jaxerrs.diagnose_text(text)
    assert not any("which no JAX release" in n for n in d.notes)
    if "Previously-consumed" in error:
        assert d.record is not None and d.record.id == "key-reuse-consumed"
        assert d.site is not None and d.site.function == "KeyReuseSignature.check_signature"
    else:
        assert d.site is None
        assert any("calls on into code the paste does not show" in n and "`uniform`" in n for n in d.notes)


@pytest.mark.parametrize("typed", ["valueError", "VALUEError"])
def test_a_class_name_typed_in_other_letter_case_is_read_as_the_known_class(typed):
    """A class retyped by hand ("optax valueError: …", "XLARuntimeError") is Python's, JAX's or a record's class
    when only its letter case differs; the words then place the error as they do under the right spelling."""
    text = (f"{typed}: vmap got inconsistent sizes for array axes to be mapped:\n"
            "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
            "  * one axis had size 4: axis 0 of argument y of type float32[4]")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "vmap-inconsistent-sizes"
    assert d.evidence.exc_class == "ValueError"
    oom = jaxerrs.diagnose_text("XLARuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 "
                                "bytes.")
    assert oom.is_jax and oom.evidence.exc_class == "XlaRuntimeError"


def test_a_quoted_paragraph_after_prose_naming_the_class_is_the_message():
    """Prose that names the class in backticks and then quotes what was printed, as a paragraph of its own, with
    no word such as "error:" just before the quote: the quoted paragraph is the message (Equinox's here, in an
    older release's wording that ends its first sentence with "!")."""
    text = ("With the step limit reached, my solve fails with an `XlaRuntimeError`; whichever of `jit` or "
            "`filter_jit` I use, the output reads:\n\n"
            "\"An error occurred during the runtime of your JAX program! Unfortunately you do not appear to be using "
            "`equinox.filter_jit` (perhaps you are using `jax.jit` instead?) and so further information about the "
            "error cannot be displayed.\"")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "XlaRuntimeError" and d.evidence.message.startswith("An error occurred")
    assert d.record is not None and d.record.id == "equinox-error-if"
    assert d.ecosystem == "equinox"


def test_a_terminal_s_cut_lines_leave_the_message_s_own_breaks_alone():
    """Where a terminal cut lines at its width, the other line breaks are the message's own: none is read as a
    cut inside a word, even when a long line ends and the next starts with lower-case letters."""
    from jaxerrs.evidence import _unwrap

    run = ["a" * 79 + "b", "c" * 80, "d" * 10]  # cut at 80 columns: joined
    own = ["the sizes of the axes to be mapped must agree for every argument and every keyword", "argument too"]
    assert _unwrap(run + own) == "".join(run) + "\n" + "\n".join(own)
    assert _unwrap(own) == own[0] + own[1]  # alone, it is one reading of a cut, which the matcher may weigh


def test_a_traceback_cut_before_its_exception_line_takes_the_class_from_ipython_s_header():
    """An issue's excerpt often stops inside the traceback. IPython's header names the class; the lines shown
    are no message. ``TraceContextError`` is Flax's, and one record is about it."""
    text = ("```\n"
            "---------------------------------------------------------------------------\n"
            "TraceContextError                         Traceback (most recent call last)\n"
            "[<ipython-input-9-aeb06e66700c>](https://localhost:8080/#) in <cell line: 0>()\n"
            "----> 2 frames = jax.vmap(ca.render)(states)\n"
            "\n"
            "[/usr/local/lib/python3.11/dist-packages/flax/nnx/extract.py](https://localhost:8080/#) in "
            "from_tree(tree, prefix)\n"
            "--> 270       return jax.tree.map(maybe_split, tree, is_leaf=is_leaf)\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "TraceContextError" and d.evidence.message == ""
    assert d.record is not None and d.record.id == "flax-nnx-mutate-outside-trace"
    assert d.ecosystem == "flax" and d.confidence < 0.5
    # Line 270 of ``from_tree`` is no raise in any Flax release that has it there (a ``jax.tree.map`` call):
    # Flax's class was raised in code the paste does not show, so that frame is not named as the site.
    assert d.site is None or d.site.function != "from_tree"
    # JAX's wrapper class in the header names no error.
    wrapped = text.replace("TraceContextError        ", "UnfilteredStackTrace     ")
    assert jaxerrs.diagnose_text(wrapped).evidence.exc_class == ""


def test_a_library_s_call_line_under_python_s_class_in_jax_s_words_is_no_site():
    """Optax's ``update`` calls ``lax.cond`` at line 380 (no raise there in any Optax release that has the
    function there); the ``TypeError`` below it is worded by JAX's raise. The library's call line is not the
    site: JAX's raise of those words is, and the paste's own script stays the user's frame."""
    text = ("Traceback (most recent call last):\n"
            '  File "/home/u/train/trainer.py", line 116, in train_step\n'
            "    new_state = state.apply_gradients(grads=grads)\n"
            '  File "/home/u/.local/lib/python3.10/site-packages/optax/transforms/_accumulation.py", line 380, '
            "in update\n"
            "    new_updates, new_state = lax.cond(\n"
            "TypeError: true_fun and false_fun output must have identical types, got\n")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.record is not None and d.record.id == "cond-branch-output-types"
    assert d.site is not None and d.site.path.startswith("jax/"), d.to_dict()
    assert d.to_dict()["user_frame"]["line"] == 116


def test_a_library_raise_whose_caller_chooses_the_class_fits_the_class_printed():
    """Flax's ``Rngs._get_stream(name, error_type)`` raises ``error_type(f"No RngStream named …")``: a
    ``KeyError`` from ``rngs['dropout']`` (printed quoted, as Python prints a KeyError), an ``AttributeError``
    from ``rngs.dropout``. Both are Flax's error, at that raise."""
    for text in ("KeyError: \"No RngStream named 'dropout' found in Rngs.\"",
                 "AttributeError: No RngStream named 'dropout' found in Rngs."):
        d = jaxerrs.diagnose_text(text)
        assert d.is_jax and d.ecosystem == "flax", text
        assert d.record is not None and d.record.id == "flax-nnx-rngs-missing-stream", text
        assert d.site is not None and d.site.function == "Rngs._get_stream", text
    assert not jaxerrs.diagnose_text("KeyError: 'dropout'").is_jax


def test_an_older_wording_guessed_only_by_its_words_is_placed_in_the_release_that_raised_it():
    """JAX 0.2-0.4.24 said "reshape total size must be unchanged, got new_sizes … for shape …" from
    ``_reshape_shape_rule``; no raise of the installed JAX words it, and a record's text made it JAX's. The
    history index places it there, with a note, as a guess."""
    d = jaxerrs.diagnose_text("TypeError: reshape total size must be unchanged, got new_sizes (8, 512, 256) for shape "
                              "(8, 512, 1024, 256).")
    assert d.site is not None and d.site.function == "_reshape_shape_rule"
    assert d.site.jax_version != d.evidence.jax_version and d.site.jax_version.startswith("0.")
    assert any("This wording comes from JAX" in n for n in d.notes)
    assert d.confidence < 0.5


def test_a_site_of_an_older_release_in_a_file_since_moved_keeps_the_record_listing_that_function():
    """``Tracer.__array__`` lived in ``jax/core.py`` before ``jax/_src/core.py``; a record naming the installed
    file still answers the older release's site."""
    text = ("Exception: The numpy.ndarray conversion method __array__() was called on the\nJAX Tracer object\n"
            "Traced<ShapedArray(int32[], weak_type=True):JaxprTrace(level=-1/1)>.\n\n"
            "This error can occur when a JAX Tracer object is passed to a raw numpy\n"
            "function, or a method on a numpy.ndarray object. You might want to check that\n"
            "you are using `jnp` together with `import jax.numpy as jnp` rather than using\n"
            "`np` via `import numpy as np`. If this error arises on a line that involves\n"
            "array indexing, like `x[idx]`, it may be that the array being indexed `x` is a\n"
            "raw numpy.ndarray while the indices `idx` are a JAX Tracer instance; in that\n"
            "case, you can instead write `jax.device_put(x)[idx]`.")  # JAX 0.1.x's words (jax PR #3656)
    d = jaxerrs.diagnose_text(text)
    assert (d.site.path, d.site.function) == ("jax/core.py", "Tracer.__array__")
    assert d.record is not None and d.record.id == "tracer-array-conversion"


def test_a_call_line_of_another_release_is_no_raise_site_for_a_class_jax_s_python_raises():
    """JAX 0.2's ``segment_sum`` called ``int(num_segments)`` on a tracer: the frame shown last is that call, in
    source the installed JAX no longer has, and ``ConcretizationTypeError`` is raised by JAX's Python code
    deeper down (compiled code raises Python's classes and the runtime's). That call is not named as the site."""
    text = ("Traceback (most recent call last):\n"
            '  File "test_jit.py", line 8, in <module>\n'
            "    jit_fn(c, b)\n"
            '  File "/home/u/venv37/lib/python3.7/site-packages/jax/_src/ops/scatter.py", line 347, in segment_sum\n'
            "    num_segments = int(num_segments)\n"
            "jax._src.traceback_util.FilteredStackTrace: jax.core.ConcretizationTypeError: Abstract tracer value "
            "encountered where concrete value is expected.\n")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax
    assert d.site is None or d.site.function != "segment_sum"
    assert (d.evidence.user_frame.filename, d.evidence.user_frame.lineno) == ("test_jit.py", 8)


def test_a_traceback_cut_after_the_user_s_cell_with_python_s_class_guesses_no_record():
    """Only IPython's header (``ValueError``) and the user's cell: no words to search by, and a class every
    Python library raises. No record is guessed from the class's name alone."""
    text = ("---------------------------------------------------------------------------\n"
            "ValueError                                Traceback (most recent call last)\n"
            "Cell In[33], line 23\n"
            "     20 s = StateWithInit()\n"
            "---> 23 s = eqx.tree_at(lambda x: [x.x], s, [jnp.arange(2)])\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "ValueError"
    assert d.record is None and not d.candidates


def test_a_sentence_starting_with_an_abbreviation_is_no_exception_line():
    """"E.g." opening an issue is no dotted class: the message is the exception line in the fence below."""
    text = ("E.g.\n```python\nenv = BraxEnv('ant')\ntd = env.step(td)\n```\n\nThis results in \n\n```\n"
            "ValueError: Received incompatible devices for jitted computation. Got ARG_SHARDING with device ids [0] "
            "on platform GPU and ARG_SHARDING with device ids [0] on platform CPU\n```")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "ValueError"
    assert d.record is not None and d.record.id == "jit-incompatible-devices"


def test_an_older_wording_raised_where_no_record_lists_is_guessed_by_the_record_its_words_fit():
    """JAX 0.2-0.4.30 said "vmap has mapped output but out_axes is None" from ``batching.matchaxis``; the check
    has since moved into ``vmap`` itself, in other words, and no record lists the old raise. The record whose
    words hold most of the message is the guess, below 0.5."""
    d = jaxerrs.diagnose_text("ValueError: vmap has mapped output but out_axes is None")
    assert d.site is not None and d.site.function == "matchaxis" and d.site.jax_version.startswith("0.4.")
    assert d.record is not None and d.record.id == "vmap-out-axes-none-batched"
    assert d.confidence < 0.5


def test_an_older_multi_paragraph_wording_is_guessed_by_its_first_paragraph():
    """JAX 0.2.0 raised this from ``raise_concretization_error`` in ``jax/core.py``, a raise no record lists; its
    later paragraphs (the trace's context) are the values, not the error. The record whose words hold the first
    paragraph is the guess."""
    text = ("FilteredStackTrace: jax.core.ConcretizationTypeError: Abstract tracer value encountered where concrete "
            "value is expected.\n\nThe problem arose with the `bool` function. \n\n"
            "While tracing the function body_fn at /env/lib/python3.7/site-packages/numpyro/infer/util.py:209, this "
            "value became a tracer due to JAX operations on these lines:\n\n"
            "  operation rc:bool[] = reduce_and[ axes=(0,) ] rb:bool[753]\n"
            "    from line /env/lib/python3.7/site-packages/numpyro/distributions/distribution.py:246 (_validate_sample)"
            "\n\nYou can use transformation parameters such as `static_argnums` for `jit` to avoid tracing particular "
            "arguments of transformed functions.\n\n"
            "See https://jax.readthedocs.io/en/latest/faq.html#abstract-tracer-value-encountered-where-concrete-value-"
            "is-expected-error for more information.\n\n"
            "Encountered tracer value: Traced<ShapedArray(bool[])>with<DynamicJaxprTrace(level=1/0)>\n")
    d = jaxerrs.diagnose_text(text)
    assert (d.site.path, d.site.function) == ("jax/core.py", "raise_concretization_error")
    assert d.record is not None and d.record.id.startswith("concretization-")
    assert d.confidence < 0.5


def test_a_shown_raise_of_what_a_function_builds_is_the_site_of_the_release_that_raised_there():
    """JAX 0.7.2-0.8.1 raised ``escaped_tracer_error(arg)`` (a function building the error) at line 1176 of
    ``jax/_src/core.py`` in ``check_eval_args``; the installed JAX has other code there. The frame names its own
    site, in those releases."""
    text = ("UnexpectedTracerError                     Traceback (most recent call last)\n\n"
            "[/tmp/ipython-input-3692169468.py](https://localhost:8080/#) in <cell line: 0>()\n"
            "----> 1 out = iterate(step, v0)\n\n"
            "[/usr/local/lib/python3.12/dist-packages/jax/_src/core.py](https://localhost:8080/#) in "
            "check_eval_args(args)\n"
            "   1174   for arg in args:\n"
            "   1175     if isinstance(arg, Tracer):\n"
            "-> 1176       raise escaped_tracer_error(arg)\n\n"
            "UnexpectedTracerError: Encountered an unexpected tracer. A function transformed by JAX had a side "
            "effect, allowing for a reference to an intermediate value with type float32[200,200,2] wrapped in a "
            "DynamicJaxprTracer to escape the scope of the transformation.\n")
    d = jaxerrs.diagnose_text(text)
    assert (d.site.path, d.site.function, d.site.line) == ("jax/_src/core.py", "check_eval_args", 1176)
    assert d.site.jax_version.startswith(("0.7.", "0.8."))
    assert d.record is not None and d.record.id == "unexpected-tracer-leak"


def test_a_shown_assert_in_a_function_of_older_releases_is_their_site():
    """``jax/numpy/lax_numpy.py`` (before ``jax/_src``) had ``array`` in JAX 0.2.0-0.2.3, where an ``assert``
    failed; the index holds no message for an assert. The frame is the site, in those releases (the note had
    said that no release had the function)."""
    text = ("---------------------------------------------------------------------------\n"
            "AssertionError                            Traceback (most recent call last)\n"
            "<ipython-input-9-515fb738910a> in <module>\n"
            "----> 2 jnp.asarray([2,3], dtype='int')\n\n"
            "~/.env/lib/python3.8/site-packages/jax/numpy/lax_numpy.py in array(object, dtype, copy, order, ndmin)\n"
            "   2463   if type(object) is np.ndarray:\n"
            "   2464     out = _device_put_raw(object)\n"
            "-> 2465     if dtype: assert _dtype(out) == dtype\n"
            "   2466   elif isinstance(object, (DeviceArray, core.Tracer)):\n\n"
            "AssertionError: \n")
    d = jaxerrs.diagnose_text(text)
    assert (d.site.path, d.site.function, d.site.line) == ("jax/numpy/lax_numpy.py", "array", 2465)
    assert d.site.jax_version.startswith("0.2.")
    assert not any("no JAX release" in n for n in d.notes)


def test_a_jax_frame_of_older_releases_calling_into_numpy_that_raised_is_said_so():
    """JAX 0.2's ``_reshape`` (``jax/numpy/lax_numpy.py``) called NumPy's ``reshape``, which raised: the note says
    that frame called into code below it, not that no release had the function; no site in JAX is guessed."""
    text = ("/usr/local/lib/python3.6/dist-packages/jax/numpy/lax_numpy.py in _reshape(a, newshape, order)\n"
            "    638 def _reshape(a, newshape, order=\"C\"):\n"
            "--> 640   computed_newshape = onp.reshape(dummy_val, newshape).shape\n\n"
            "/usr/local/lib/python3.6/dist-packages/numpy/core/fromnumeric.py in _wrapfunc(obj, method, *args, **kwds)\n"
            "---> 56         return getattr(obj, method)(*args, **kwds)\n\n"
            "ValueError: cannot reshape array of size 12 into shape (3,)\n")
    d = jaxerrs.diagnose_text(text)
    assert d.site is None
    assert any("called into the code below it" in n for n in d.notes)
    assert not any("no JAX release" in n for n in d.notes)


def test_a_site_placed_by_the_words_moves_to_the_file_of_the_release_the_frames_name():
    """The frames (``nonzero`` at line 2268 of ``jax/_src/numpy/lax_numpy.py``) are JAX 0.2.12's; the words place
    the raise in ``concrete_or_error``, which that release had in ``jax/core.py``: the site is given there."""
    text = ("Traceback (most recent call last):\n"
            '  File "<stdin>", line 1, in <module>\n'
            '  File "/home/u/anaconda3/lib/python3.8/site-packages/jax/_src/numpy/lax_numpy.py", line 1698, in where\n'
            "    return nonzero(asarray(condition))\n"
            '  File "/home/u/anaconda3/lib/python3.8/site-packages/jax/_src/numpy/lax_numpy.py", line 2268, in nonzero\n'
            '    a = core.concrete_or_error(atleast_1d, a, "The error arose in jnp.nonzero")\n'
            "jax._src.traceback_util.FilteredStackTrace: jax._src.errors.ConcretizationTypeError: Abstract tracer "
            "value encountered where concrete value is expected: Traced<ShapedArray(int32[4])>with<BatchTrace("
            "level=1/0)>\nThe error arose in jnp.nonzero\n")
    d = jaxerrs.diagnose_text(text)
    assert (d.site.path, d.site.function, d.site.jax_version) == ("jax/core.py", "concrete_or_error", "0.2.12")
    assert any("0.2.12" in n for n in d.notes)


def test_a_bare_line_of_releases_whose_function_raised_nothing_there_gets_no_site():
    """The text states jaxlib 0.4.29 and quotes the note of jaxlib's "Expected None" error. JAX 0.4.29's
    ``tree_map``, where the installed JAX re-raises it, raised nothing itself: jaxlib's ``flatten_up_to`` below it
    did, and no Python raise of that release words it. The record, no site, and a note."""
    text = ("In previous releases of JAX, flatten-up-to used to consider None to be a tree-prefix of non-None "
            "values. To obtain the previous behavior, you can usually write:\n  jax.tree.map(lambda x, y: None if "
            "x is None else f(x, y), a, b, is_leaf=lambda x: x is None)\n\nSupport for this was removed in jaxlib "
            "version 0.4.29.")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "tree-map-none-subtree"
    assert d.site is None
    assert any("raised nothing itself" in n for n in d.notes)
    # Undated, the installed release's raise stands.
    now = jaxerrs.diagnose_text(text.rsplit("\n\n", 1)[0])
    assert now.site is not None and now.site.function == "tree_map"


def test_another_release_s_wording_is_placed_in_the_releases_its_wrapper_prints():
    """The installed JAX words this message otherwise; JAX 0.2.10-0.4.12 worded it so, in ``jax/core.py`` up to
    0.2.x and ``jax/_src/core.py`` later. ``FilteredStackTrace`` (0.2.x only) says which: ``jax/core.py``."""
    message = ("jax._src.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was "
               "called on the JAX Tracer object Traced<ConcreteArray")
    framed = jaxerrs.diagnose_text("jax._src.traceback_util.FilteredStackTrace: " + message)
    assert framed.record is not None and framed.record.id == "tracer-array-conversion"
    assert (framed.site.path, framed.site.function) == ("jax/core.py", "Tracer.__array__")
    assert framed.site.jax_version.startswith("0.2.")
    bare = jaxerrs.diagnose_text(message)
    assert (bare.site.path, bare.site.function) == ("jax/_src/core.py", "Tracer.__array__")


def test_a_paste_cut_in_the_re_raise_after_jax_s_simplified_traceback_note_is_the_error_before_it():
    """An error, JAX's ``SimplifiedTraceback`` note chained after it, then the filtered re-raise, cut before its
    exception line: the note is no error; the error is the block before it."""
    text = ("Traceback (most recent call last):\n"
            '  File "/home/me/test.py", line 12, in <module>\n'
            "    print(f(42))\n"
            '  File "/home/me/test.py", line 7, in f\n'
            "    x = jax.random.uniform(key)\n"
            "jax.errors.KeyReuseError: PRNG key first used at the above location was subsequently reused at the "
            "following location:\n"
            "See https://jax.readthedocs.io/en/latest/errors.html#jax.errors.KeyReuseError\n\n"
            "The above exception was the direct cause of the following exception:\n\n"
            "jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames from the traceback "
            "of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.\n\n"
            "The above exception was the direct cause of the following exception:\n\n"
            "Traceback (most recent call last):\n"
            '  File "/home/me/test.py", line 12, in <module>\n'
            "    print(f(42))\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "KeyReuseError"
    assert d.record is not None and d.record.id.startswith("key-reuse-")
    assert (Path(d.evidence.user_frame.filename).name, d.evidence.user_frame.lineno) == ("test.py", 12)


def test_a_project_s_own_subpackage_named_jax_is_the_user_s_code():
    """``netket/jax/sharding.py`` reads as JAX's ``jax/sharding.py``, but no JAX release has ``gather`` there: it is
    the project's own file, the user's frame; its line calls ``jax.jit``, so JAX's words still place the raise."""
    text = ("test_sharding/test_sharding.py:338: in test_serialization\n"
            "    b = serialization.to_bytes(vs)\n"
            "netket/sampler/metropolis.py:120: in serialize_MetropolisSamplerState_sharding\n"
            "    state_dict[prop] = gather(x)\n"
            "netket/jax/sharding.py:294: in gather\n"
            "    return jax.jit(_identity, out_shardings=out_shardings)(x)\n"
            "E   ValueError: One of pjit outputs is incompatible with its sharding annotation PositionalSharding([{CPU "
            "0, 1}], shape=(1,)): Sharding PositionalSharding([{CPU 0, 1}], shape=(1,)) is only valid for values of "
            "rank 1, but was applied to a value of rank 2\n")
    d = jaxerrs.diagnose_text(text)
    assert (d.evidence.user_frame.filename, d.evidence.user_frame.lineno) == ("netket/jax/sharding.py", 294)
    assert d.is_jax and d.site is not None and d.site.function == "pjit_check_aval_sharding"
    assert not any("no JAX release" in n for n in d.notes)


def test_a_debugger_session_after_the_error_is_no_part_of_its_message_and_names_the_frame():
    """IPython's ``%debug`` (pdb/ipdb) opened after the error: its ``> file.py(22)fn()`` line and the listing after
    it are no part of the message; where the debugger stands is the frame, the user's here."""
    text = ("TypeError: Cannot interpret value of type <class 'function'> as an abstract array; it does not have a "
            "dtype attribute\n"
            "> /home/me/work/train_mlp.py(31)step()\n"
            "     30     grads = jax.grad(loss)(params, batch)\n"
            "---> 31     return jax.jit(update)(params, grads, act)\n\n"
            "ipdb> u\n"
            "> /home/me/work/train_mlp.py(44)<module>()\n"
            "-> params = step(params, batch)\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.message.endswith("it does not have a dtype attribute")
    assert [(f.lineno, f.function) for f in d.evidence.frames] == [(44, "<module>"), (31, "step")]
    assert (Path(d.evidence.user_frame.filename).name, d.evidence.user_frame.lineno) == ("train_mlp.py", 31)
    assert d.is_jax and d.record is not None and d.record.id == "jit-non-array-argument"


def test_long_reprs_in_a_message_are_values_not_prose():
    """A message whose values are long reprs with spaces (two pytree structures) is JAX's words: the reprs are
    the run's values, not sentences, so the few words JAX chose around them still place it."""
    text = ("TypeError: function compiled for PyTreeDef(((*, (*, {'a': *, 'b': None})), {})), called with "
            "PyTreeDef(((*, *), {}))")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.site is not None
    assert (d.site.path, d.site.function) == ("jax/_src/stages.py", "Compiled.call")


def test_a_jax_class_raised_below_a_frame_of_an_older_release_is_placed_by_its_words():
    """The last frame shown (``threefry_random_bits``, gone from the installed JAX) calls on into code the paste
    cuts; the class is one only JAX's Python code raises, so NumPy cannot have said these words: they place the
    raise, in the function the releases that said them had."""
    text = ("InconclusiveDimensionOperation            Traceback (most recent call last)\n"
            "/usr/local/lib/python3.10/dist-packages/jax/_src/prng.py in threefry_random_bits(key, bit_width, shape)\n"
            "    543       )\n"
            "--> 545     bits = lax.reshape(bits, (np.uint32(max_count * 32 // bit_width),), (1, 0))\n"
            "    546     bits = lax.convert_element_type(bits, dtype)[:size]\n\n"
            "InconclusiveDimensionOperation: Cannot divide evenly the sizes of shapes (4, 1000) and (96,)\n")
    d = jaxerrs.diagnose_text(text)
    assert d.site is not None and d.site.function.endswith("divide_shape_sizes")
    assert not any("does not guess" in n for n in d.notes)


def test_bool_of_a_tracer_in_releases_that_raised_the_base_class_gets_the_bool_conversion_record():
    """Up to JAX 0.4.13 ``bool()`` of a tracer raised ConcretizationTypeError naming the `bool` function; the
    record about it names today's subclass, TracerBoolConversionError: a base class of the record's fits."""
    text = ("jax._src.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is "
            "expected: Traced<ShapedArray(bool[])>with<DynamicJaxprTrace(level=1/0)>\n"
            "The problem arose with the `bool` function. \n"
            "The error occurred while tracing the function step at /home/me/train.py:20 for jit.\n")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "tracer-bool-conversion"
    assert d.site is not None and d.site.function == "concretization_function_error.<locals>.error"
    text_int = text.replace("`bool`", "`int`").replace("bool[]", "int32[]")
    assert jaxerrs.diagnose_text(text_int).record.id == "concretization-python-scalar-conversion"


def test_a_private_class_quoted_in_prose_is_read():
    """``which raises `equinox._errors._EquinoxRuntimeError: …``: a class whose name starts with ``_`` is read
    from a line of prose as any other."""
    ev = jaxerrs.diagnose_text("Calling it with a bad index raises `equinox._errors._EquinoxRuntimeError: "
                               "Index out of range.`").evidence
    assert (ev.exc_class, ev.message) == ("_EquinoxRuntimeError", "Index out of range.")


def test_backticks_retyped_as_quotes_still_match_a_library_s_words():
    """A person retyping Equinox's message writes quotes where it has backticks (`` `eqx.Module`s `` as
    ``'eqx.Module's``): its words still place the raise, in the releases that said them."""
    text = ("TypeError: Abstract strict 'eqx.Module's must be named starting with 'Abstract' or '_Abstract'. "
            "Got Foo when defining __main__.Foo.")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.ecosystem == "equinox"
    assert d.site is not None and d.site.path == "equinox/_module.py" and d.site.function.endswith("__new__")


def test_a_missing_name_no_release_answers_with_a_getattr_is_python_s_lookup():
    """``jax.api_util.debug_info`` is 0.5.1's; no release before it gives ``jax.api_util`` a module ``__getattr__``:
    Python's own lookup raised it, so no raise in JAX is named, and no record about removed names is guessed."""
    d = jaxerrs.diagnose_text("AttributeError: module 'jax.api_util' has no attribute 'debug_info'")
    assert d.is_jax and d.site is None and d.record is None
    assert any("has no module `__getattr__`" in n for n in d.notes)
    assert any("exists from JAX 0.5.1 on" in n for n in d.notes)


def test_a_missing_name_is_not_placed_in_a_getattr_its_module_never_had():
    """``jax.random`` never used the lazy loader, whose words these are too; the releases without
    ``PRNGKeyArray`` answer it with Python's lookup (before 0.3.8) or the deprecation getattr (0.4.24 on): no site."""
    d = jaxerrs.diagnose_text("AttributeError: module 'jax.random' has no attribute 'PRNGKeyArray'")
    assert d.record is not None and d.record.id == "removed-jax-random-keyarray"
    assert d.site is None and any("does not guess which of them raised it" in n for n in d.notes)
    shape = jaxerrs.diagnose_text("AttributeError: module 'jax.core' has no attribute 'Shape'")
    assert shape.site is not None and shape.site.function == "deprecation_getattr.<locals>.getattr"


def test_a_message_quoted_alone_in_a_fence_cut_after_its_values_is_read():
    """A post that says "throws the following error:" and quotes, in a fence of its own and with no class, the
    start of Flax's message up to its values, ending it with a full stop of its own: the fenced line is the
    message, and the values it carries do not count against the words it shares with Flax's raise."""
    text = ("Running the benchmark now fails with the following error:\n\n```\n"
            "Found unexpected Arrays on value of type <class 'dict'> in static attribute 'cache'.\n```\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.message.startswith("Found unexpected Arrays") and d.evidence.exc_class == ""
    assert d.is_jax and d.ecosystem == "flax"
    assert d.site is not None and d.site.path == "flax/nnx/pytreelib.py" and d.site.function.endswith("_check_value")


def test_a_fence_of_code_is_not_read_as_the_message():
    text = ("My code:\n\n```python\nimport jax\nx = jax.numpy.ones(3)\nprint(x)\n```\n\nand nothing else happens.\n")
    assert jaxerrs.diagnose_text(text).evidence.message.startswith("My code:")


def test_a_message_pasted_as_one_fenced_block_is_read_without_its_fence():
    """A paste that is one Markdown fence and nothing else: its lines are the message, the fence is not, however
    the lines read (JAX 0.1's message quotes ``import numpy as np``); a one-line message in a fence too."""
    text = ("```\nTracer can't be used with raw numpy functions. You might have\n  import numpy as np\ninstead of\n"
            "  import jax.numpy as np\n```")
    assert jaxerrs.diagnose_text(text).evidence.message == text.strip("`\n")
    one = jaxerrs.diagnose_text("```\nAbstract tracer value encountered where concrete value is expected\n```")
    assert one.evidence.message == "Abstract tracer value encountered where concrete value is expected"
    assert one.record is not None and one.record.id == "concretization-abstract-tracer"


def test_a_paste_starting_inside_ipython_s_frame_header_reads_that_frame():
    """IPython's header ``File …/klujax.py:249, in analyze`` with its ``File `` cut off (a fenced excerpt that
    starts there) is a frame, the only one shown."""
    text = ("```\nmylib.py:249, in analyze\n    return mylib_cpp.Symbolic(int(raw))\n"
            "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is expected: "
            "traced array with shape uint64[]\n```\n")
    ev = jaxerrs.diagnose_text(text).evidence
    assert [(f.filename, f.lineno, f.function) for f in ev.frames] == [("mylib.py", 249, "analyze")]
    assert ev.user_frame is not None and ev.user_frame.lineno == 249


def test_an_old_jaxlib_wording_without_its_bound_gets_the_jaxlib_record():
    """JAX 0.2.x said "requires version 0.1.74" (no ">=") and raised ValueError: the record's ranged wording."""
    d = jaxerrs.diagnose_text("ValueError: jaxlib is version 0.1.72, but this version of jax requires version 0.1.74.")
    assert d.record is not None and d.record.id == "jaxlib-version-too-old"
    assert d.site is not None and d.site.function == "_check_jaxlib_version"


def test_an_older_wording_whose_record_lists_no_site_of_its_releases_is_placed_where_they_raised_it():
    """JAX 0.2.19-0.2.27 said "Leaked level …" (a ranged legacy wording of the leak checker's record), raised in
    ``jax/core.py``; the record's own site came with 0.4.36. The site is those releases' raise, with its note."""
    d = jaxerrs.diagnose_text("Exception: Leaked level MainTrace(1,DynamicJaxprTrace). Leaked tracer(s): "
                              "[Traced<ShapedArray(float32[])>with<DynamicJaxprTrace(level=1/0)>].")
    assert d.record is not None and d.record.id == "tracer-leak-checker"
    assert d.site is not None and d.site.path == "jax/core.py" and d.site.function in ("new_main", "new_base_main")
    assert d.site.jax_version == "0.2.27" and any("0.2.19–0.2.27" in n for n in d.notes), d.notes


def test_a_library_api_named_in_the_words_around_a_bare_message_is_the_library_it_came_through():
    text = ("Encountering an internal error when using optax.contrib.reduce_on_plateau: "
            "`AttributeError: module 'jax.api_util' has no attribute 'debug_info'`")
    assert jaxerrs.diagnose_text(text).ecosystem == "optax"
    both = text.replace("optax.contrib.reduce_on_plateau", "flax.linen.scan and optax.adam")
    assert jaxerrs.diagnose_text(both).ecosystem is None  # two libraries named: neither is said


def test_a_library_class_raised_in_one_place_with_the_user_s_own_words_is_placed_there():
    """``_EquinoxRuntimeError`` is raised in one function of Equinox (the host callback of ``eqx.error_if``), with
    the words the user gave ``error_if``: the class alone places the raise, and the one record listing it answers."""
    d = jaxerrs.diagnose_text("which raises `equinox._errors._EquinoxRuntimeError: Step size went negative.`")
    assert d.is_jax and d.ecosystem == "equinox"
    assert d.site is not None and (d.site.path, d.site.function) == ("equinox/_errors.py", "_error.<locals>.raises")
    assert d.record is not None and d.record.id == "equinox-error-if" and d.confidence < 0.5


def test_an_exception_line_that_closes_a_quote_opened_above_is_the_end_of_a_message_without_its_class():
    """A post quotes JAX's message in backticks over two lines; its last line names the error it wraps
    (``TypeError: unhashable type``): the quote is the message, its own class not shown."""
    text = ("I am getting the following error:\n\n"
            "`Non-hashable static arguments are not supported. An error occurred during a call to 'update' while "
            "trying to hash an object of type <class 'jaxlib.xla_extension.ArrayImpl'>, [1 2]. The error was:\n"
            "TypeError: unhashable type: 'ArrayImpl'`\n")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.exc_class == "" and d.evidence.message.startswith("Non-hashable static arguments")
    assert d.evidence.message.endswith("unhashable type: 'ArrayImpl'") and d.is_jax
    alone = "It fails with: `\nTypeError: unhashable type: 'ArrayImpl'`\n"
    assert jaxerrs.diagnose_text(alone).evidence.exc_class == "TypeError"


def test_a_message_quoted_in_backticks_inside_a_title_ends_at_its_closing_backtick():
    """``… fails with `TypeError: Operation undefined, {x} is not a leaf of the pytree` when …``: the message ends
    at the backtick that closes its quote, not at the last backtick of the line (`` `__init__` `` after it)."""
    text = ("`eqx.tree_at` fails with `TypeError: Operation undefined, {x} is not a leaf of the pytree` when the "
            "attributes are set within `__init__`")
    d = jaxerrs.diagnose_text(text)
    assert d.evidence.message == "Operation undefined, {x} is not a leaf of the pytree"
    assert d.site is not None and (d.site.path, d.site.function) == ("equinox/_tree.py", "_remove_leaf_wrapper")
    inner = jaxerrs.diagnose_text("It says `ValueError: use `jax.jit` instead` and stops")
    assert inner.evidence.message == "use `jax.jit` instead"


def test_an_ellipsis_for_the_left_out_start_of_a_message_is_no_part_of_its_words():
    d = jaxerrs.diagnose_text("AssertionError: ... expected shapes should be a list or tuple of ints, got Ellipsis.")
    assert d.is_jax and d.ecosystem == "chex"
    assert d.site is not None and (d.site.path, d.site.function) == ("chex/_src/asserts.py", "assert_shape")


def test_a_library_message_cut_at_its_start_found_in_the_history_says_nothing_false_of_the_installed_release():
    """Found through the library's history (its start cut off), words the installed release raises too get no
    note saying it does not (chex 0.1.6 to the installed release word it so)."""
    import chex

    d = jaxerrs.diagnose_text("AssertionError: expected shapes should be a list or tuple of ints, got Ellipsis")
    assert d.site is not None and (d.site.path, d.site.function) == ("chex/_src/asserts.py", "assert_shape")
    assert d.site.library_version == chex.__version__
    assert not any("does not raise" in n for n in d.notes), d.notes


@pytest.mark.parametrize("typed", ["alueError", "ValueErorr", "VlaueError"])
def test_a_class_name_one_slip_of_the_keys_from_a_known_one_reads_as_it(typed):
    """A pasted class no one defines, one character left out, added, replaced or swapped away from exactly one
    known class, is that class; a library's own private class stays as it is."""
    d = jaxerrs.diagnose_text(f"{typed}: Incompatible shapes for broadcasting: shapes=[(3,), (4,)]")
    assert d.evidence.exc_class == "ValueError"
    assert d.record is not None and d.record.id == "broadcast-shapes-incompatible"
    kept = jaxerrs.diagnose_text("_EquinoxRuntimeError: State exceeds array bounds.")
    assert kept.evidence.exc_class == "_EquinoxRuntimeError"
    assert jaxerrs.diagnose_text("MyCustomError: boom").evidence.exc_class == "MyCustomError"


def test_a_library_error_built_into_a_local_before_its_raise_is_placed_there():
    """Equinox builds ``exc = TreePathError(f"Error at leaf with path {path}")`` and raises the local: its class
    and words are read from the local's call, so a pasted line finds that raise."""
    d = jaxerrs.diagnose_text("TreePathError: Error at leaf with path (GetAttrKey(name='weight'), DictKey(key=0))")
    assert d.is_jax and d.ecosystem == "equinox"
    assert d.site is not None and d.site.path == "equinox/_serialisation.py"
    assert d.site.function == "_ordered_tree_map.<locals>._f"


def test_a_library_checkout_s_other_files_are_the_user_s_and_its_call_into_jax_is_no_raise():
    """A library's source checkout (``~/git/numpyro/numpyro/…``) makes ``~/git/numpyro/playground/run.py`` look
    like the library's by its folder: it is the user's. The library's line calls ``jax.eval_shape``, and JAX's
    words name the error: JAX raised it below (the context manager's exit), not that line."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/Users/u/git/numpyro/playground/run.py", line 14, in <module>\n'
        "    relations = get_model_relations(guide)\n"
        '  File "/Users/u/git/numpyro/numpyro/infer/inspect.py", line 326, in get_model_relations\n'
        "    trace = jax.eval_shape(get_trace).trace\n"
        '  File "/usr/lib/python3.13/contextlib.py", line 149, in __exit__\n'
        "    except StopIteration:\n"
        "Exception: Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\nJitTracer<uint32[2]>\n")
    d = jaxerrs.diagnose_text(text)
    frame = d.to_dict()["user_frame"]
    assert frame is not None and (frame["file"], frame["line"]) == ("/Users/u/git/numpyro/playground/run.py", 14)
    assert d.record is not None and d.record.id == "tracer-leak-checker"
    assert d.site is not None and d.site.path.startswith("jax/"), d.site


def test_a_missing_name_of_a_library_s_private_module_names_the_library_and_says_what_such_a_module_is():
    text = ("ImportError: cannot import name 'OptState' from 'optax._src.transform' "
            "(/usr/local/lib/python3.7/dist-packages/optax/_src/transform.py)")
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.ecosystem == "optax" and d.record is None and d.site is None
    assert any(n.startswith("`optax._src.transform` is a private module of `optax`") for n in d.notes), d.notes
    # A public module's missing name is the name index's to explain, as before.
    public = jaxerrs.diagnose_text("AttributeError: module 'optax' has no attribute 'lbfgs'")
    assert not any("private module" in n for n in public.notes)
