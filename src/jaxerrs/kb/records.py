"""Curated records: one TOML file per JAX error, validated on load.

A bad file is skipped with one warning that names the file and the field; the rest load.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import re
import tomllib
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from jaxerrs import templates

RECORDS_DIR = Path(__file__).parent / "records"
VERIFIED = ("execution", "message")


class RecordError(ValueError):
    """A record file that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class SiteRef:
    path: str
    function: str
    jax: str = ""  # the JAX releases that raise here, e.g. "<0.6" (empty: every release the record holds for)


@dataclass(frozen=True)
class Fix:
    before: str
    after: str
    check: str = ""  # run after ``after``: asserts the fix keeps what the code meant (a reference computed another way)


@dataclass(frozen=True)
class Need:
    """A package the record's code needs installed (or, with ``installed = false``, missing) on the JAX
    releases ``jax`` names (empty: all), beyond what JAX itself installs. ``kb check`` skips the record where
    it is not so; matching ignores it (``requires`` is for records *about* a library)."""
    package: str  # a distribution name, optionally with a version range: "absl-py", "flatbuffers>=2"
    jax: str = ""
    installed: bool = True

    def unmet(self, jax_version: str) -> str:
        """Why the record cannot be checked here ("needs absl-py (on jax<0.6.2)"), or "" when it can."""
        if self.jax and jax_version and not _in_range(jax_version, self.jax):
            return ""
        if requirement_met(self.package) == self.installed:
            return ""
        where = f" (on jax{self.jax})" if self.jax else ""
        return f"needs {self.package}{where}" if self.installed else f"needs {self.package} not installed{where}"


@dataclass(frozen=True)
class Defensive:
    strategy: str = ""
    validation: str = ""
    type_guard: str = ""
    try_except: str = ""


@dataclass(frozen=True)
class Demo:
    """A solution shown working: solution ``solution`` (1-based) applied to case ``case`` (1-based; 0 is the
    reproducer); ``code`` runs clean and ``code`` + ``check`` passes (a reference computed another way)."""

    solution: int
    case: int
    code: str
    check: str
    jax: str = ""  # the releases it is for, when the API it uses differs ("" = every release of the record)


@dataclass(frozen=True)
class NearMiss:
    """Code whose message shares the record's words but has another cause: it must raise and land on
    ``record`` (another record's id) or on no record ("")."""

    code: str
    record: str
    jax: str = ""


