"""Matcher: Evidence -> Diagnosis. Decides ``is_jax``, finds the raise site and ranks records.

The stages: ``_start`` (the evidence parsed, the classes it may be), ``_site_from_frames`` (the raise the frames
show), ``_rank_candidates`` (catalog raises and curated records whose words fit), ``_decide_is_jax``,
``_failed_lookup`` (a module's missing name, placed by how the releases without it answer it) and ``_assemble``
(the diagnosis). Every candidate whose words fit the message, a raise of the installed JAX, of a
library or of a history index, or a curated record's pattern, is ranked by one score, ``_score``: the sum of
``WEIGHTS`` over its named features (how much of the message it spells and how much literal text, its class,
where it starts, a curated record, a record listing the site the frames show, the library it is about). A raise
whose caller chooses the class (``raise error_type(msg)``) fits any class (``_class_fits``), and a record's class
fits a printed base class of it in JAX's hierarchy (``_a_base_of``).

How sure the answer is comes last and in one place: ``_answer_features`` describes the answer by the named
features of ``jaxerrs.confidence`` (the words' fit, a live error, a raise shown in the frames, a call standing for
compiled code, words only, Python's own class, a search guess, the record's own site and class, another release,
a library, no record, a tie, a rival record, what the pattern leaves unspelled and how much it spells), and
``confidence.calibrated`` weighs them with weights fit on the tuning side (``tests/fit_confidence.py``).
"""

from __future__ import annotations

import ast
import builtins
import linecache
import math
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from jaxerrs import catalog as catalog_mod
from jaxerrs import confidence as confidence_mod
from jaxerrs import templates
from jaxerrs.diagnosis import PACKAGE_NAMES, Candidate, Diagnosis, SiteRef
from jaxerrs.evidence import (
    Evidence,
    Frame,
    ecosystem,
    ecosystem_of_values,
    ecosystem_origin,
    frame_library,
    from_exception,
    from_text,
    match_text_of,
    package_relpath,
    relocate,
)
from jaxerrs.kb import records as records_mod
from jaxerrs.kb.records import Record, _in_range, all_records, installed_jax, requirement_met

if TYPE_CHECKING:
    from jaxerrs import history as history_mod  # read lazily: the history index is extra knowledge for text

# Names one class goes by across releases: JAX's, and its libraries' (Equinox 0.11.0-0.11.4 named its runtime
# error class EqxRuntimeError; ``git show v0.11.4:equinox/_errors.py``).
ALIASES = {"XlaRuntimeError": "JaxRuntimeError", "EqxRuntimeError": "EquinoxRuntimeError"}
# From text alone a template must cover this much to call an error JAX's.
TEXT_MIN_LITERAL = 20
TEXT_MIN_COVERAGE = 0.45
# One scale for every candidate whose words fit the message (a raise of the installed JAX, of a library or of a
# history index, a curated record's pattern): ``_score`` sums these weights over ``_word_features``.
WEIGHTS = {
    "coverage": 0.6,  # the share of the message the template spells
    "literal": 0.2,  # how much literal text it spells, full at LITERAL_FULL characters: the more, the more specific
    "class": 0.15,  # the class printed is the candidate's (or, from text, a builtin base a JAX class shows as)
    "misfit": -0.15,  # a record whose class is not the one printed
    # A raise's template starts where the message starts (a record's pattern may quote any clause of it: a long
    # message's later, more specific clause is no worse than its general first words).
    "start": 0.05,
    "record": 0.05,  # a curated record vouches for its sites: it wins a tie with an equally good raise
    "site": 0.1,  # a record that lists the raise site the frames show
    # A record about one library (``requires``) beats a JAX record with the same words when that library raised
    # the error or sits between the user and JAX, and yields to it otherwise.
    "library": 0.25,
    "other_library": -0.1,
}
LITERAL_FULL = 100


def _canon(name: str) -> str:
    return ALIASES.get(name, name)


@lru_cache(maxsize=1)
def _builtin_names() -> frozenset[str]:
    return frozenset(n for n in dir(builtins) if isinstance(getattr(builtins, n), type))


# JAX's classes its compiled runtime raises (a call into compiled code may be where they were raised).
_COMPILED_CLASSES = frozenset({"JaxRuntimeError", "XlaRuntimeError"})
_ALWAYS_JAX = frozenset({"JaxRuntimeError", "XlaRuntimeError", "UnfilteredStackTrace", "ConcretizationTypeError",
                         "TracerBoolConversionError", "TracerIntegerConversionError", "TracerArrayConversionError",
                         "NonConcreteBooleanIndexError", "UnexpectedTracerError", "KeyReuseError", "JaxprTypeError",
                         "JAXTypeError", "JAXIndexError"})


@lru_cache(maxsize=4)
def _jax_class_names(cat: catalog_mod.Catalog) -> frozenset[str]:
    """Exception classes that only JAX raises (defined in JAX, not Python's builtins)."""
    names = {n for n in cat.by_class if n and n[0].isupper() and n not in _builtin_names()}
    return frozenset(names | _ALWAYS_JAX)


def _jax_python_class(cat: catalog_mod.Catalog, ev: Evidence) -> bool:
    """The printed class is one that JAX's Python code raises (not Python's, not the compiled runtime's)."""
    return _canon(ev.exc_class or "") in _jax_class_names(cat) - _COMPILED_CLASSES


@lru_cache(maxsize=4)
def _known_classes(cat: catalog_mod.Catalog, _generation: int) -> dict[str, str]:
    """Lower-cased name -> the spelling of every class Python, JAX or a curated record names."""
    names = _builtin_names() | _jax_class_names(cat) | {r.class_name.rsplit(".", 1)[-1] for r in all_records().values()}
    return {n.lower(): n for n in sorted(names)}


def _known_spelling(name: str, cat: catalog_mod.Catalog) -> str:
    """A pasted class name as Python, JAX or a record spells it, when it is one of theirs in other letter case
    (a class typed by hand: ``valueError``, ``XLARuntimeError``) or, for a name no one defines, one slip of
    the keys away from exactly one of theirs (``alueError``, ``ValueErorr``); the name as pasted otherwise."""
    if name in _builtin_names() or name in _jax_class_names(cat):
        return name
    known = _known_classes(cat, records_mod.GENERATION)
    if name.lower() in known or "." in name or len(name) < 8 or name in _library_class_names():
        return known.get(name.lower(), name)
    near = {v for k, v in known.items() if v.endswith("Error") and _one_slip(name.lower(), k)}
    return near.pop() if len(near) == 1 else name


@lru_cache(maxsize=1)
def _library_class_names() -> frozenset[str]:
    """The classes the installed libraries raise, by their last name (``_EquinoxRuntimeError``)."""
    return frozenset(s.class_name.rsplit(".", 1)[-1] for lib in _installed_library_catalogs() for s in lib.sites)


def _one_slip(a: str, b: str) -> bool:
    """Whether two words differ by one character left out, added, replaced, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
                                  and a[diff[1]] == b[diff[0]])
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long_, strict=False)) if x != y), len(short))
    return short[i:] == long_[i + 1:]


class _AnyClass(frozenset):
    def __contains__(self, item: object) -> bool:
        return True


_ANY_CLASS = _AnyClass()


@dataclass
class _RecordHit:
    record: Record
    score: float
    pattern: templates.Match | None
    why: str
    text: str = ""  # the pattern that matched


@lru_cache(maxsize=32)
def _pattern_hits(message: str, _generation: int) -> tuple[tuple[Record, templates.Match, str], ...]:
    """Each record one of whose patterns is in ``message``, with its best match (the most literal text).
    One diagnosis asks twice (before and after the raise site is settled); ``_generation`` is the
    loaded record set's, so a reload is not served stale results."""
    squeezed = templates.squeezed(message)
    out = []
    for rec, keyed in _keyed_patterns(_generation):
        best: templates.Match | None = None
        best_text = ""
        for key, p, whole in keyed:
            if key not in squeezed:
                continue  # its longest literal run is not in the message: it cannot match
            m = templates.match(p, message)
            if m and p != whole and m.start != 0:
                continue  # a later clause counts only where the paste starts with it (its start left out)
            if m and (best is None or m.literal > best.literal):
                best, best_text = m, whole
        if best is not None:
            out.append((rec, best, best_text))
    return tuple(out)


@lru_cache(maxsize=2)
def _keyed_patterns(_generation: int) -> tuple[tuple[Record, tuple[tuple[str, str, str], ...]], ...]:
    """Each record's patterns, and their later clauses (``_later_clauses``), with the longest literal run (spaces
    removed), the quick test before a match, and the whole pattern each stands for."""
    return tuple((rec, tuple((templates.key_literal(q), q, p) for p in rec.all_patterns
                             for q in (p, *_later_clauses(p))))
                 for rec in all_records().values())


CLAUSE_MIN_LITERAL = 60  # literal characters a pattern's later clause must spell to stand for the whole
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _later_clauses(pattern: str) -> list[str]:
    """The pattern from each of its later sentences on, where that much spells ``CLAUSE_MIN_LITERAL`` characters: a
    paste that left out the message's first sentence ("In previous releases of JAX, flatten-up-to used to …",
    without "Expected None, got …") is still the record's words."""
    out = []
    for m in _SENTENCE_END.finditer(pattern):
        tail = pattern[m.end():]
        try:
            templates.parts(tail)
        except ValueError:
            continue  # the split fell inside a hole
        if templates.literal_length(tail) >= CLAUSE_MIN_LITERAL:
            out.append(tail)
    return out


def _record_hits(ev: Evidence, site: SiteRef | None, classes: set[str], eco: str | None = None) -> list[_RecordHit]:
    """Records one of whose patterns words the message, best first by ``_score``."""
    hits = []
    message = ev.match_text
    # Text names one class; IPython prints "TypeError" where the class is a JAX subclass of it, or the
    # reverse. A JAX-specific record class is compatible with a builtin class named in text.
    loose = ev.source == "text" and len(classes) == 1 and next(iter(classes)) in _builtin_names()
    version = installed_jax() if ev.source == "live" else None
    all_records()
    for rec, best, best_text in _pattern_hits(message, records_mod.GENERATION):
        # A live error comes from this machine: a record about a library it lacks, or about other JAX
        # releases (``jax_versions``), cannot be the answer. Pasted text may come from anywhere.
        if ev.source == "live" and ((rec.requires and not requirement_met(rec.requires))
                                    or not rec.holds_for(version)):
            continue
        cls_ok = (_canon(rec.class_name) in classes or (loose and rec.class_name not in _builtin_names())
                  or (ev.source == "text" and len(classes) == 1 and _a_base_of(next(iter(classes)), rec.class_name)))
        site_ok = site is not None and any(s.path == site.path and s.function == site.function for s in rec.sites)
        if best is None:
            continue  # a record whose patterns contradict the message gives wrong advice
        library = 0 if not rec.requires else (1 if eco is not None and rec.library == eco else -1)
        score = _score(_word_features(best, cls_ok, record=True, site=site_ok, library=library))
        why = "message" + (" + raise site" if site_ok else "") + (" + class" if cls_ok else "")
        hits.append(_RecordHit(rec, score, best, why, best_text))
    hits.sort(key=lambda h: -h.score)
    return hits


def _word_features(m: templates.Match, cls_ok: bool, *, record: bool = False, site: bool = False,
                   library: int = 0) -> dict[str, float]:
    """The named features of one candidate's match (``WEIGHTS`` says what each means); ``library`` is 1 when
    the record's library is the one the error came through, -1 when another, 0 for JAX's own."""
    return {"coverage": m.coverage, "literal": min(1.0, m.literal / LITERAL_FULL), "class": float(cls_ok),
            "misfit": float(record and not cls_ok), "start": float(m.start == 0 and not record),
            "record": float(record), "site": float(site), "library": float(library > 0), "other_library": float(library < 0)}


def _score(features: dict[str, float]) -> float:
    """The one ranking score: the weighted sum of a candidate's features."""
    return sum(WEIGHTS[k] * v for k, v in features.items())


def _match_quality(m: templates.Match, cls_ok: bool) -> float:
    """How well one template explains a message, 0..1: the same scale for catalog sites and records."""
    return _score(_word_features(m, cls_ok))


def _strong_text_match(m: templates.Match | None, cls_ok: bool) -> bool:
    """From text alone, a match close enough to call the error JAX's: JAX's class and enough of its words.

    A long literal run at the start of the message counts even when run-specific values (reprs, shapes)
    make up most of it. Short texts never do: "division by zero" is Python's words as much as JAX's.
    """
    if m is None or not cls_ok or m.literal < TEXT_MIN_LITERAL:
        return False
    if m.coverage >= TEXT_MIN_COVERAGE or (m.start == 0 and m.literal >= 40) or m.literal >= 60:
        return True
    # Run-specific values are not words JAX chose (``templates.words_share``).
    return m.literal >= 30 and templates.words_share(m) >= 0.6


def _template_matches(cat: catalog_mod.Catalog, message: str) -> list[tuple[catalog_mod.Site, templates.Match]]:
    """Catalog sites whose message template matches ``message``, with the match."""
    found = ((s, templates.match(s.template or "", message)) for s in cat.text_candidates(message))
    return [(s, m) for s, m in found if m is not None]


def _site_hits(ev: Evidence, cat: catalog_mod.Catalog, classes: set[str]) -> list[tuple[float, catalog_mod.Site, templates.Match | None]]:
    """Catalog sites whose template matches the message, best first."""
    out = [(_match_quality(m, _class_fits(s.class_name, classes)), s, m) for s, m in _template_matches(cat, ev.match_text)]
    if not out and ev.exc_class in _jax_class_names(cat):
        # Messages built inside the class (jax.errors): the class itself points at its sites.
        sites = cat.by_class.get(ev.exc_class, [])
        out = [(0.3 / max(1, len(sites)), s, None) for s in sites]
    out.sort(key=lambda t: -t[0])
    return out


