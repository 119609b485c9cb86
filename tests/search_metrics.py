"""Relevance measures for `jaxerrs.search` over a relevance set: MRR, top-1 and each query's rank.

A relevance set is a list of tuples whose first two fields are the query and the expected record id
(tests/search_relevance.py adds a kind, tests/search_relevance_users.py a citation). Shared by
tests/test_search.py and benchmarks/bench_search.py:

    python tests/search_metrics.py   # both sets, users' set per split, misses (not of the held-out half)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

LIMIT = 10  # a record found below this rank counts as not found (reciprocal rank 0)


@dataclass(frozen=True)
class Result:
    query: str
    expected: str
    rank: int | None  # 1-based; None when not in the first LIMIT hits
    extra: tuple[Any, ...] = ()

    @property
    def rr(self) -> float:
        return 1.0 / self.rank if self.rank else 0.0


@dataclass(frozen=True)
class Report:
    results: tuple[Result, ...]

    @property
    def n(self) -> int:
        return len(self.results)

    @property
    def mrr(self) -> float:
        return sum(r.rr for r in self.results) / max(1, self.n)

    @property
    def top1(self) -> float:
        return sum(r.rank == 1 for r in self.results) / max(1, self.n)

    @property
    def misses(self) -> list[Result]:
        return [r for r in self.results if r.rank != 1]

    def line(self, name: str) -> str:
        return f"{name}: n={self.n}, MRR {self.mrr:.3f}, top-1 {self.top1:.3f}"


def rank_of(query: str, expected: str, search: Callable[..., Any] | None = None,
            limit: int = LIMIT) -> int | None:
    if search is None:
        from jaxerrs.search_index import search
    ids = [h.id for h in search(query, limit=limit)]
    return ids.index(expected) + 1 if expected in ids else None


def measure(cases: Sequence[tuple[Any, ...]], search: Callable[..., Any] | None = None,
            limit: int = LIMIT) -> Report:
    """Rank every (query, expected, ...) case with `search` (default `jaxerrs.search_index.search`)."""
    return Report(tuple(Result(q, e, rank_of(q, e, search, limit), tuple(rest)) for q, e, *rest in cases))


def main() -> None:
    import search_relevance
    import search_relevance_users as users

    sets = [("records' words", measure(search_relevance.CASES)), ("users' words", measure(users.CASES)),
            ("users' words, tune (even)", measure(users.TUNE)),
            ("users' words, held out (odd)", measure(users.HELD_OUT))]
    for name, rep in sets:
        print(rep.line(name))
    for name, rep in (sets[0], sets[2]):  # the held-out half's misses stay unseen while tuning
        for r in rep.misses:
            print(f"  miss [{name}] {r.query[:70]!r} -> {r.expected} at rank {r.rank}")


if __name__ == "__main__":
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