@dataclass
class Record:
    id: str
    title: str
    error_class: str
    patterns: list[str]
    sites: list[SiteRef]
    explanation: str
    triggers: list[str]
    situations: list[str]
    solutions: list[str]
    fix: Fix
    defensive: Defensive
    prevention: list[str]
    tags: list[str]
    related: list[str]
    references: list[str]
    reproducer: str
    jax_versions: str = ">=0.4.38"
    verified: str = "execution"  # or "message": no reproducer can raise it on a CPU-only machine
    legacy_patterns: list[str] = field(default_factory=list)  # wordings of other JAX versions
    sample_message: str = ""  # for message-only records: a real message, as JAX prints it
    devices: int = 1  # CPU devices the reproducer needs
    origin: str = "curated"  # or "imported"
    slug: str = ""
    flags: list[str] = field(default_factory=list)  # consistency flags (imported records)
    source_file: str = ""
    rewrite: list[str] = field(default_factory=list)  # rules that fix a user's own cell (jaxerrs.rewrite)
    cases: list[str] = field(default_factory=list)  # snippets, one per trigger the record names; each raises it
    reviewed: str = ""  # the JAX version its claims were last reviewed against; kb check is stricter then
    requires: str = ""  # an ecosystem library and version range, e.g. "flax>=0.10" (records about Flax, Optax, …)
    needs: list[Need] = field(default_factory=list)  # packages its code needs installed (or missing) to run as claimed
    all_sites: list[SiteRef] = field(default_factory=list)  # ``sites`` of every release (``sites``: the installed)
    pattern_ranges: dict[str, str] = field(default_factory=dict)  # legacy pattern -> the JAX releases that word it so
    variant: str = ""  # the range of the ``[[variants]]`` entry applied for the installed JAX, if any
    demos: list[Demo] = field(default_factory=list)  # solutions applied to cases, run by kb check
    near_misses: list[NearMiss] = field(default_factory=list)  # look-alike errors that must land elsewhere
    # solutions whose every demo is scoped to other releases (their situation does not arise on the installed one)
    demoed_elsewhere: list[int] = field(default_factory=list)

    @property
    def class_name(self) -> str:
        return self.error_class.rsplit(".", 1)[-1]

    @property
    def library(self) -> str | None:
        """The import name of the library ``requires`` names ("orbax" for orbax-checkpoint), else None."""
        return library_name(self.requires) if self.requires else None

    def unmet_needs(self, jax_version: str) -> list[str]:
        """What ``needs`` asks that this environment (JAX ``jax_version``) does not give: kb check skips it."""
        return [why for n in self.needs if (why := n.unmet(jax_version))]

    @property
    def all_patterns(self) -> list[str]:
        return self.patterns + self.legacy_patterns

    def holds_for(self, version: str | None) -> bool:
        """Whether ``jax_versions`` includes JAX ``version`` (None or unknown: it does)."""
        return not version or not self.jax_versions.strip() or _in_range(version, self.jax_versions)

    def patterns_for(self, version: str) -> list[str]:
        """The patterns that word this error in JAX ``version``: the current ones, and legacy ones in range."""
        return list(self.patterns) + [p for p in self.legacy_patterns
                                      if not self.pattern_ranges.get(p) or _in_range(version, self.pattern_ranges[p])]

    def sites_for(self, version: str) -> list[SiteRef]:
        """The sites that raise this error in JAX ``version``."""
        return [s for s in self.all_sites if not s.jax or _in_range(version, s.jax)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "error_class": self.error_class,
            "patterns": list(self.patterns),
            "legacy_patterns": [{"pattern": p, "jax": self.pattern_ranges[p]} if p in self.pattern_ranges else p
                                for p in self.legacy_patterns],
            "sites": [{"path": s.path, "function": s.function, **({"jax": s.jax} if s.jax else {})}
                      for s in self.all_sites],
            "explanation": self.explanation,
            "triggers": list(self.triggers),
            "situations": list(self.situations),
            "solutions": list(self.solutions),
            "fix": {"before": self.fix.before, "after": self.fix.after, "check": self.fix.check},
            "cases": list(self.cases),
            "reviewed": self.reviewed,
            "requires": self.requires,
            "needs": [{"package": n.package, **({"jax": n.jax} if n.jax else {}),
                       **({} if n.installed else {"installed": False})} for n in self.needs],
            "defensive": {
                "strategy": self.defensive.strategy,
                "validation": self.defensive.validation,
                "type_guard": self.defensive.type_guard,
                "try_except": self.defensive.try_except,
            },
            "prevention": list(self.prevention),
            "tags": list(self.tags),
            "related": list(self.related),
            "references": list(self.references),
            "reproducer": self.reproducer,
            "jax_versions": self.jax_versions,
            "variant": self.variant,
            "verified": self.verified,
            "origin": self.origin,
            "slug": self.slug,
            "flags": list(self.flags),
            "rewrite": list(self.rewrite),
            "demos": [{"solution": d.solution, "case": d.case, "code": d.code, "check": d.check,
                       **({"jax": d.jax} if d.jax else {})} for d in self.demos],
            "near_misses": [{"code": n.code, "record": n.record, **({"jax": n.jax} if n.jax else {})}
                            for n in self.near_misses],
        }


_STR_LISTS = ("triggers", "situations", "solutions", "prevention", "tags", "related", "references", "cases")


def _need(data: dict[str, Any], key: str, kind: type, where: str, required: bool = True) -> Any:
    if key not in data:
        if required:
            raise RecordError(f"{where}: missing required field '{key}'")
        return None
    value = data[key]
    if not isinstance(value, kind):
        raise RecordError(f"{where}: field '{key}' must be {kind.__name__}, got {type(value).__name__}")
    return value