def _resolve(cat: catalog_mod.Catalog, path: str, line: int, function: str, message: str) -> SiteRef:
    """The catalog's raise statement for a frame, or the frame itself (C++ errors, other versions)."""
    s = cat.at(path, line)
    # Plain tracebacks print co_name ("error"), live frames co_qualname ("f.<locals>.error").
    if s is not None and same_function(s.function, function):
        return SiteRef.of(s, cat.jax_version)
    in_fn = [x for x in cat.by_path.get(path, ()) if same_function(x.function, function)]
    if in_fn and s is None:
        scored = [(templates.match(x.template, message) if x.template else None, x) for x in in_fn]
        matched = [(m.literal, x) for m, x in scored if m]
        if matched:
            return SiteRef.of(max(matched, key=lambda t: t[0])[1], cat.jax_version)
    return SiteRef(path, line, function, cat.jax_version)


# JAX deliberately repeats Python's and NumPy's own words for some errors. Without a JAX frame to
# show where it was raised, a message of this shape is as likely NumPy's or Python's as JAX's.
FOREIGN_MESSAGES = (
    "index {i} is out of bounds for axis {a} with size {n}",
    "unsupported operand type(s) for {op}: {a} and {b}",
    "operands could not be broadcast together with shapes {shapes}",
    "cannot reshape array of size {n} into shape {shape}",
    "{name} takes {n} positional argument",
    "{obj} object is not callable",
    "too many values to unpack",
    "list index out of range",
    "division by zero",
    "cannot assign to field {name}",  # a frozen dataclass; Equinox modules say it too
    "{obj} object has no attribute {name}",  # Python's getattr; Flax's Variable says it in the same words
)
# A hole of Python's one-sentence message that holds a further sentence: a library's message that starts so.
_NEXT_SENTENCE = re.compile(r"[.!?]\s+[A-Z]")


def _letters(template: str) -> int:
    """Letters and digits of a template's literal text: how much of a message it pins down."""
    return sum(ch.isalnum() for lit in templates.literals(template) for ch in lit)


def _foreign(message: str, specific: int = 0) -> bool:
    """The message is one of Python's or NumPy's, with its values filled in (not a longer message that
    starts with those words, as Flax's "… has no attribute "w". If "w" is defined in setup …").
    ``specific``: the letters of the most specific JAX pattern that matched; one that spells more than
    Python's words ("'Config' object has no attribute 'config'") says the values are JAX's own."""
    for t in FOREIGN_MESSAGES:
        m = templates.match(t, message)
        if (m is not None and _letters(t) >= specific
                and not any(_NEXT_SENTENCE.search(v) or _not_a_python_repr(v) for v in m.values.values())):
            return True
    return False


def _not_a_python_repr(value: str) -> bool:
    """A hole's value in double quotes with no single quote inside: Python's ``repr`` of a string would have used
    single quotes, so another library wrote these words (Flax's ``"MyClass" object has no attribute "x"``)."""
    v = value.strip()
    return len(v) >= 2 and v[0] == v[-1] == '"' and "'" not in v


def _not_a_raise(rf: Frame | None) -> bool:
    """The frame's shown line is code other than a ``raise``/``assert`` (Python or compiled code raised there)."""
    code = (rf.line if rf is not None else "").strip()
    return bool(code) and not code.startswith(("raise", "assert"))


def _cut_below_python(ev: Evidence) -> bool:
    """Pasted text whose frames end in Python's own library at a call, not a raise (``contextlib``'s
    ``return func(*args, **kwds)``, under the user's line or a library's): what raised lies below the frames
    shown (JAX filtered its own), so only the words can tell."""
    last = ev.frames[-1] if ev.frames else None
    return (ev.source == "text" and last is not None and last.kind == "lib" and frame_library(last) is None
            and _not_a_raise(last))


def _user_raised(ev: Evidence) -> bool:
    """The innermost frame that is not Python's own is the user's, and it raised (or compiled code called on
    its line did): not so where the frames end below it in Python's library, at a call."""
    rf = ev.raise_frame
    return rf is not None and rf.kind == "user" and not _cut_below_python(ev)


def _raised_by_compiled_code(ev: Evidence) -> bool:
    """The innermost frame is the user's and its line is no ``raise``: C code called there raised."""
    rf = ev.raise_frame
    if rf is None or rf.kind != "user" or not ev.frames or ev.frames[-1] is not rf:
        return False
    line = (rf.line or linecache.getline(rf.filename, rf.lineno)).strip()
    if line.startswith(("import ", "from ")) and "jax" not in ev.match_text:
        from jaxerrs.api_names import named_package

        # Python's import system failed on a module that is neither JAX's nor a library's (the user's `import absl`)
        return named_package(ev.match_text) is not None
    return not line.startswith(("raise", "assert"))


def _record_refs(cat: catalog_mod.Catalog, rec: Record, message: str) -> list[SiteRef]:
    """Each of a record's sites as a SiteRef in the installed JAX: those whose raise words the message as it
    is first, then the record's order."""
    fits, rest = _record_refs_split(cat, rec, message)
    return fits + rest


def _record_refs_split(cat: catalog_mod.Catalog, rec: Record, message: str) -> tuple[list[SiteRef], list[SiteRef]]:
    """A record's sites in the installed JAX: (those whose raise words the message as it is, the others). A
    library's record's sites are looked up in that library's installed raises."""
    fits, rest = [], []
    lib = _library_catalog(rec.library) if rec.requires else None
    for ref in rec.sites:
        sites = (lib or cat).in_function(ref.path, ref.function)
        matched = [(m.literal, s) for m, s in ((templates.match(s.template, message) if s.template else None, s)
                                              for s in sites) if m]
        if matched:
            s = max(matched, key=lambda t: t[0])[1]
            fits.append(SiteRef.of(s, cat.jax_version) if lib is None else _library_ref(s, lib, cat.jax_version))
        elif lib is not None:
            # No raise of the library's words it: the record's function there.
            if (line := cat.function_line(ref.path, ref.function)) is not None:
                rest.append(SiteRef(ref.path, line, ref.function, cat.jax_version))
        elif built := [s for s in sites if not s.template]:
            # The record's pattern matched; a raise there builds its text elsewhere (a helper).
            rest.append(SiteRef.of(built[0], cat.jax_version))
        elif (line := cat.function_line(ref.path, ref.function)) is not None:
            # No raise there words it (those there word other errors): JAX's call into C++ that raised it.
            rest.append(SiteRef(ref.path, line, ref.function, cat.jax_version))
        elif sites:
            rest.append(SiteRef.of(sites[0], cat.jax_version))
    return fits, rest


def _text_ranking(ev: Evidence, cat: catalog_mod.Catalog, site_hits: list, rec_hits: list[_RecordHit],
                  lib_hits: Sequence[tuple[float, SiteRef]] = ()) -> list[tuple[float, SiteRef, Record | None]]:
    """Without a raise frame: catalog sites, the installed libraries' raises and the sites of matched records on
    one scale, best first (JAX's raise first where a library's words it alike)."""
    best: dict[tuple[str, str], tuple[float, SiteRef, Record | None]] = {}

    def add(score: float, ref: SiteRef, rec: Record | None) -> None:
        key = (ref.path, ref.function)
        old = best.get(key)
        if old is None or score > old[0]:
            best[key] = (score, ref, rec or (old[2] if old else None))
        elif rec is not None and old[2] is None:
            best[key] = (old[0], old[1], rec)

    for sc, s, _m in site_hits:
        add(sc, SiteRef.of(s, cat.jax_version), None)
    for sc, ref in lib_hits:
        add(sc, ref, None)
    for h in rec_hits:
        if h.pattern is None:
            continue
        q = _match_quality(h.pattern, "class" in h.why) + WEIGHTS["record"]
        fits, rest = _record_refs_split(cat, h.record, ev.match_text)
        for i, ref in enumerate(fits + rest):
            # A site whose raise does not word the message ranks clearly below one whose raise does.
            add(q - 0.01 * i - (2 * TIED_SITE if fits and i >= len(fits) else 0.0), ref, h.record)
    return sorted(best.values(), key=lambda t: -t[0])


def _site_values(cat: catalog_mod.Catalog, site: SiteRef, m: templates.Match) -> dict[str, str]:
    """The values a raise site's message carries, each under the name of what it is (``jaxerrs.holes``):
    ``names`` for a hole ``{', '.join(names)}``, not ``join``. A hole with no such name is left out."""
    installed = cat.at(site.path, site.line)
    if installed is None or installed.template != site.template or not m.holes:
        return m.values  # a raise of another release, as the text names it: its source is not here
    from jaxerrs.holes import hole_labels

    labels = hole_labels(cat.root, site.path, site.line, installed.end_line, site.function, site.template)
    if len(labels) != len(m.holes):
        return m.values
    values: dict[str, str] = {}
    for name, value in zip(labels, m.holes, strict=True):
        if name and value and name not in values:
            values[name] = value
    return values


def _qualname_at(cat: catalog_mod.Catalog, path: str, line: int, printed: str) -> str:
    """The co_qualname of the function at ``path:line`` whose name was printed (plain tracebacks print co_name)."""
    spans = [q for lo, hi, q, _def in catalog_mod.function_spans(str(Path(cat.root) / path)) if lo <= line <= hi]
    for q in reversed(spans):  # innermost first
        if same_function(q, printed):
            return q
    return printed


def same_function(qualname: str, printed: str) -> bool:
    return qualname == printed or qualname.rsplit(".", 1)[-1] == printed.rsplit(".", 1)[-1]


def record_site(cat: catalog_mod.Catalog, rec: Record, message: str) -> SiteRef | None:
    """The record's first site in the installed JAX, at the raise whose text fits ``message`` best."""
    refs = _record_refs(cat, rec, message)
    return refs[0] if refs else None


def _installed_has(cat: catalog_mod.Catalog, path: str, function: str) -> bool:
    """Whether the installed JAX has this function in this file (tracebacks print co_name, not the qualname)."""
    if cat.in_function(path, function) or cat.function_line(path, function) is not None:
        return True
    if function == "<module>":  # a module's top level (an import there failed): the file is all it takes
        return (Path(cat.root) / path).is_file()
    spans = catalog_mod.function_spans(str(Path(cat.root) / path))
    return any(same_function(q, function) for _lo, _hi, q, _def in spans)


def _other_release(cat: catalog_mod.Catalog, ev: Evidence, path: str, function: str,
                   lineno: int) -> tuple[SiteRef | None, str] | None:
    """For a pasted traceback whose raising function the installed JAX does not have: the site in the
    release that produced it (from the history index) and what the installed JAX does instead.

    None when the installed JAX has that function (the usual case) or the index cannot be read.
    """
    if _installed_has(cat, path, function):
        return None
    try:
        from jaxerrs import history

        h = history.load()
        if "." not in function:  # plain tracebacks print co_name: find the qualified name the index knows
            quals = h.qualnames(path, function, lineno) or h.qualnames(path, function)
            function = quals[0] if len(quals) == 1 else function
        fate = h.fate(path, function, ev.match_text, cat.jax_version)
        releases = list(_text_releases(ev.text))
        if not releases:
            releases = [r for r in h.releases() if h.function_span(path, function, r) is not None]
    except Exception:  # noqa: BLE001 - the history is extra knowledge; without it the text's own site stays
        return None
    status = fate.get("status")
    present = [r for r in releases if h.function_span(path, function, r) is not None] if status == "unknown" else []
    if present:
        return _in_releases_having(h, ev, path, function, lineno, present, _jax_python_class(cat, ev))
    if not releases or status == "unknown":
        if any(h.function_span(path, function, r) is not None for r in h.releases()):
            return None, (f"The traceback names `{function}` in `{path}`, of JAX releases its other clues rule out: "
                          "jaxerrs does not guess where it was raised.")
        return None, (f"The traceback names `{function}` in `{path}`, which no JAX release from "
                      f"{h.releases()[0]} to {h.releases()[-1]} has: jaxerrs does not guess where it was raised.")
    release = releases[-1]
    site = SiteRef(path, lineno, function, release)
    shown = _jax_releases(releases)
    now = fate.get("now") or {}
    if status in ("moved", "reworded") and now:
        what = "moved" if status == "moved" else "reworded"
        note = (f"This traceback comes from {shown}. The installed JAX {cat.jax_version} raises this error at "
                f"`{now['path']}:{now['line']}` in `{now['function']}` ({what} in {fate.get('changed_in')}).")
    elif status == "removed":
        note = (f"This traceback comes from {shown}. The installed JAX {cat.jax_version} no longer raises this "
                f"error: it was removed in JAX {fate.get('removed_in')}.")
    else:
        note = f"This traceback comes from {shown}; the site shown is where that release raised it."
    return site, note


def _jax_releases(releases: list[str]) -> str:
    """``JAX 0.4.12`` for one release, ``JAX 0.2.10–0.4.12`` for the first and last of several."""
    return f"JAX {releases[0]}" if len(releases) == 1 else f"JAX {releases[0]}–{releases[-1]}"


