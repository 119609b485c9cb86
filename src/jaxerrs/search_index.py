"""Search over curated records (every text field) and JAX's raise sites: one BM25 index.

A pasted message or traceback goes through the matcher first, so its record (then its raise site)
leads. Words on both sides go through one light stemmer (plurals, -ed, -ing, -ly, a final e: "jitting",
"traced", "inconsistently" meet "jit", "trace", "inconsistent"). Unknown words are corrected to the nearest
word the records use (typos). A query word is weighed by where it comes from: the parts of a pasted
CamelCase class name share a weight, so the class does not drown the API named next to it; the words issue
titles wrap around a problem ("bad error message when ...") count for less; a few words users write are
also looked up as the word the records use ("dimension" -> "axis", "deprecated" -> "removed", "OOM").
A query word found in a record's title, id or tags counts once more (the body saturates in BM25, so the
record about a word and one that merely mentions it often would score alike); a query word pair found side
by side in a record's title, id, tags or patterns adds a phrase bonus; records that many others list as
related, and those users hit most in public threads (kb/frequency.txt), win close calls; a query that
quotes the start of a record's message ("Unknown backend gpu") favours that record, and a short query
that holds every word of a record's message favours it a little over records whose messages need more. Curated records
rank above bare sites. Relevance is measured on two sets, the
records' words and users' words (tests/search_relevance*.py, tests/search_metrics.py).
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

K1, B = 1.4, 0.6
_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[a-z]+")
_STOP = frozenset("a an the of to in on for is are be it this that with by or and as at from your you was its "
                  "i my me we how what why when does do did not no can cannot get got".split())
# Record fields and how much a word in each counts. Triggers and situations describe what the user's code
# did, in the user's terms; the explanation, solutions and prevention also name the internals and the
# other APIs of the fix (`lax.cond`, `jnp.where`), which say little about which problem this is.
_FIELDS = (("title", 3), ("id", 3), ("tags", 3), ("error_class", 2), ("patterns", 2), ("explanation", 0.5),
           ("triggers", 1), ("situations", 1), ("solutions", 0.5), ("prevention", 0.5))
_HOLE = re.compile(r"\{[^{}]*\}")
PHRASE = 0.6    # a query word pair found side by side in a record's title, tags or patterns: this much of its idf
FREQUENT = 0.05  # prior bonus of the most-hit record (kb/frequency.txt); others by log count
INLINKS = 0.06  # per other record that lists this one as related (capped): general records win close calls
MAX_QUERY_TOKENS = 400
MIN_IDF = 0.05
MIN_KNOWN = 0.5  # a query whose words are mostly unknown finds nothing (a corrected typo counts half)
PART = 0.5    # the parts of a split CamelCase name weigh n ** -PART each (see query_terms)
NOISE = 0.5   # weight of the words issue titles wrap around the problem ("bad error message when ...")
HEAD = 0.5    # a query word in a record's title, id or tags adds its idf once more (BM25 saturates on
              # the body, so a record about a word and one that mentions it often would score alike)
TYPO = 0.8    # weight of a word corrected to the nearest one the records use
DIGITS = 0.2  # weight of a number in a query
ALIAS = 0.6   # weight of a word the records use for one the user wrote ("dimension" -> "axis")


_IRREGULAR = {"axes": "axis", "indices": "index", "matrices": "matrix", "leaves": "leaf", "children": "child",
              "vertices": "vertex"}


def _plural(word: str) -> str:
    """Plural to singular, conservatively (shapes, cotangents, devices, classes, keys; not axis, status)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) >= 5:
        return word[:-3] + "y"
    if word.endswith(("xes", "ches", "shes", "sses")):
        return word[:-2]
    return word[:-1]


_BRITISH = re.compile(r"is(e|ed|es|ing|ation|ations|er|ers)$")