def _str_list(data: dict[str, Any], key: str, where: str, required: bool) -> list[str]:
    value = _need(data, key, list, where, required)
    if value is None:
        return []
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise RecordError(f"{where}: field '{key}[{i}]' must be a non-empty string")
    return value


def from_dict(data: dict[str, Any], where: str) -> Record:
    """Build and validate one record; RecordError names ``where`` and the field."""
    rid = _need(data, "id", str, where)
    if not rid or not all(c.isalnum() or c in "-_" for c in rid):
        raise RecordError(f"{where}: field 'id' must be a slug (letters, digits, '-', '_'), got {rid!r}")
    for key in ("title", "error_class", "explanation"):
        if not _need(data, key, str, where).strip():
            raise RecordError(f"{where}: field '{key}' is empty")
    patterns = _str_list(data, "patterns", where, True)
    if not patterns:
        raise RecordError(f"{where}: field 'patterns' needs at least one message template")
    _str_list(data, "solutions", where, True)
    _str_list(data, "tags", where, True)
    for k in _STR_LISTS:
        _str_list(data, k, where, False)
    legacy, _ranges = _legacy(data, where)
    _range_field(data.get("jax_versions", ""), "jax_versions", where)
    for i, p in enumerate(patterns + legacy):
        problem = templates.validate(p)
        if problem:
            raise RecordError(f"{where}: pattern {i} does not compile ({problem}): {p!r}")
    for i, s in enumerate(_need(data, "sites", list, where, False) or []):
        if not isinstance(s, dict) or not isinstance(s.get("path"), str) or not isinstance(s.get("function"), str):
            raise RecordError(f"{where}: field 'sites[{i}]' needs string 'path' and 'function'")
        _range_field(s.get("jax", ""), f"sites[{i}].jax", where)
    _check_variants(data, where)
    fix = _need(data, "fix", dict, where)
    for key in ("before", "after"):
        if not isinstance(fix.get(key), str) or not fix[key].strip():
            raise RecordError(f"{where}: field 'fix.{key}' must be non-empty code")
    if not isinstance(fix.get("check", ""), str):
        raise RecordError(f"{where}: field 'fix.check' must be code (a string)")
    defensive = _need(data, "defensive", dict, where, False) or {}
    for key, value in defensive.items():
        if key not in Defensive.__dataclass_fields__ or not isinstance(value, str):
            raise RecordError(f"{where}: field 'defensive.{key}' is unknown or not a string")
    verified = data.get("verified", "execution")
    if verified not in VERIFIED:
        raise RecordError(f"{where}: field 'verified' must be one of {VERIFIED}, got {verified!r}")
    reproducer = data.get("reproducer", "")
    if not isinstance(reproducer, str):
        raise RecordError(f"{where}: field 'reproducer' must be str")
    if verified == "execution" and not reproducer.strip():
        raise RecordError(f"{where}: field 'reproducer' is required (or set verified = \"message\")")
    if verified == "message" and not isinstance(data.get("sample_message"), str):
        raise RecordError(f"{where}: a message-only record needs 'sample_message'")
    rw = data.get("rewrite", [])
    if isinstance(rw, str):
        rw = [rw]
    if not isinstance(rw, list) or not all(isinstance(x, str) and x.strip() for x in rw):
        raise RecordError(f"{where}: field 'rewrite' must be a rule name or a list of rule names")
    requires = data.get("requires", "")
    if not isinstance(requires, str) or (requires.strip() and parse_requirement(requires) is None):
        raise RecordError(f"{where}: field 'requires' must be a distribution name and a version range, "
                          f"e.g. \"flax>=0.10\", got {requires!r}")
    _check_needs(data, where)
    _check_demos(data, where)
    devices = data.get("devices", 1)
    if not isinstance(devices, int) or not 1 <= devices <= 8:
        raise RecordError(f"{where}: field 'devices' must be an integer from 1 to 8")
    return _build(data, where)


def _range_field(value: Any, name: str, where: str) -> None:
    if not isinstance(value, str) or (value.strip() and parse_requirement("jax" + value) is None):
        raise RecordError(f"{where}: field '{name}' must be a version range such as \">=0.5,<0.7\", got {value!r}")


