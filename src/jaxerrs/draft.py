"""A record skeleton for an error no record explains (``%jaxerr draft``, ``jaxerrs draft FILE``).

The skeleton passes the knowledge base's form checks (it loads as a record): its id, class, pattern (the
raise site's message template, else the message), site, the user's failing cell as reproducer and first
case, and the guarding check as the first line of its explanation. What only a person can write (the
explanation's substance, the solutions, the fix) is marked ``TO WRITE``; CONTRIBUTING.md says how to
finish and verify it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxerrs.diagnosis import Diagnosis

TODO = "TO WRITE"


def _toml(text: str) -> str:
    """A TOML basic string: one line in quotes, or a multi-line one for code."""
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    if "\n" not in text:
        return f'"{esc}"'
    return '"""\n' + esc + ('\n' if not esc.endswith("\n") else "") + '"""'


def _slug(text: str, fallback: str) -> str:
    words = [w for w in re.findall(r"[a-z][a-z0-9]+", text.lower()) if w not in _STOP][:5]
    return "-".join(words) or fallback


_STOP = {"the", "a", "an", "of", "to", "for", "in", "on", "is", "be", "and", "or", "must", "got", "with", "was"}


def draft(d: Diagnosis, cell: str | None = None) -> str:
    """The TOML text of a record skeleton for ``d`` (``cell``: the failing cell, when known)."""
    from jaxerrs import templates

    ev = d.evidence
    site = d.site
    template = site.template if site is not None and site.template else None
    if not template or templates.validate(template):
        head = ev.message.splitlines()[0][:300] if ev.message else ev.exc_class
        template = head.replace("{", "{{").replace("}", "}}")  # a template's literal braces are doubled
    cls = ev.exc_class or "Exception"
    module = ev.module or ""
    error_class = f"{module}.{cls}" if module and module != "builtins" else cls
    rid = _slug(re.sub(r"\{[^{}]*\}", " ", template), cls.lower())
    check = d.check
    first = (f"JAX raises this when {check['words']} (the check `{check['code']}` in "
             f"`{site.path if site else 'its source'}`)." if check else f"JAX raises this ({cls}).")
    code = (cell or "").strip("\n") or f"# {TODO}: code that raises this error\nraise {cls}({ev.message[:60]!r})"
    from jaxerrs.catalog import installed_jax_version

    lines = [
        f"id = {_toml(rid)}",
        f"title = {_toml(ev.message.splitlines()[0][:120] if ev.message else cls)}",
        f"error_class = {_toml(error_class)}",
        f"patterns = [{_toml(template)}]",
    ]
    if site is not None:
        lines.append(f"sites = [{{ path = {_toml(site.path)}, function = {_toml(site.function)} }}]")
    lines += [
        f"jax_versions = {_toml('>=' + (installed_jax_version() or '0.4.38'))}",
        'tags = ["draft"]',
        "",
        f"explanation = {_toml(first + chr(10) + chr(10) + TODO + ': what it means, in your own words.')}",
        "",
        f"triggers = [{_toml(TODO + ': the mistake the reproducer makes')}]",
        f"solutions = [{_toml(TODO + ': the fix, and when it applies')}]",
        "",
        f"reproducer = {_toml(code)}",
        "",
        f"cases = [{_toml(code)}]",
        "",
        "[fix]",
        f"before = {_toml(code)}",
        f"after = {_toml('# ' + TODO + ': the fixed code' + chr(10) + 'pass')}",
        f"check = {_toml('# ' + TODO + ': assert the fix keeps what the code meant')}",
    ]
    return "\n".join(lines) + "\n"