@lru_cache(maxsize=16384)
def _stem(word: str) -> str:
    """A light suffix stripper, the same for records and queries, so that the forms users write meet the
    ones records use: plurals, -ed, -ing, -ly and a final e (traced, tracing, trace -> trac; jitted,
    jitting -> jit; indexed -> index; inconsistently -> inconsistent; sized, sizes -> size)."""
    w = _plural(word)
    if not w.isalpha() or len(w) <= 4:
        return w
    if len(w) >= 7:  # British spellings meet American ones: initialise, initialised -> initializ…
        w = _BRITISH.sub(r"iz\1", w)
    if (w.endswith("ing") and len(w) >= 6) or (w.endswith("ed") and len(w) >= 5 and not w.endswith("eed")):
        w = w[:-3] if w.endswith("ing") else w[:-2]
        if len(w) <= 3 and w[-1] not in "aeiouwxy" and (len(w) == 2 or w[-2] in "aeiouy"):
            return w + "e"  # sized -> size, typed -> type, used -> use: as the short word itself stays
    elif w.endswith("ly") and len(w) >= 7:
        w = w[:-2]
    if w.endswith("e") and len(w) >= 4:
        w = w[:-1]
    if len(w) >= 4 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]
    return w


def words(text: str) -> list[str]:
    """The text's words in order: identifiers split into parts, lower-cased and stemmed, stop words dropped."""
    out = []
    for raw in re.findall(r"[A-Za-z0-9_]+", text):
        for p in _WORD.findall(raw.replace("_", " ")):
            p = p.lower()
            if p not in _STOP:
                out.append(_stem(p))
    return out


def tokens(text: str) -> list[str]:
    """Lower-case words; identifiers are split too (TracerBoolConversionError, static_argnums)."""
    out = []
    for raw in re.findall(r"[A-Za-z0-9_]+", text):
        low = raw.lower().strip("_")
        parts = [_stem(p.lower()) for p in _WORD.findall(raw.replace("_", " "))]
        if low and low not in _STOP:
            out.append(_stem(low))
        if len(parts) > 1:
            out.extend(p for p in parts if p not in _STOP and p != low)
    return out


# Words that say "there is a problem" rather than which one: issue titles are full of them, and a few
# records happen to use them ("message" in callback and checkify records).
_NOISE = frozenset(_stem(w) for w in (
    "bad better improve improved improvement misleading confusing unclear cryptic inscrutable poor "
    "message error errors issue issues problem problems bug bugs help question weird strange unexpected "
    "new break breaks broke broken fix fixes wrong jax how why when what").split())

# Words users write -> words the records use for the same thing (each a stem; used at weight ALIAS).
_ALIASES: dict[str, tuple[str, ...]] = {_stem(k): tuple(_stem(x) for x in v.split()) for k, v in {
    "dimension": "axis", "dim": "axis", "dims": "axis", "dictionary": "dict", "dictionaries": "dict",
    "oom": "memory out", "cuda": "gpu", "nvidia": "gpu", "deprecated": "removed", "deprecation": "removed",
    "inplace": "immutable", "mutate": "immutable", "mutable": "immutable", "unhashable": "hashable",
    "backprop": "reverse grad", "backpropagation": "reverse grad", "backward": "reverse grad",
    "gradient": "grad", "derivative": "grad", "differentiate": "grad", "differentiation": "grad",
    "autodiff": "grad", "rng": "prng key", "seed": "prng", "nans": "nan", "tracer": "traced",
    "traced": "tracer", "np": "numpy", "int": "integer", "integer": "int", "bool": "boolean",
    "param": "argument", "parameter": "argument", "arg": "argument", "args": "argument", "compile": "jit",
    "compiled": "jit", "compilation": "jit", "batch": "vmap", "batched": "vmap", "vectorize": "vmap",
    "concat": "concatenate", "conditional": "cond", "inconsistent": "different", "mismatch": "different",
    "differ": "different",
}.items()}


def query_terms(text: str) -> dict[str, float]:
    """The query's words with weights: a whole word 1; each of the n parts of a split CamelCase name
    n ** -PART (NonConcreteBooleanIndexError is one thing, not four), so that a pasted class name does not
    outweigh the API the user also names (`jnp.unique`); the parts of snake_case names count fully."""
    out: dict[str, float] = {}
    for raw in re.findall(r"[A-Za-z0-9_]+", text):
        low = raw.lower().strip("_")
        split = (p.lower() for p in _WORD.findall(raw.replace("_", " ")))
        parts = [_stem(p) for p in split if p not in _STOP]
        if low and low not in _STOP:
            w = _stem(low)
            out[w] = max(out.get(w, 0.0), 1.0)
        parts = [p for p in parts if p != _stem(low)]
        share = len(parts) ** -PART if len(parts) > 1 and "_" not in raw else 1.0  # CamelCase only
        for p in parts:
            out[p] = max(out.get(p, 0.0), share)
        if len(out) >= MAX_QUERY_TOKENS:
            break
    return {w: v * DIGITS if w.isdigit() else v for w, v in out.items()}


