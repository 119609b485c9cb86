"""One view model of a Diagnosis, rendered as static HTML and as text (the widget reuses the HTML).

Every string that comes from an error or a record is escaped: record prose is CommonMark rendered
with raw HTML off (``jaxerrs.prose``), everything else goes through ``html.escape``.
"""

from __future__ import annotations

import html
import linecache
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jaxerrs.diagnosis import Diagnosis, SiteRef, raised_by
from jaxerrs.evidence import Evidence, Frame
from jaxerrs.kb.records import Record

MAX_SHOWN_MESSAGE = 3000
CSS = (Path(__file__).parent / "static" / "panel.css").read_text(encoding="utf-8")


@dataclass
class UserLine:
    label: str  # "Cell In[3], line 5" or "train.py, line 12"
    code: str


@dataclass
class PanelView:
    error_class: str
    title: str
    matched: str  # how it was matched, in words
    message: str
    user_line: UserLine | None
    values: dict[str, str]
    meaning: str
    solutions: list[str]
    fix_before: str
    fix_after: str
    triggers: list[str]
    situations: list[str]
    defensive: list[tuple[str, str]]  # (label, code or text)
    prevention: list[str]
    site: SiteRef | None
    excerpt: str
    related: list[tuple[str, str]]  # (id, title)
    doc_url: str | None
    record_id: str | None
    notes: list[str] = field(default_factory=list)  # verified-by-message-only, import flags…
    rewrite: Any = None  # jaxerrs.rewrite.Rewrite: the user's own cell, fixed
    check: dict[str, Any] | None = None  # why it was raised: the contract's ``check`` (jaxerrs.why)
    api: dict[str, Any] | None = None  # the public function called: the contract's ``api``
    api_doc: str = ""  # its docstring's entry for a parameter the check reads


def frame_code(frame: Frame) -> str:
    return frame.line or linecache.getline(frame.filename, frame.lineno).strip()


def frame_label(frame: Frame, with_line: bool = True) -> str:
    """How a traceback names the frame's file: "Cell In[3]" for a cell, else the path (basename in panels)."""
    name = frame.filename
    tail = f", line {frame.lineno}" if with_line else ""
    try:
        from IPython import get_ipython

        ip = get_ipython()
        fmt = ip.compile.format_code_name(name) if ip is not None else None
    except Exception:  # noqa: BLE001 - a label is never worth an error
        fmt = None
    if fmt:
        return f"{fmt[0]} {fmt[1]}{tail}"
    m = re.match(r"<ipython-input-(\d+)-", name)
    if m:
        return f"Cell In[{m.group(1)}]{tail}"
    if name.startswith("Cell "):
        return f"{name}{tail}"
    return f"{os.path.basename(name) if with_line else name}{tail}"


def user_line(ev: Evidence) -> UserLine | None:
    f = ev.user_frame
    if f is None:
        return None
    return UserLine(frame_label(f), frame_code(f))


def _related(record: Record | None) -> list[tuple[str, str]]:
    if record is None:
        return []
    from jaxerrs.kb.records import all_records

    records = all_records()
    return [(rid, records[rid].title) for rid in record.related if rid in records]