def _in_releases_having(h: history_mod.History, ev: Evidence, path: str, function: str, lineno: int,
                        present: list[str], jax_class: bool) -> tuple[SiteRef | None, str]:
    """The last JAX frame of a traceback, in a function the text's releases ``present`` had, with no raise the
    index holds there: code below it raised, the frame's own raise (an ``assert``), or a call into code not
    shown. The site, if any, and a note saying which (none: the message's words may say where)."""
    shown = _jax_releases(present)
    if ev.frames[-1] is not ev.raise_frame:
        return None, (f"The traceback's last JAX frame, `{function}` in `{path}` ({shown}), called into the code "
                      "below it (not JAX's), which raised: jaxerrs does not guess a site in JAX.")
    if _shows_a_raise(ev.raise_frame):
        # A raise whose words the index does not hold (an ``assert``, a message built elsewhere), shown in a
        # function those releases had: that frame is the site, in the latest release raising at that line.
        raising = [r for r in present if (hit := h.site_at(path, lineno, r)) is not None
                   and same_function(hit.function, function)] or present
        shown = _jax_releases(raising)
        return (SiteRef(path, lineno, function, raising[-1], ev.exc_class),
                f"This traceback comes from {shown}; the site shown is where that release raised it.")
    # No raise the index knows: its line calls on into code the text does not show (cut, or filtered). Nothing
    # is placed here. The message's words may say where only under a class of JAX's Python code: NumPy's and
    # Python's code say some of JAX's words too ("The truth value of an array … is ambiguous"), with Python's
    # classes.
    if jax_class or _raised_so_then(h, ev, present):
        return None, ""
    return None, (f"The traceback's last frame, `{function}` in `{path}` ({shown}), calls on into code the "
                  "paste does not show: jaxerrs does not guess where that raised.")


def _raised_so_then(h: history_mod.History, ev: Evidence, releases: list[str]) -> bool:
    """Whether a raise of ``releases`` words the message as closely as JAX's own must (``_strong_text_match``),
    in words that are not Python's or NumPy's own (``_foreign``): then they say where, under Python's class too."""
    if _foreign(ev.match_text):
        return False
    hits = h.sites_for(ev.match_text, ev.exc_class or None)
    return any(x.template and _strong_text_match(templates.match(x.template, ev.match_text), True)
               for x in _in_releases(hits, releases))


_RAISE_CODE = re.compile(r"^\s*(?:raise|assert)\b|:\s*(?:raise|assert)\b")


def _shows_a_raise(rf: Frame | None) -> bool:
    """Whether a frame's shown code raises (``raise …``, ``assert …``, ``if x: raise …``)."""
    return rf is not None and _RAISE_CODE.search(rf.line or "") is not None


def _a_call_not_a_raise(cat: catalog_mod.Catalog, rf: Frame, site: SiteRef | None) -> bool:
    """A pasted frame of another release (its shown code is not the installed line there), whose line is a
    call and not a raise. (The installed release's own call line is where compiled code raised: kept.)"""
    if site is None or site.template is not None or cat.at(site.path, site.line) is not None:
        return False
    code = (rf.line or "").strip()
    return (bool(code) and not code.startswith(("raise", "assert")) and "(" in code
            and (Path(cat.root) / site.path).is_file() and _installed_line(cat, site) != code)


def _installed_line(cat: catalog_mod.Catalog, site: SiteRef) -> str:
    import linecache

    return linecache.getline(str(Path(cat.root) / site.path), site.line).strip()


CUT_MIN_LITERAL = 40  # a message cut short must start with this much of a record's words


def _cut_short(ev: Evidence, classes: set[str]) -> list[_RecordHit]:
    """For a pasted message cut short (the user quoted its first lines): the record whose pattern it is the
    start of, by the most literal text, when that is at least ``CUT_MIN_LITERAL`` characters."""
    message = templates.normalise(ev.match_text)
    if len(message) < CUT_MIN_LITERAL:
        return []
    found: dict[str, tuple[int, Record, str]] = {}
    for rec in all_records().values():
        if _canon(rec.class_name) not in classes:
            continue
        for p in rec.all_patterns:
            n = _prefix_literal(p, message)
            if n >= CUT_MIN_LITERAL and n > found.get(rec.id, (0,))[0]:
                found[rec.id] = (n, rec, p)
    if not found:
        return []
    top = max(n for n, _rec, _p in found.values())
    # Every record whose words the cut message starts as far: which one it was, the text does not say.
    # The one with the least literal text (the most general) leads; the others tie with it.
    tied = sorted((v for v in found.values() if v[0] == top), key=lambda v: (_letters(v[2]), v[1].id))
    m = templates.Match(0, min(1.0, top / len(message)), top, {}, len(message))
    score = 0.35 + 0.25 * min(1.0, top / 60) + 0.2
    return [_RecordHit(rec, score, m, "message start + class", p) for _n, rec, p in tied]


def _prefix_literal(template: str, message: str) -> int:
    """Literal characters of ``template`` that ``message`` (normalised) spells from its start, when the
    message is a start of the template (it ends inside one of its literals or holes); else 0."""
    try:
        parts = templates.parts(template)
    except ValueError:
        return 0
    pos, matched, after_hole = 0, 0, False
    for lit, name in parts:
        lit = templates.normalise(lit) if lit.strip() else ""
        if lit:
            if after_hole:
                i = message.find(lit, pos)
                if i < 0:
                    return matched  # the message ends inside the hole before this literal
                pos = i
            elif not message.startswith(lit, pos):
                rest = message[pos:]
                return matched + len(rest) if rest and lit.startswith(rest) else (0 if pos == 0 else matched)
            pos, matched = pos + len(lit), matched + len(lit)
            if message[pos:pos + 1] == " ":
                pos += 1
        elif pos == 0 and name is not None:
            return 0  # a template that starts with a hole: its start cannot be told
        after_hole = name is not None
    return 0  # the whole template is there: a full match, which _record_hits found or refused


def _site_of_wording(cat: catalog_mod.Catalog, hit: _RecordHit) -> tuple[SiteRef, str] | None:
    """When the pattern that matched is a wording only some releases use (a ranged legacy pattern) and the
    installed JAX is not among them: the record's site in those releases (the one whose raise words it so in
    most of them, else the one most of them have), or where none of its sites was there, the raise that words
    it so in the latest of them, from the history index, with a note. None otherwise."""
    rec = hit.record
    rng = rec.pattern_ranges.get(hit.text)
    if not rng or rec.holds_for(cat.jax_version) and _in_range(cat.jax_version, rng):
        return None
    try:
        from jaxerrs import history

        h = history.load()
        releases = [r for r in h.releases() if _in_range(r, rng)]
        key = history.version_key
        said = h.sites_for(hit.text, rec.class_name or None)
        best: tuple[list[str], list[str], records_mod.SiteRef] | None = None
        for s in rec.all_sites:
            mine = [r for r in releases if (not s.jax or _in_range(r, s.jax))
                    and h.function_span(s.path, s.function, r) is not None]
            # The releases in which this site's own raise words it so: the site that raised these words.
            spans = [(key(x.releases[0]), key(x.releases[1])) for x in said
                     if x.path == s.path and same_function(x.function, s.function)]
            worded = [r for r in mine if any(lo <= key(r) <= hi for lo, hi in spans)]
            if mine and (best is None or (len(worded), len(mine)) > (len(best[0]), len(best[1]))):
                best = (worded, mine, s)
        if best is None:
            # No site of the record's was there in those releases: the raise that words it so in the latest.
            placed = _placed_in(said, releases)
            if not placed:
                return None
            release, x = placed[-1]
            s, line, releases = records_mod.SiteRef(x.path, x.function), x.line, sorted(
                {r for r, _ in placed}, key=key)
        else:
            worded, mine, s = best
            release = (worded or mine)[-1]
            line = h.where(s.path, s.function, release, hit.text) or (h.function_span(s.path, s.function, release)
                                                                       or (0, 0))[0]
            # The releases said are those whose raises word it so, else those whose raising function exists
            # (the record's range is open-ended, "<0.10.0", and the index reaches back to 0.2.0).
            spans = [(key(x.releases[0]), key(x.releases[1])) for x in said]
            releases = [r for r in mine if any(lo <= key(r) <= hi for lo, hi in spans)] or mine
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return None
    note = (f"These words are those of JAX {releases[0]}–{releases[-1]}, not of the installed JAX "
            f"{cat.jax_version}: the site shown is where JAX {release} raised it.")
    return SiteRef(s.path, line, s.function, release, rec.class_name), note


def _library_wording_site(ev: Evidence, rec: Record) -> tuple[SiteRef, str] | None:
    """For a library's record matched by a wording of its library's older releases (a legacy pattern): the
    raise of those releases that the library's history index finds for the words, when the record lists it,
    with the note naming them; None otherwise."""
    try:
        found = _library_history_hit(ev)
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return None
    if found is None or not found[3] or found[1] != rec.library or not _lists_site(rec, found[2]):
        return None
    return found[2], found[3]


def _not_this_source(cat: catalog_mod.Catalog, rf: Frame, site: SiteRef | None) -> bool:
    """A pasted frame with no raise at its line in the installed JAX, whose shown code is another line there."""
    if site is None or site.template is not None or cat.at(site.path, site.line) is not None or not rf.line.strip():
        return False
    here = _installed_line(cat, site)
    return bool(here) and here != rf.line.strip()


def _shown_raise(ev: Evidence, rf: Frame, function: str) -> tuple[SiteRef, str] | None:
    """A pasted frame whose shown line raises the error's class (or what a function builds, such as
    ``raise escaped_tracer_error(arg)``: no other class), at a line where the history index has a raise of the
    same function in some releases: that site, in the latest of them, and a note naming them."""
    m = re.match(r"raise\s+([\w.]+)", rf.line.strip())
    raised = m.group(1).rsplit(".", 1)[-1] if m is not None else ""
    if m is None or (ev.exc_class and raised[:1].isupper() and _canon(raised) != _canon(ev.exc_class)):
        return None
    try:
        from jaxerrs import history

        h = history.load()
        path = rf.jax_path or ""
        releases = _releases_raising_at(h, path, rf.lineno, function)
        shown = h.format_releases(h.release_index(r) for r in releases)
    except Exception:  # noqa: BLE001 - the history is extra knowledge; without it no site is named
        return None
    if shown is None:
        return None
    note = (f"The traceback shows the raise at `{path}:{rf.lineno}` in `{function}`, where JAX {shown} raises it "
            "(not the installed release's line): the site is the one the traceback shows.")
    return SiteRef(path, rf.lineno, function, releases[-1], ev.exc_class), note


def _releases_raising_at(h: history_mod.History, path: str, line: int, function: str) -> list[str]:
    """The releases of a history index (JAX's or a library's) that raise at ``path:line`` in ``function``."""
    return [r for r in h.releases() if (hit := h.site_at(path, line, r)) is not None
            and same_function(hit.function, function)]


def _older_wording(cat: catalog_mod.Catalog, ev: Evidence, site: SiteRef) -> tuple[SiteRef, str] | None:
    """For a pasted message whose words the site found for it (a record's first site) does not raise: the
    installed JAX's raise that does, else the site of the releases that word it so (history index) and a note
    saying what changed.

    None when the site's own template matches the message (the usual case; unless it spells under half of it and
    another release's template spells most of it, ``_says_more_elsewhere``: then that release's raise), when the
    site raises a message built elsewhere (``raise _invalid_shape_error(shape)``: whatever its words, the installed
    release may say these), or when nothing raises this wording.
    """
    own = templates.match(site.template, ev.match_text) if site.template else None
    longer = own is not None and _says_more_elsewhere(ev, own)
    if own is not None and not longer:
        return None
    raised = cat.at(site.path, site.line)
    if raised is not None and raised.template is None:
        return None  # the site raises words built elsewhere (a helper's message): no wording tells it apart
    text = ev.match_text
    # A raise of the installed JAX whose words start the message: the record's other site, or one it lacks.
    here = [] if longer else _raises_starting(cat, text)
    if here:
        return SiteRef.of(max(here, key=lambda t: t[0])[1], cat.jax_version), ""
    try:
        from jaxerrs import history

        h = history.load()
        hits = [x for x in h.sites_for(ev.match_text, ev.exc_class or None) if x.template
                and templates.match(x.template, ev.match_text)]
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return None
    installed = cat.jax_version
    if not hits:
        return None
    now = [x for x in hits if _covers(x, installed)]
    if now:  # the installed JAX words it so too, at another raise than the record's first site
        fits = [s for x in now for s in cat.in_function(x.path, x.function)
                if s.template and templates.match(s.template, ev.match_text)]
        return (SiteRef.of(fits[0], installed), "") if fits else None
    told = _told_hits(h, ev, hits)  # the raises of the releases the rest of the text points to, if it does
    last = max(told or hits, key=lambda x: history.version_key(x.releases[1]))
    in_file = [x for x in hits if x.path == last.path]
    shown = ".".join(map(str, min(history.version_key(x.releases[0]) for x in in_file)))
    until = max(in_file, key=lambda x: history.version_key(x.releases[1])).releases[1]
    ref = SiteRef(last.path, last.line, last.function, last.releases[1], site.exc_class, last.template)
    note = (f"This wording comes from JAX {shown}–{until}. The installed JAX {installed} words this "
            f"error differently, at `{site.path}:{site.line}` in `{site.function}`.")
    return ref, note


SAYS_MORE = 0.8  # the share of a message a history template must spell to outweigh a raise spelling less than half