def _legacy(data: dict[str, Any], where: str) -> tuple[list[str], dict[str, str]]:
    """``legacy_patterns``: strings, or ``{ pattern = "…", jax = "<0.6" }`` for a wording some releases use."""
    items = _need(data, "legacy_patterns", list, where, False) or []
    out, ranges = [], {}
    for i, item in enumerate(items):
        if isinstance(item, dict):
            text, rng = item.get("pattern"), item.get("jax", "")
            _range_field(rng, f"legacy_patterns[{i}].jax", where)
            if rng:
                ranges[text] = rng
        else:
            text = item
        if not isinstance(text, str) or not text.strip():
            raise RecordError(f"{where}: field 'legacy_patterns[{i}]' must be a non-empty string or a table "
                              "with 'pattern' and 'jax'")
        out.append(text)
    return out, ranges


def _check_needs(data: dict[str, Any], where: str) -> None:
    """``needs``: ``[{ package = "absl-py", jax = "<0.6.2" }]``, ``installed = false`` for a package that must be
    missing (a record about its absence)."""
    for i, n in enumerate(_need(data, "needs", list, where, False) or []):
        name = f"needs[{i}]"
        if not isinstance(n, dict) or not isinstance(n.get("package"), str) or parse_requirement(n["package"]) is None:
            raise RecordError(f"{where}: field '{name}' needs 'package', a distribution name (and version range)")
        unknown = set(n) - {"package", "jax", "installed"}
        if unknown:
            raise RecordError(f"{where}: field '{name}' has unknown keys {sorted(unknown)}")
        _range_field(n.get("jax", ""), f"{name}.jax", where)
        if not isinstance(n.get("installed", True), bool):
            raise RecordError(f"{where}: field '{name}.installed' must be true or false")


def _check_demos(data: dict[str, Any], where: str) -> None:
    """``demos``: ``[{ solution = 1, case = 2, code = "…", check = "…", jax = ">=0.6" }]`` (``jax`` optional);
    ``near_misses``: ``[{ code = "…", record = "other-id" }]`` (``record = ""``: it lands on no record)."""
    n_solutions = len(data.get("solutions") or [])
    n_cases = len(data.get("cases") or [])
    for i, d in enumerate(_need(data, "demos", list, where, False) or []):
        name = f"demos[{i}]"
        if not isinstance(d, dict) or set(d) - {"solution", "case", "code", "check", "jax"}:
            raise RecordError(f"{where}: field '{name}' takes solution, case, code, check and jax")
        sol, case = d.get("solution"), d.get("case")
        if not isinstance(sol, int) or not 1 <= sol <= n_solutions:
            raise RecordError(f"{where}: field '{name}.solution' must be a solution's number, 1 to {n_solutions}")
        if not isinstance(case, int) or not 0 <= case <= n_cases:
            raise RecordError(f"{where}: field '{name}.case' must be a case's number, 1 to {n_cases} "
                              "(0: the reproducer)")
        for key in ("code", "check"):
            if not isinstance(d.get(key), str) or not d[key].strip():
                raise RecordError(f"{where}: field '{name}.{key}' must be non-empty code")
        _range_field(d.get("jax", ""), f"{name}.jax", where)
    for i, n in enumerate(_need(data, "near_misses", list, where, False) or []):
        name = f"near_misses[{i}]"
        if not isinstance(n, dict) or set(n) - {"code", "record", "jax"}:
            raise RecordError(f"{where}: field '{name}' takes code, record and jax")
        if not isinstance(n.get("code"), str) or not n["code"].strip():
            raise RecordError(f"{where}: field '{name}.code' must be non-empty code")
        if not isinstance(n.get("record"), str) or n["record"] == data.get("id"):
            raise RecordError(f"{where}: field '{name}.record' must be another record's id, or \"\" for none")
        _range_field(n.get("jax", ""), f"{name}.jax", where)


_VARIANT_KEYS = {"jax", "reproducer", "cases", "fix", "error_class"}


