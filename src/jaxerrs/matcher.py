"""Matcher: Evidence -> Diagnosis. Decides ``is_jax``, finds the raise site and ranks records."""

from __future__ import annotations

import builtins
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from jaxerrs import catalog as catalog_mod
from jaxerrs import templates
from jaxerrs.diagnosis import Candidate, Diagnosis, SiteRef
from jaxerrs.evidence import Evidence, from_exception, from_text
from jaxerrs.kb.records import Record, all_records

# Names one class goes by across JAX versions.
ALIASES = {"XlaRuntimeError": "JaxRuntimeError"}
# From text alone a template must cover this much to call an error JAX's.
TEXT_MIN_LITERAL = 20
TEXT_MIN_COVERAGE = 0.45


def _canon(name: str) -> str:
    return ALIASES.get(name, name)


@lru_cache(maxsize=1)
def _builtin_names() -> frozenset[str]:
    return frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type))


@lru_cache(maxsize=1)
def _jax_class_names() -> frozenset[str]:
    """Exception classes that only JAX raises (defined in JAX, not Python's builtins)."""
    cat = catalog_mod.get()
    names = {n for n in cat.by_class if n and n[0].isupper() and n not in _builtin_names()}
    names |= {"JaxRuntimeError", "XlaRuntimeError", "UnfilteredStackTrace"}
    return frozenset(names)


@dataclass
class _RecordHit:
    record: Record
    score: float
    pattern: templates.Match | None
    why: str


def _record_hits(ev: Evidence, site: SiteRef | None, classes: set[str]) -> list[_RecordHit]:
    hits = []
    message = ev.message
    # Text names one class; IPython prints "TypeError" where the class is a JAX subclass of it, or the
    # reverse. A JAX-specific record class is compatible with a builtin class named in text.
    loose = ev.source == "text" and len(classes) == 1 and next(iter(classes)) in _builtin_names()
    for rec in all_records().values():
        cls_ok = _canon(rec.class_name) in classes or (loose and rec.class_name not in _builtin_names())
        site_ok = site is not None and any(s.path == site.path and s.function == site.function for s in rec.sites)
        best: templates.Match | None = None
        for p in rec.all_patterns:
            m = templates.match(p, message)
            if m and (best is None or m.literal > best.literal):
                best = m
        if best is not None:
            # Longer literal text matched = a more specific record.
            specificity = min(1.0, best.literal / 60)
            score = 0.35 + 0.25 * specificity + 0.1 * best.coverage
            score += 0.2 if cls_ok else -0.15
            score += 0.1 if site_ok else 0.0
            why = "message" + (" + raise site" if site_ok else "") + (" + class" if cls_ok else "")
        elif site_ok and cls_ok:
            score, why = 0.3, "raise site + class (message differs)"
        else:
            continue
        hits.append(_RecordHit(rec, score, best, why))
    hits.sort(key=lambda h: -h.score)
    return hits


def _site_hits(ev: Evidence, cat: catalog_mod.Catalog, classes: set[str]) -> list[tuple[float, catalog_mod.Site, templates.Match | None]]:
    """Catalog sites whose template matches the message, best first."""
    out = []
    for s in cat.text_candidates(ev.message):
        m = templates.match(s.template or "", ev.message)
        if m is None:
            continue
        score = 0.6 * m.coverage + 0.2 * min(1.0, m.literal / 60)
        score += 0.15 if _canon(s.class_name) in classes else 0.0
        score += 0.05 if m.start == 0 else 0.0
        out.append((score, s, m))
    if not out and ev.exc_class in _jax_class_names():
        # Messages built inside the class (jax.errors): the class itself points at its sites.
        sites = cat.by_class.get(ev.exc_class, [])
        out = [(0.3 / max(1, len(sites)), s, None) for s in sites]
    out.sort(key=lambda t: -t[0])
    return out


def _resolve(cat: catalog_mod.Catalog, path: str, line: int, function: str, message: str) -> SiteRef:
    """The catalog's raise statement for a frame, or the frame itself (C++ errors, other versions)."""
    s = cat.at(path, line)
    # Plain tracebacks print co_name ("error"), live frames co_qualname ("f.<locals>.error").
    if s is not None and _same_function(s.function, function):
        return SiteRef.of(s, cat.jax_version)
    in_fn = [x for x in cat.by_path.get(path, ()) if _same_function(x.function, function)]
    if in_fn and s is None:
        scored = [(templates.match(x.template, message) if x.template else None, x) for x in in_fn]
        matched = [(m.literal, x) for m, x in scored if m]
        if matched:
            return SiteRef.of(max(matched, key=lambda t: t[0])[1], cat.jax_version)
    return SiteRef(path, line, function, cat.jax_version)


def _same_function(qualname: str, printed: str) -> bool:
    return qualname == printed or qualname.rsplit(".", 1)[-1] == printed.rsplit(".", 1)[-1]


