"""The panel's three views (widget, static HTML, text) and their escaping, without a browser."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import jaxerrs
from jaxerrs.kb.records import all_records
from jaxerrs.views import record_diagnosis

HOSTILE = '<img src=x onerror=window.__pwned=1><script>window.__pwned2=1</script>"\'&'


def _raise(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError("did not raise")


@pytest.fixture(scope="module")
def bool_diag():
    return jaxerrs.diagnose(_raise(lambda: jax.jit(lambda x: x if x > 0 else -x)(1.0)))


@pytest.fixture(scope="module")
def hostile_diag():
    # A real JAX error whose message carries user text: the shape argument of reshape.
    exc = _raise(lambda: jnp.zeros(3).reshape(HOSTILE))
    d = jaxerrs.diagnose(exc)
    assert d.is_jax and "<script>" in d.message
    return d


def _no_live_markup(html: str) -> None:
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;img src=x onerror=window.__pwned=1&gt;&lt;script&gt;" in html


def test_static_html_escapes_error_text(hostile_diag):
    html = jaxerrs.render_html(hostile_diag)
    _no_live_markup(html)
    assert 'class="jaxerrs-panel"' in html


def _without_own_script(panel) -> str:
    """The panel's HTML less the one script jaxerrs adds (its own file, then the call naming the panel's id)."""
    from jaxerrs.views import ACTIONS_JS

    html = panel.html
    own = f'<script data-jaxerrs-actions>{ACTIONS_JS}\njaxerrsPanelActions.wireInline("{panel.uid}");</script>'
    assert html.count(own) == 1 and html.lower().count("<script") == 1
    return html.replace(own, "")


def test_notebook_panel_escapes_error_text(hostile_diag):
    from jaxerrs.panel import Panel

    panel = Panel(hostile_diag)
    _no_live_markup(_without_own_script(panel))
    data = panel._repr_mimebundle_()["application/vnd.jaxerrs.panel+json"]
    assert set(data) == {"version", "record", "fix", "fix_kind", "cell_id"}


def test_html_panel_sections_in_order(bool_diag):
    html = jaxerrs.render_html(bool_diag)
    assert 'data-record="tracer-bool-conversion"' in html
    order = ["jaxerrs-header", "In your code", "What it means", "Solution", "Example fix", "Copy",
             "More solutions", "When it happens", "Defensive patterns", "Prevention", "Source"]
    positions = [html.index(x) for x in order]
    assert positions == sorted(positions)
    # Compact by default: the collapsible sections start closed.
    assert "<details class=\"jaxerrs-section\" open" not in html
    assert "jax/_src/core.py" in html and "https://github.com/jax-ml/jax/blob/jax-v" in html
    assert "jnp.where" in html


def test_notebook_panel_bundle(bool_diag):
    from jaxerrs.panel import MIME, Panel

    panel = Panel(bool_diag, cell_id="abc-123")
    bundle = panel._repr_mimebundle_()
    assert set(bundle) == {MIME, "text/html", "text/plain"}  # all of it shows in a saved notebook
    data = bundle[MIME]
    assert data["cell_id"] == "abc-123" and "jnp.where" in data["fix"] and data["version"] == 1
    assert data["fix_kind"] in ("rewrite", "example") and data["record"] == "tracer-bool-conversion"
    html = bundle["text/html"]
    assert html.startswith('<div class="jaxerrs-panel"') and html.endswith("</div>")
    # The DOM contract's buttons, disabled until a frontend wires them, with the reason shown meanwhile.
    assert '<button class="jaxerrs-insert" type="button" disabled' in html and ">Insert as new cell</button>" in html
    assert '<button class="jaxerrs-copy" type="button" disabled' in html and ">Copy</button>" in html
    assert "Insert and Copy work in a notebook with jaxerrs installed" in html
    assert "TracerBoolConversionError" in bundle["text/plain"]


def test_static_html_has_no_script(bool_diag):
    html = jaxerrs.render_html(bool_diag)
    assert "<script" not in html.lower() and "onclick" not in html.lower()
    assert "data-jaxerrs-uid" not in html


def test_inline_script_is_inert_text_in_html():
    from jaxerrs.views import ACTIONS_JS

    assert "<" not in ACTIONS_JS.replace("< 0", "")  # nothing an HTML parser could read as a tag end


def test_panel_uid_must_be_hex(bool_diag):
    from jaxerrs.views import render_html

    with pytest.raises(ValueError):
        render_html(bool_diag, uid='x"><script>')


def test_related_errors_open_in_place(bool_diag):
    """Each related record opens in the panel itself (no kernel needed): its explanation and first solution."""
    rec = next(r for r in all_records().values() if len(r.related) > 1)
    html = jaxerrs.render_html(record_diagnosis(rec))
    section = html[html.index("<summary>Related errors</summary>"):]
    assert section.count('<details class="jaxerrs-related">') == len(rec.related)
    for rid in rec.related:
        assert f"<code>{rid}</code>" in section and f"%jaxerr show {rid}" in section
    first = all_records()[rec.related[0]]
    assert "What it means" not in section and first.explanation.split()[0] in section


def test_text_panel(bool_diag):
    text = jaxerrs.render_text(bool_diag)
    assert text.startswith("── jaxerrs: TracerBoolConversionError")
    for section in ("What it means", "Solutions", "Example fix", "When it happens", "Prevention"):
        assert section in text
    assert "\x1b[" not in text


def test_message_only_record_says_so():
    rec = next(r for r in all_records().values() if r.verified == "message")
    html = jaxerrs.render_html(record_diagnosis(rec))
    assert "Verified by message only" in html


def test_catalog_only_diagnosis_shows_what_is_known():
    # An error JAX raises for which no curated record exists: the panel still shows class, site, excerpt.
    from jaxerrs.views import site_diagnosis

    d = site_diagnosis(_some_uncovered_site())
    html = jaxerrs.render_html(d)
    assert "no curated record for this raise site yet" in html and "Source" in html


def test_a_record_that_did_not_match_is_not_called_missing():
    # The gpu-out-of-memory record's raise site, with a message none of its templates matches.
    from jaxerrs.views import build

    text = ("Traceback (most recent call last):\n"
            '  File "/home/u/run.py", line 3, in <module>\n'
            '  File "/usr/lib/python3/site-packages/jax/_src/interpreters/pxla.py", line 1300, in __call__\n'
            "jax.errors.JaxRuntimeError: UNKNOWN: something the allocator never said before\n")
    d = jaxerrs.diagnose_text(text)
    v = build(d)
    if d.record is None:
        assert "no curated record for this raise site" not in v.meaning
        assert "`gpu-out-of-memory`" in v.meaning or "`host-out-of-memory`" in v.meaning


def _some_uncovered_site() -> str:
    from jaxerrs import catalog

    covered = {(s.path, s.function) for r in all_records().values() for s in r.sites}
    site = next(s for s in catalog.get().sites if s.template and (s.path, s.function) not in covered)
    return site.key


def test_imported_record_flags_show_in_panel(monkeypatch):
    from pathlib import Path

    from jaxerrs.kb.importer import import_path

    [rec] = import_path(Path(__file__).parent / "data" / "seed_003.json", [])
    html = jaxerrs.render_html(record_diagnosis(rec))
    assert "Imported record: explanation does not describe this error" in html


def test_an_answer_below_sure_says_best_guess_and_names_the_others():
    # A drifted wording no pattern spells: the record is the search index's guess, with rivals.
    d = jaxerrs.diagnose_text("TypeError: Gradient only defined for scalar-output functions, got an output of shape (3,)")
    assert d.is_jax and d.confidence < 0.5, d.to_dict()
    html = jaxerrs.render_html(d)
    assert "best guess" in html and "Best guess: the text does not settle" in html
    others = [c.record.id for c in d.candidates if c.record is not None and c.record is not d.record]
    if others:
        assert f"<code>{others[0]}</code>" in html


def test_a_sure_answer_is_not_called_a_guess(bool_diag):
    assert bool_diag.confidence >= 0.5
    assert "best guess" not in jaxerrs.render_html(bool_diag).lower()