def build(d: Diagnosis, with_rewrite: bool = True) -> PanelView:
    """The view model; ``with_rewrite=False`` leaves the rewrite out (bench_diagnose times the panel without it)."""
    ev, rec = d.evidence, d.record
    notes: list[str] = []
    message = ev.message
    if len(message) > MAX_SHOWN_MESSAGE:
        message = message[:MAX_SHOWN_MESSAGE] + f"\n… ({len(ev.message) - MAX_SHOWN_MESSAGE} more characters)"
    notes.extend(d.notes)
    if rec is not None:
        if rec.verified == "message":
            notes.append("Verified by message only: this error needs hardware this check machine lacks, so its "
                         "reproducer was not run; the text was checked against JAX's source.")
        notes.extend(f"Imported record: {f}" for f in rec.flags)
        if rec.origin == "imported" and not rec.flags:
            notes.append("Imported record (not curated by jaxerrs); consistent with the installed JAX.")
        meaning = rec.explanation
        title = rec.title
        matched = f"matched by {d.how}" if d.how else "matched"
    else:
        title = ev.message.splitlines()[0][:160] if ev.message else ev.exc_class
        where = f" at `{d.site.path}:{d.site.line}` in `{d.site.function}`" if d.site else ""
        who = raised_by(d)
        near = _records_at_site(d.site)
        if ev.logged_by_xla:
            meaning = ("XLA, the compiler and runtime that JAX runs (it ships in jaxlib), logged this line; no "
                       "Python exception was raised. No curated record's words match it: the message is what is "
                       "known.")
        elif near:
            names = ", ".join(f"`{r.id}` ({r.title})" for r in near[:3])
            meaning = (f"{who} raised this error{where}. No curated record's message template matched this "
                       f"message, so none is shown as certain. Records about this raise site: {names}; open "
                       "one with `%jaxerr show ID` and compare its message with yours.")
        else:
            meaning = (f"{who} raised this error{where}. jaxerrs has no curated record for this raise site yet: "
                       + (f"the check that failed in {who}'s source, the values it read and the function you called "
                          "are below." if d.check or d.api else
                          "the message, the values it carries and the source excerpt below are what is known."))
        matched = (f"raise site only ({d.how})" if d.how and d.how != "log line" else
                   "an XLA log line, no curated record" if d.how else "no curated record")
    if d.is_jax and d.confidence < SURE:
        matched = f"best guess · {matched}"
        notes.append(_best_guess_note(d))
    defensive = []
    if rec is not None:
        for label, text in (("Strategy", rec.defensive.strategy), ("Validate first", rec.defensive.validation),
                            ("Type guard", rec.defensive.type_guard), ("Try / except", rec.defensive.try_except)):
            if text.strip():
                defensive.append((label, text))
    return PanelView(
        error_class=ev.exc_class or "Error",
        title=title,
        matched=matched,
        message=message,
        user_line=user_line(ev),
        values=dict(d.values),
        meaning=meaning,
        solutions=list(rec.solutions) if rec else [],
        fix_before=rec.fix.before if rec else "",
        fix_after=rec.fix.after if rec else "",
        triggers=list(rec.triggers) if rec else [],
        situations=list(rec.situations) if rec else [],
        defensive=defensive,
        prevention=list(rec.prevention) if rec else [],
        site=d.site,
        excerpt=d.excerpt,
        related=_related(rec) if rec is not None else _searched(ev),
        doc_url=ev.doc_url or (rec.references[0] if rec and rec.references else None),
        record_id=rec.id if rec else None,
        notes=notes,
        rewrite=d.rewrite if with_rewrite else None,
        check=d.check,
        api=d.api,
        api_doc=d.api_param_doc,
    )


# The design contract: of answers at this confidence or above, at least 95% are right (jaxerrs.confidence).
SURE = 0.5


def _best_guess_note(d: Diagnosis) -> str:
    """Below ``SURE``: say so, and name the other records the text fits, best first."""
    seen = {d.record.id} if d.record else set()
    others: list[Record] = []
    for c in d.candidates:
        if c.record is not None and c.record.id not in seen:
            seen.add(c.record.id)
            others.append(c.record)
    said = ("Best guess: the text does not settle which error this is"
            + (f" (how sure: {d.confidence:.2f}; shown as sure from {SURE})." if d.confidence else "."))
    if not others:
        return said
    names = "; ".join(f"`{r.id}` ({r.title})" for r in others[:3])
    return f"{said} Other candidates: {names}. Open one with `%jaxerr show ID` and compare its message with yours."


# Search scores below this, for a whole message as the query, share only common words with it (measured on
# uncurated JAX errors: unrelated records score 1.6-2.0, a record about the same failure 3 and more).
RELATED_MIN_SCORE = 2.5


