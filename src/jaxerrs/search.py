"""Search over curated records (every text field) and JAX's raise sites: one BM25 index.

A pasted message or traceback goes through the matcher first, so its record leads. Unknown words
are corrected to the nearest indexed word (typos). Curated records rank above bare sites.
"""

from __future__ import annotations

import difflib
import html
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

K1, B = 1.4, 0.6
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[a-z]+")
_STOP = frozenset("a an the of to in on for is are be it this that with by or and as at from your you was its".split())
# Record fields and how much a word in each counts.
_FIELDS = (("title", 3), ("id", 3), ("tags", 3), ("error_class", 2), ("patterns", 2), ("explanation", 1),
           ("triggers", 1), ("situations", 1), ("solutions", 1), ("prevention", 1))


def tokens(text: str) -> list[str]:
    """Lower-case words; identifiers are split too (TracerBoolConversionError, static_argnums)."""
    out = []
    for raw in re.findall(r"[A-Za-z0-9_]+", text):
        low = raw.lower()
        parts = [p.lower() for p in _WORD.findall(raw.replace("_", " "))]
        if low not in _STOP:
            out.append(low)
        if len(parts) > 1:
            out.extend(p for p in parts if p not in _STOP and p != low)
    return out


@dataclass(frozen=True)
class Hit:
    id: str
    title: str
    kind: str  # "record" or "site"
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "kind": self.kind, "score": round(self.score, 4)}


@dataclass
class _Doc:
    id: str
    title: str
    kind: str
    length: int
    tags: frozenset[str] = frozenset()
    error_class: str = ""


class Index:
    def __init__(self) -> None:
        from jaxerrs import catalog
        from jaxerrs.kb.records import all_records

        self.docs: list[_Doc] = []
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for rec in all_records().values():
            tf: Counter[str] = Counter()
            for name, weight in _FIELDS:
                value = getattr(rec, name)
                text = " ".join(value) if isinstance(value, list) else str(value)
                for t in tokens(text):
                    tf[t] += weight
            self._add(_Doc(rec.id, rec.title, "record", sum(tf.values()), frozenset(rec.tags), rec.class_name), tf)
        try:
            cat = catalog.get(progress=False)
            sites = cat.sites
        except LookupError:
            sites = []
        for s in sites:
            if not s.template:
                continue
            text = s.template.replace("{{", "").replace("}}", "")
            tf = Counter(tokens(re.sub(r"\{[^{}]*\}", " ", text)))
            tf.update(tokens(s.function + " " + s.class_name))
            short = " ".join(text.split())[:110]
            title = f"{s.class_name}: {short}  ({s.path}:{s.line})"
            self._add(_Doc(f"{s.path}:{s.line}", title, "site", sum(tf.values()), frozenset(), s.class_name), tf)
        n = len(self.docs)
        self.avg = {k: (sum(d.length for d in self.docs if d.kind == k) / max(1, sum(d.kind == k for d in self.docs)))
                    for k in ("record", "site")}
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}
        self.vocab_by_len: dict[int, list[str]] = defaultdict(list)
        for t in self.postings:
            self.vocab_by_len[len(t)].append(t)

    def _add(self, doc: _Doc, tf: Counter[str]) -> None:
        i = len(self.docs)
        self.docs.append(doc)
        for t, f in tf.items():
            self.postings[t].append((i, float(f)))

    @lru_cache(maxsize=2048)  # noqa: B019 - one index per process, lives as long as it
    def correct(self, word: str) -> str | None:
        if word in self.postings:
            return word
        if len(word) < 4:
            return None
        pool = [t for n in range(len(word) - 2, len(word) + 3) for t in self.vocab_by_len.get(n, ())]
        close = difflib.get_close_matches(word, pool, n=1, cutoff=0.8)
        return close[0] if close else None

    def score(self, query_tokens: list[str]) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        for t in query_tokens:
            word = self.correct(t)
            if word is None:
                continue
            idf = self.idf[word] * (1.0 if word == t else 0.8)
            for i, f in self.postings[word]:
                d = self.docs[i]
                norm = f * (K1 + 1) / (f + K1 * (1 - B + B * d.length / self.avg[d.kind]))
                scores[i] += idf * norm
        return scores


_INDEX: Index | None = None


def index() -> Index:
    global _INDEX
    if _INDEX is None:
        _INDEX = Index()
    return _INDEX