def _pairs(ws: list[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in zip(ws, ws[1:], strict=False) if a != b}


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Damerau-Levenshtein (optimal string alignment) distance, or limit + 1 once it is surely above limit."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def _deletes(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


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
    pairs: frozenset[tuple[str, str]] = frozenset()
    prior: float = 1.0
    library: str = ""  # the library a record is about (``requires``): flax, optax, …
    template: str = ""  # a raise site's message template


def frequency() -> dict[str, int]:
    """Record id -> how often users hit it in public threads (kb/frequency.txt)."""
    from jaxerrs.kb.records import RECORDS_DIR

    out = {}
    for ln in (RECORDS_DIR.parent / "frequency.txt").read_text(encoding="utf-8").splitlines():
        fields = ln.split("#")[0].split()
        if len(fields) == 2 and fields[1].isdigit():
            out[fields[0]] = int(fields[1])
    return out


class Index:
    def __init__(self) -> None:
        from jaxerrs import catalog
        from jaxerrs.kb.records import all_records

        self.docs: list[_Doc] = []
        # word -> (doc, BM25 term weight)
        self.postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        self.head: dict[str, list[int]] = defaultdict(list)  # word -> records with it in title, id or tags
        records = all_records()
        inlinks = Counter(r for rec in records.values() for r in set(rec.related) if r != rec.id)
        freq = frequency()
        top_freq = math.log1p(max(freq.values(), default=1))
        self.record_words: Counter[str] = Counter()
        self.message_words: dict[str, list[frozenset[str]]] = {}  # record id -> its messages' words (lazily)
        for rec in records.values():
            tf: Counter[str] = Counter()
            for name, weight in _FIELDS:
                value = rec.all_patterns if name == "patterns" else getattr(rec, name)
                text = " ".join(value) if isinstance(value, list) else str(value)
                for t in tokens(_HOLE.sub(" ", text)):
                    tf[t] += weight
            self.record_words.update(tf.keys())
            phrase_text = " | ".join([rec.title, rec.id, *(_HOLE.sub(" | ", p) for p in rec.all_patterns)])
            pairs = _pairs(words(phrase_text)) | {p for tag in rec.tags for p in _pairs(words(tag))}
            prior = 1.0 + INLINKS * min(inlinks[rec.id], 5) + FREQUENT * math.log1p(freq.get(rec.id, 0)) / top_freq
            self._add(_Doc(rec.id, rec.title, "record", sum(tf.values()), frozenset(rec.tags), rec.class_name,
                           frozenset(pairs), prior, rec.library or ""), tf)
            for t in set(tokens(" ".join([rec.title, rec.id, *rec.tags]))):  # what the record is about
                self.head[t].append(len(self.docs) - 1)
        try:
            cat = catalog.get(progress=False)
            sites = list(cat.sites)
        except LookupError:
            sites = []
        for lib in catalog.library_catalogs():  # Flax, Optax, … when installed: their raise sites too
            sites.extend(lib.sites)
        for s in sites:
            if not s.template:
                continue
            text = s.template.replace("{{", "").replace("}}", "")
            tf = Counter(tokens(_HOLE.sub(" ", text)))
            tf.update(tokens(s.function))
            tf[s.class_name.lower()] += 1  # whole: ValueError must not make every site about "value"
            short = " ".join(text.split())[:110]
            title = f"{s.class_name}: {short}  ({s.path}:{s.line})"
            self._add(_Doc(f"{s.path}:{s.line}", title, "site", sum(tf.values()), frozenset(), s.class_name,
                           template=s.template), tf)
        n = len(self.docs)
        self.avg = {k: (sum(d.length for d in self.docs if d.kind == k) / max(1, sum(d.kind == k for d in self.docs)))
                    for k in ("record", "site")}
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}
        for plist in self.postings.values():  # raw weighted counts -> BM25 term weights, once
            for j, (i, f) in enumerate(plist):
                d = self.docs[i]
                plist[j] = (i, f * (K1 + 1) / (f + K1 * (1 - B + B * d.length / self.avg[d.kind])))
        self._near: dict[str, list[str]] | None = None  # built on the first unknown word

    def _add(self, doc: _Doc, tf: Counter[str]) -> None:
        i = len(self.docs)
        self.docs.append(doc)
        for t, f in tf.items():
            self.postings[t].append((i, float(f)))

    def _near_index(self) -> dict[str, list[str]]:
        """Each indexed word and its one-letter deletions -> the words (a symmetric-delete spelling index)."""
        if self._near is None:
            near: dict[str, list[str]] = defaultdict(list)
            for w in self.record_words:  # users misspell the words of errors, not of JAX internals
                if len(w) >= 3 and w.isalpha():
                    near[w].append(w)
                    for d in _deletes(w):
                        near[d].append(w)
            self._near = near
        return self._near

    @lru_cache(maxsize=4096)  # noqa: B019 - one index per process, lives as long as it
    def correct(self, word: str) -> str | None:
        """The word itself when indexed, else the closest indexed word (typos), else None.

        Words under 5 letters are not corrected; up to one edit for 5-7 letters, two from 8 letters on; among equally close words,
        those the curated records use win, then the commoner word.
        """
        if word in self.postings:
            return word
        if len(word) < 5 or not word.isalpha():
            return None
        limit = 2 if len(word) >= 8 else 1
        near = self._near_index()
        keys = {word} | _deletes(word)
        if limit == 2:
            keys |= {d2 for d in _deletes(word) for d2 in _deletes(d)}
        cands = {w for k in keys for w in near.get(k, ())}
        best = None
        for w in cands:
            if w not in self.postings:
                continue
            dist = _edit_distance(word, w, limit)
            if dist > limit:
                continue
            key = (dist, -self.record_words[w], -len(self.postings[w]), w)
            if best is None or key < best[0]:
                best = (key, w)
        return best[1] if best else None

    def score(self, query_tokens: dict[str, float] | list[str], query_words: list[str] | None = None
              ) -> dict[int, float]:
        scores: dict[int, float] = defaultdict(float)
        fixed: dict[str, str] = {}
        weights: dict[str, float] = {}  # corrected word -> weight; a word repeated in the query counts once
        if not isinstance(query_tokens, dict):
            query_tokens = dict.fromkeys(query_tokens, 1.0)
        for t, qw in query_tokens.items():
            word = self.correct(t)
            if word is None:
                if t in _ALIASES:  # a user's word no record uses, looked up as the records' word(s)
                    weights[t] = max(weights.get(t, 0.0), qw)
                continue
            fixed[t] = word
            w = qw * (1.0 if word == t else TYPO) * (NOISE if word in _NOISE else 1.0)
            weights[word] = max(weights.get(word, 0.0), w)
        for word, w in weights.items():
            base = self.idf.get(word, 0.0) * w
            aliases = [(a, self.idf[a] * w * ALIAS) for a in _ALIASES.get(word, ()) if a in self.postings and a not in weights]
            if word not in self.postings:
                for term, idf in aliases:
                    for i, tw in self.postings[term]:
                        scores[i] += idf * tw
                continue
            if base < MIN_IDF:
                continue  # in nearly every document ("error"): says nothing, costs a long posting list
            terms = [(word, base)] + aliases
            for term, idf in terms:
                for i, tw in self.postings[term]:
                    scores[i] += idf * tw
            for i in self.head.get(word, ()):
                scores[i] += HEAD * base
        if query_words:
            qpairs = _pairs([fixed.get(w, w) for w in query_words])
            if qpairs:
                for i in list(scores):
                    d = self.docs[i]
                    if d.pairs:
                        hit = qpairs & d.pairs
                        if hit:
                            scores[i] += PHRASE * sum(self.idf.get(a, 0) + self.idf.get(b, 0) for a, b in hit) / 2
        # A record about one library answers a query that names it; others are about JAX itself.
        libraries = {lib for w in (query_words or []) for lib in _LIBRARY_WORDS.get(fixed.get(w, w), ())}
        for i in scores:
            d = self.docs[i]
            scores[i] *= d.prior * (1.0 if not d.library or d.library in libraries else OTHER_LIBRARY)
        return scores