def _searched(ev: Evidence) -> list[tuple[str, str]]:
    """For an error no record matched: the records a search over its message ranks best (near misses still
    lead somewhere), at most three."""
    if not ev.message.strip():
        return []
    try:
        from jaxerrs.search_index import search

        hits = search(f"{ev.exc_class}: {ev.message.splitlines()[0][:300]}", limit=6)
    except Exception:  # noqa: BLE001 - no related records is better than no panel
        return []
    return [(h.id, h.title) for h in hits if h.kind == "record" and h.score >= RELATED_MIN_SCORE][:3]


def _records_at_site(site: SiteRef | None) -> list[Record]:
    """Curated records that name this raise site (path and function)."""
    if site is None:
        return []
    from jaxerrs.kb.records import all_records
    from jaxerrs.matcher import same_function  # tracebacks print co_name ("__call__"), records hold qualnames

    return [r for r in all_records().values()
            if any(s.path == site.path and same_function(s.function, site.function) for s in r.sites)]


def record_diagnosis(rec: Record) -> Diagnosis:
    """A Diagnosis that shows a record on its own (``%jaxerr show``, ``jaxerrs show``)."""
    from jaxerrs import catalog
    from jaxerrs.matcher import record_site

    ev = Evidence(rec.class_name, None, [rec.class_name], rec.sample_message or rec.patterns[0], None, [], "record",
                  catalog.installed_jax_version())
    d = Diagnosis(ev, True, record=rec, how="record id", confidence=1.0)
    try:
        cat = catalog.get(progress=False)
        d.site = record_site(cat, rec, ev.message)
        if d.site is not None:
            d.excerpt = catalog.read_excerpt(Path(cat.root) / d.site.path, d.site.line, d.site.line, 3)
    except LookupError:
        pass  # jax not installed: the record still shows
    return d


def site_diagnosis(key: str) -> Diagnosis:
    """A Diagnosis showing one catalog raise site, ``"jax/_src/core.py:1961"``."""
    from jaxerrs import catalog

    cat = catalog.get(progress=False)
    path, _, line = key.rpartition(":")
    site = cat.at(path, int(line)) if line.isdigit() else None
    if site is None:
        raise LookupError(f"no raise site {key!r} in JAX {cat.jax_version}")
    ev = Evidence(site.class_name, None, [site.class_name], site.template or "", None, [], "record", cat.jax_version)
    d = Diagnosis(ev, True, site=SiteRef.of(site, cat.jax_version), how="raise site", confidence=1.0)
    d.excerpt = cat.excerpt(site)
    return d


# ------------------------------------------------------------------------------------------ HTML

def _span(text: str) -> str:
    """One line of record prose (a title, a summary) as escaped inline CommonMark: no ``<p>`` around it."""
    from jaxerrs.prose import html_inline

    return html_inline(text)


def _inline(text: str) -> str:
    """Record prose as escaped CommonMark: a ``<p>`` per paragraph (lists and code blocks where written)."""
    from jaxerrs.prose import html_block

    return html_block(text)


def _li(items: list[str], ordered: bool = False) -> str:
    tag = "ol" if ordered else "ul"
    return f"<{tag}>" + "".join(f"<li>{_inline(x)}</li>" for x in items) + f"</{tag}>"


@lru_cache(maxsize=2048)
def highlight(code: str) -> str:
    """Pygments-highlighted code, escaped; token classes are styled by panel.css.

    Cached: a record's code is the same every time its panel shows, and highlighting is most of a
    panel's cost."""
    try:
        from pygments import highlight as pyg
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        return pyg(code, PythonLexer(), HtmlFormatter(nowrap=True, classprefix="jxe-"))
    except ImportError:
        return html.escape(code)


def _pre(code: str, cls: str = "") -> str:
    return f'<pre class="jaxerrs-code {cls}">{highlight(code)}</pre>'


def _details(title: str, body: str, open_: bool = False) -> str:
    if not body:
        return ""
    return (f'<details class="jaxerrs-section"{" open" if open_ else ""}><summary>{html.escape(title)}</summary>'
            f"{body}</details>")


def _title_html(v: PanelView) -> str:
    """A record's title is prose; without a record the title is the message's first line, shown as is."""
    return _span(v.title) if v.record_id else html.escape(v.title)