def record_site(cat: catalog_mod.Catalog, rec: Record, message: str) -> SiteRef | None:
    for ref in rec.sites:
        sites = cat.in_function(ref.path, ref.function)
        if not sites:
            continue
        scored = [(templates.match(s.template, message) if s.template else None, s) for s in sites]
        matched = [(m.literal, s) for m, s in scored if m]
        best = max(matched, key=lambda t: t[0])[1] if matched else sites[0]
        return SiteRef.of(best, cat.jax_version)
    return None


def _diagnose(ev: Evidence, is_jax_hint: bool | None) -> Diagnosis:
    cat = catalog_mod.get()
    classes = {_canon(c) for c in ev.classes} or {_canon(ev.exc_class)}
    rf = ev.raise_frame
    site: SiteRef | None = None
    how = ""
    if rf is not None and rf.kind == "jax" and not ev.frames_removed:
        site = _resolve(cat, rf.jax_path or "", rf.lineno, rf.function, ev.message)
        how = "raise site"
    site_hits = [] if site else _site_hits(ev, cat, classes)
    rec_hits = _record_hits(ev, site, classes)

    # Text or filtered frames: let a matched record break ties between equally good catalog sites.
    if site is None and site_hits:
        top = site_hits[0][0]
        tied = [t for t in site_hits if t[0] >= top - 1e-9]
        if rec_hits and len(tied) > 1:
            home = {(s.path, s.function) for s in rec_hits[0].record.sites}
            tied.sort(key=lambda t: (t[1].path, t[1].function) not in home)
        site = SiteRef.of(tied[0][1], cat.jax_version)
        how = "message template"
        rec_hits = _record_hits(ev, site, classes)
    if site is None and rec_hits:
        site = record_site(cat, rec_hits[0].record, ev.message)
        how = "record"

    # Is this JAX's error?
    if is_jax_hint is not None:
        is_jax = is_jax_hint
    elif rf is not None and not ev.frames_removed:
        is_jax = rf.kind == "jax" or (ev.module or "").split(".")[0] in ("jax", "jaxlib")
    elif (ev.module or "").split(".")[0] in ("jax", "jaxlib") or _canon(ev.exc_class) in _jax_class_names():
        is_jax = True
    else:
        strong_site = bool(site_hits) and site_hits[0][2] is not None and (
            site_hits[0][2].literal >= TEXT_MIN_LITERAL and site_hits[0][2].coverage >= TEXT_MIN_COVERAGE
            and _canon(site_hits[0][1].class_name) in classes)
        strong_rec = bool(rec_hits) and rec_hits[0].pattern is not None and (
            rec_hits[0].pattern.literal >= TEXT_MIN_LITERAL and "class" in rec_hits[0].why)
        is_jax = strong_site or strong_rec

    d = Diagnosis(ev, is_jax)
    if not is_jax:
        return d
    d.site = site
    record = rec_hits[0] if rec_hits else None
    d.record = record.record if record else None
    d.how = (record.why if record else how) or "class"
    values: dict[str, str] = {}
    if site is not None and site.template:
        m = templates.match(site.template, ev.message)
        values.update(m.values if m else {})
    if record and record.pattern:
        values.update(record.pattern.values)
    d.values = {k: v[:200] for k, v in values.items() if k != "value"}
    cands: list[Candidate] = [Candidate(h.record, record_site(cat, h.record, ev.message) or site, h.score, h.why)
                              for h in rec_hits[:5]]
    cands += [Candidate(None, SiteRef.of(s, cat.jax_version), sc, "message template") for sc, s, _ in site_hits[:5]]
    if not cands and site is not None:
        cands.append(Candidate(None, site, 0.5, how))
    cands.sort(key=lambda c: -c.score)
    d.candidates = cands[:8]
    if record:
        second = rec_hits[1].score if len(rec_hits) > 1 else 0.0
        d.confidence = min(1.0, record.score) * (1.0 if record.score - second > 0.05 else 0.85)
    elif site is not None:
        d.confidence = 0.9 if how == "raise site" else (site_hits[0][0] if site_hits else 0.4)
    else:
        d.confidence = 0.3
    if site is not None and site.path.startswith(("jax/", "jaxlib/")):
        d.excerpt = catalog_mod.read_excerpt(Path(cat.root) / site.path, site.line, site.line, 3)
    return d


def diagnose_exception(exc: BaseException) -> Diagnosis:
    """Diagnose a live exception. Non-JAX errors cost almost nothing when jax was never imported."""
    ev = from_exception(exc)
    if "jax" not in sys.modules and "jaxlib" not in sys.modules:
        return Diagnosis(ev, False)
    return _diagnose(ev, None)


def diagnose_from_text(text: str) -> Diagnosis:
    """Diagnose a traceback, a log containing one, or a final ``Class: message`` line."""
    return _diagnose(from_text(text), None)