def _check_variants(data: dict[str, Any], where: str) -> None:
    """``[[variants]]``: code for the releases whose API differs (``jax`` range; reproducer, cases, fix), and the
    class those releases raise when it differs (``error_class``)."""
    for i, v in enumerate(_need(data, "variants", list, where, False) or []):
        name = f"variants[{i}]"
        if not isinstance(v, dict) or not isinstance(v.get("jax"), str) or not v["jax"].strip():
            raise RecordError(f"{where}: field '{name}' needs a 'jax' version range")
        _range_field(v["jax"], f"{name}.jax", where)
        unknown = set(v) - _VARIANT_KEYS
        if unknown:
            raise RecordError(f"{where}: field '{name}' has unknown keys {sorted(unknown)}")
        for key in ("reproducer", "error_class"):
            if not isinstance(v.get(key, ""), str):
                raise RecordError(f"{where}: field '{name}.{key}' must be a string")
        _str_list(v, "cases", f"{where} {name}", False)
        fix = v.get("fix", {})
        if not isinstance(fix, dict) or any(k not in ("before", "after", "check") or not isinstance(x, str)
                                            for k, x in fix.items()):
            raise RecordError(f"{where}: field '{name}.fix' takes code for before, after and check")


@lru_cache(maxsize=1)
def installed_jax() -> str:
    """The installed JAX's version, from its metadata (JAX itself is not imported); "" when it is missing."""
    try:
        return importlib.metadata.version("jax")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _variant(data: dict[str, Any], version: str) -> dict[str, Any]:
    """The first ``[[variants]]`` entry whose range holds the installed JAX, or {}."""
    if not version:
        return {}
    return next((v for v in data.get("variants") or [] if _in_range(version, v["jax"])), {})


def _build(data: dict[str, Any], where: str) -> Record:
    """A Record from data that ``from_dict`` has validated (also: the parsed-records cache).

    The code of the ``[[variants]]`` entry for the installed JAX, if any, replaces the record's own.
    """
    version = installed_jax()
    variant = _variant(data, version)
    fix = {**data["fix"], **variant.get("fix", {})}
    defensive = data.get("defensive") or {}
    lists = {k: list(data.get(k) or []) for k in _STR_LISTS}
    if "cases" in variant:
        lists["cases"] = list(variant["cases"])
    legacy, ranges = _legacy(data, where)
    demos = data.get("demos") or []

    def here(entry: dict[str, Any]) -> bool:  # a demo or near miss for the installed release
        return not version or not entry.get("jax") or _in_range(version, entry["jax"])

    all_sites = [SiteRef(x["path"], x["function"], str(x.get("jax", ""))) for x in data.get("sites") or []]
    sites = [s for s in all_sites if not s.jax or not version or _in_range(version, s.jax)]
    return Record(
        id=data["id"],
        title=data["title"].strip(),
        error_class=variant.get("error_class", data["error_class"]).strip(),
        patterns=list(data["patterns"]),
        sites=sites,
        all_sites=all_sites,
        explanation=data["explanation"].strip(),
        triggers=lists["triggers"],
        situations=lists["situations"],
        solutions=lists["solutions"],
        fix=Fix(fix["before"].strip("\n"), fix["after"].strip("\n"), str(fix.get("check", "")).strip("\n")),
        defensive=Defensive(**{k: v.strip("\n") for k, v in defensive.items()}),
        prevention=lists["prevention"],
        tags=lists["tags"],
        related=lists["related"],
        references=lists["references"],
        reproducer=variant.get("reproducer", data.get("reproducer", "")).strip("\n"),
        jax_versions=str(data.get("jax_versions", ">=0.4.38")),
        verified=data.get("verified", "execution"),
        legacy_patterns=legacy,
        pattern_ranges=ranges,
        variant=variant.get("jax", ""),
        sample_message=data.get("sample_message", ""),
        devices=data.get("devices", 1),
        origin=str(data.get("origin", "curated")),
        slug=str(data.get("slug", "")),
        flags=[str(f) for f in data.get("flags", [])],
        source_file=where,
        cases=[c.strip("\n") for c in lists["cases"]],
        reviewed=str(data.get("reviewed", "")),
        requires=str(data.get("requires", "")).strip(),
        needs=[Need(n["package"].strip(), str(n.get("jax", "")), bool(n.get("installed", True)))
               for n in data.get("needs") or []],
        rewrite=[data["rewrite"]] if isinstance(data.get("rewrite"), str) else list(data.get("rewrite") or []),
        demos=[Demo(d["solution"], d["case"], d["code"].strip("\n"), d["check"].strip("\n"), str(d.get("jax", "")))
               for d in demos if here(d)],
        near_misses=[NearMiss(n["code"].strip("\n"), n["record"], str(n.get("jax", "")))
                     for n in data.get("near_misses") or [] if here(n)],
        demoed_elsewhere=sorted({d["solution"] for d in demos} - {d["solution"] for d in demos if here(d)}),
    )