def _looks_like_error(query: str) -> bool:
    return ("Traceback" in query or "\n" in query.strip()
            or bool(re.match(r"^\s*[A-Za-z_][\w.]*(Error|Exception)\b\s*:", query)) or len(query) > 90)


def search(query: str, limit: int = 10, tags: list[str] | None = None, error_class: str | None = None) -> list[Hit]:
    """Best first; records above bare raise sites. An empty or absurd query gives []."""
    query = (query or "").strip()[:20000]
    if not query or limit < 1:
        return []
    idx = index()
    hits: list[Hit] = []
    seen: set[str] = set()
    if _looks_like_error(query):
        from jaxerrs.matcher import diagnose_from_text

        d = diagnose_from_text(query)
        if d.is_jax and d.record is not None:
            hits.append(Hit(d.record.id, d.record.title, "record", 100.0 + d.confidence))
            seen.add(d.record.id)
        if d.is_jax and d.site is not None:
            key = f"{d.site.path}:{d.site.line}"
            hits.append(Hit(key, f"{d.error_class}: raise site in {d.site.function}", "site", 50.0 + d.confidence))
            seen.add(key)
    q = tokens(query)
    scores = idx.score(q[:400])
    wanted_tags = {t.lower() for t in tags or []}
    cls = (error_class or "").lower().rsplit(".", 1)[-1]
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    top = ranked[0][1] if ranked else 0.0
    records, sites = [], []
    for i, s in ranked:
        d = idx.docs[i]
        if d.id in seen or s < 0.15 * top:
            continue
        if wanted_tags and not wanted_tags <= {t.lower() for t in d.tags}:
            continue
        if cls and d.error_class.lower() != cls:
            continue
        (records if d.kind == "record" else sites).append(Hit(d.id, d.title, d.kind, s))
        if len(records) >= limit and len(sites) >= limit:
            break
    hits += records + sites
    # Records first: a bare site follows every record that scored.
    hits.sort(key=lambda h: (h.kind != "record" and h.score < 50, -h.score))
    return hits[:limit]


class SearchResults:
    """Results as text (terminal) or as a widget whose entries open the full panel."""

    def __init__(self, query: str, hits: list[Hit]) -> None:
        self.query, self.hits = query, hits

    def text(self) -> str:
        if not self.hits:
            return f"jaxerrs: nothing found for {self.query!r}. Try other words, a class name or the error message."
        return "\n".join(f"{h.score:7.2f}  {h.kind:<6}  {h.id}  {h.title}" for h in self.hits)

    def html(self) -> str:
        if not self.hits:
            body = f"<p>Nothing found for <code>{html.escape(self.query)}</code>.</p>"
        else:
            body = "<ol>" + "".join(
                f"<li><code>{html.escape(h.id)}</code> {html.escape(h.title)} <small>({h.kind})</small></li>"
                for h in self.hits) + "</ol>"
        return f'<div class="jaxerrs-search"><b>jaxerrs search:</b> {html.escape(self.query)}{body}</div>'

    def widget(self) -> Any:
        import ipywidgets as widgets

        out = widgets.Output()
        rows: list[widgets.Widget] = [widgets.HTML(f"<b>jaxerrs search:</b> {html.escape(self.query)}")]
        if not self.hits:
            rows.append(widgets.HTML(f"Nothing found for <code>{html.escape(self.query)}</code>."))
        for h in self.hits:
            b = widgets.Button(description=h.id[:60], tooltip=h.title, layout=widgets.Layout(width="auto"))
            b.on_click(lambda _b, h=h: self._open(h, out))
            rows.append(widgets.HBox([b, widgets.HTML(f"{html.escape(h.title)} <small>({h.kind})</small>")]))
        rows.append(out)
        from jaxerrs.panel import SearchBox

        box = SearchBox(rows, self.html(), self.text())
        box.add_class("jaxerrs-search")
        return box

    @staticmethod
    def _open(hit: Hit, out: Any) -> None:
        from IPython.display import display

        from jaxerrs.panel import Panel
        from jaxerrs.views import record_diagnosis, site_diagnosis

        out.clear_output()
        with out:
            if hit.kind == "record":
                from jaxerrs.kb.records import find

                rec = find(hit.id)
                if rec is not None:
                    display(Panel(record_diagnosis(rec)))
            else:
                display(Panel(site_diagnosis(hit.id)))