# Words that name a library in a query -> the libraries (import names, as records' ``library``).
_LIBRARY_WORDS = {"flax": ("flax",), "nnx": ("flax",), "linen": ("flax",), "optax": ("optax",),
                  "equinox": ("equinox",), "eqx": ("equinox",), "orbax": ("orbax",), "ocp": ("orbax",),
                  "checkpoint": ("orbax",), "checkpointer": ("orbax",), "chex": ("chex",), "haiku": ("haiku",),
                  "hk": ("haiku",)}
OTHER_LIBRARY = 0.6  # a library's record for a query that names no library (or another one)

_INDEX: Index | None = None


SITE_LEAD = 1.8  # a site scoring this many times the best record's score ranks among the records


def index() -> Index:
    global _INDEX
    if _INDEX is None:
        _INDEX = Index()
    return _INDEX


def _looks_like_error(query: str) -> bool:
    return ("Traceback" in query or "\n" in query.strip()
            or bool(re.match(r"^\s*[A-Za-z_][\w.]*(Error|Exception)\b\s*:", query)) or len(query) > 90)


PREFIX = 0.4  # a record whose message the query quotes from its start: score times 1 + PREFIX (scaled by length)
QUOTE_CANDIDATES = 30  # the best-scored records checked for a quoted message start
_CLASS_PREFIX = re.compile(r"^\s*(?:[A-Za-z_][\w.]*\.)?[A-Za-z_]\w*(?:Error|Exception)\s*:\s*")