def header_html(v: PanelView) -> str:
    return (
        '<div class="jaxerrs-header">'
        f'<span class="jaxerrs-class">{html.escape(v.error_class)}</span> '
        f'<span class="jaxerrs-title">{_title_html(v)}</span>'
        f'<span class="jaxerrs-how">jaxerrs · {html.escape(v.matched)}</span></div>'
    )


def your_code_html(v: PanelView) -> str:
    parts = []
    if v.user_line:
        parts.append(f'<div class="jaxerrs-where">{html.escape(v.user_line.label)}</div>')
        if v.user_line.code:
            parts.append(_pre(v.user_line.code, "jaxerrs-userline"))
    if v.values:
        rows = "".join(f"<tr><th>{html.escape(k)}</th><td><code>{html.escape(val)}</code></td></tr>"
                       for k, val in v.values.items())
        parts.append(f'<table class="jaxerrs-values">{rows}</table>')
    return "".join(parts)


def body_html(v: PanelView, with_fix_code: bool = True) -> str:
    """Everything below the header; the widget places its buttons after the fix."""
    out = []
    for n in v.notes:
        out.append(f'<div class="jaxerrs-note">{_inline(n)}</div>')
    yc = your_code_html(v)
    if yc:
        out.append(f'<div class="jaxerrs-section-static"><h4>In your code</h4>{yc}</div>')
    out.append(f'<div class="jaxerrs-section-static"><h4>What it means</h4>{_inline(v.meaning)}</div>')
    why = why_html(v)
    if why:  # the section that answers an uncurated error: open; under a record's explanation, folded
        out.append(f'<div class="jaxerrs-section-static jaxerrs-why"><h4>Why it was raised</h4>{why}</div>'
                   if v.record_id is None else _details("Why it was raised", why))
    if v.solutions:
        out.append(f'<div class="jaxerrs-section-static"><h4>Solution</h4>{_li(v.solutions[:1], True)}</div>')
    if v.rewrite is not None:
        out.append(rewrite_html(v.rewrite))
    elif v.fix_after and with_fix_code:
        out.append(fix_html(v))
    return "".join(out)


def why_html(v: PanelView) -> str:
    """The guarding check, its values, what it accepts and the API called, all escaped ("" when unknown)."""
    out = []
    chk, api = v.check, v.api
    if chk:
        out.append(f'<div>The check that failed: <code>{html.escape(chk["code"])}</code>, that is: '
                   f'{_span(chk["words"])}.</div>')
        if chk["values"]:
            out.append('<ul class="jaxerrs-why-values">' + "".join(
                f"<li><code>{html.escape(k)} = {html.escape(val)}</code></li>" for k, val in chk["values"].items())
                + "</ul>")
        if chk["accepted"]:
            out.append("<div>Accepted: " + ", ".join(f"<code>{html.escape(a)}</code>" for a in chk["accepted"])
                       + "</div>")
        if chk["did_you_mean"]:
            out.append(f'<div class="jaxerrs-did-you-mean">Did you mean <code>{html.escape(chk["did_you_mean"])}'
                       "</code>?</div>")
    if api:
        name = f"<code>{html.escape(api['name'])}</code>"
        if api.get("url"):
            name = f'<a href="{html.escape(api["url"], quote=True)}" target="_blank" rel="noopener">{name}</a>'
        out.append(f'<div>You called {name}: <code>{html.escape(api["signature"])}</code></div>')
        if v.api_doc:
            out.append(f'<div class="jaxerrs-api-doc">{html.escape(v.api_doc)}</div>')
    return "".join(out)


def why_lines(v: PanelView) -> list[str]:
    """The same, for the text panel."""
    from jaxerrs.prose import text_inline

    out = []
    chk, api = v.check, v.api
    if chk:
        out += [f"  check: {chk['code']}", f"  that is: {text_inline(chk['words'])}"]
        out += [f"  {k} = {val}" for k, val in chk["values"].items()]
        if chk["accepted"]:
            out.append("  accepted: " + ", ".join(chk["accepted"]))
        if chk["did_you_mean"]:
            out.append(f"  did you mean {chk['did_you_mean']}?")
    if api:
        out.append(f"  you called {api['name']}: {api['signature']}" + (f"  ({api['url']})" if api.get("url") else ""))
        if v.api_doc:
            out.append(f"    {v.api_doc}")
    return out


