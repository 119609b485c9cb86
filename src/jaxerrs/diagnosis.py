"""Diagnosis: the matcher's answer, as plain data. Views render it; ``to_dict`` is the JSON contract."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jaxerrs.catalog import Site
from jaxerrs.evidence import Evidence
from jaxerrs.kb.records import Record

REPO = "https://github.com/jax-ml/jax"
# Ecosystem libraries: (repository, folder of the package inside it).
LIBRARY_REPOS = {
    "flax": ("https://github.com/google/flax", ""),
    "optax": ("https://github.com/google-deepmind/optax", ""),
    "equinox": ("https://github.com/patrick-kidger/equinox", ""),
    "chex": ("https://github.com/google-deepmind/chex", ""),
    "orbax": ("https://github.com/google/orbax", "checkpoint/"),
}
# How people call each package in prose.
PACKAGE_NAMES = {"jax": "JAX", "jaxlib": "JAX", "flax": "Flax", "optax": "Optax", "equinox": "Equinox",
                 "chex": "Chex", "orbax": "Orbax"}


def raised_by(d: Diagnosis) -> str:
    """Who raised it, for prose: the library whose source holds the site (or, with no site, the library the error
    came through), else JAX."""
    top = d.site.path.split("/", 1)[0] if d.site is not None else (d.ecosystem or "jax")
    return PACKAGE_NAMES.get(top, "JAX")


def _installed_version(package: str) -> str:
    """The installed version of an ecosystem library ("" when it is not installed): a record's site names no version."""
    from jaxerrs.matcher import _library_version

    version = _library_version(package)
    return "" if version == "unknown" else version


@dataclass(frozen=True)
class SiteRef:
    """A raise site in the installed JAX (or, from text, as the text names it)."""

    path: str
    line: int
    function: str
    jax_version: str
    exc_class: str = ""
    template: str | None = None
    library_version: str = ""  # for a raise inside an ecosystem library (flax, optax, …): that library's version

    @property
    def release(self) -> str:
        """Where the raise lives, for people: "JAX 0.10.2", or "flax 0.12.8" for a library's raise."""
        if self.library_version:
            return f"{self.path.split('/', 1)[0]} {self.library_version}"
        return f"JAX {self.jax_version}"

    @property
    def url(self) -> str:
        top = self.path.split("/", 1)[0]
        version = self.library_version or (_installed_version(top) if top in LIBRARY_REPOS else "")
        if top in LIBRARY_REPOS and version:  # an ecosystem library's raise, at its release tag
            repo, prefix = LIBRARY_REPOS[top]
            return f"{repo}/blob/v{version}/{prefix}{self.path}#L{self.line}"
        if self.path.startswith("jax/"):
            return f"{REPO}/blob/jax-v{self.jax_version}/{self.path}#L{self.line}"
        return f"{REPO}/tree/jax-v{self.jax_version}/jaxlib"

    @classmethod
    def of(cls, site: Site, version: str) -> SiteRef:
        return cls(site.path, site.line, site.function, version, site.exc_class, site.template)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "function": self.function,
                "jax_version": self.jax_version, "url": self.url}


@dataclass(frozen=True)
class Candidate:
    record: Record | None
    site: SiteRef | None
    score: float
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"record": self.record.id if self.record else None,
                "site": self.site.to_dict() if self.site else None,
                "score": round(self.score, 4)}


@dataclass
class Diagnosis:
    evidence: Evidence
    is_jax: bool
    site: SiteRef | None = None
    record: Record | None = None
    confidence: float = 0.0
    candidates: list[Candidate] = field(default_factory=list)
    how: str = ""  # how the record/site was matched, in words
    values: dict[str, str] = field(default_factory=dict)  # what the message's template holes hold
    excerpt: str = ""  # source lines around the raise site
    ecosystem: str | None = None  # the JAX library (flax, optax, …) that raised or sits between user and JAX
    notes: list[str] = field(default_factory=list)  # e.g. what the installed JAX does for another release's error
    features: dict[str, float] = field(default_factory=dict, repr=False)  # what the confidence weighed
    _rewrite: Any = field(default=None, repr=False)
    _rewrite_done: bool = field(default=False, repr=False)
    cell_source: str | None = field(default=None, repr=False)  # the failing cell, when known from outside
    _check: dict[str, Any] | None = field(default=None, repr=False)
    _api: dict[str, Any] | None = field(default=None, repr=False)
    _api_doc: str = field(default="", repr=False)
    _why_done: bool = field(default=False, repr=False)

    @property
    def rewrite(self) -> Any:
        """The user's cell, fixed (``jaxerrs.rewrite.Rewrite``), or None. Computed once, on first use."""
        if not self._rewrite_done:
            self._rewrite_done = True
            try:
                from jaxerrs.rewrite import rewrite_for

                self._rewrite = rewrite_for(self, self.cell_source) if self.is_jax else None
            except Exception:  # noqa: BLE001 - no rewrite is better than a broken panel
                self._rewrite = None
        return self._rewrite

    @property
    def check(self) -> dict[str, Any] | None:
        """Why it was raised: the contract's ``check`` object (``jaxerrs.why``), computed once, on first use."""
        if not self._why_done:
            self._compute_why()
        return self._check

    @property
    def api(self) -> dict[str, Any] | None:
        """The public function called: the contract's ``api`` object, computed once, on first use."""
        if not self._why_done:
            self._compute_why()
        return self._api

    @property
    def api_param_doc(self) -> str:
        """The called function's docstring entry for a parameter the check reads, or ""."""
        if not self._why_done:
            self._compute_why()
        return self._api_doc

    def _compute_why(self) -> None:
        self._why_done = True
        if not self.is_jax:
            return
        try:
            from jaxerrs import why

            self._check, self._api, self._api_doc = why.explain(self)
        except Exception:  # noqa: BLE001 - a panel without this section is better than no panel
            self._check = self._api = None

    @property
    def error_class(self) -> str:
        return self.evidence.exc_class

    @property
    def message(self) -> str:
        return self.evidence.message

    def to_dict(self) -> dict[str, Any]:
        ev = self.evidence
        return {
            "is_jax": self.is_jax,
            "error": {"class": ev.exc_class, "module": ev.module, "message": ev.message},
            "site": self.site.to_dict() if self.site else None,
            "record": {"id": self.record.id, "title": self.record.title} if self.record else None,
            "confidence": round(max(0.0, min(1.0, self.confidence)), 4),
            "candidates": [c.to_dict() for c in self.candidates],
            "user_frame": user_frame_dict(ev),
            "ecosystem": self.ecosystem,
            "rewrite": self.rewrite.to_dict() if self.rewrite is not None else None,
            "check": self.check,
            "api": self.api,
        }


def user_frame_dict(ev: Evidence) -> dict[str, Any] | None:
    """The user's innermost frame as the JSON contract has it; ``file`` as the traceback shows it."""
    f = ev.user_frame
    if f is None:
        return None
    from jaxerrs.views import frame_code, frame_label

    # Pasted text shows the file as it was printed (``<ipython-input-5-…>`` from older IPython); a live frame
    # as this IPython prints it (``Cell In[5]``).
    file = f.filename if ev.source == "text" else frame_label(f, with_line=False)
    return {"file": file, "line": f.lineno, "function": f.function, "code": frame_code(f)}