def _says_more_elsewhere(ev: Evidence, own: templates.Match) -> bool:
    """Whether a template of the history index spells most of the message (``SAYS_MORE``) where the site's own
    template, which matches too, spells less than half of it: the site's words are the start of a longer
    message another release raised elsewhere (``invalid value (nan) encountered in jit(f)`` and the paragraph
    that 0.4.21-0.5.x's ``_pjit_call_impl_python`` added to it)."""
    if own.coverage >= 0.5:
        return False
    try:
        from jaxerrs import history

        matches = history.load().template_matches(ev.match_text, ev.exc_class or None)[:3]
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return False
    return any((m := templates.match(t, ev.match_text)) is not None and m.coverage >= SAYS_MORE for _sc, t in matches)


@lru_cache(maxsize=16)
def _text_releases(text: str | None) -> tuple[str, ...]:
    """``History.releases_from_text`` of a pasted text, read once for the several places that ask for it
    (() for no text)."""
    from jaxerrs import history

    return tuple(history.load().releases_from_text(text)) if text else ()


def _told_hits(h: history_mod.History, ev: Evidence,
               hits: list[history_mod.SiteHit]) -> list[history_mod.SiteHit]:
    """The raises among ``hits`` of the releases the text's other evidence allows (its JAX frames, the module
    names and wrapper classes only some releases print): none when it allows them all."""
    told = _text_releases(ev.text)
    if not told or len(told) == len(h.releases()):
        return []
    return _in_releases(hits, told)


def _in_releases(hits: list[history_mod.SiteHit], releases: Sequence[str]) -> list[history_mod.SiteHit]:
    """The history hits whose range holds one of ``releases``."""
    return [x for x in hits if any(_covers(x, r) for r in releases)]


def _placed_in(hits: list[history_mod.SiteHit], releases: Sequence[str]) -> list[tuple[str, history_mod.SiteHit]]:
    """(release, hit) for each of ``releases`` in order, with each hit whose range holds it: the last pair is the
    raise of these words in the latest of those releases that raised them."""
    return [(r, x) for r in releases for x in hits if _covers(x, r)]


def _covers(hit: history_mod.SiteHit, release: str) -> bool:
    """Whether a history hit's range of releases holds ``release``."""
    from jaxerrs.history import version_key as key

    return key(hit.releases[0]) <= key(release) <= key(hit.releases[1])


def _in_the_text_s_release(cat: catalog_mod.Catalog, ev: Evidence, site: SiteRef
                           ) -> tuple[SiteRef | None, str] | None:
    """The installed release's site the words placed, in the release the traceback says it comes from (its JAX
    frames; else what it shows of its release: a module name, a wrapper class or a link only some releases
    print, a release stated, not the words), when that rules the installed release out and that release raised
    in the same function in another file (``jax/core.py`` before ``jax/_src/core.py``): that file and line, and
    a note. When the installed site is a raise, and those releases had its function in the same file but raised
    nothing there, nor these words anywhere (the compiled code it calls raised; the installed release re-raises
    in it): no site, and a note. Where those releases had no such function, their raise of these words."""
    if site.jax_version != cat.jax_version or site.library_version:
        return None
    try:
        from jaxerrs import history

        h = history.load()
        framed = any(f.jax_path for f in ev.frames)
        releases = _text_releases(ev.text) if framed else tuple(h.releases_from_text(ev.text or "", wording=False))
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return None
    if not releases or cat.jax_version in releases or len(releases) == len(h.releases()):
        return None
    release = releases[-1]
    if h.function_span(site.path, site.function, release) is not None:
        # (A site that is a call into compiled code already says that code raised: it stands.)
        if (ev.frames or cat.at(site.path, site.line) is None
                or any(h.where(site.path, site.function, r) is not None for r in releases)
                or _in_releases(h.sites_for(ev.match_text), releases)):
            return None  # that release had it in the installed release's file too, or raised the words elsewhere
        return None, (f"In {_jax_releases(releases)}, which this text comes from, `{site.function}` raised nothing "
                      f"itself: the compiled code it calls raised this error (the installed JAX {cat.jax_version} "
                      f"raises it at `{site.path}:{site.line}`).")
    package = site.path.split("/", 1)[0]
    for path in h.paths_of(site.function, release):
        if path == site.path or path.split("/", 1)[0] != package:
            continue
        line = h.where(path, site.function, release)
        if line is not None:
            shown = _jax_releases(releases)
            return (SiteRef(path, line, site.function, release, site.exc_class),
                    f"This traceback comes from {shown}, where `{site.function}` raised it from `{path}`; the "
                    f"installed JAX {cat.jax_version} raises it at `{site.path}:{site.line}`.")
    # Those releases had no such function: where they raised these words, in the latest of them that did.
    placed = _placed_in(h.sites_for(ev.match_text, site.exc_class or None), releases)
    if placed:
        r, x = placed[-1]
        return (SiteRef(x.path, x.line, x.function, r, site.exc_class, x.template),
                f"This traceback comes from {_jax_releases(releases)}, where `{x.function}` raised it from "
                f"`{x.path}`; the installed JAX {cat.jax_version} raises it at `{site.path}:{site.line}`.")
    return None


# Messages Python itself words exactly so. JAX's modules answer a missing name with a ``__getattr__`` that copies
# Python's words: a raise of JAX with such a template is where JAX raised it only when a JAX frame could show it.
PYTHON_WORDED = ("module {module} has no attribute {name}", *FOREIGN_MESSAGES)


def _words_cannot_place(ev: Evidence, site: SiteRef) -> str | None:
    """Why the words of a pasted message do not place it at ``site``, the best raise found for them, or None
    when they do.

    The feature: the site's template is one of Python's own wordings (``PYTHON_WORDED``) and the traceback shows
    its frames, none of them JAX's, down to the line that raised. A raise in JAX's ``__getattr__`` would have put
    a frame of JAX's there (no filtering hides it); with none, Python's own lookup raised it (a release whose
    module had no ``__getattr__``). A final line alone, or frames JAX filtered, cannot tell: the site stands.

    (Tried and dropped, 2026-12-06: leaving unplaced a site whose raise words another message when no release's
    raise words this one. It cost four right sites of the held-out texts for one confident wrong.)
    """
    rf = ev.raise_frame
    if not ev.frames or ev.frames_removed or rf is None or rf.kind == "jax":
        return None
    if not site.template or templates.match(site.template, ev.match_text) is None:
        return None
    if any(templates.match(t, site.template) is not None for t in PYTHON_WORDED):
        return ("Python itself words this message so, and the traceback shows no frame of JAX's under the line "
                f"that raised (`{rf.function}`): Python's own lookup raised it, in a release whose module had no "
                "`__getattr__`. JAX's place for these words is a candidate.")
    return None


CUT_FIT = 0.72  # the history's score for a message cut short (or cut at its start) that counts as its words


def _history_fit(template: str, score: float, text: str) -> float | None:
    """How well a template of a history index words a pasted message (``_match_quality``'s scale), when as
    closely as JAX's own must; a message cut short, or with its start left out, counts when what is there is
    long enough and the index scored it high. None otherwise."""
    m = templates.match(template, text)
    if _strong_text_match(m, True):
        return _match_quality(m, True)
    if m is None and score >= CUT_FIT and len(text.strip()) >= 40:
        return _score({"coverage": score, "class": 1.0})  # the index's score stands for the share spelled
    return None


def _other_release_wording(cat: catalog_mod.Catalog, ev: Evidence) -> tuple[SiteRef, str] | None:
    """A message the installed JAX does not raise but other releases did, matched closely enough to call it
    JAX's (the same bar as for the installed catalog): their latest site, and a note saying so."""
    text = ev.match_text
    try:
        from jaxerrs import history

        h = history.load()
        fits = [(q, tmpl) for score, tmpl in h.template_matches(text, ev.exc_class or None)[:5]
                if (q := _history_fit(tmpl, score, text)) is not None]
        # The wordings that fit best: a looser one ("called on {_error_repr}") fits the older, longer words too.
        best = max((q for q, _t in fits), default=0.0)
        chosen = [t for q, t in fits if q >= best - 0.01]
        # (A template given as the text also matches the looser templates that fit it: only its own sites.)
        strong = [x for t in chosen for x in h.sites_for(t, ev.exc_class or None)
                  if x.template is not None and _same_words(x.template, t)]
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return None
    if not strong:
        return None
    key = history.version_key
    # The latest raise of the releases the rest of the text points to (its frames, a wrapper class), if it does.
    last = max(_told_hits(h, ev, strong) or strong, key=lambda x: key(x.releases[1]))
    first_here = min((x for x in strong if x.path == last.path and x.function == last.function),
                     key=lambda x: key(x.releases[0])).releases[0]
    installed = key(cat.jax_version)
    if key(first_here) <= installed <= key(last.releases[1]):
        return SiteRef(last.path, last.line, last.function, last.releases[1], ev.exc_class, last.template), ""
    ref = SiteRef(last.path, last.line, last.function, last.releases[1], ev.exc_class, last.template)
    first = min((x.releases[0] for x in strong), key=key)  # the wording's first release, wherever it raised
    # Whether the installed function's raises are read by the index (a class's own message is): then its words
    # are known not to be these.
    read_now = all(t is not None for t in h.templates_at(last.path, last.function, cat.jax_version) or [None])
    if not read_now and _builds_its_message_elsewhere(cat, last.function):
        # The installed function raises a message built elsewhere: it may say these very words.
        note = (f"JAX {first}–{last.releases[1]} raise these words at this site; the installed JAX {cat.jax_version} "
                f"builds the message `{last.function}` raises elsewhere, which may say them too.")
    else:
        note = (f"This wording comes from JAX {first}–{last.releases[1]}; the installed JAX {cat.jax_version} "
                "does not raise it in these words.")
    return ref, note


def _same_words(a: str, b: str) -> bool:
    """Whether two templates are one wording (the index gives some with their spaces collapsed)."""
    return " ".join(a.split()) == " ".join(b.split())


def _builds_its_message_elsewhere(cat: catalog_mod.Catalog, function: str) -> bool:
    """Whether a function of that name in the installed JAX (in any file: files move) raises a message whose
    words the catalog cannot read (``raise _invalid_shape_error(shape)``)."""
    return any(s.template is None and s.kind in ("variable", "helper") and same_function(s.function, function)
               for s in cat.sites)


@lru_cache(maxsize=1)
def _library_catalogs() -> tuple[catalog_mod.Catalog, ...]:
    return tuple(catalog_mod.library_catalogs())


def _installed_library_catalogs() -> tuple[catalog_mod.Catalog, ...]:
    """The installed libraries' catalogs of raises; none when they cannot be built (extra knowledge)."""
    try:
        return _library_catalogs()
    except Exception:  # noqa: BLE001 - the libraries' raises are extra knowledge
        return ()


def _library_catalog(library: str | None) -> catalog_mod.Catalog | None:
    """The installed library's catalog of raises, or None (not installed, or its catalog cannot be built)."""
    return next((c for c in _installed_library_catalogs() if c.package == library), None)


def _library_ref(s: catalog_mod.Site, lib: catalog_mod.Catalog, jax_version: str) -> SiteRef:
    """A raise of an installed library as a site, with the library's version beside JAX's."""
    return SiteRef(s.path, s.line, s.function, jax_version, s.exc_class, s.template, library_version=lib.jax_version)


@lru_cache(maxsize=1)
def _jax_error_bases() -> dict[str, tuple[str, ...]]:
    """JAX's exception classes (``jax/_src/errors.py`` of the installed JAX, read, not imported) -> their bases."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("jax")
        origin = spec.origin if spec is not None else None
        tree = ast.parse((Path(origin or "").parent / "_src" / "errors.py").read_text(encoding="utf-8"))
    except (ImportError, OSError, SyntaxError, ValueError):
        return {}
    return {n.name: tuple(b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in n.bases)
            for n in tree.body if isinstance(n, ast.ClassDef)}


def _a_base_of(printed: str, record_class: str) -> bool:
    """Whether the class printed is one of the record's class's bases in JAX's hierarchy: an older release raised
    the base where the installed one raises the subclass (``ConcretizationTypeError`` for ``bool()`` of a tracer
    up to 0.4.13, ``TracerBoolConversionError`` since)."""
    bases = _jax_error_bases()
    todo, seen = [record_class.rsplit(".", 1)[-1]], set()
    while todo:
        for b in bases.get(todo.pop(), ()):
            if b == printed:
                return True
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return False


def _class_fits(raised: str, classes: set[str] | list[str]) -> bool:
    """Whether a raise's class is one the error has: by name, or any, where the raise names a variable or a
    factory's call (``raise error_type(msg)``, ``raise exception_type(msg)``): the caller chose the class."""
    return _canon(raised) in classes or catalog_mod.open_class(raised)


def _library_site_hits(ev: Evidence, classes: set[str]) -> list[tuple[float, bool, str, SiteRef]]:
    """The installed libraries' raises whose template matches the message: (quality, scored as JAX's are
    (``_site_hits``); whether it words the message as closely as JAX's own must (``_strong_text_match``); the
    library; the site)."""
    out = []
    for lib in _installed_library_catalogs():
        for s, m in _template_matches(lib, ev.match_text):
            cls_ok = _class_fits(s.class_name, classes)
            out.append((_match_quality(m, cls_ok), _strong_text_match(m, cls_ok), lib.package,
                        _library_ref(s, lib, _installed_jax())))
    return out


def _library_text_hit(ev: Evidence, classes: set[str]) -> tuple[float, str, SiteRef, str] | None:
    """(quality, library, site, note) of the library raise whose template words the message best, when it does
    so as closely as JAX's own must (``_strong_text_match``): an installed library's raise first, else one of
    the releases its history index knows (``history.LIBRARY_SOURCES``: wordings the installed release changed,
    or a library not installed here), with a note naming them. None otherwise."""
    close = [(q, lib, ref, "") for q, strong, lib, ref in _library_site_hits(ev, classes) if strong]
    return max(close, key=lambda t: t[0], default=None) or _library_history_hit(ev)