def rewrite_html(rw: Any) -> str:
    """"Your cell, fixed": the safety label, what to check, and the diff against the user's cell."""
    label = html.escape(rw.safety)
    where = f" ({html.escape(getattr(rw, 'where', '') or rw.label)})" if rw.label else ""
    return ('<div class="jaxerrs-section-static jaxerrs-rewrite">'
            f'<h4>Your cell, fixed{where} <span class="jaxerrs-safety jaxerrs-safety-{label}" '
            f'title="{_SAFETY_HELP.get(rw.safety, "")}">{label}</span></h4>'
            f'<div class="jaxerrs-rewrite-summary">{_span(rw.summary)}</div>'
            f'<pre class="jaxerrs-code jaxerrs-diff">{diff_html(rw.diff)}</pre></div>')


_SAFETY_HELP = {"safe": "keeps what the code computes exactly",
                "review": "the likely intent, but it changes what runs: read the line above before running it"}


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """A unified diff's lines below its file header, each with its kind: "add", "del", "hunk" or "ctx"."""
    out = []
    for ln in diff.splitlines():
        if ln.startswith(("---", "+++")):
            continue
        kind = ("add" if ln.startswith("+") else "del" if ln.startswith("-")
                else "hunk" if ln.startswith("@@") else "ctx")
        out.append((kind, ln))
    return out


def diff_html(diff: str) -> str:
    """A unified diff as escaped lines, removed and added lines marked for panel.css."""
    return "".join(f'<span class="jaxerrs-diff-{kind}">{html.escape(ln) or " "}</span>'
                   for kind, ln in diff_lines(diff))


def fix_html(v: PanelView) -> str:
    return ('<div class="jaxerrs-section-static jaxerrs-fix"><h4>Example fix</h4>'
            f'<div class="jaxerrs-fix-label">before</div>{_pre(v.fix_before, "jaxerrs-before")}'
            f'<div class="jaxerrs-fix-label">after</div>{_pre(v.fix_after, "jaxerrs-after")}</div>')


def more_html(v: PanelView) -> str:
    """The collapsible sections."""
    out = []
    if v.rewrite is not None and v.fix_after:
        out.append(_details("Example fix", fix_html(v)))
    if len(v.solutions) > 1:
        out.append(_details(f"More solutions ({len(v.solutions) - 1})",
                            f'<ol start="2">{"".join(f"<li>{_inline(s)}</li>" for s in v.solutions[1:])}</ol>'))
    when = (_li(v.triggers) if v.triggers else "") + (
        "<h5>Common situations</h5>" + _li(v.situations) if v.situations else "")
    out.append(_details("When it happens", when))
    defensive = "".join(
        f'<div class="jaxerrs-fix-label">{html.escape(label)}</div>'
        + (_inline(text) if label == "Strategy" else _pre(text)) for label, text in v.defensive)
    out.append(_details("Defensive patterns", defensive))
    out.append(_details("Prevention", _li(v.prevention) if v.prevention else ""))
    out.append(_details("Full message", f'<pre class="jaxerrs-message">{html.escape(v.message)}</pre>'))
    if v.site:
        link = html.escape(v.site.url, quote=True)
        src = (f'<div>Raised at <a href="{link}" target="_blank" rel="noopener"><code>'
               f"{html.escape(v.site.path)}:{v.site.line}</code></a> in <code>{html.escape(v.site.function)}</code>"
               f" ({html.escape(v.site.release)})</div>")
        if v.excerpt:
            src += _pre(v.excerpt, "jaxerrs-excerpt")
        out.append(_details("Source", src))
    if v.doc_url:
        out.append(f'<div class="jaxerrs-doc"><a href="{html.escape(v.doc_url, quote=True)}" target="_blank" '
                   f'rel="noopener">JAX documentation</a></div>')
    return "".join(out)


