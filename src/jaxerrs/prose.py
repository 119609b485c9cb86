"""Record prose as CommonMark: rendered to escaped HTML, to plain terminal text, and checked for markup slips.

Records (and the few sentences jaxerrs writes around them) are CommonMark. Raw HTML is never passed
through: with ``html`` off, markdown-it escapes every ``<`` in the text, so error messages and imported
records (user data) stay text. Images are off too (a panel fetches nothing). markdown-it is imported on
first use, when a panel renders, and the parser is built once.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache
from typing import Any

TEXT_WIDTH = 100
_NBSP = "\ue000"  # stands for a space inside a code span while text is wrapped (never split there)


@lru_cache(maxsize=1)
def parser() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False})
    md.disable("image")

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("target", "_blank")
        tokens[idx].attrSet("rel", "noopener")
        return renderer.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    return md


# ------------------------------------------------------------------------------------------ HTML

@lru_cache(maxsize=4096)
def html_block(text: str) -> str:
    """Paragraphs (and lists, code) as HTML: ``<p>…</p>`` per paragraph, everything escaped."""
    return parser().render(text.strip()).strip("\n") if text.strip() else ""


@lru_cache(maxsize=4096)
def html_inline(text: str) -> str:
    """One line's worth (a title, a table cell): inline markup only, no ``<p>`` around it."""
    return parser().renderInline(text.strip())


# ------------------------------------------------------------------------------------------ text

def _inline_text(children: list[Any], keep_code: bool = False) -> str:
    """Inline tokens as plain text: code spans keep their backticks, emphasis loses its markers."""
    out: list[str] = []
    href: list[str] = []
    start: list[int] = []
    for t in children:
        if t.type == "text":
            out.append(t.content)
        elif t.type == "code_inline":
            fence = "``" if "`" in t.content else "`"
            pad = " " if t.content.startswith("`") or t.content.endswith("`") else ""
            code = f"{fence}{pad}{t.content}{pad}{fence}"
            out.append(code if keep_code else code.replace(" ", _NBSP))
        elif t.type == "softbreak":
            out.append(" ")
        elif t.type == "hardbreak":
            out.append("\n")
        elif t.type == "link_open":
            href.append(t.attrGet("href") or "")
            start.append(len(out))
        elif t.type == "link_close" and href:
            url, at = href.pop(), start.pop()
            label = "".join(out[at:])
            if url and url not in (label, f"mailto:{label}"):
                out.append(f" ({url})")
        elif t.content:  # html_inline cannot occur (html is off); anything else: its text
            out.append(t.content)
    return "".join(out)


def text_inline(text: str) -> str:
    """One line of plain text: a title, a table value."""
    tokens = parser().parseInline(text.strip())
    return " ".join(_inline_text(tokens[0].children or [], keep_code=True).split()) if tokens else ""


def text_lines(text: str, indent: str = "  ", width: int = TEXT_WIDTH, bullet: str = "") -> list[str]:
    """Prose as wrapped plain-text lines: paragraphs reflowed, lists bulleted, code blocks kept as written.

    ``bullet`` ("- ", "1. ") starts the first line; the lines after it hang under the text."""
    lines: list[str] = []
    first = indent + bullet
    rest = indent + " " * len(bullet)
    stack: list[list[Any]] = []  # open lists: [kind, next number]
    item_prefix: list[str] = []

    def fill(s: str, head: str, tail: str) -> None:
        for n, part in enumerate(s.split("\n")):
            wrapped = textwrap.wrap(part, width=max(width - len(tail), 30), break_long_words=False,
                                    break_on_hyphens=False) or [""]
            for k, w in enumerate(wrapped):
                lines.append((head if n == k == 0 else tail) + w.replace(_NBSP, " "))

    def heads() -> tuple[str, str]:
        nonlocal first
        if item_prefix:
            head = first + "".join(" " * len(p) for p in item_prefix[:-1]) + item_prefix[-1]
            tail = rest + "".join(" " * len(p) for p in item_prefix)
            item_prefix[-1] = " " * len(item_prefix[-1])
        else:
            head, tail = first, rest
        first = rest
        return head, tail

    tokens = parser().parse(text.strip())
    for t in tokens:
        if t.type in ("bullet_list_open", "ordered_list_open"):
            if not stack and lines:
                lines.append("")
            stack.append([t.type, int(t.attrGet("start") or 1)])
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            stack.pop()
        elif t.type == "list_item_open":
            kind = stack[-1]
            mark = "- " if kind[0] == "bullet_list_open" else f"{kind[1]}. "
            kind[1] += 1
            item_prefix.append(mark)
        elif t.type == "list_item_close":
            item_prefix.pop()
        elif t.type == "paragraph_open" and lines and not item_prefix and not t.hidden:
            lines.append("")
        elif t.type == "inline":
            head, tail = heads()
            fill(_inline_text(t.children or []), head, tail)
        elif t.type in ("fence", "code_block"):
            head, tail = heads()
            if lines and not item_prefix:
                lines.append("")
            body = t.content.rstrip("\n").splitlines() or [""]
            lines.append(head + "    " + body[0])
            lines.extend(tail + "    " + ln for ln in body[1:])
        elif t.type == "hr":
            lines.append(indent + "---")
    return lines