API_BONUS = 0.4  # a record whose title names the JAX function the query names: score times 1 + API_BONUS
_API_NAME = re.compile(r"\b(?:jax\.numpy|jax\.lax|jax|jnp|lax|optax|nnx|eqx|flax)(?:\.[A-Za-z_]\w*)+")
_API_SHORT = {"jax.numpy.": "jnp.", "jax.lax.": "lax."}


def _api_names(text: str) -> set[str]:
    """Dotted JAX names in ``text`` (``jnp.unique``, ``jax.numpy.unique`` as ``jnp.unique``)."""
    out = set()
    for m in _API_NAME.finditer(text):
        name = m.group(0)
        for long, short in _API_SHORT.items():
            if name.startswith(long):
                name = short + name[len(long):]
        out.add(name)
    return out


def _api_bonus(query: str, scores: dict[int, float], idx: Index) -> None:
    """Users name the function they called ("... on call to jnp.unique"): a class of error is shared by
    many functions, a function narrows it, so a record whose title names it is the one about it."""
    names = _api_names(query)
    if not names:
        return
    for i in list(scores):
        d = idx.docs[i]
        if d.kind == "record" and names & _api_names(d.title):
            scores[i] *= 1 + API_BONUS


WHOLE = 0.05  # a record one of whose messages has all its words in a short query: score times 1 + WHOLE
WHOLE_MAX_WORDS = 30  # longer queries (pasted tracebacks) hold every word of many messages
WHOLE_MIN_WORDS = 3  # a message of fewer words says too little to tell records apart


def _whole_message_bonus(query: str, scores: dict[int, float], idx: Index) -> None:
    """Of two records whose messages start alike ("Incompatible shapes for broadcasting: shapes=..." and
    "... : {x} and requested shape {y}"), the one whose every message word the user wrote fits better
    than the one that needs words the user did not write (a tie-break: WHOLE is small)."""
    from jaxerrs.kb.records import find

    q = set(words(query))
    if not q or len(q) > WHOLE_MAX_WORDS:
        return
    for i in list(scores):
        d = idx.docs[i]
        if d.kind != "record":
            continue
        if d.id not in idx.message_words:
            rec = find(d.id)
            idx.message_words[d.id] = [ws for p in (rec.all_patterns if rec else [])
                                       if len(ws := frozenset(words(_HOLE.sub(" ", p)))) >= WHOLE_MIN_WORDS]
        if any(ws <= q for ws in idx.message_words[d.id]):
            scores[i] *= 1 + WHOLE


def _quoted_message_bonus(query: str, scores: dict[int, float], idx: Index) -> None:
    """Users quote the start of a message in a title ("Unknown backend gpu", "Incompatible shapes for
    broadcasting error"): a record whose pattern, or a raise site whose template, starts with that much of
    the quote, holes filled in, is the one about it."""
    from jaxerrs.kb.records import find

    text = _CLASS_PREFIX.sub("", query.strip().splitlines()[0] if query.strip() else "").lower()
    if len(text) < 12:
        return
    best = max(scores.values(), default=0.0)
    for kind in ("record", "site"):
        docs = [i for i in scores if idx.docs[i].kind == kind and scores[i] >= 0.15 * best]
        for i in sorted(docs, key=lambda i: -scores[i])[:QUOTE_CANDIDATES]:
            d = idx.docs[i]
            rec = find(d.id) if kind == "record" else None
            patterns = rec.all_patterns if rec is not None else [d.template] if d.template else []
            n = max((_quoted_start(p.lower(), text) for p in patterns), default=0)
            if n >= 12:
                scores[i] *= 1 + PREFIX * min(1.0, n / 40)


