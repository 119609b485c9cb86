"""Every JAX release we claim: kb check, the gallery notebook and the handler, each release in its own venv.

The venvs are built by ``jax_matrix.py`` (kept in the clone's cache folder and reused); the matrix starts in
the background when these tests are collected (conftest) and overlaps the rest of the suite. The test
environment's own JAX (the newest release) is checked by test_kb and test_notebooks, and the smoke test here.
The table of pass counts is printed at the end of the run.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import jax_matrix
from jaxerrs.kb.records import all_records, installed_jax
from jaxerrs.matcher import diagnose_from_text


@pytest.fixture(scope="module")
def matrix(request):
    futures = getattr(request.config, "jax_matrix", None)
    if futures is None:  # collected without the conftest hook (e.g. --collect-only then run): start now
        futures = jax_matrix.start(capture=jax_matrix.cache_root() / "captured")
        request.config.jax_matrix = futures
    return futures


@pytest.fixture(scope="module")
def outcome(matrix, request):
    cache: dict[str, jax_matrix.Outcome] = {}

    def get(version: str) -> jax_matrix.Outcome:
        if version not in cache:
            o = matrix[version].result(timeout=1800)
            jax_matrix.REPORT[version] = o
            cache[version] = o
        return cache[version]

    return get


@pytest.mark.parametrize("version", jax_matrix.MATRIX)
def test_kb_check_on_release(outcome, version):
    """No record fails kb check on the release, except those listed as known (tests/data/matrix_known_failures.json)."""
    o = outcome(version)
    assert not o.error, o.error
    assert o.kb["pass"] > 0
    known = set(jax_matrix.known_failures().get(version, {}).get("kb", []))
    new = {rid: why for rid, why in o.kb_failures.items() if rid not in known}
    assert not new, "\n".join(f"{rid}: {'; '.join(why)[:400]}" for rid, why in new.items())
    assert len(known) <= 25, f"{len(known)} records known to fail on JAX {version}"


@pytest.mark.parametrize("version", jax_matrix.MATRIX)
def test_gallery_on_release(outcome, version):
    o = outcome(version)
    assert not o.error, o.error
    assert o.gallery[1] >= 20
    known = set(jax_matrix.known_failures().get(version, {}).get("gallery", []))
    new = [m for m in o.gallery_misses if jax_matrix.gallery_record(m) not in known]
    assert not new, "\n".join(new)


@pytest.mark.parametrize("version", jax_matrix.MATRIX)
def test_handler_smoke_on_release(outcome, version):
    o = outcome(version)
    assert not o.error, o.error
    assert not o.smoke, "\n".join(o.smoke)


@pytest.mark.parametrize("version", jax_matrix.MATRIX)
def test_fresh_tracebacks_of_release_are_diagnosed_here(outcome, version):
    """Each reproducer's traceback as that release printed it, read back by the installed JAX."""
    o = outcome(version)
    assert not o.error, o.error
    folder = jax_matrix.cache_root() / "captured" / version
    _diagnose_folder(folder, version)


def test_handler_smoke_on_installed_jax():
    """The smoke test of the matrix venvs, in the test environment itself (the newest release)."""
    worker = Path(__file__).parent / "jax_matrix_worker.py"
    code = (f"import sys, json; sys.path[:0] = [{str(worker.parent)!r}]\n"
            "import jax_matrix_worker as w; print(json.dumps(w.smoke()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    failures = __import__("json").loads(out.stdout.strip().splitlines()[-1])
    jax_matrix.report_smoke(installed_jax(), failures)
    assert not failures, failures


def _diagnose_folder(folder: Path, version: str) -> None:
    texts = sorted(folder.glob("*.txt"))
    assert len(texts) >= 50, f"only {len(texts)} tracebacks captured for JAX {version} in {folder}"
    records = all_records()
    wrong = []
    for path in texts:
        rid = path.stem
        if rid not in records:
            continue
        d = diagnose_from_text(path.read_text(encoding="utf-8"))
        if d.record is None or d.record.id != rid:
            wrong.append(f"{rid}: got {d.record.id if d.record else None}")
    share = 1 - len(wrong) / len(texts)
    assert share >= 0.95, f"{len(wrong)} of {len(texts)} tracebacks of JAX {version} misread: {wrong[:20]}"


@pytest.mark.parametrize("version", sorted(p.name for p in jax_matrix.CAPTURED.iterdir()) if jax_matrix.CAPTURED.is_dir()
                         else [])
def test_kept_tracebacks_of_release_are_diagnosed_here(version):
    """Tracebacks captured by an earlier matrix run (tests/data/releases/VERSION/ID.txt), kept as test data."""
    _diagnose_folder(jax_matrix.CAPTURED / version, version)


def test_the_floor_is_what_the_matrix_proves():
    """pyproject's JAX floor, README's supported releases and the records' ranges start at the matrix's oldest."""
    import re
    import tomllib

    root = Path(__file__).resolve().parents[1]
    deps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["dependencies"]
    floor = next(re.match(r"jax>=([\d.]+)$", d).group(1) for d in deps if d.startswith("jax>="))
    assert floor == jax_matrix.MATRIX[0]
    readme = (root / "README.md").read_text()
    supported = readme[readme.index("## Supported JAX releases"):]
    assert f"JAX {floor}" in supported.split("\n## ")[0]
    below = [r.id for r in all_records().values()
             if (m := re.search(r">=\s*([\d.]+)", r.jax_versions)) and jax_matrix.version_key(m.group(1))
             < jax_matrix.version_key(floor)]
    assert not below, f"records claiming releases below JAX {floor}: {below}"