# ------------------------------------------------------------------------------------------ checks

_RUN = re.compile(r"\\.|`+", re.S)
_INTRAWORD_STARS = re.compile(r"(?<=[^\W_])\*+(?=[^\W_])")


def _split_code(source: str) -> list[tuple[str, bool]]:
    """The source in pieces, each marked True inside a code span as the author meant it: each backtick
    opens a span that the next backtick closes, within a paragraph, line breaks included."""
    pieces: list[tuple[str, bool]] = []
    for n, para in enumerate(re.split(r"(\n[ \t]*\n)", source)):
        if n % 2:
            pieces.append((para, False))
            continue
        ticks = [m for m in _RUN.finditer(para) if m.group().startswith("`")]
        at = 0
        for a, b in zip(ticks[::2], ticks[1::2], strict=False):
            pieces += [(para[at:a.start()], False), (para[a.start():b.end()], True)]
            at = b.end()
        pieces.append((para[at:], False))
    return pieces


def _normal(code: str) -> str:
    """A code span's content as CommonMark gives it: line breaks are spaces, one padding space stripped."""
    code = code.replace("\n", " ")
    if len(code) > 2 and code[0] == " " and code[-1] == " " and code.strip(" "):
        code = code[1:-1]
    return code


_KINDS = {"bullet_list_open": "a bulleted list", "ordered_list_open": "a numbered list", "heading_open": "a heading",
          "blockquote_open": "a quote", "code_block": "an indented code block", "fence": "a code block",
          "hr": "a rule", "html_block": "HTML"}


def _blocks(tokens: list[Any], source: str, inline: bool) -> list[str]:
    """Blocks the author cannot have meant: in a title or list item anything but one paragraph; in longer
    prose a heading, a rule, a quote or an indented code block, or a list that breaks into a sentence (a
    line that happens to start with ``1.``, ``-`` or ``+``)."""
    lines = source.splitlines()
    out: list[str] = []
    prev_end = -1
    for t in tokens:
        if t.level != 0 or t.type.endswith("_close") or t.type == "inline":
            continue
        start = t.map[0] if t.map else -1
        line = lines[start].strip()[:60] if 0 <= start < len(lines) else ""
        kind = _KINDS.get(t.type, t.type.removesuffix("_open").replace("_", " "))
        if t.type == "paragraph_open" or (t.type == "fence" and not inline):
            pass
        elif inline:
            out.append(f"renders as {kind}, not a sentence: {line!r}")
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            before = lines[start - 1].rstrip() if start > 0 else ""
            if start == prev_end and before and not before.endswith(":"):
                out.append(f"a line breaks the sentence into a list: {line!r}")
        else:
            out.append(f"renders as {kind}: {line!r}")
        prev_end = t.map[1] if t.map else -1
    return out


def problems(text: str, inline: bool = False) -> list[str]:
    """What in ``text`` does not render as its author meant; ``inline``: a title or list item (one paragraph).

    - a backtick left in the rendered text (an odd number of them, or a run CommonMark cannot close);
    - a code span CommonMark closes elsewhere than the next backtick (a double backtick, an escape);
    - emphasis from underscores (``__init__`` outside backticks loses them) or from stars inside a word
      (``2**31 - 1 or -2**31`` outside backticks turns bold);
    - a block the author did not mean (see ``_blocks``).
    """
    source = text.strip()
    if not source:
        return []
    md = parser()
    tokens = md.parse(source)
    out = _blocks(tokens, source, inline)
    spans: list[str] = []
    for t in tokens:
        for c in t.children or []:
            if c.type == "text" and "`" in c.content:
                out.append(f"unbalanced backtick: {c.content.strip()[:70]!r} shows a literal `")
            elif c.type == "code_inline":
                spans.append(c.content)
            elif c.type in ("em_open", "strong_open") and c.markup.startswith("_"):
                out.append(f"{c.markup!r} makes emphasis (an identifier outside backticks?)")
    if any("backtick" in p for p in out):
        return list(dict.fromkeys(out))
    pieces = _split_code(source)
    meant = [_normal(p[1:-1]) for p, code in pieces if code]
    if meant != spans:
        wrong = next((f"{m!r} renders as {s!r}" for m, s in zip(meant, spans, strict=False) if m != s),
                     f"{len(meant)} code spans meant, {len(spans)} rendered")
        out.append(f"code span closes elsewhere than meant: {wrong}")
    else:
        literal = "".join(p if code else _INTRAWORD_STARS.sub(lambda m: "\\" + "\\".join(m.group()), p)
                          for p, code in pieces)
        if literal != source and md.render(literal) != md.render(source):
            star = next(m.group() for p, code in pieces if not code for m in _INTRAWORD_STARS.finditer(p))
            out.append(f"{star!r} inside a word makes emphasis (code outside backticks?)")
    return list(dict.fromkeys(out))
