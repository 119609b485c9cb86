"""Import of the external JAX-error dataset's JSON records (schemaVersion 2), never trusted blindly.

Each imported record is checked against the installed JAX and carries consistency flags:
its message is raised nowhere; its ``sourceCode`` lacks the message's text; its line number is
stale; its explanation talks about things that appear neither in the message nor near the raise.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jaxerrs import templates
from jaxerrs.kb.records import Defensive, Fix, Record, SiteRef

MAX_FILE = 20 * 1024 * 1024


def _records_in(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("record"), dict):
        return [data["record"]]
    if isinstance(data, dict):
        return [data]
    if isinstance(data, list):
        return [d for item in data for d in _records_in(item)]
    return []


def import_path(path: Path, problems: list[str]) -> list[Record]:
    """Records from a JSON file (one record, a list, or ``{"record": …}``) or a folder of them."""
    if path.is_dir():
        out = []
        for f in sorted(path.glob("*.json")):
            out.extend(import_path(f, problems))
        return out
    try:
        if path.stat().st_size > MAX_FILE:
            problems.append(f"{path}: larger than {MAX_FILE // 2**20} MB, not read")
            return []
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        problems.append(f"{path}: no such file")
        return []
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        problems.append(f"{path}: not a JSON record file ({type(e).__name__}: {e})")
        return []
    out = []
    raw = _records_in(data)
    if not raw:
        problems.append(f"{path}: no record object found")
    for i, item in enumerate(raw):
        where = f"{path.name}[{i}]" if len(raw) > 1 else path.name
        try:
            out.append(from_external(item, where))
        except (KeyError, TypeError, ValueError) as e:
            problems.append(f"{where}: {e}")
    return out


def _text(item: dict[str, Any], key: str) -> str:
    value = item.get(key)
    return value.strip() if isinstance(value, str) else ""


def _list(item: dict[str, Any], key: str) -> list[str]:
    value = item.get(key)
    if isinstance(value, str):
        return [value.strip()] if value.strip() else []
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return []


def _split_fix(code: str) -> Fix:
    m = re.search(r"^\s*#\s*after\b.*$", code, re.MULTILINE | re.IGNORECASE)
    if not m:
        return Fix(code.strip("\n") or "# (none given)", "# (none given)")
    before = re.sub(r"^\s*#\s*before\b.*\n?", "", code[: m.start()], flags=re.IGNORECASE)
    return Fix(before.strip("\n") or "# (none given)", code[m.end():].strip("\n") or "# (none given)")


def _safe_template(pattern: str) -> str:
    return pattern if templates.validate(pattern) is None else pattern.replace("{", "{{").replace("}", "}}")


def from_external(item: dict[str, Any], where: str) -> Record:
    if item.get("schemaVersion") not in (2, "2"):
        raise ValueError(f"schemaVersion must be 2, got {item.get('schemaVersion')!r}")
    rid = _text(item, "id")
    message = _text(item, "errorMessage")
    pattern = _text(item, "messagePattern") or message.replace("{", "{{").replace("}", "}}")
    if not rid or not pattern:
        raise ValueError("needs 'id' and 'errorMessage' or 'messagePattern'")
    pattern = _safe_template(pattern)
    rec = Record(
        id=rid,
        title=(message or pattern).splitlines()[0][:120],
        error_class=_text(item, "errorClass") or "Exception",
        patterns=[pattern],
        sites=[],
        explanation=_text(item, "documentation"),
        triggers=_list(item, "triggerScenarios"),
        situations=_list(item, "commonSituations"),
        solutions=_list(item, "solutions"),
        fix=_split_fix(_text(item, "exampleFix")),
        defensive=Defensive(_text(item, "handlingStrategy"), _text(item, "validationCode"),
                            _text(item, "typeGuard"), _text(item, "tryCatchPattern")),
        prevention=_list(item, "preventionTips"),
        tags=_list(item, "tags"),
        related=[],
        references=[u for u in (_text(item, "githubUrl"),) if u],
        reproducer="",
        jax_versions="",
        verified="unverified",
        origin="imported",
        slug=_text(item, "slug"),
        source_file=where,
    )
    _check_consistency(rec, item, message or pattern)
    return rec


def _message_line(cat: Any, site: Any, pattern: str) -> int:
    """The line of a raise statement that holds the start of the message's text."""
    lines = cat.excerpt(site, context=0).splitlines()
    probe = templates.anchor(pattern)[:20]
    for i, text in enumerate(lines):
        if probe and probe in templates.normalise(text):
            return site.line + i
    return site.line


_TERM = re.compile(r"`([^`]+)`|\b([A-Za-z_][\w]*(?:(?:::|\.)[A-Za-z_]\w*)+)\b|\b([A-Z][a-z]+[A-Z]\w*|[a-z]+_[a-z_]+)\b")


def explanation_terms(text: str) -> list[str]:
    """API names, types and identifiers an explanation relies on (code spans, dotted, CamelCase, snake_case)."""
    terms = []
    for m in _TERM.finditer(text):
        term = next(g for g in m.groups() if g)
        if term not in terms:
            terms.append(term)
    return terms


def _found(term: str, haystack: str) -> bool:
    parts = [p for p in re.split(r"[^A-Za-z0-9_]+", term) if len(p) >= 3]
    return any(p.lower() in haystack for p in parts) if parts else True


def _check_consistency(rec: Record, item: dict[str, Any], message: str) -> None:
    from jaxerrs.catalog import get

    cat = get(progress=False)
    version = cat.jax_version
    flags = rec.flags
    path = _text(item, "filePath")
    pattern = rec.patterns[0]
    # Where does this JAX raise it? Prefer the named file.
    best = None
    for site in cat.sites:
        if not site.template:
            continue
        if templates.match(site.template, message) or (
                templates.anchor(pattern) and templates.anchor(pattern) in templates.normalise(site.template)):
            if best is None or (site.path == path and best.path != path):
                best = site
    if best is None:
        flags.append(f"message unknown to JAX {version}: no raise statement in this JAX produces it")
    else:
        rec.sites = rec.all_sites = [SiteRef(best.path, best.function)]
        line = item.get("lineNumber")
        if isinstance(line, int) and (best.path != path or not best.line <= line <= best.end_line):
            now = _message_line(cat, best, pattern)
            flags.append(f"line number stale: the dataset says {path}:{line}; in JAX {version} the message is at "
                         f"{best.path}:{now} (raise statement at line {best.line}, in {best.function})")
    source = _text(item, "sourceCode")
    anchor = templates.anchor(pattern)
    if source and anchor and anchor not in templates.normalise(source):
        flags.append("sourceCode does not contain the message's literal text")
    haystack = (message + "\n" + source).lower()
    if best is not None:
        haystack += "\n" + cat.excerpt(best, context=25).lower()
    terms = explanation_terms(rec.explanation)
    missing = [t for t in terms if not _found(t, haystack)]
    if terms and len(missing) >= 2 and len(missing) / len(terms) > 0.5:
        flags.append("explanation does not describe this error: it names " + ", ".join(missing[:6])
                     + ", which appear neither in the message nor in the raising code")