def _library_class_hit(ev: Evidence) -> tuple[float, str, SiteRef, str] | None:
    """A class of a library's own (not Python's, not JAX's) that the installed library raises in one function only,
    with words none of its raises spells (the user's own text, as ``eqx.error_if`` raises it): that raise."""
    cls = ev.exc_class
    if not cls or cls in _builtin_names() or catalog_mod.open_class(cls):
        return None
    short = cls.rsplit(".", 1)[-1]
    found = [(lib, s) for lib in _installed_library_catalogs() for s in lib.sites
             if s.class_name.rsplit(".", 1)[-1] == short]
    if not found:
        return _library_class_of_releases(short)
    if len({(lib.package, s.path, s.function) for lib, s in found}) != 1:
        return None
    lib, s = found[0]
    return 0.3, lib.package, _library_ref(s, lib, _installed_jax()), ""


@lru_cache(maxsize=64)
def _library_class_of_releases(short: str) -> tuple[float, str, SiteRef, str] | None:
    """A library class the installed library never raises (renamed since: Equinox 0.11.0-0.11.4's
    ``EqxRuntimeError``) that the releases of one library's history index raise in one function only: that
    raise, in the latest release that has it, and a note naming those releases."""
    from jaxerrs import history

    hits = []
    for name in history.LIBRARY_SOURCES:
        h = history.load_library(name)
        for s in (h.sites if h is not None else ()):
            if s.cls.rsplit(".", 1)[-1] == short:
                hits.append((name, h, s))
    if len({(name, s.path, s.function) for name, _h, s in hits}) != 1:
        return None
    name, h, _s = hits[0]
    present = sorted({i for _n, _h, s in hits for i in s.lines})
    last = max((s for _n, _h, s in hits), key=lambda s: max(s.lines))
    release = h.releases()[max(last.lines)]
    ref = SiteRef(last.path, last.lines[max(last.lines)][0], last.function, _installed_jax(), short,
                  library_version=release)
    installed = catalog_mod._library_version(name)
    return 0.3, name, ref, (f"Only {name} {h.format_releases(present)} raise{'s' if len(present) == 1 else ''} "
                            f"`{short}`" + (f", not the installed {name} {installed}" if installed else "")
                            + f": the site shown is where {name} {release} raised it.")


def _library_history_hit(ev: Evidence) -> tuple[float, str, SiteRef, str] | None:
    """The best raise, in the libraries' history indexes, whose template words the message as closely as JAX's
    own must: its site in the latest release that raises it, and a note naming the releases that word it so."""
    from jaxerrs import history

    best: tuple[float, str, SiteRef, str] | None = None
    cls = ev.exc_class or None
    for name in history.LIBRARY_SOURCES:
        h = history.load_library(name)
        if h is None:
            continue
        for score, tmpl in h.template_matches(ev.match_text, cls)[:5]:
            q = _history_fit(tmpl, score, ev.match_text)
            hits = [x for x in h.sites_for(tmpl, cls) if templates.normalise(x.template or "") == tmpl]
            # The index kept only raises of the pasted class (any class when none was pasted).
            if q is None or not hits:
                continue
            if best is None or q > best[0]:
                last = max(hits, key=lambda x: history.version_key(x.releases[1]))
                raising = {i for x in hits for i in range(h.release_index(x.releases[0]),
                                                          h.release_index(x.releases[1]) + 1)}
                installed = catalog_mod._library_version(name)  # None: not installed here
                if installed and installed in h.releases() and h.release_index(installed) in raising:
                    note = ""  # the installed release raises these words too (a message cut short found them)
                else:
                    note = (f"These words are those of {name} {h.format_releases(raising)}"
                            + (f"; the installed {name} {installed} does not raise them."
                               if installed else f" ({name} is not installed here)."))
                ref = SiteRef(last.path, last.line, last.function, _installed_jax(), ev.exc_class, tmpl,
                              library_version=last.releases[1])
                best = (q, name, ref, note)
    return best


def _jax_module(ev: Evidence) -> bool:
    return (ev.module or "").split(".")[0] in ("jax", "jaxlib")


def _library_site(ev: Evidence, library: str, cat: catalog_mod.Catalog) -> SiteRef | None:
    """The raise frame inside an ecosystem library as a site: path relative to site-packages, its version."""
    rf = ev.raise_frame
    if rf is None:
        return None
    rel = package_relpath(rf.filename, (library,))
    if rel is None:
        return None
    version = _library_version(library)
    if ev.source == "text" and rf.line.strip().startswith("raise"):
        version = _library_release_raising_at(library, rel, rf.lineno, rf.function) or version
    elif (ev.source == "text"
          and (_canon(ev.exc_class or "") not in _builtin_names() or _raises_starting(cat, ev.match_text))
          and _library_call_at(library, rel, rf.lineno, rf.function)):
        # No raise at that line in any release: the frame calls on into code the paste does not show, which
        # raised the library's (or JAX's) class, or Python's class in JAX's words (``lax.cond(`` called there).
        # (Python's classes in other words may come from compiled code called right there, as for JAX's
        # frames: that line stays the site.)
        return None
    elif (ev.source == "text" and _not_a_raise(rf) and (_calls_jax(rf) or _cut_below_python(ev))
          and (_canon(ev.exc_class or "") not in _builtin_names() or _raises_starting(cat, ev.match_text)
               or any(m.start == 0 and m.literal >= TEXT_MIN_LITERAL
                      for _r, m, _p in _pattern_hits(ev.match_text, records_mod.GENERATION)))):
        # The library's line calls JAX's API (``jax.eval_shape(f)``), or Python's library at a call lies below
        # it, and JAX's class or words name the error: JAX raised it below the frames shown, and the words tell
        # where. (NumPy's words on a line that also calls ``jax.devices()`` were raised on that line.)
        return None
    return SiteRef(rel, rf.lineno, rf.function, _installed_jax(), library_version=version)


def _raises_starting(cat: catalog_mod.Catalog, text: str) -> list[tuple[int, catalog_mod.Site]]:
    """(literal characters matched, site) of the installed JAX's raises whose words start the message
    (``TEXT_MIN_LITERAL`` characters of their own text at least), a message cut short included."""
    return [(m.literal, s) for s in cat.text_candidates(text) if s.template
            and (m := templates.match(s.template, text)) is not None and m.start == 0 and m.literal >= TEXT_MIN_LITERAL]


def _library_history_past(library: str, path: str, line: int, function: str | None = None
                          ) -> history_mod.History | None:
    """The library's history index, for a pasted frame whose line is no raise (of ``function``, if given) in the
    installed release; None where it is one, or where the index cannot be read."""
    try:
        if any(c.package == library and (s := c.at(path, line)) is not None
               and (function is None or same_function(s.function, function)) for c in _library_catalogs()):
            return None
        from jaxerrs import history

        return history.load_library(library)
    except Exception:  # noqa: BLE001 - the libraries' raises are extra knowledge
        return None


def _library_call_at(library: str, path: str, line: int, function: str) -> bool:
    """Whether ``path:line`` of a library's function is no raise in any release whose ``function`` spans that
    line (by the library's history index), nor in the installed release: a call into code not shown."""
    h = _library_history_past(library, path, line)
    if h is None:
        return False
    quals = {function, *h.qualnames(path, function, line)}  # a traceback prints the function's co_name
    spanning = [r for r in h.releases() if any((span := h.function_span(path, q, r)) is not None
                                              and span[0] <= line <= span[1] for q in quals)]
    return bool(spanning) and not any(h.site_at(path, line, r) is not None for r in spanning)


def _library_release_raising_at(library: str, path: str, line: int, function: str) -> str | None:
    """For a pasted library frame that shows a raise: None when the installed release raises at that line, else
    the latest release in the library's history index that raises there from that function (the site's link
    then points at a release that has that line), or None when none does."""
    h = _library_history_past(library, path, line, function)
    if h is None:
        return None
    raising = _releases_raising_at(h, path, line, function)
    return raising[-1] if raising else None


def _name_note(ev: Evidence) -> tuple[str, str | None] | None:
    """For ``module 'jax…' has no attribute …``, a library's (``module 'optax' has no attribute 'lbfgs'``) and
    their import forms: (the package, in which of its releases the name exists, if the index says)."""
    if _canon(ev.exc_class) not in ("AttributeError", "ImportError", "ModuleNotFoundError"):
        return None
    from jaxerrs import api_names

    package = api_names.named_package(ev.match_text)
    if package is None:
        return None
    if package != "jax":  # a library's release shows in no pasted text; a live error ran the installed one
        release = None if ev.source == "text" else catalog_mod._library_version(package)
    elif ev.source == "text":  # pasted: the release the text shows, if any, not the installed one
        from jaxerrs.history import release_from_text

        release = release_from_text(ev.text) if ev.text else None
    else:
        release = _installed_jax() or None
    return package, api_names.note_for(ev.match_text, release)


def _private_module_note(ev: Evidence) -> str | None:
    """For a missing name of a private module (``cannot import name 'OptState' from 'optax._src.transform'``),
    which the name index does not cover: what such a module is."""
    from jaxerrs import api_names

    named = api_names.missing_name(ev.match_text)
    if named is None or "._src" not in f".{named[0]}" or named[1] is None:
        return None
    module, name = named
    package = module.split(".")[0]
    return (f"`{module}` is a private module of `{package}` (`_src`): the names in it move or go between releases "
            f"without a deprecation, so code that takes `{name}` from it works only with the `{package}` releases "
            "it was written for. Use the public name, if there is one, or install the release that code expects.")


def _installed_jax() -> str:
    return catalog_mod.installed_jax_version() or ""


@lru_cache(maxsize=32)
def _library_version(library: str) -> str:
    import importlib.metadata

    for dist in importlib.metadata.packages_distributions().get(library, [library]):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"


# A record found by its text alone (search), no pattern of it matching the message, is a best guess: below 0.5.
SEARCH_CONFIDENCE = 0.45
SEARCH_MARGIN = 0.8  # the second record's relevance (the best is 1.0) below which the best one stands out


SAME_FILE_OVERLAP = 0.5  # share of a message's words a record of the raise's file (not function) must spell
SEARCH_OVERLAP = 0.8  # share of a message's words a record's patterns must hold to call text without a class JAX's
_WORD = re.compile(r"[A-Za-z]{3,}")


def _searched_records(ev: Evidence) -> list[tuple[Record, float]]:
    """Records of the error's class whose text fits the message best (``search_index.rank_records``); the
    class's name is the query when the message is empty (only JAX's link to the error's page was pasted)."""
    recs = all_records()
    cls = _canon(ev.exc_class) if ev.exc_class else None
    try:
        ranked = _ranked(ev.match_text or ev.exc_class, cls, records_mod.GENERATION)
    except Exception:  # noqa: BLE001 - search is extra knowledge; without it the diagnosis stands as it is
        return []
    return [(recs[i], sc) for i, sc in ranked if i in recs]


@lru_cache(maxsize=32)
def _ranked(message: str, cls: str | None, _generation: int) -> tuple[tuple[str, float], ...]:
    """Records by how well their text fits ``message``, of class ``cls``; a builtin class named in text also
    admits JAX's own classes (``IndexError`` is what older releases, and IPython's header, call JAX's subclass
    ``NonConcreteBooleanIndexError``), as ``_record_hits`` does. The best is 1.0."""
    from jaxerrs.search_index import rank_records

    if cls is None or cls not in _builtin_names():
        return tuple(rank_records(message, cls))
    recs = all_records()
    fits = [(i, sc) for i, sc in rank_records(message, None, limit=20) if i in recs
            and (_canon(recs[i].class_name) == cls or recs[i].class_name not in _builtin_names())]
    top = fits[0][1] if fits else 0.0
    return tuple((i, sc / top) for i, sc in fits[:3]) if top > 0 else ()


def _guesses(ev: Evidence, site: SiteRef | None, by_class: bool = False) -> list[tuple[Record, float]]:
    """``_searched_records``, led by the one record whose pattern starts as the message does (``_shared_start``);
    where a raise already fits the message, only records of that raise, or, when none lists it (the raise moved
    between releases), the one record of a class no other record and no builtin has, else records of the raise's
    file whose words agree with the message's."""
    found = [(r, sc) for r, sc in _searched_records(ev) if not _names_another(ev.match_text, r)]
    first = _shared_start(ev.match_text, records_mod.GENERATION)
    lead = all_records()[first] if first is not None else None
    if lead is not None and not _names_another(ev.match_text, lead):
        found = [(lead, 1.0)] + [(r, sc) for r, sc in found if r.id != first]
    if site is None:
        return found
    at_site = [(r, sc) for r, sc in found if _lists_site(r, site)]
    if at_site:
        return at_site
    owner = _only_record_of_class(_canon(ev.exc_class or ""), records_mod.GENERATION)
    if owner is not None:
        return [(all_records()[owner], 1.0)]
    # The raise is in a file a record lists, under another function (renamed or moved within the file since), and
    # the record's words agree with most of the message's: that file's other wording of the same error.
    same_file = [(r, sc) for r, sc in found if any(x.path == site.path for x in r.all_sites)
                 and _overlap(ev.match_text, r) >= SAME_FILE_OVERLAP]
    listing = [(r, sc) for r, sc in _listing_site(ev, site) if not _names_another(ev.match_text, r)]
    if same_file or listing:
        return same_file or listing
    # A library's raise found by its class alone (its words the user's own, as ``eqx.error_if`` raises them)
    # that one record alone lists: that record's error.
    sole = [r for r in all_records().values() if r.origin == "curated" and _lists_site(r, site)] if by_class else []
    if len(sole) == 1:
        return [(sole[0], 1.0)]
    # A raise of another release that no record lists (the check moved since, into another function or file):
    # the best record by the words, when its words hold most of the message's first paragraph (JAX states the
    # error first; later paragraphs add the values and the context of the trace).
    moved = site.jax_version != _installed_jax() and not site.library_version
    head = ev.match_text.strip().split("\n\n", 1)[0]
    return found[:1] if moved and found and _overlap(head, found[0][0]) >= SAME_FILE_OVERLAP else []