def related_html(v: PanelView) -> str:
    if not v.related:
        return ""
    from jaxerrs.kb.records import all_records

    records = all_records()
    items = []
    for rid, title in v.related:  # each opens in place, in any frontend and in a saved notebook
        rec = records[rid]
        first = f"<h5>Solution</h5>{_li(rec.solutions[:1], True)}" if rec.solutions else ""
        items.append(f'<details class="jaxerrs-related"><summary><code>{html.escape(rid)}</code>: {_span(title)}'
                     f"</summary>{_inline(rec.explanation)}{first}<p>Its whole panel: "
                     f"<code>%jaxerr show {html.escape(rid)}</code></p></details>")
    return _details("Related errors", "".join(items))


ACTIONS_JS = (Path(__file__).parent / "static" / "panel_actions.js").read_text(encoding="utf-8")
STATIC_HINT = ("Insert and Copy work in a notebook with jaxerrs installed; here, select the code above to copy "
               "it, or run %jaxerr fix in IPython.")


def fix_of(v: PanelView) -> tuple[str, str]:
    """What Insert and Copy carry, and which it is: the user's cell fixed ("rewrite"), else the record's
    example fix ("example"); ``("", "")`` when there is neither."""
    if v.rewrite is not None:
        return v.rewrite.insertable(), "rewrite"
    return (v.fix_after, "example") if v.fix_after else ("", "")


def actions_html(v: PanelView) -> str:
    """The Insert / Copy buttons for the fix shown just above, and that fix as the buttons carry it.

    The buttons start disabled, with a line that says why: a frontend that runs the panel's script (or
    the JupyterLab extension) enables them and clears it; GitHub, nbviewer and untrusted notebooks keep it."""
    code, kind = fix_of(v)
    if not code:
        return ""
    what = "your cell, fixed" if kind == "rewrite" else "the example fix"
    return ('<div class="jaxerrs-actions">'
            f'<button class="jaxerrs-insert" type="button" disabled title="Insert {what} as a new code cell '
            'below the failing cell">Insert as new cell</button>'
            f'<button class="jaxerrs-copy" type="button" disabled title="Copy {what} to the clipboard">Copy</button>'
            f'<span class="jaxerrs-fix-status" role="status" aria-live="polite">{html.escape(STATIC_HINT)}</span>'
            f'</div><pre class="jaxerrs-fixed-cell" hidden>{html.escape(code)}</pre>')


def render_html(d: Diagnosis, with_rewrite: bool = True, uid: str | None = None) -> str:
    """Static HTML panel (nbconvert, GitHub, `jaxerrs explain --format html`).

    With ``uid`` (the notebook panel, ``jaxerrs.panel``) it also carries the script that wires its buttons
    where a frontend runs a trusted output's scripts; ``uid`` (hex) is all the script says of this panel."""
    return panel_html(build(d, with_rewrite), uid)


def panel_html(v: PanelView, uid: str | None = None) -> str:
    """:func:`render_html` of a view model already built."""
    rid = html.escape(v.record_id or "", quote=True)
    script, tag = "", ""
    if uid is not None:
        if not re.fullmatch(r"[0-9a-f]{8,64}", uid):
            raise ValueError(f"panel uid must be hex, not {uid!r}")
        tag = f' data-jaxerrs-uid="{uid}"'
        script = f'<script data-jaxerrs-actions>{ACTIONS_JS}\njaxerrsPanelActions.wireInline("{uid}");</script>'
    return (f'<div class="jaxerrs-panel" data-record="{rid}"{tag}><style>{CSS}</style>{header_html(v)}'
            f"{body_html(v)}{actions_html(v)}{more_html(v)}{related_html(v)}{script}</div>")


# ------------------------------------------------------------------------------------------ text

_C = {"bold": "\x1b[1m", "red": "\x1b[31m", "cyan": "\x1b[36m", "dim": "\x1b[2m", "green": "\x1b[32m",
      "reset": "\x1b[0m"}


