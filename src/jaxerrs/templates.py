"""Message templates: ``{name}`` marks a variable part, ``{{``/``}}`` a literal brace.

Catalog sites and curated records share this one syntax. Matching is whitespace-insensitive
because pasted tracebacks often come re-wrapped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from string import Formatter

_WS = re.compile(r"\s+")
_REPEAT = re.compile(r"__\d+$")  # a hole's second, third … group: "shape__1" (``compile_template``)


@lru_cache(maxsize=256)
def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


def parts(template: str) -> list[tuple[str, str | None]]:
    """[(literal, hole_name_or_None), …]; raises ValueError for a malformed template."""
    return [(lit, name) for lit, name, _spec, _conv in Formatter().parse(template)]


def literals(template: str) -> list[str]:
    try:
        return [normalise(lit) for lit, _ in parts(template) if normalise(lit)]
    except ValueError:
        return [normalise(template)]


@lru_cache(maxsize=8192)
def literal_length(template: str) -> int:
    return sum(len(x) for x in literals(template))


def unmarked(text: str) -> str:
    """Text without backticks and single quotes, for the cheap substring tests: a paste loses Markdown's
    backticks, and a person retyping a message writes quotes for them (``'eqx.Module's``)."""
    return text.replace("`", "").replace("'", "")


def anchor(template: str) -> str:
    """The longest literal run of a template, normalised: a cheap substring prefilter."""
    lits = literals(template)
    return max(lits, key=len) if lits else ""


@dataclass(frozen=True)
class Match:
    start: int
    coverage: float  # share of the (normalised) message covered by the template's literal text
    literal: int  # literal characters matched
    values: dict[str, str]  # hole name -> text it matched
    length: int = 0  # characters of the (normalised) message
    holes: tuple[str, ...] = ()  # the text each hole matched, in the template's order ("" where it matched none)


@lru_cache(maxsize=4096)
def compile_template(template: str) -> re.Pattern[str]:
    """Compile a template; holes match lazily, the last one up to the end of its line."""
    out: list[str] = []
    seen: dict[str, int] = {}
    items = parts(template)
    for i, (raw, name) in enumerate(items):
        lit = normalise(raw) if raw.strip() else (" " if raw else "")
        if lit:
            # Literal whitespace becomes "any whitespace": messages get re-wrapped. Where a hole meets a word
            # across a space, the word must not be glued to the hole's text: " at " after a hole never
            # matches the "at" inside "Integrator.advance", which would cut the hole's value short.
            if lit != " " and i > 0 and raw[:1].isspace() and _wordy(lit[:1]):
                out.append(_BEFORE_WORD)
            out.append(_spaced(lit) if lit != " " else r"\s*")
            if lit != " " and name is not None and raw[-1:].isspace() and _wordy(lit[-1:]):
                out.append(r"(?:\s+|(?!\w))")
        if name is not None:
            base = re.sub(r"\W", "_", name) or "value"
            if base[0].isdigit():
                base = "h" + base
            n = seen.get(base, 0)
            seen[base] = n + 1
            group = base if n == 0 else f"{base}__{n}"
            last = i == len(items) - 1
            out.append(f"(?P<{group}>.*)" if last else f"(?P<{group}>.*?)")
    return re.compile("".join(out), re.DOTALL)


_BEFORE_WORD = r"(?:\s+|(?<!\w))"  # a space of the template before a word: whitespace, or no word glued on


def _wordy(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _spaced(lit: str) -> str:
    """A literal run as a regex whose spaces match any whitespace, or none where that glues no words."""
    chunks = lit.split(" ")
    out = [_escaped(chunks[0])]
    for ch in chunks[1:]:
        out.append(_BEFORE_WORD if _wordy(ch[:1]) else r"\s*")
        out.append(_escaped(ch))
    return "".join(out)


def _escaped(chunk: str) -> str:
    """A literal chunk as a regex; its backticks (Markdown code marks) are optional: a paste loses them, or a
    person retyping the message writes quotes for them."""
    return re.escape(chunk).replace("`", "[`']?")


@lru_cache(maxsize=8192)
def _required(template: str) -> tuple[str, ...]:
    """Each literal run of a template without its spaces: every one must occur in a message it matches."""
    return tuple(x for x in (unmarked(lit.replace(" ", "")) for lit in literals(template)) if x)


def key_literal(template: str) -> str:
    """The template's longest literal run without spaces ("" when it has none): a message it matches holds it.
    A final full stop is left off, since a message quoted without it still matches."""
    runs = _required(template[:-1] if template.endswith(".") and not template.endswith("..") else template)
    return max(runs, key=len) if runs else ""


def squeezed(message: str) -> str:
    """The message normalised, without spaces: what ``key_literal`` runs are looked for in."""
    return _prepared(message)[1]


@lru_cache(maxsize=64)
def _prepared(message: str) -> tuple[str, str]:
    """(normalised message, the same without spaces); one message is matched against many templates."""
    norm = normalise(message)
    return norm, unmarked(norm.replace(" ", ""))


def match(template: str, message: str) -> Match | None:
    """Search ``message`` for ``template``; None when the template's text is not there.

    A message quoted without its final full stop still matches a template that ends with one.
    """
    found = _match(template, message)
    if found is None and template.endswith(".") and not template.endswith("..") and len(template) > 1 \
            and not message.rstrip().endswith("."):
        short = template[:-1]
        if not all(req in squeezed(message) for req in _required(short)):
            return None  # the cheap test first: most templates are nowhere near the message
        last_literal, last_hole = _last_part(short)
        # Only where the message ends: "immutable; perhaps …" is other words, not a full stop left out.
        if last_hole is not None or normalise(message).rstrip().endswith(normalise(last_literal).rstrip()):
            found = _match(short, message)
    return found


_PLAIN_WORD = re.compile(r"[A-Za-z]+[,.;:]?")


def prose(value: str) -> bool:
    """Words a person wrote, not a value's repr: three or more space-separated plain words ("PyTreeDef((*, *),
    {})" and "ShapedArray(float32[3, 4])" have none)."""
    return sum(1 for t in value.split() if _PLAIN_WORD.fullmatch(t)) >= 3