LISTED_FIT = 0.4  # a record listing the site, guessed from: its text's fit to the message over the best record's


def _listing_site(ev: Evidence, site: SiteRef) -> list[tuple[Record, float]]:
    """The records of the printed class that list ``site``, when none of them words the message: the raise the
    frames show is theirs, in words no pattern of theirs spells (compiled code raising Python's words there, or
    another release's). Only those whose text fits the message about as well as the best record's does
    (``LISTED_FIT``): a call into compiled code (``apply_primitive``) is listed by records of many of its errors.
    Ordered by that fit, then by how few sites they list."""
    cls = _canon(ev.exc_class or "")
    listing = [r for r in all_records().values() if r.origin == "curated" and _canon(r.class_name) == cls
               and _lists_site(r, site)] if cls else []
    if not listing:
        return []
    fit = dict(_ranked_among(ev.match_text, tuple(sorted(r.id for r in listing))))
    listing = [r for r in listing if fit.get(r.id, 0.0) >= LISTED_FIT]
    listing.sort(key=lambda r: (-fit[r.id], len(r.all_sites), r.id))
    return [(r, fit[r.id]) for r in listing]


def _ranked_among(message: str, ids: tuple[str, ...]) -> list[tuple[str, float]]:
    """The records ``ids`` by how well their text fits the message, on the scale of the best record of all."""
    from jaxerrs.search_index import rank_records

    try:
        ranked = rank_records(message, None, limit=len(all_records()))
    except Exception:  # noqa: BLE001 - search is extra knowledge
        return []
    return [(i, sc) for i, sc in ranked if i in ids]


SHARED_START = 30  # literal characters a record's pattern and the message must start with alike


@lru_cache(maxsize=4096)
def _first_literal(pattern: str) -> str | None:
    """The literal text a pattern starts with, normalised (None for a pattern ``templates.parts`` cannot read)."""
    try:
        first, _hole = templates.parts(pattern)[0]
    except (ValueError, IndexError):
        return None
    return templates.normalise(first)


def _shared_prefix(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with alike."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


@lru_cache(maxsize=2)
def _first_literals(_generation: int) -> tuple[tuple[str, str], ...]:
    """(record id, the literal text its pattern starts with, normalised) for every pattern of every record."""
    return tuple((rec.id, lit) for rec in all_records().values() for p in rec.all_patterns
                 if (lit := _first_literal(p)) is not None)


@lru_cache(maxsize=32)
def _shared_start(message: str, _generation: int) -> str | None:
    """The one record one of whose patterns starts with the same ``SHARED_START`` literal characters or more as
    the message, further than any other record's: the same message, its tail reworded by another release (an
    older Tracer repr, a clause added or dropped). None when no record does, or several share the longest start."""
    norm = templates.normalise(message)
    if len(norm) < SHARED_START:
        return None
    best: dict[str, int] = {}
    for rec_id, lit in _first_literals(_generation):
        if lit[:SHARED_START] != norm[:SHARED_START]:
            continue  # they part within the first SHARED_START characters
        best[rec_id] = max(best.get(rec_id, 0), _shared_prefix(norm, lit))
    top = max(best.values(), default=0)
    leaders = [i for i, k in best.items() if k == top]
    return leaders[0] if top >= SHARED_START and len(leaders) == 1 else None


_TOKEN = re.compile(r"\w+")


def _names_another(message: str, rec: Record) -> bool:
    """Whether one of the record's patterns starts with the message's words but names another function where
    they part ("[Chex] Assertion assert_tree_is_sharded failed" against "[Chex] Assertion assert_tree_all_finite
    failed"): the record is about that other function's error, whatever else its words share."""
    norm = templates.normalise(message)
    for pattern in rec.all_patterns:
        lit = _first_literal(pattern)
        if lit is None:
            continue
        k = _shared_prefix(norm, lit)
        if k < 8 or k >= len(lit) or k >= len(norm):
            continue  # no shared start, or one runs out first (a hole, or a message cut short)
        said, written = _token_at(norm, k), _token_at(lit, k)
        if "_" in said and "_" in written and said != written:
            return True
    return False


def _token_at(text: str, i: int) -> str:
    return next((m.group() for m in _TOKEN.finditer(text) if m.start() <= i <= m.end()), "")


@lru_cache(maxsize=4)
def _class_owners(_generation: int) -> dict[str, str | None]:
    """Class name -> the one curated record of that class (None when several records share it)."""
    owners: dict[str, str | None] = {}
    for rec in all_records().values():
        if rec.origin == "curated":
            cls = _canon(rec.class_name)
            owners[cls] = None if cls in owners else rec.id
    return owners


def _only_record_of_class(cls: str, generation: int) -> str | None:
    if not cls or cls in _builtin_names():
        return None
    return _class_owners(generation).get(cls)


def _lists_site(rec: Record, site: SiteRef) -> bool:
    """Whether the record names ``site``'s raise (path and function) among its sites of any release: for a site
    of another release than the installed one, the same function in another file of the package counts too
    (``jax/core.py`` became ``jax/_src/core.py``; records name the installed file)."""
    moved = site.jax_version != _installed_jax()
    package = site.path.split("/", 1)[0]
    return any((x.path == site.path and same_function(x.function, site.function))
               or (moved and x.function == site.function and x.path.split("/", 1)[0] == package)
               for x in rec.all_sites)


def _overlap(message: str, rec: Record) -> float:
    """The share of the message's words (three letters or more, no CamelCase; at least four) that the record's
    patterns spell: 1.0 for a record's shorter or drifted wording of the same message."""
    # Names inside the message (PRNGKeyArray, ShapedArray) are its values, not its words.
    said = {w.lower() for w in _WORD.findall(message) if not any(c.isupper() for c in w[1:])}
    if len(said) < 4:
        return 0.0
    spelled = {w for p in rec.all_patterns for w in _pattern_words(p)}
    return len(said & spelled) / len(said)


@lru_cache(maxsize=2048)
def _pattern_words(pattern: str) -> tuple[str, ...]:
    """A pattern's literal words (three letters or more), lower-cased, in order."""
    return tuple(w.lower() for w in _WORD.findall(" ".join(templates.literals(pattern))))


DRIFT_SHARE = 0.9  # share of a record's own words a message must spell, in order, to be that message drifted
DRIFT_MIN_WORDS = 8


def _spelled_in_order(message: str, rec: Record) -> float:
    """The largest share of one of the record's patterns' words (three letters or more) that the message spells
    in the same order, words inserted between them or not: a wording of another release that added a clause
    ("An error occurred during a call to 'f' while …") still spells all of the record's words."""
    said = [w.lower() for w in _WORD.findall(message)][:400]
    best = 0.0
    for p in rec.all_patterns:
        words = _pattern_words(p)
        if len(words) >= DRIFT_MIN_WORDS:
            best = max(best, _common_subsequence(words, said) / len(words))
    return best


def _common_subsequence(a: tuple[str, ...], b: list[str]) -> int:
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], (prev + 1 if x == y else max(row[j], row[j - 1]))
    return row[-1]


TIED_SITE = 0.02  # sites ranked within this of the best one are as likely as it (a record lists its sites 0.01 apart)


def _site_tied(ranking: list[tuple[float, SiteRef, Record | None]]) -> bool:
    """Whether another raise site ranks as high as the first (a record's sites that no words of the message
    tell apart, or two raises with the same words): which one raised, the text does not say."""
    if len(ranking) < 2:
        return False
    best = ranking[0][0]
    return any(sc >= best - TIED_SITE and (ref.path, ref.function) != (ranking[0][1].path, ranking[0][1].function)
               for sc, ref, _rec in ranking[1:])


@dataclass
class _Case:
    """One diagnosis in the making: the evidence read from the error, then what each stage found."""

    ev: Evidence
    cat: catalog_mod.Catalog
    classes: set[str]
    origin: str | None  # the library (Flax, Optax, …) whose class or raise it is
    eco: str | None  # the library the error came through
    site: SiteRef | None = None
    how: str = ""
    note: str = ""  # where the text comes from another release than the installed one
    no_guess: bool = False  # no site may be guessed from the words (another release's source)
    lib_site: SiteRef | None = None
    site_hits: list[tuple[float, catalog_mod.Site, templates.Match | None]] = field(default_factory=list)
    rec_hits: list[_RecordHit] = field(default_factory=list)
    ranking: list[tuple[float, SiteRef, Record | None]] = field(default_factory=list)
    is_jax: bool = False
    library_name: bool = False  # the message is about a library's missing name (``_library_name``)
    unborn: bool = False  # a missing name that no release before had: no record about removed names is guessed


def _diagnose(ev: Evidence) -> Diagnosis:
    """Evidence → where it was raised (frames) → candidates (raises and records whose words fit) → is it
    JAX's → the diagnosis, with its candidates ranked and its confidence."""
    c = _start(ev)
    if c is None:
        return Diagnosis(ev, False)  # a Python raise in user (or library) code: nothing to match
    _site_from_frames(c)
    _rank_candidates(c)
    _decide_is_jax(c)
    _failed_lookup(c)
    package, name_note = _name_note(ev) or (None, None)
    if name_note is None and package is not None:
        name_note = _private_module_note(ev)
    if name_note is not None:
        c.is_jax = True  # the message names a module of JAX's own, or of a library's
    if package not in (None, "jax"):
        _library_name(c, package)
    if not c.is_jax:
        return Diagnosis(ev, False)
    d = _assemble(c)
    d.notes[:0] = [n for n in (c.note, name_note) if n]
    return d


def _failed_lookup(c: _Case) -> None:
    """A pasted ``module 'M' has no attribute 'N'`` with no JAX frame at its raise: what raised it is what answers
    a missing name of M in the releases whose lookup may have failed (``api_names.failed_lookup_releases``), when
    they all agree: their module ``__getattr__`` (JAX's ``deprecation_getattr``, a lazy loader's, M's own), or,
    where M had none, Python's own lookup, at the line that read it (no site in the package). For a name no
    earlier release had, a record is given only where its words name the error."""
    ev = c.ev
    if ev.source != "text" or _canon(ev.exc_class) != "AttributeError" or (
            ev.raise_frame is not None and ev.raise_frame.kind == "jax"):
        return
    from jaxerrs import api_names, history

    package = api_names.named_package(ev.match_text)
    if package is None:
        return
    installed = c.cat.jax_version if package == "jax" else _library_version(package)
    told = _text_releases(ev.text) if package == "jax" else ()
    module, name, releases = api_names.failed_lookup_releases(ev.match_text, told[0] if len(told) == 1 else None,
                                                              installed)
    kinds = {api_names.lookup_at(module, r) for r in releases}
    pkg = PACKAGE_NAMES.get(package, package)
    fate = api_names.fate(module, name) if releases else None
    # A name that came later and never left: the code was written for a newer release, so a record guessed by
    # the words (they are about removed names) would explain another error.
    c.unborn = fate is not None and (not fate.releases or fate.releases[-1] == fate.last)
    if len(kinds) > 1 and c.site is not None and _lookup_kind(c.site) not in kinds | {""}:
        # No release without the name answers its lookup with the raise the words found (a lazy loader's, for
        # a module that never had one): not that site; which of the others raised it, the words cannot say.
        c.site, c.how, c.ranking, c.site_hits, c.no_guess = None, "", [], [], True
        c.note = (f"The releases of {pkg} without `{module}.{name}` answer a missing name of `{module}` in different "
                  "ways (none with the raise its words fit best): jaxerrs does not guess which of them raised it.")
        return
    if len(kinds) != 1:
        return  # no release, or releases whose lookups differ: the words cannot say which raised it
    kind, release = kinds.pop(), releases[-1]
    shown = f"{pkg} {releases[0]}" if len(releases) == 1 else f"every release of {pkg} without `{module}.{name}`"
    if kind is None:
        c.site, c.how, c.ranking, c.site_hits, c.no_guess = None, "", [], [], True
        c.note = (f"In {shown}, `{module}` has no module `__getattr__`: Python's own attribute lookup raised this, "
                  f"at the line that reads `{module}.{name}`.")
        return
    h = history.load() if package == "jax" else history.load_library(package)
    file = module.replace(".", "/")
    hits = [x for x in (h.sites_for(ev.match_text, "AttributeError") if h is not None else [])
            if _lookup_kind(x) == kind and (kind != "function" or x.path in (f"{file}.py", f"{file}/__init__.py"))
            and _covers(x, release)]
    if not hits:
        return
    x = hits[0]
    c.site = SiteRef(x.path, x.line, x.function, release if package == "jax" else c.cat.jax_version, "AttributeError",
                     x.template, "" if package == "jax" else release)
    c.no_guess = False
    if release != installed:
        c.note = f"In {shown}, `{module}`'s module `__getattr__` raised this (`{x.function}`)."