# ---------------------------------------------------------------------------- requires

# Distributions whose import name differs from the distribution's name.
_IMPORT_NAMES = {"orbax-checkpoint": "orbax", "orbax-export": "orbax", "dm-haiku": "haiku", "flax-nnx": "flax"}
_REQ = re.compile(r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?P<spec>(?:(?:===|==|!=|<=|>=|~=|<|>)\s*[\w.*+!-]+"
                  r"\s*,?\s*)*)$")


def parse_requirement(text: str) -> tuple[str, str] | None:
    """("flax", ">=0.10") from "flax>=0.10"; None when it is not a name and a version specifier."""
    m = _REQ.match(text)
    if m is None:
        return None
    spec = m.group("spec").replace(" ", "").rstrip(",")
    try:
        from packaging.specifiers import SpecifierSet

        SpecifierSet(spec)
    except ImportError:
        pass
    except ValueError:
        return None
    return m.group("name").lower().replace("_", "-"), spec


def library_name(requires: str) -> str | None:
    """The import name of the distribution a ``requires`` names."""
    parsed = parse_requirement(requires)
    if parsed is None:
        return None
    return _IMPORT_NAMES.get(parsed[0], parsed[0].replace("-", "_"))


@lru_cache(maxsize=64)
def requirement_met(requires: str) -> bool:
    """Whether the distribution is installed in a version inside the range (metadata only: nothing imported)."""
    if not requires.strip():
        return True
    parsed = parse_requirement(requires)
    if parsed is None:
        return False
    name, spec = parsed
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return _in_range(version, spec)


@lru_cache(maxsize=4096)  # asked for every record on every diagnosis: a few distinct pairs
def _in_range(version: str, spec: str) -> bool:
    try:
        from packaging.specifiers import SpecifierSet
    except ImportError:
        return _in_range_minimal(version, spec)
    return SpecifierSet(spec).contains(version, prereleases=True)


def _release(v: str) -> tuple[int, ...]:
    parts = []
    for p in re.split(r"[.+-]", v.strip()):
        m = re.match(r"\d+", p)
        if m is None:
            break
        parts.append(int(m.group()))
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _in_range_minimal(version: str, spec: str) -> bool:
    """Comparisons on release numbers, for a Python without ``packaging``."""
    have = _release(version)
    for clause in filter(None, spec.split(",")):
        op = re.match(r"===|==|!=|<=|>=|~=|<|>", clause).group()  # type: ignore[union-attr]
        want = _release(clause[len(op):])
        ok = {"==": have == want, "===": have == want, "!=": have != want, "<=": have <= want,
              ">=": have >= want, "<": have < want, ">": have > want,
              "~=": have >= want and have[:max(1, len(want) - 1)] == want[:max(1, len(want) - 1)]}[op]
        if not ok:
            return False
    return True


def _parse(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise RecordError(f"{path.name}: cannot read ({e})") from None
    except tomllib.TOMLDecodeError as e:
        raise RecordError(f"{path.name}: not valid TOML ({e})") from None


def load_file(path: Path) -> Record:
    record = from_dict(_parse(path), path.name)
    if path.stem != record.id:
        raise RecordError(f"{path.name}: field 'id' is {record.id!r} but the file is named {path.stem!r}")
    return record


def _check_related(records: dict[str, Record]) -> None:
    for r in records.values():
        missing = [x for x in r.related if x not in records]
        if missing:
            warnings.warn(f"jaxerrs: {r.source_file}: 'related' names unknown record(s) {missing}; ignored",
                          stacklevel=3)
            r.related = [x for x in r.related if x in records]


def load_dir(directory: Path, problems: list[str] | None = None, cache: bool = False) -> dict[str, Record]:
    """Every valid record in ``directory``; each bad one becomes one warning (and a problem line).

    With ``cache``, the validated data is kept as JSON in the user's cache directory, keyed by the
    files' names, sizes and times: parsing TOML is most of the cost of loading.
    """
    paths = sorted(directory.glob("*.toml"))
    cache_file = _cache_file(paths) if cache else None
    cached = _read_cache(cache_file) if cache_file else None
    if cached is not None:
        for message in cached["problems"]:
            _problem(message, problems)
        return {name: _build(data, f"{name}.toml") for name, data in cached["records"]}
    records: dict[str, Record] = {}
    valid: list[tuple[str, dict[str, Any]]] = []
    found: list[str] = []
    for path in paths:
        try:
            data = _parse(path)
            rec = from_dict(data, path.name)
            if path.stem != rec.id:
                raise RecordError(f"{path.name}: field 'id' is {rec.id!r} but the file is named {path.stem!r}")
        except RecordError as e:
            found.append(str(e))
            continue
        if rec.id in records:
            found.append(f"{path.name}: id {rec.id!r} already used by {records[rec.id].source_file}")
            continue
        records[rec.id] = rec
        valid.append((rec.id, data))
    for message in found:
        _problem(message, problems)
    if cache_file is not None:
        _write_cache(cache_file, {"records": valid, "problems": found})
    return records


_CACHE_FORMAT = 4


def _cache_file(paths: list[Path]) -> Path | None:
    from jaxerrs.catalog import cache_dir

    h = hashlib.sha256(f"{_CACHE_FORMAT}".encode())
    try:
        for p in paths:
            st = p.stat()
            h.update(f"{p.name}:{st.st_size}:{st.st_mtime_ns};".encode())
    except OSError:
        return None
    return cache_dir() / f"records-{h.hexdigest()[:20]}.json"


def _read_cache(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and {"records", "problems"} <= set(data) else None
    except (OSError, ValueError):
        return None


def _write_cache(path: Path, data: dict[str, Any]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # no cache: the next load parses the TOML again


def _problem(message: str, problems: list[str] | None) -> None:
    if problems is not None:
        problems.append(message)
    warnings.warn(f"jaxerrs: skipped record {message}", stacklevel=3)


_ALL: dict[str, Record] | None = None
PROBLEMS: list[str] = []


GENERATION = 0  # counts loads of the record set: caches keyed on it never serve an older set


def all_records(reload: bool = False) -> dict[str, Record]:
    """Built-in records, then those imported from ``JAXERRS_KB_PATH`` (files or folders)."""
    global _ALL
    if _ALL is not None and not reload:
        return _ALL
    PROBLEMS.clear()
    records = load_dir(RECORDS_DIR, PROBLEMS, cache=True)
    extra = os.environ.get("JAXERRS_KB_PATH", "")
    if extra:
        from jaxerrs.kb.importer import import_path

        for part in extra.split(os.pathsep):
            if part.strip():
                for rec in import_path(Path(part), PROBLEMS):
                    if rec.id in records:
                        _problem(f"{rec.source_file}: id {rec.id!r} already used", PROBLEMS)
                        continue
                    records[rec.id] = rec
    _check_related(records)
    _ALL = records
    global GENERATION
    GENERATION += 1
    return records


def find(record_id: str) -> Record | None:
    """A record by id, or an imported record by its slug."""
    records = all_records()
    if record_id in records:
        return records[record_id]
    for r in records.values():
        if r.slug and r.slug == record_id:
            return r
    return None
