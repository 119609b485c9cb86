"""Record prose renders as written (CommonMark, escaped) in the HTML and text panels and in search results;
kb check's prose check; the values' names; the CLI's wording; the diff's file names."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys

import pytest

import jaxerrs
from jaxerrs.diagnosis import Diagnosis
from jaxerrs.evidence import Evidence
from jaxerrs.kb.records import all_records, find
from jaxerrs.prose import html_block, html_inline, problems, text_inline, text_lines
from jaxerrs.views import record_diagnosis

HOSTILE = '<img src=x onerror=window.__pwned=1><script>window.__pwned2=1</script>"\'&'


def _record(**changes):
    return dataclasses.replace(find("tracer-bool-conversion"), **changes)


# ---------------------------------------------------------------------------------- A: rendering

def test_tracer_bool_conversion_what_it_means_renders_as_written():
    html = jaxerrs.render_html(record_diagnosis(find("tracer-bool-conversion")))
    meaning = html[html.index("What it means"):html.index("</div>", html.index("What it means"))]
    codes = re.findall(r"<code>(.*?)</code>", meaning, re.S)
    assert "ValueError: The truth value of an array with more than one element is ambiguous" in codes
    assert "jax.grad" in codes
    assert not any("instead" in c for c in codes)
    assert "`" not in meaning
    assert "<em>tracers</em>" in meaning


def test_a_code_span_across_a_line_break():
    assert html_block("one `two\nthree` four") == "<p>one <code>two three</code> four</p>"
    assert text_lines("one `two\nthree` four") == ["  one `two three` four"]


def test_inline_contexts_have_no_paragraph_wrapper():
    rec = find("tracer-bool-conversion")
    html = jaxerrs.render_html(record_diagnosis(rec))
    title = re.search(r'<span class="jaxerrs-title">(.*?)</span>', html, re.S).group(1)
    assert "<p>" not in title and "<code>if</code>" in title
    assert html_inline("`a` and *b*") == "<code>a</code> and <em>b</em>"
    # List items keep the paragraph they always had; solutions stay an <ol>.
    assert "<ol><li><p>Compute both sides" in html


@pytest.mark.parametrize("field", ["title", "explanation", "solutions", "triggers", "prevention"])
def test_raw_html_in_record_text_is_escaped(field):
    value = [HOSTILE, f"`code` then {HOSTILE}"] if field in ("solutions", "triggers", "prevention") else HOSTILE
    d = record_diagnosis(_record(**{field: value}))
    html = jaxerrs.render_html(d)
    assert "<img" not in html.lower() and "<script>window" not in html.lower()
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in html
    text = jaxerrs.render_text(d)
    assert "<img src=x onerror=window.__pwned=1>" in text  # the terminal shows the text as written


def test_markdown_links_and_images_from_records_are_inert():
    out = html_block("![x](https://tracker.example/p.png) [go](javascript:alert(1)) [docs](https://docs.jax.dev)")
    assert "<img" not in out
    assert 'href="javascript' not in out
    assert '<a href="https://docs.jax.dev" target="_blank" rel="noopener">docs</a>' in out


def test_raw_html_in_an_error_message_is_escaped_where_it_is_the_title():
    ev = Evidence("JaxRuntimeError", "jax.errors", ["JaxRuntimeError"], f"INTERNAL: {HOSTILE} *not* `code`", None,
                  [], "text", "0.10.2")
    html = jaxerrs.render_html(Diagnosis(ev, True))
    title = re.search(r'<span class="jaxerrs-title">(.*?)</span>', html, re.S).group(1)
    assert "<img" not in html.lower() and "&lt;img src=x" in title
    assert "*not* `code`" in title  # a message is not markdown: shown exactly


def test_text_panel_reflows_prose_and_keeps_code_spans():
    text = jaxerrs.render_text(record_diagnosis(find("tracer-bool-conversion")))
    meaning = text[text.index("What it means"):text.index("Solutions")]
    assert "`ValueError: The truth value of an array with more than one element is ambiguous`" in meaning
    assert "*tracers*" not in meaning and "abstract tracers" in meaning
    assert all(len(ln) <= 100 for ln in meaning.splitlines())
    assert "  1. Compute both sides and select: `jnp.where(x > 0, x, 0.0)`" in text
    # A wrapped list item hangs under its text.
    sol = [ln for ln in text.splitlines() if ln.startswith("     ")]
    assert sol, "no wrapped item"


def test_text_of_lists_and_links():
    assert text_lines("Steps:\n\n- one\n- two") == ["  Steps:", "", "  - one", "  - two"]
    assert text_inline("see [docs](https://docs.jax.dev) and **this**") == "see docs (https://docs.jax.dev) and this"


def test_markdown_is_imported_only_when_a_panel_renders():
    code = ("import sys, jaxerrs, jaxerrs.extension, jaxerrs.views, jaxerrs.search_index\n"
            "assert 'markdown_it' not in sys.modules, 'imported at load'\n"
            "from jaxerrs.prose import html_block\nhtml_block('`x`')\nassert 'markdown_it' in sys.modules\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------------- A: the prose check

@pytest.mark.parametrize("text, inline, words", [
    ("a `b c", True, "unbalanced backtick"),
    ("a ``b` c` d", True, "unbalanced backtick"),
    ("use __init__ here", True, "makes emphasis"),
    ("above 2**31 - 1 or below -2**31 it fails", False, "inside a word"),
    ("every axis must equal the target or be\n1. You meet it often", False, "into a list"),
    ("1. do this", True, "numbered list"),
    ("# not a heading", False, "heading"),
])
def test_prose_check_catches_slips(text, inline, words):
    found = problems(text, inline=inline)
    assert any(words in p for p in found), found


@pytest.mark.parametrize("text", ["a `b\nc` d", "*tracers* and `x * y`", "`2**31 - 1`", "Steps:\n1. one\n2. two",
                                  "2**31 is large", "f(*args, **kwargs)"])
def test_prose_check_passes_what_renders_as_written(text):
    assert problems(text) == []


def test_kb_check_fails_a_record_with_an_unbalanced_span():
    from jaxerrs.kb.verify import check_record, prose_checks

    bad = _record(solutions=["Use `jnp.where(x > 0, x, 0) instead."])
    assert "solutions 1: unbalanced backtick" in prose_checks(bad)["prose"]
    res = check_record(dataclasses.replace(bad, requires="nonexistent-lib>=1"))  # skipped, yet the form is checked
    assert not res.ok and res.checks["prose"] != "ok"


def test_every_record_renders_as_written():
    from jaxerrs.kb.verify import prose_checks

    bad = {rid: c["prose"] for rid, r in all_records().items() if (c := prose_checks(r))["prose"] != "ok"}
    assert not bad


# ---------------------------------------------------------------------------------- B1: search titles

def test_search_results_render_record_titles():
    from jaxerrs.search_index import SearchResults, search

    hits = search("python if on traced value")
    assert "`" in hits[0].title
    results = SearchResults("python if on traced value", hits)
    html = results.html()
    assert "<code>if</code>" in html and "`" not in html
    rows = [w.value for w in _walk(results.widget()) if isinstance(getattr(w, "value", None), str)]
    assert any("<code>if</code>" in r for r in rows) and not any("`" in r for r in rows)


def _walk(w):
    yield w
    for c in getattr(w, "children", ()):
        yield from _walk(c)


# ---------------------------------------------------------------------------------- B2: values' names

def _label(expr: str, owner: str = "") -> str:
    from jaxerrs.holes import label

    return label(ast.parse(expr, mode="eval").body, owner)


@pytest.mark.parametrize("expr, name", [
    ("', '.join(names)", "names"), ("','.join(str(s) for s in shapes)", "shapes"),
    ("', '.join(map(str, shapes))", "shapes"), ("type(x).__name__", "type(x)"), ("len(args)", "len(args)"),
    ("aval.str_short()", "aval"), ("x.__class__.__name__", "type(x)"), ("repr(axis_name)", "axis_name"),
    ("getattr(t, '__name__', t)", "t"), ("dtype_to_string(dtype)", "dtype"), ("a + b", ""),
    ("self", "Mesh"), ("x.shape", "shape"), ("math.prod(newshape)", "prod(newshape)"),
])
def test_hole_labels(expr, name):
    assert _label(expr, owner="Mesh") == name


def test_values_of_a_real_error_have_user_facing_names():
    import jax.numpy as jnp
    from jax import lax

    for call, want in ((lambda: lax.concatenate([jnp.ones((2,)), jnp.ones((2, 2))], 0), "shapes"),
                       (lambda: lax.select(jnp.ones(2, bool), jnp.ones(2), jnp.ones(3)), "cases")):
        try:
            call()
        except Exception as e:  # noqa: BLE001
            d = jaxerrs.diagnose(e)
        assert "join" not in d.values and want in d.values, d.values
    import jax

    try:
        jax.jvp(lambda x: x, 1.0, 1.0)
    except TypeError as e:
        d = jaxerrs.diagnose(e)
    assert "" not in d.values and "__name__" not in d.values


def test_a_dunder_hole_keeps_its_name():
    from jaxerrs import templates

    m = templates.match("found {__name__} and {__name__}.", "found float and int.")
    assert m.values == {"__name__": "int"} and m.holes == ("float", "int")


# ---------------------------------------------------------------------------------- B3: CLI wording

def test_text_panel_hints_where_it_shows():
    d = record_diagnosis(find("tracer-bool-conversion"))
    assert "%jaxerr fix puts it in the next input" in jaxerrs.render_text(d)  # terminal IPython
    from jaxerrs.views import render_text

    assert "%jaxerr" not in render_text(d, fix_hints=("", "")).split("Related errors")[0]


def test_cli_says_what_works_in_the_cli(capsys, tmp_path):
    from jaxerrs.cli import main

    assert main(["show", "tracer-bool-conversion"]) == 0
    assert "%jaxerr fix" not in capsys.readouterr().out
    tb = tmp_path / "tb.txt"
    tb.write_text("Traceback (most recent call last):\n"
                  '  File "/home/u/train.py", line 3, in <module>\n    scores[1] += 2.5\n'
                  "TypeError: JAX arrays are immutable and do not support in-place item assignment. Instead of "
                  "x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
                  "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html\n")
    assert main(["explain", str(tb)]) == 0
    out = capsys.readouterr().out
    assert "%jaxerr fix" not in out and "--cell FILE" in out
    cell = tmp_path / "train.py"
    cell.write_text("import jax.numpy as jnp\nscores = jnp.zeros(3)\nscores[1] += 2.5\n")
    assert main(["explain", str(tb), "--cell", str(cell)]) == 0
    out = capsys.readouterr().out
    assert "Your cell, fixed (safe)" in out and "--format json prints the whole fixed cell" in out
    assert "%jaxerr fix" not in out


# ---------------------------------------------------------------------------------- B4: diff names

@pytest.mark.parametrize("label, names", [
    ("/abs/path/cell.py", ("/abs/path/cell.py", "/abs/path/cell.py")),
    ("rel/cell.py", ("a/rel/cell.py", "b/rel/cell.py")),
    ("./cell.py", ("a/cell.py", "b/cell.py")),
    ("Cell In[3]", ("a/Cell In[3]", "b/Cell In[3]")),
    ("", ("a/cell", "b/cell")),
])
def test_diff_names(label, names):
    from jaxerrs.rewrite import diff_names, unified_diff

    assert diff_names(label) == names
    head = unified_diff("x = 1\n", "x = 2\n", label).splitlines()[:2]
    assert head == [f"--- {names[0]}", f"+++ {names[1]}"]
    assert "//" not in head[0]