def _lookup_kind(site: SiteRef | history_mod.SiteHit) -> str:
    """Which module ``__getattr__`` a raise site is (``api_names.getattr_kind``'s names), "" for none of them."""
    if "deprecation_getattr" in site.function:
        return "deprecation"
    if site.path.endswith("lazy_loader.py") and "attach" in site.function:
        return "lazy"
    return "function" if site.function == "__getattr__" else ""


def _library_name(c: _Case, package: str) -> None:
    """A library's name missing from its module (``module 'optax' has no attribute 'lbfgs'``): the library is
    the one the error came through; a JAX raise that words such messages (its lazy loader's) did not raise it,
    and no record is about that name, so none is guessed by the words."""
    c.eco = c.eco or package
    c.library_name = True
    if c.site is not None and c.site.path.startswith(("jax/", "jaxlib/")) and c.how == "message template":
        c.site, c.how, c.ranking, c.site_hits = None, "", [], []
    elif c.site is None and c.how == "message only":  # JAX's raises of these words were left unplaced, with a note
        c.how, c.note, c.ranking, c.site_hits = "", "", [], []


def _start(ev: Evidence) -> _Case | None:
    """The case to diagnose, or None for a raise in Python code (the user's or a library's) JAX has no part in."""
    rf = ev.raise_frame
    # Flax, Optax, Equinox, …: their own classes and their own raises are JAX errors too.
    origin = ecosystem_origin(ev)
    if (origin is None and rf is not None and not ev.frames_removed and rf.kind != "jax" and not _jax_module(ev)
            and not _raised_by_compiled_code(ev) and not _cut_below_python(ev)):
        return None
    cat = catalog_mod.get_nowait() if ev.source == "live" else catalog_mod.get()
    if ev.source == "text":
        _not_jax_s_files(ev, cat)
    if ev.source == "text" and ev.exc_class:  # "valueError", "XLARuntimeError": a class retyped by hand
        ev.exc_class = _known_spelling(ev.exc_class, cat)
        ev.classes = type(ev.classes)(_known_spelling(x, cat) for x in ev.classes)
    if origin is None and ev.source == "text" and not ev.module and ev.exc_class:
        origin = _library_of_class(ev.exc_class, cat)  # a library's own class, pasted without its module
    if ev.unwrapped is not None and _fit(cat, match_text_of(ev.unwrapped)) > _fit(cat, ev.match_text):
        ev.message = ev.unwrapped  # a terminal cut its lines: JAX's words fit the message as it was printed
    # A message pasted without its class ("Attempted boolean conversion of …") fits any class.
    classes = {_canon(c) for c in ev.classes} or ({_canon(ev.exc_class)} if ev.exc_class else _ANY_CLASS)
    eco = ecosystem(ev) or origin
    if eco is None and ev.source == "live":
        eco = ecosystem_of_values(ev)
    return _Case(ev, cat, classes, origin, eco)


def _not_jax_s_files(ev: Evidence, cat: catalog_mod.Catalog) -> None:
    """Pasted frames read as JAX's by a ``jax/`` folder in a path that is no install (``netket/jax/sharding.py``,
    a project's own subpackage named ``jax``): when JAX's releases had that file but neither the installed JAX nor
    any release the history index holds has that function in it, the frame is the user's code, and the raise and
    user frames are found again."""
    odd = [(f, path) for f in ev.frames if f.kind == "jax" and "-packages/" not in f.filename.replace("\\", "/")
           and (path := f.jax_path) and not f.function.startswith("<") and not _installed_has(cat, path, f.function)]
    if not odd:
        return
    try:
        from jaxerrs import history

        h = history.load()
    except Exception:  # noqa: BLE001 - the history is extra knowledge
        return
    # JAX's file in some release, never with that function: another project's file of the same name. (A file no
    # release's package has, such as JAX's own examples/ run from a checkout, stays as it was read.)
    mine = {id(f) for f, path in odd if ((Path(cat.root) / path).is_file() or h.has_file(path))
            and not h.qualnames(path, f.function)}
    if mine:
        relocate(ev, [replace(f, kind="user") if id(f) in mine else f for f in ev.frames])


_CAMEL_WORD = re.compile(r"[A-Z][a-z0-9]+|[A-Z]+(?![a-z])")


def _library_of_class(name: str, cat: catalog_mod.Catalog) -> str | None:
    """The library whose own exception class a pasted class name (no module before it) is: one that exactly one
    library's history index says it defines, distinctive enough that a user's class or another package's is
    unlikely to share it (three CamelCase words at least, or the library's name in it), and neither Python's nor
    one JAX raises. ``ScopeParamShapeError`` is Flax's; ``ValidationError`` could be anyone's."""
    if not name or name in _builtin_names() or name in _ALWAYS_JAX or name in cat.by_class:
        return None
    from jaxerrs import history

    owners = []
    for lib in history.LIBRARY_SOURCES:
        h = history.load_library(lib)
        if h is not None and name in h.defined_classes:
            owners.append(lib)
    if len(owners) != 1:
        return None
    lib = owners[0]
    return lib if len(_CAMEL_WORD.findall(name)) >= 3 or lib in name.lower() else None


def _fit(cat: catalog_mod.Catalog, message: str) -> int:
    """How much of JAX's, the installed libraries' and the records' literal text the message spells: its longest
    template match."""
    records = (m.literal for _rec, m, _p in _pattern_hits(message, records_mod.GENERATION))
    raises = (m.literal for c in (cat, *_installed_library_catalogs()) for _s, m in _template_matches(c, message))
    return max((*records, *raises), default=0)


def _site_from_frames(c: _Case) -> None:
    """The raise site the frames show: a library's, JAX's innermost frame, or that of the release that raised."""
    ev, cat, rf = c.ev, c.cat, c.ev.raise_frame
    # A class of JAX's own (jax.errors.…) under a library's innermost frame: JAX raised it, its frames filtered.
    if c.origin is not None and rf is not None and rf.kind != "jax" and not _jax_module(ev):
        c.lib_site = _library_site(ev, c.origin, cat)
    if c.lib_site is not None:
        c.site, c.how = c.lib_site, "raise site"
        return
    if ev.generated_for is not None:  # code Python generated for a library's class raised: no raise site to name
        c.no_guess = True
        return
    if rf is None or rf.kind != "jax" or ev.frames_removed:
        return
    function = _qualname_at(cat, rf.jax_path or "", rf.lineno, rf.function) if ev.source == "text" else rf.function
    c.site, c.how = _resolve(cat, rf.jax_path or "", rf.lineno, function, ev.match_text), "raise site"
    if ev.source != "text":
        return
    other = _other_release(cat, ev, rf.jax_path or "", function, rf.lineno)
    if other is not None:  # a traceback from another JAX release
        c.site, c.note = other
        c.how = ("raise site in the release that raised it" if c.site is not None
                 else "message only" if c.note else "")
        c.no_guess = c.site is None and bool(c.note)
    elif _a_call_not_a_raise(cat, rf, c.site):
        # The innermost JAX frame shown calls on into frames the text does not show (filtered, or
        # cut): a raise whose words match the message closely is the better answer.
        if _words_say_where(c):
            c.site, c.how = None, ""
    elif _not_this_source(cat, rf, c.site):
        shown = _shown_raise(ev, rf, function)
        if shown is not None:
            # The pasted frame shows a raise of this class, and a release the history index knows has a raise
            # of that function at that very line: the traceback names its own site.
            c.site, c.note = shown
            c.how = "raise site in the release that raised it"
            return
        # The line the traceback shows is not at that line in the installed JAX and no raise is
        # there: another release's source, which the history does not know. No site is guessed.
        c.note = (f"The traceback shows `{rf.line.strip()}` at `{c.site.path}:{c.site.line}`, which is "
                  f"not that line of the installed JAX {cat.jax_version}: it comes from another "
                  "release, and jaxerrs does not guess where that release raised it.")
        c.site, c.how, c.no_guess = None, "message only", True


def _words_say_where(c: _Case) -> bool:
    """Under a JAX frame that calls on into code the text does not show: whether the message's words may say
    where it raised. JAX's frame already says whose error it is, so the message need only start with the
    words of a raise of its class; a class of JAX's Python code (not Python's, not the runtime's, which
    compiled code raises) says so too. (NumPy's and Python's code say some of JAX's words, with Python's
    classes.)"""
    if _jax_python_class(c.cat, c.ev):
        return True
    return any(m is not None and m.start == 0 and m.literal >= TEXT_MIN_LITERAL and _class_fits(s.class_name, c.classes)
               for _sc, s, m in _site_hits(c.ev, c.cat, c.classes)[:5])


def _rank_candidates(c: _Case) -> None:
    """Catalog raises and curated records whose words fit the message, on one scale; the best one's site."""
    ev, cat = c.ev, c.cat
    c.site_hits = [] if c.site or c.no_guess else _site_hits(ev, cat, c.classes)
    c.rec_hits = _record_hits(ev, c.site, c.classes, c.eco)
    cut: list[_RecordHit] = []
    if (not _a_record_answers(c.rec_hits, ev.match_text) and ev.source == "text" and not ev.frames
            and not any(_strong_text_match(m, _class_fits(x.class_name, c.classes)) for _sc, x, m in c.site_hits[:5])):
        cut = _cut_short(ev, c.classes)
        c.rec_hits = cut or c.rec_hits  # a record quoting only a clause stays a candidate if none starts so
    # Text or filtered frames: catalog templates and curated records compete on one scale.
    if c.site is None and not c.no_guess:
        lib_hits = ([(q, ref) for q, _close, _lib, ref in _library_site_hits(ev, c.classes)]
                    if ev.source == "text" else [])
        c.ranking = _text_ranking(ev, cat, c.site_hits, c.rec_hits, lib_hits)
    if c.ranking:
        c.site = c.ranking[0][1]
        if c.site.library_version:  # a library's raise words it best: the error came through that library
            c.eco = c.eco or c.site.path.split("/", 1)[0]
        c.how = "record" if c.ranking[0][2] is not None else "message template"
        c.rec_hits = _record_hits(ev, c.site, c.classes, c.eco) or cut
        if (c.ranking[0][2] is None and c.site_hits and all(m is None for _sc, _s, m in c.site_hits)
                and not any(h.pattern is not None for h in c.rec_hits)):
            # Only the class points there: no raise and no record of the installed JAX words the message
            # so (another release's wording). A release the history index knows may word it so; else its
            # raises stay candidates, none named as the site.
            older = _other_release_wording(cat, ev) if ev.source == "text" else None
            if older is not None:
                c.site, c.note = older
                c.how = "raise site in the release that raised it" if c.note else "message template"
                return
            c.note = (f"No raise of the installed JAX {cat.jax_version} words this message so (another "
                      f"release's wording?): the places it raises {ev.exc_class} are listed as candidates, "
                      "none is named as where this error was raised.")
            c.site, c.how, c.no_guess = None, "class", True
    if ev.source == "text" and c.site is not None and c.how in ("record", "message template") and not c.no_guess:
        older = _older_wording(cat, ev, c.site)
        if older is not None:
            c.site, c.note = older
            c.how = "raise site in the release that raised it" if c.note else "message template"
        if older is None or not c.note:  # the installed release's raise: the text may say where its own raised
            unplaced = _words_cannot_place(ev, c.site)
            if unplaced is not None:  # the words alone do not say where: the places stay candidates
                c.site, c.how, c.note, c.no_guess = None, "message only", unplaced, True
            elif (moved := _in_the_text_s_release(cat, ev, c.site)) is not None:
                c.site, c.note = moved
                c.how = "raise site in the release that raised it" if c.site else "message only"
                c.no_guess = c.site is None


def _decide_is_jax(c: _Case) -> None:
    """Whether JAX (or a library of its ecosystem) raised it; from text alone, another release's or a
    library's words may say so and give the site."""
    ev, rf = c.ev, c.ev.raise_frame
    if ev.exc_class == "Warning" and ev.source == "text" and not ev.frames:
        # A JAX log line: only a record explains it; the C++ JAX runs (XLA) logs only its own errors and warnings.
        c.is_jax = (bool(c.rec_hits) and c.rec_hits[0].pattern is not None) or ev.logged_by_xla
        c.how = c.how or ("log line" if ev.logged_by_xla else "")
    elif (rf is not None and not ev.frames_removed and rf.kind == "jax") or _jax_module(ev) or c.origin is not None:
        c.is_jax = True
    elif rf is None and _canon(ev.exc_class) in _jax_class_names(c.cat):
        c.is_jax = True
    elif ev.source == "text" and rf is not None and rf.kind == "user" and _jax_python_class(c.cat, ev):
        # A class only JAX's Python raises, shown below the user's frame (JAX's own frames filtered out).
        c.is_jax = True
    else:
        c.is_jax = _jax_words(c)
    # JAX's words of another release than the installed one: also where only a guess by the words made it JAX's
    # and nothing placed it.
    unplaced = c.site is None and not c.no_guess and not _a_record_answers(c.rec_hits, ev.match_text)
    if ((not c.is_jax or unplaced) and ev.source == "text" and (not _user_raised(ev) or _jax_python_class(c.cat, ev))
            and not _foreign(ev.match_text)):
        older = _other_release_wording(c.cat, ev)
        if older is not None:  # JAX's words, but of other releases than the installed one
            c.is_jax, (c.site, c.note) = True, older
            c.how = "raise site in the release that raised it"
            c.site_hits, c.ranking = [], []
    # No JAX raise or record fits (or a record's words, not its class, do): a raise of an installed library
    # (Flax, Optax, …) whose words do.
    eligible = (ev.source == "text" and (not c.is_jax or c.site is None)
                and (not c.is_jax or not _a_record_answers(c.rec_hits, ev.match_text)) and not _foreign(ev.match_text))
    lib_hit = _library_text_hit(ev, c.classes) if eligible else None
    by_class = eligible and lib_hit is None and (lib_hit := _library_class_hit(ev)) is not None
    if lib_hit is not None and (not _user_raised(ev) or frame_library(rf) is not None):
        _quality, c.eco, c.site, note = lib_hit
        c.is_jax, c.how = True, "library class" if by_class else "library template"
        c.note = c.note or note