def value_chars(holes: Iterable[str]) -> int:
    """The characters of what holes matched that are run-specific values (names, shapes, numbers, a path or a
    repr of any length), not words JAX chose; long holes of prose are words."""
    return sum(len(v) for v in holes if len(v) <= 40 or not prose(v))


def words_share(m: Match) -> float:
    """The share of a message's own words that a template spells, its values (``value_chars``) left out."""
    return m.literal / max(1, m.length - value_chars(m.holes or tuple(m.values.values())))


@lru_cache(maxsize=8192)
def _last_part(template: str) -> tuple[str, str | None]:
    try:
        items = parts(template)
    except ValueError:
        return "", None
    return items[-1] if items else ("", None)


def _match(template: str, message: str) -> Match | None:
    try:
        rx = compile_template(template)
    except (ValueError, re.error):
        return None
    norm, squeezed = _prepared(message)
    # Cheap necessary condition first: the regex only lets whitespace vary inside a literal run.
    if not all(req in squeezed for req in _required(template)):
        return None
    m = rx.search(norm)
    if not m:
        return None
    literal = literal_length(template)
    if literal == 0:
        return None
    groups = m.groupdict()
    values = {_REPEAT.sub("", k): v.strip() for k, v in groups.items() if v is not None and v.strip()}
    # A trailing hole swallows the rest of the message; do not count it against coverage.
    return Match(m.start(), min(1.0, literal / max(1, len(norm))), literal, values, len(norm),
                 tuple((v or "").strip() for v in groups.values()))


def validate(template: str) -> str | None:
    """An error message for a template that cannot be compiled, else None."""
    try:
        compile_template(template)
    except (ValueError, re.error) as e:
        return str(e)
    if literal_length(template) == 0:
        return "template has no literal text"
    return None