# Where the text panel shows (terminal IPython): what puts a fix to work there. (rewrite, example fix)
IPYTHON_FIX_HINTS = ("%jaxerr fix puts it in the next input", "%jaxerr fix puts it in the next input")


def render_text(d: Diagnosis, color: bool = False, compact: bool = False, with_rewrite: bool = True,
                fix_hints: tuple[str, str] = IPYTHON_FIX_HINTS) -> str:
    """Text panel for terminals and the CLI. ``compact`` keeps the header, your code, meaning, fix.

    Record prose is CommonMark rendered as plain text (``jaxerrs.prose``): paragraphs reflowed, code
    spans in backticks. ``fix_hints`` say what puts the rewrite and the example fix to work where the
    panel shows ("" for none): the CLI has no next input to fill."""
    from jaxerrs.prose import text_inline, text_lines

    v = build(d, with_rewrite)

    def c(name: str, s: str) -> str:
        return f"{_C[name]}{s}{_C['reset']}" if color else s

    def hint(text: str) -> str:
        return c("dim", f"  ({text})") if text else ""

    def items(texts: list[str], numbered: bool = False) -> list[str]:
        return [ln for i, t in enumerate(texts, 1) for ln in text_lines(t, bullet=f"{i}. " if numbered else "- ")]

    title = text_inline(v.title) if v.record_id else v.title
    lines = [c("bold", f"── jaxerrs: {v.error_class} ── ") + c("dim", v.matched), c("bold", title)]
    lines += [ln for n in v.notes for ln in text_lines(n, indent="", bullet="! ")]
    if not compact:
        lines += ["", c("cyan", "Message"), *("  " + ln for ln in v.message.splitlines()[:30])]
    if v.user_line:
        lines += ["", c("cyan", "In your code"), f"  {v.user_line.label}"]
        if v.user_line.code:
            lines.append(f"    {v.user_line.code}")
    for k, val in v.values.items():
        lines.append(f"  {k} = {val}")
    lines += ["", c("cyan", "What it means"), *text_lines(v.meaning)]
    why = why_lines(v)
    if why and (not compact or v.record_id is None):
        lines += ["", c("cyan", "Why it was raised"), *why]
    if v.solutions:
        lines += ["", c("cyan", "Solutions"), *items(v.solutions[:1] if compact else v.solutions, numbered=True)]
    if v.rewrite is not None:
        rw = v.rewrite
        ran = f"{rw.where}: " if getattr(rw, "ran", "") else ""
        lines += ["", c("cyan", f"Your cell, fixed ({rw.safety})") + hint(fix_hints[0]), *text_lines(ran + rw.summary)]
        tones = {"add": "green", "del": "red"}
        lines += [c(tones.get(kind, "dim"), "  " + ln) for kind, ln in diff_lines(rw.diff)]
    if v.fix_after and (v.rewrite is None or not compact):
        lines += ["", c("cyan", "Example fix") + ("" if v.rewrite is not None else hint(fix_hints[1]))]
        if not compact:
            lines += ["  # before", *("  " + ln for ln in v.fix_before.splitlines()), "  # after"]
        lines += [c("green", "  " + ln) for ln in v.fix_after.splitlines()]
    if not compact:
        if v.triggers or v.situations:
            lines += ["", c("cyan", "When it happens"), *items(v.triggers + v.situations)]
        if v.defensive:
            lines += ["", c("cyan", "Defensive patterns")]
            for label, text in v.defensive:
                body = (text_lines(text, indent="    ") if label == "Strategy"
                        else ["    " + ln for ln in text.splitlines()])
                lines += [f"  {label}:", *body]
        if v.prevention:
            lines += ["", c("cyan", "Prevention"), *items(v.prevention)]
        if v.related:
            lines += ["", c("cyan", "Related errors"), *(f"  - {rid}: {text_inline(t)}" for rid, t in v.related)]
    if v.site:
        lines += ["", c("dim", f"Raised at {v.site.path}:{v.site.line} in {v.site.function} ({v.site.release})"),
                  c("dim", v.site.url)]
    if v.doc_url:
        lines.append(c("dim", f"Docs: {v.doc_url}"))
    return "\n".join(lines)