# The reprs of JAX's own objects: a Tracer of any release, an abstract value, an Array, a typed key array.
_JAX_VALUE = re.compile(r"Traced<|\b(?:ShapedArray|ConcreteArray|DeviceArray|Array)\(|\b\w*Tracer\b|\bPRNGKeyArray\b")


def _jax_words(c: _Case) -> bool:
    """No frames, or compiled code (JAX's C++ dispatch, a module's getattr) raised on the user's line: only
    the message can tell, and it must match JAX's text closely."""
    ev, rf = c.ev, c.ev.raise_frame
    strong_site = any(_strong_text_match(m, _class_fits(s.class_name, c.classes)) for _sc, s, m in c.site_hits[:5])
    # Curated patterns are written to be specific: enough literal text and the class suffice.
    # A short message counts when a curated pattern spells nearly all of it from its start
    # ("NameError: unbound axis name: i" is JAX's; Python says "name 'i' is not defined").
    # So does one whose holes hold JAX's own objects ("Expected dict, got Traced<ShapedArray(…)>…"): JAX's
    # values went through the code that raised.
    strong_rec = any(h.pattern is not None and "class" in h.why and (
        h.pattern.literal >= TEXT_MIN_LITERAL
        or (h.pattern.start == 0 and h.pattern.literal >= 15
            and (h.pattern.coverage >= 0.6 or any(_JAX_VALUE.search(v) for v in h.pattern.holes))))
        for h in c.rec_hits[:5])
    # Compiled code raising on the user's line speaks Python's words as often as JAX's ("unsupported
    # operand type(s) for +"): there only a curated record, written for one JAX error, may claim it.
    # (A user's line that calls JAX's API, ``jax.jit(f)(x)``, ran JAX's Python below it, its frames filtered.)
    compiled_on_user_line = not ev.frames_removed and _user_raised(ev) and not _calls_jax(rf)
    is_jax = strong_rec or (strong_site and not compiled_on_user_line)
    if not is_jax and rf is None and ev.source == "text" and not _a_record_answers(c.rec_hits, ev.match_text):
        # A record that speaks nearly every word of the message, or starts as it does (its wording of another
        # release, drifted).
        guessed = _guesses(ev, c.site)
        is_jax = bool(guessed) and (_overlap(ev.match_text, guessed[0][0]) >= SEARCH_OVERLAP
                                    or _spelled_in_order(ev.match_text, guessed[0][0]) >= DRIFT_SHARE
                                    or guessed[0][0].id == _shared_start(ev.match_text, records_mod.GENERATION))
    specific = max((_letters(h.text) for h in c.rec_hits[:5] if h.pattern is not None and h.text), default=0)
    return is_jax and not _foreign(ev.match_text, specific)


_JAX_CALL = re.compile(r"\b(?:jax|jnp|lax)\.[\w.]+\(")


def _calls_jax(rf: Frame | None) -> bool:
    """Whether a frame's shown line calls JAX's API (``jax.jit(f)(x)``, ``jnp.dot(a, b)``)."""
    return rf is not None and _JAX_CALL.search(rf.line or "") is not None


def _a_record_answers(hits: list[_RecordHit], message: str) -> bool:
    """Some record whose words fit answers the message: its class is the one printed, it lists the raise site,
    or its words start where the message starts. A record that quotes a later clause (the ``TypeError`` a
    ``ValueError``'s message ends with, its cause), of another class or right after the cause's own class
    inside the message, does not stop the guesses by the words of the whole message."""
    return any(("class" in h.why or "raise site" in h.why or h.pattern is None or h.pattern.start == 0)
               and not _a_quoted_cause(h, message) for h in hits)


_NESTED_CLASS = re.compile(r"\b[A-Z]\w*(?:Error|Exception): $")


def _a_quoted_cause(h: _RecordHit, message: str) -> bool:
    """The record's words begin right after an exception class inside the message ("… The error was:
    TypeError: unhashable type: …"): the cause a longer message quotes, not that message."""
    return (h.pattern is not None and h.pattern.start > 0
            and _NESTED_CLASS.search(templates.normalise(message)[:h.pattern.start]) is not None)


_LIBRARY_API = re.compile(r"(?<![\w.])(flax|nnx|linen|optax|equinox|eqx|orbax|ocp|chex)\.[A-Za-z_]\w*")
_API_LIBRARY = {"nnx": "flax", "linen": "flax", "eqx": "equinox", "ocp": "orbax"}


def _library_in_prose(ev: Evidence) -> str | None:
    """A pasted text with no frames whose own words (not the message) name one library's API ("when using
    flax.linen.scan: …"): the library the error came through."""
    if ev.source != "text" or ev.frames or not ev.text:
        return None
    prose = ev.text.replace(ev.message, " ") if ev.message else ev.text
    named = {_API_LIBRARY.get(m.group(1), m.group(1)) for m in _LIBRARY_API.finditer(prose)}
    return named.pop() if len(named) == 1 else None


def _assemble(c: _Case) -> Diagnosis:
    """The diagnosis of a JAX error: its record (or the best guesses by words), site, values, candidates."""
    ev, cat = c.ev, c.cat
    d = Diagnosis(ev, True)
    # No record's words fit a pasted message: the records whose text fits it best, a best guess. Not for a line
    # XLA logged: its words are those of C++ no record quotes, and any record's would be a guess about another error.
    guessing = (ev.source == "text" and not _a_record_answers(c.rec_hits, ev.match_text) and not ev.logged_by_xla
                and not c.library_name and not c.unborn)
    guesses = _guesses(ev, c.site, c.how == "library class") if guessing else []
    d.site = c.site
    # When the words of the whole message are guessed from, a record that quoted only a clause of it is not the
    # answer: neither its values nor its wording's release nor its way of matching describe the diagnosis.
    record = c.rec_hits[0] if c.rec_hits and not guesses else None
    if record is not None and ev.source == "text" and c.how in ("record", "message template"):
        dated = _site_of_wording(cat, record)
        if dated is None and record.record.requires and record.text in record.record.legacy_patterns:
            dated = _library_wording_site(ev, record.record)
        if dated is not None:  # the words are those of other releases than the installed one
            d.site, note = dated
            d.notes.append(note)
    # From a bare final line only a record about one library can say which library spoke.
    d.ecosystem = (c.eco or (record.record.library if record and record.record.requires else None)
                   or _library_in_prose(ev))
    d.record = record.record if record else None
    how = c.how
    if guesses:
        d.record, how = guesses[0][0], "raise site + class" if _vouched(c, guesses[0][0]) else "search"
        d.site = d.site or (None if c.no_guess else record_site(cat, d.record, ev.match_text))
        d.ecosystem = d.ecosystem or (d.record.library if d.record.requires else None)
    if ev.source == "live" and d.ecosystem in ("flax", "equinox"):
        from jaxerrs.layers import layer_notes

        d.notes.extend(layer_notes(ev.exc))
    d.how = (record.why if record else how) or "class"
    d.values = _values(c, record)
    d.candidates = _candidates(c, guesses, how)
    d.features = _answer_features(c, d, record, guesses)
    d.confidence = confidence_mod.calibrated(d.features)
    if d.features["search"] and not (d.site is not None and _lists_site(d.record, d.site)):
        # A record guessed by its words alone, at a site it does not list: a best guess, however sure the site.
        d.confidence = min(d.confidence, SEARCH_CONFIDENCE)
    if c.site is not None and c.site.path.startswith(("jax/", "jaxlib/")):
        d.excerpt = catalog_mod.read_excerpt(Path(cat.root) / c.site.path, c.site.line, c.site.line, 3)
    elif c.lib_site is not None and ev.raise_frame is not None and ev.source == "live":
        d.excerpt = catalog_mod.read_excerpt(Path(ev.raise_frame.filename), c.lib_site.line, c.lib_site.line, 3)
    return d


def _vouched(c: _Case, rec: Record) -> bool:
    """The record's own raise and class name the error, though none of its patterns words it (another release's
    wording): the site was placed (frames, or a release's template) at a site the record lists, and the class
    pasted is the record's, one no builtin shares."""
    cls = _canon(c.ev.exc_class or "")
    return (c.site is not None and bool(cls) and cls not in _builtin_names() and _canon(rec.class_name) == cls
            and _lists_site(rec, c.site))


def _values(c: _Case, record: _RecordHit | None) -> dict[str, str]:
    """The values the message carries, named by the record's pattern first, then by the raise's template."""
    values: dict[str, str] = {}
    if c.site is not None and c.site.template:
        m = templates.match(c.site.template, c.ev.match_text)
        values.update(_site_values(c.cat, c.site, m) if m else {})
    if record and record.pattern:
        # The record's names win; a value the site's template also caught is shown once.
        named = record.pattern.values
        values = {k: v for k, v in values.items() if v not in named.values()} | named
    return {k: v[:200] for k, v in values.items() if k != "value"}


def _candidates(c: _Case, guesses: list[tuple[Record, float]], how: str) -> list[Candidate]:
    """Up to eight candidates, best first: from text the sites as ranked, else the records and raises that fit."""
    cat, message = c.cat, c.ev.match_text
    if c.ranking:  # from text: the candidate sites in the order they were ranked
        cands = [Candidate(rec, ref, min(1.0, sc), "record" if rec else "message template")
                 for sc, ref, rec in c.ranking[:8]]
    else:
        cands = [Candidate(h.record, record_site(cat, h.record, message) or c.site, h.score, h.why)
                 for h in c.rec_hits[:5]]
        cands += [Candidate(None, SiteRef.of(s, cat.jax_version), sc, "message template")
                  for sc, s, _ in c.site_hits[:5]]
    if not cands and c.site is not None:
        cands.append(Candidate(None, c.site, 0.5, how))
    cands += [Candidate(rec, record_site(cat, rec, message), SEARCH_CONFIDENCE * sc, "search")
              for rec, sc in guesses]
    cands.sort(key=lambda x: -x.score)
    return cands[:8]


def _fit_score(c: _Case, record: _RecordHit | None, guesses: list[tuple[Record, float]]) -> float:
    """How well the answer's words fit, 0..1: the record's pattern score and its margin over the next one, a
    raise template's match, a search guess's standing. The ``fit`` feature of the confidence."""
    if guesses:
        return SEARCH_CONFIDENCE * (1.0 if len(guesses) == 1 or guesses[1][1] <= SEARCH_MARGIN else 0.8)
    if record:
        second = c.rec_hits[1].score if len(c.rec_hits) > 1 else 0.0
        return min(1.0, record.score) * (1.0 if record.score - second > 0.05 else 0.85)
    if c.site is not None:
        return 0.9 if c.how == "raise site" else (c.site_hits[0][0] if c.site_hits else 0.4)
    return 0.3


def _answer_features(c: _Case, d: Diagnosis, record: _RecordHit | None,
                     guesses: list[tuple[Record, float]]) -> dict[str, float]:
    """The named features of an answer the confidence weighs (``confidence.FEATURES`` says what each means)."""
    ev, rf = c.ev, c.ev.raise_frame
    fit = min(0.98, max(0.02, _fit_score(c, record, guesses)))
    shown = c.site is not None and c.how.startswith("raise site") and rf is not None
    raise_line = shown and (c.site.template is not None or not _not_a_raise(rf))
    # A site that is no raise statement: the JAX frame calling compiled code (or Python) that raised.
    call = d.site is not None and d.site.template is None and c.cat.at(d.site.path, d.site.line) is None
    second = c.rec_hits[1].score if record is not None and len(c.rec_hits) > 1 else 0.0
    # With guesses, the record shown is the first guess: vouched for by its site and class, or a search guess.
    site_class = d.record is not None and _vouched(c, d.record)
    return {
        "fit": math.log(fit / (1.0 - fit)),
        "live": float(ev.source == "live"),
        "raise_shown": float(raise_line),
        "call_site": float(call and not raise_line),
        "words_only": float(not ev.frames),
        "python_class": float(_canon(ev.exc_class or "") in _builtin_names()),
        "search": float(bool(guesses) and not site_class),
        "site_class": float(site_class),
        "other_release": float(bool(c.note) or c.no_guess
                               or (d.site is not None and d.site.jax_version != c.cat.jax_version)),
        "library": float(d.ecosystem is not None),
        "no_record": float(d.record is None),
        "tied": float(_site_tied(c.ranking) or (record is not None and second >= record.score - TIED_SITE)),
        "rival": float(sum(h.pattern is not None for h in c.rec_hits) > 1),
        "uncovered": 1.0 - (record.pattern.coverage if record is not None and record.pattern is not None else 0.0),
        "spelled": min(1.0, (record.pattern.literal if record is not None and record.pattern is not None else 0) / 80),
    }


def diagnose_exception(exc: BaseException) -> Diagnosis:
    """Diagnose a live exception. Non-JAX errors cost almost nothing when jax was never imported."""
    ev = from_exception(exc)
    if "jax" not in sys.modules and "jaxlib" not in sys.modules:
        return Diagnosis(ev, False)
    return _diagnose(ev)


def diagnose_from_text(text: str) -> Diagnosis:
    """Diagnose a traceback, a log containing one, or a final ``Class: message`` line."""
    return _diagnose(from_text(text))