def _quoted_start(pattern: str, text: str) -> int:
    """Characters of ``pattern``'s words that ``text`` spells from its start: all of them when the text is a
    start of the pattern (holes filled), else half of the words the two share before they part."""
    from jaxerrs.matcher import _prefix_literal

    n = _prefix_literal(pattern, text)
    if n:
        return n
    head = pattern.split("{", 1)[0]
    k = 0
    while k < min(len(head), len(text)) and head[k] == text[k]:
        k += 1
    if 0 < k < len(head) and k < len(text) and head[k - 1].isalnum() and (head[k].isalnum() or text[k].isalnum()):
        k = max(0, head.rfind(" ", 0, k))  # parted inside a word: back to the last whole word
    return k // 2  # shared words, not the message's structure: worth less


def search(query: str, limit: int = 10, tags: list[str] | None = None, error_class: str | None = None) -> list[Hit]:
    """Best first. An empty or absurd query gives [].

    Scores are tiers plus relevance, so they fall as the list goes on: the record the matcher names for a
    pasted message or traceback (3-4), the raise site it names (2-3; when it names no record, right after
    the best curated record instead), other curated records (1-2), other raise sites (0-1). Within a tier,
    BM25 relative to the best hit. A raise site that matches ``SITE_LEAD`` times better than any record (a
    message of JAX or of an installed library that no record covers) joins the records' tier.
    """
    query = (query or "").strip()[:20000]
    if not query or limit < 1:
        return []
    idx = index()
    wanted_tags = {t.lower() for t in tags or []}
    cls = (error_class or "").lower().rsplit(".", 1)[-1]

    def allowed(tags_: frozenset[str] | set[str], klass: str) -> bool:
        if wanted_tags and not wanted_tags <= {t.lower() for t in tags_}:
            return False
        return not cls or klass.lower().rsplit(".", 1)[-1] == cls

    hits: list[Hit] = []
    seen: set[str] = set()
    site_from_frames = False
    if _looks_like_error(query):
        from jaxerrs.matcher import diagnose_from_text

        d = diagnose_from_text(query)
        # The matcher's best guess by words is this index's own ranking: it gets no tier of its own.
        matched = d.is_jax and d.how != "search"
        if matched and d.record is not None and allowed(set(d.record.tags), d.record.class_name):
            hits.append(Hit(d.record.id, d.record.title, "record", 3.0 + d.confidence))
            seen.add(d.record.id)
        if matched and d.site is not None and allowed(set(), d.error_class or ""):
            site_from_frames = d.how.startswith("raise site") and bool(d.evidence.frames)
            key = f"{d.site.path}:{d.site.line}"
            hits.append(Hit(key, f"{d.error_class}: raise site in {d.site.function}", "site", 2.0 + d.confidence))
            seen.add(key)
    q_tokens, q_words = query_terms(query), words(query)[:MAX_QUERY_TOKENS]
    if not hits and not _looks_like_error(query):
        distinct = set(q_words)
        known = sum(1.0 if w in idx.postings else 0.5 if idx.correct(w) else 0.0 for w in distinct)
        if not distinct or known < MIN_KNOWN * len(distinct):
            return []
    scores = idx.score(q_tokens, q_words)
    if PREFIX:
        _quoted_message_bonus(query, scores, idx)
    _api_bonus(query, scores, idx)
    _whole_message_bonus(query, scores, idx)
    top = max(scores.values(), default=0.0)
    ranked = sorted(((i, s) for i, s in scores.items() if s >= 0.15 * top), key=lambda kv: -kv[1])
    records: list[Hit] = []
    sites: list[Hit] = []
    best_record = max((s for i, s in ranked if idx.docs[i].kind == "record"), default=0.0)
    for i, s in ranked:
        d = idx.docs[i]
        if d.id in seen:
            continue
        if not allowed(d.tags, d.error_class):
            continue
        if d.kind == "record":
            if len(records) < limit:
                records.append(Hit(d.id, d.title, "record", 1.0 + s / top))
        elif len(sites) < limit:
            # A raise site that matches far better than any record (a library's message no record covers)
            # joins the records' tier.
            lead = s >= SITE_LEAD * best_record
            sites.append(Hit(d.id, d.title, "site", (1.0 if lead else 0.0) + s / top))
        if len(records) >= limit and len(sites) >= limit:
            break
    if records and hits and all(h.kind == "site" for h in hits):
        # The matcher named a raise site but no record: the best curated record explains more than a bare
        # site, so the site comes right after it; a site read from the message alone (no JAX frame) is
        # less sure, and comes after the first three.
        k = 1 if site_from_frames else min(3, len(records))
        after = records[k].score if len(records) > k else 1.0
        hits = [Hit(h.id, h.title, h.kind, (records[k - 1].score + after) / 2) for h in hits]
    hits += records + sites
    hits.sort(key=lambda h: -h.score)
    return hits[:limit]


def rank_records(message: str, error_class: str | None = None, limit: int = 3) -> list[tuple[str, float]]:
    """Curated records by how well their text fits an error message alone (BM25; the best is 1.0), of
    ``error_class`` when given: the matcher's candidates when no record's pattern matches the message."""
    message = (message or "").strip()[:4000]
    if not message:
        return []
    idx = index()
    scores = idx.score(query_terms(message), words(message)[:MAX_QUERY_TOKENS])
    if PREFIX:
        _quoted_message_bonus(message, scores, idx)
    _api_bonus(message, scores, idx)
    cls = (error_class or "").lower()
    ranked = sorted(((s, idx.docs[i]) for i, s in scores.items() if idx.docs[i].kind == "record"
                     and (not cls or idx.docs[i].error_class.lower().rsplit(".", 1)[-1] == cls)),
                    key=lambda t: -t[0])
    top = ranked[0][0] if ranked else 0.0
    return [(d.id, s / top) for s, d in ranked[:limit]] if top > 0 else []


def title_html(hit: Hit) -> str:
    """A hit's title as the panel shows it: a record's title is prose (CommonMark, escaped), a raise
    site's is message text (escaped as is)."""
    from jaxerrs.prose import html_inline

    return html_inline(hit.title) if hit.kind == "record" else html.escape(hit.title)


def title_text(hit: Hit) -> str:
    """A hit's title as the text panel shows it (code spans keep their backticks, emphasis markers go)."""
    from jaxerrs.prose import text_inline

    return text_inline(hit.title) if hit.kind == "record" else hit.title


class SearchResults:
    """Results as text (terminal) or as a widget whose entries open the full panel."""

    def __init__(self, query: str, hits: list[Hit]) -> None:
        self.query, self.hits = query, hits

    def text(self) -> str:
        if not self.hits:
            return f"jaxerrs: nothing found for {self.query!r}. Try other words, a class name or the error message."
        return "\n".join(f"{h.score:7.2f}  {h.kind:<6}  {h.id}  {title_text(h)}" for h in self.hits)

    def html(self) -> str:
        if not self.hits:
            body = f"<p>Nothing found for <code>{html.escape(self.query)}</code>.</p>"
        else:
            body = "<ol>" + "".join(
                f"<li><code>{html.escape(h.id)}</code> {title_html(h)} <small>({h.kind})</small></li>"
                for h in self.hits) + "</ol>"
        return f'<div class="jaxerrs-search"><b>jaxerrs search:</b> {html.escape(self.query)}{body}</div>'

    def widget(self) -> Any:
        import ipywidgets as widgets

        out = widgets.Output()
        rows: list[widgets.Widget] = [widgets.HTML(f"<b>jaxerrs search:</b> {html.escape(self.query)}")]
        if not self.hits:
            rows.append(widgets.HTML(f"Nothing found for <code>{html.escape(self.query)}</code>."))
        for h in self.hits:
            b = widgets.Button(description=h.id[:60], tooltip=title_text(h), layout=widgets.Layout(width="auto"))
            b.on_click(lambda _b, h=h: self._open(h, out))
            rows.append(widgets.HBox([b, widgets.HTML(f"{title_html(h)} <small>({h.kind})</small>")]))
        rows.append(out)
        from jaxerrs.search_box import SearchBox

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
