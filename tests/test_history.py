"""The raise-site history of JAX releases 0.2.0 .. 0.10.2 (the shipped data file; no git needed).

Every fact below was read from JAX's tagged sources (``git show jax-vX.Y.Z:path``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxerrs import history

RELEASES = [
    "0.2.0", "0.2.1", "0.2.2", "0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.2.7", "0.2.8", "0.2.9",
    "0.2.10", "0.2.11", "0.2.12", "0.2.13", "0.2.14", "0.2.15", "0.2.16", "0.2.17", "0.2.18", "0.2.19",
    "0.2.20", "0.2.21", "0.2.22", "0.2.23", "0.2.24", "0.2.25", "0.2.26", "0.2.27", "0.2.28",
    "0.3.0", "0.3.1", "0.3.2", "0.3.3", "0.3.4", "0.3.5", "0.3.6", "0.3.7", "0.3.8", "0.3.9",
    "0.3.10", "0.3.11", "0.3.12", "0.3.13", "0.3.14", "0.3.15", "0.3.16", "0.3.17", "0.3.18", "0.3.19",
    "0.3.20", "0.3.21", "0.3.22", "0.3.23", "0.3.24", "0.3.25",
    "0.4.0", "0.4.1", "0.4.2", "0.4.3", "0.4.4", "0.4.5", "0.4.6", "0.4.7", "0.4.8", "0.4.9",
    "0.4.10", "0.4.11", "0.4.12", "0.4.13", "0.4.14", "0.4.15", "0.4.16", "0.4.17", "0.4.18", "0.4.19",
    "0.4.20", "0.4.21", "0.4.22", "0.4.23", "0.4.24", "0.4.25", "0.4.26", "0.4.27", "0.4.28", "0.4.29",
    "0.4.30", "0.4.31", "0.4.32", "0.4.33", "0.4.34", "0.4.35", "0.4.36", "0.4.37", "0.4.38",
    "0.5.0", "0.5.1", "0.5.2", "0.5.3",
    "0.6.0", "0.6.1", "0.6.2",
    "0.7.0", "0.7.1", "0.7.2",
    "0.8.0", "0.8.1", "0.8.2", "0.8.3",
    "0.9.0", "0.9.0.1", "0.9.1", "0.9.2",
    "0.10.0", "0.10.1", "0.10.2",
]  # fmt: skip


@pytest.fixture(scope="module")
def h() -> history.History:
    return history.load()


def test_covers_every_release(h: history.History) -> None:
    assert h.releases() == RELEASES
    assert history.releases() == RELEASES
    assert history.data_path().stat().st_size < 2_000_000
    assert not h.data["skipped"]  # every file of every release parsed


def test_load_is_cached() -> None:
    assert history.load() is history.load()


def _lines(h: history.History, text: str, path: str) -> dict[str, int]:
    """{release: line} of the raises of ``text`` in ``path``."""
    out = {}
    for hit in h.sites_for(text):
        if hit.path == path:
            first, last = h.release_index(hit.releases[0]), h.release_index(hit.releases[1])
            for r in RELEASES[first : last + 1]:
                out[r] = hit.line
    return out


def test_moved_file_prng(h: history.History) -> None:
    # jax/_src/prng.py:312 in 0.10.1; jax/_src/random/prng.py:311 in 0.10.2.
    text = "key array cannot be converted to boolean."
    old, new = _lines(h, text, "jax/_src/prng.py"), _lines(h, text, "jax/_src/random/prng.py")
    assert old["0.10.1"] == 312 and "0.10.2" not in old
    assert new == {"0.10.2": 311}
    assert h.where("jax/_src/prng.py", "PRNGKeyArray.__bool__", "0.10.1") == 312
    assert h.where("jax/_src/prng.py", "PRNGKeyArray.__bool__", "0.10.2") is None
    f = h.fate("jax/_src/prng.py", "PRNGKeyArray.__bool__", text, "0.10.2")
    assert f["status"] == "moved" and f["changed_in"] == "0.10.2"
    assert f["now"] == {"path": "jax/_src/random/prng.py", "function": "PRNGKeyArray.__bool__", "line": 311,
                        "template": text, "class": "TypeError"}
    assert h.fate("jax/_src/prng.py", "PRNGKeyArray.__bool__", text, "0.10.1")["status"] == "same"


def test_moved_file_random(h: history.History) -> None:
    # jax/_src/random.py:313 (0.10.1) -> jax/_src/random/core.py:314 (0.10.2), a message over two lines.
    message = "split accepts a single key, but was given a key array of shape (2, 2) != (). Use jax.vmap for batching."
    hits = h.sites_for(message, cls="TypeError")
    assert {x.path for x in hits} == {"jax/_src/random.py", "jax/_src/random/core.py"}
    assert h.where("jax/_src/random.py", "_split", "0.10.1", message) == 313
    assert h.where("jax/_src/random/core.py", "_split", "0.10.2", message) == 314
    f = h.fate("jax/_src/random.py", "_split", message, "0.10.2")
    assert f["status"] == "moved" and f["now"]["path"] == "jax/_src/random/core.py" and f["now"]["line"] == 314


def test_moved_out_of_lax_numpy(h: history.History) -> None:
    # lax_numpy.py:11507 in 0.5.0; numpy/indexing.py:168 in 0.5.1.
    text = "Cannot do a non-empty jnp.take() from an empty axis."
    assert h.where("jax/_src/numpy/lax_numpy.py", "_take", "0.5.0", text) == 11507
    assert h.where("jax/_src/numpy/indexing.py", "_take", "0.5.1", text) == 168
    f = h.fate("jax/_src/numpy/lax_numpy.py", "_take", text, "0.10.2")
    assert f["status"] == "moved" and f["changed_in"] == "0.5.1"
    assert (f["now"]["path"], f["now"]["function"]) == ("jax/_src/numpy/indexing.py", "_take")


def test_moved_then_reworded(h: history.History) -> None:
    # matmul: lax_numpy.py:9176 (0.5.0) -> tensor_contractions.py:234 (0.5.1), then in 0.10.2 line 258
    # says "Incompatible types" instead of "Incompatible shapes".
    old = "Incompatible shapes for matmul arguments: {shape} and {shape}"
    assert h.where("jax/_src/numpy/lax_numpy.py", "matmul", "0.5.0", old) == 9176
    assert h.where("jax/_src/numpy/tensor_contractions.py", "matmul", "0.5.1", old) == 234
    f = h.fate("jax/_src/numpy/lax_numpy.py", "matmul", old, "0.10.2")
    assert f["status"] == "reworded" and f["changed_in"] == "0.5.1"
    assert f["now"]["path"] == "jax/_src/numpy/tensor_contractions.py" and f["now"]["line"] == 258
    assert f["now"]["template"].startswith("Incompatible types for matmul arguments")
    assert [step["release"] for step in f["via"]] == ["0.5.1", "0.10.2"]
    # As of 0.10.1 it had only moved.
    assert h.fate("jax/_src/numpy/lax_numpy.py", "matmul", old, "0.10.1")["status"] == "moved"


def test_reworded_setitem(h: history.History) -> None:
    # array_methods.py _unimplemented_setitem: "'{}' object does not support item assignment." up to
    # 0.4.34; from 0.4.35 "JAX arrays are immutable and do not support in-place item assignment."
    old = "'ArrayImpl' object does not support item assignment. JAX arrays are immutable."
    hits = h.sites_for(old, cls="TypeError")
    assert hits and all(x.function == "_unimplemented_setitem" for x in hits)
    assert max(h.release_index(x.releases[1]) for x in hits) == RELEASES.index("0.4.34")
    f = h.fate("jax/_src/numpy/array_methods.py", "_unimplemented_setitem", old, "0.10.2")
    assert f["status"] == "reworded" and f["changed_in"] == "0.4.35"
    assert f["now"]["template"].startswith("JAX arrays are immutable and do not support in-place item assignment")


def test_removed(h: history.History) -> None:
    # jax.xla_computation (api.py) went in 0.4.34; jnp.reshape's newshape error went in 0.6.0.
    f = h.fate("jax/_src/api.py", "xla_computation", "in_parts has been deprecated.", "0.10.2")
    assert f == {"status": "removed", "now": None, "removed_in": "0.4.34", "changed_in": "0.4.34",
                 "as_of": "0.10.2"}
    text = "The newshape argument to jnp.reshape was removed in JAX v0.4.36. Use shape instead."
    assert h.where("jax/_src/numpy/lax_numpy.py", "reshape", "0.5.3", text) == 2026
    f = h.fate("jax/_src/numpy/lax_numpy.py", "reshape", text, "0.10.2")
    assert f["status"] == "removed" and f["removed_in"] == "0.6.0" and f["now"] is None
    assert h.fate("jax/_src/numpy/lax_numpy.py", "reshape", text, "0.5.3")["status"] == "same"


def test_unknown_is_never_invented(h: history.History) -> None:
    f = h.fate("jax/_src/core.py", "no_such_function", "This message was never in JAX at all.", "0.10.2")
    assert f["status"] == "unknown" and f["now"] is None
    assert h.sites_for("This message was never in JAX at all, not in any release.") == []
    assert h.where("jax/_src/core.py", "no_such_function", "0.10.2") is None


def test_same_site_other_line(h: history.History) -> None:
    # Tracer conversion errors are raised from core.py in every release, at a line that moves.
    fn = "concretization_function_error.<locals>.error"
    # Its first raise is `raise TracerBoolConversionError(arg)`: 1517 in 0.4.30, 1661 in 0.6.2, 1961 in 0.10.2.
    lines = {r: h.where("jax/_src/core.py", fn, r) for r in RELEASES}
    assert lines["0.4.30"] == 1517 and lines["0.6.2"] == 1661 and lines["0.10.2"] == 1961
    # core.py lay at jax/core.py up to 0.4.1 (``git show jax-v0.4.1:jax/_src/core.py`` fails); from 0.4.2 on, here.
    assert all(line for r, line in lines.items() if history.version_key(r) >= (0, 4, 2))
    assert not any(line for r, line in lines.items() if history.version_key(r) < (0, 4, 2))
    hit = h.site_at("jax/_src/core.py", 1523, "0.4.30")  # `raise ConcretizationTypeError(arg, fname_context)`
    assert hit is not None and hit.function == fn and hit.line == 1523
    assert h.site_at("jax/_src/core.py", 1524, "0.4.30") is None
    assert h.function_span("jax/_src/core.py", "Tracer.__bool__", "0.4.35") is not None


def _traceback(*frames: tuple[str, int, str, str], message: str) -> str:
    lines = ["Traceback (most recent call last):", '  File "/home/me/train.py", line 12, in <module>',
             "    step(x)"]
    for path, line, func, code in frames:
        lines += [f'  File "/usr/lib/python3.11/site-packages/{path}", line {line}, in {func}', f"    {code}"]
    return "\n".join(lines + [message])


CONCRETE = ("jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape "
            "bool[].\nThe error occurred while tracing the function f at /home/me/train.py:3 for jit.")


@pytest.mark.parametrize("release, bool_line, raise_line", [
    ("0.4.30", 754, 1517),
    ("0.4.35", 788, 1554),
    ("0.6.2", 883, 1661),
    ("0.10.1", 1013, 1888),
    ("0.10.2", 1085, 1961),
])  # fmt: skip
def test_release_from_frames(h: history.History, release: str, bool_line: int, raise_line: int) -> None:
    text = _traceback(("jax/_src/core.py", bool_line, "__bool__", "return self.aval._bool(self)"),
                      ("jax/_src/core.py", raise_line, "error", "raise TracerBoolConversionError(arg)"),
                      message=CONCRETE)
    assert h.releases_from_text(text) == [release]
    assert history.release_from_text(text) == release


def test_release_from_ipython_frames(h: history.History) -> None:
    # IPython's format: "File /path/jax/_src/core.py:1967, in concretization_function_error.<locals>.error(arg)".
    text = ("File /opt/conda/lib/python3.11/site-packages/jax/_src/core.py:1085, in Tracer.__bool__(self)\n"
            "File /opt/conda/lib/python3.11/site-packages/jax/_src/core.py:1961, in "
            "concretization_function_error.<locals>.error(arg)\n" + CONCRETE)
    assert h.releases_from_text(text) == ["0.10.2"]
    assert h.release_from_text(text) == "0.10.2"


def test_release_from_module_names(h: history.History) -> None:
    old = "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: something went wrong"
    new = "jaxlib._jax.XlaRuntimeError: INVALID_ARGUMENT: something went wrong"
    # jax/_src/lib/__init__.py names xla_extension from 0.2.21 (where jax/_src/lib began) to 0.6.1.
    assert h.release_from_text(old) == "0.2.21..0.6.1"
    assert h.release_from_text(new) == "0.6.1..0.10.2"


def test_release_from_wording(h: history.History) -> None:
    # The setitem message was reworded in 0.4.35; the old wording, first raised in 0.2.20, says "up to 0.4.34".
    old = ("TypeError: 'ArrayImpl' object does not support item assignment. JAX arrays are immutable. "
           "Instead of ``x[idx] = y``, use ``x = x.at[idx].set(y)``")
    assert h.release_from_text(old) == "0.2.20..0.4.34"


@pytest.mark.parametrize("said, expected", [
    ("with JAX v0.2.9 I get", "0.2.9"),
    ("pip install jax==0.4.30", "0.4.30"),
    ("it worked on jax 0.4.20 and fails on jax 0.4.21:", "0.4.20,0.4.21"),
])
def test_release_stated_in_prose(h: history.History, said: str, expected: str) -> None:
    # Every release a post states beside JAX's name narrows the releases; a message no release words stays so.
    assert h.release_from_text(f"{said}\nValueError: something unrelated happened") == expected.replace(",", "..")


def test_release_not_determinable(h: history.History) -> None:
    assert h.release_from_text("ValueError: something unrelated happened") is None
    assert h.release_from_text("") is None
    # A frame whose line no release has is not evidence for any release; ignored, not trusted.
    text = _traceback(("jax/_src/core.py", 999999, "__bool__", "x"), message="TypeError: boom")
    assert h.release_from_text(text) is None


def test_unindexed_installed_version(h: history.History) -> None:
    text = "key array cannot be converted to boolean."
    newer = h.fate("jax/_src/prng.py", "PRNGKeyArray.__bool__", text, "0.10.3")
    assert newer["as_of"] == "0.10.2" and newer["status"] == "moved"
    with pytest.raises(KeyError):
        h.fate("jax/_src/prng.py", "PRNGKeyArray.__bool__", text, "0.1.75")  # older than the first, 0.2.0


def test_frames_are_strict(h: history.History) -> None:
    # 0.4.30's __bool__ frame with 0.10.2's raise line: no indexed release has both.
    text = _traceback(("jax/_src/core.py", 754, "__bool__", "return self.aval._bool(self)"),
                      ("jax/_src/core.py", 1961, "error", "raise TracerBoolConversionError(arg)"),
                      message=CONCRETE)
    assert h.releases_from_text(text) == []
    assert h.release_from_text(text) is None
    # A code line that is a raise must sit on a raise statement of that release.
    one = _traceback(("jax/_src/core.py", 1961, "error", "raise TracerBoolConversionError(arg)"), message=CONCRETE)
    assert h.releases_from_text(one) == ["0.10.2"]
    # Comprehension frames and files no release has are no evidence either way.
    extra = _traceback(("jax/_src/core.py", 1961, "<listcomp>", "[f(x) for x in xs]"),
                       ("jaxlib/_jax_plugin_that_is_not_python.py", 7, "f", "g()"),
                       ("jax/_src/core.py", 1961, "error", "raise TracerBoolConversionError(arg)"), message=CONCRETE)
    assert h.releases_from_text(extra) == ["0.10.2"]


def test_matches_the_installed_catalog(h: history.History) -> None:
    """At the installed release, the index holds exactly the catalog's raise sites of ``jax/``; the index also
    gives a raise of a class that words its own message (``raise TracerIntegerConversionError(self)``) that
    message, and the raise of a module ``__getattr__`` factory its tables' messages, which the catalog leaves
    unread."""
    from jaxerrs import catalog

    version = catalog.installed_jax_version()
    if version not in h.releases():
        pytest.skip(f"installed JAX {version} is not an indexed release")
    i = h.release_index(version)
    indexed = {(s.path, s.function, s.cls, None if s.kind in ("class message", "name table") else s.template,
                s.lines[i][0]) for s in h.sites if i in s.lines}
    assert any(s.kind == "class message" and s.function == "Tracer.__index__" for s in h.sites)
    installed = {(s.path, s.function, s.class_name, s.template, s.line)
                 for s in catalog.get(progress=False).sites if s.path.startswith("jax/")}
    assert installed <= indexed
    # The tag also has files the wheel leaves out (test utilities, examples); of the others, nothing extra.
    paths = {k[0] for k in installed}
    assert not {k for k in indexed if k[0] in paths} - installed


def _git(repo, *args: str) -> None:  # noqa: ANN001 - a path
    import subprocess

    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(repo), "PATH": "/usr/bin:/bin:/usr/local/bin"})


def test_build_from_git(tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    """The builder on a tiny repository: tags in release order, rcs skipped, moves and removals tracked."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "jax"
    (repo / "jax" / "_src").mkdir(parents=True)
    _git(repo, "init", "-q")
    versions = {
        "0.4.30": {"jax/_src/a.py": 'def f(x):\n    raise ValueError(f"bad value for the argument: {x}")\n\ndef g():\n    raise TypeError("this one is gone soon")\n',
                   "setup.py": "setup(python_requires='>=3.9')\n"},
        "0.4.31rc": {"jax/_src/a.py": "def f(x):\n    pass\n"},
        "0.4.31": {"jax/_src/a.py": '\n\ndef f(x):\n    raise ValueError(f"bad value for the argument: {x}")\n\ndef g():\n    raise TypeError("this one is gone soon")\n'},
        "0.5.0": {"jax/_src/b.py": 'def f(x):\n    raise ValueError(f"bad value for the argument: {x}")\n', "jax/_src/a.py": "X = 1\n",
                  "jax/tests/t_test.py": 'raise ValueError("a test")\n', "pyproject.toml": 'requires-python = ">=3.10"\n'},
    }
    for version, files in versions.items():
        for old in (repo / "jax").rglob("*.py"):
            old.unlink()
        for path, text in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", version, "--allow-empty")
        _git(repo, "tag", f"jax-v{version}" if version[-1].isdigit() else f"jax-v{version[:-2]}-rc")
    git_dir = repo / ".git"
    assert history.release_tags(git_dir) == ["jax-v0.4.30", "jax-v0.4.31", "jax-v0.5.0"]
    out = tmp_path / "h.json.gz"
    assert history.main(["build", "--git-dir", str(git_dir), "--out", str(out)]) == 0
    small = history.History(history.load(out).data)
    assert small.releases() == ["0.4.30", "0.4.31", "0.5.0"]
    assert small.data["python_min"] == [9, 9, 10]  # the setup.py a tag keeps, or the pyproject.toml that states it
    assert small.releases_from_text('File "/opt/conda/lib/python3.9/site-packages/jax/x.py"') == ["0.4.30", "0.4.31"]
    assert [(x.releases, x.path, x.line) for x in small.sites_for("bad value for the argument: 3")] == [
        (("0.4.30", "0.4.30"), "jax/_src/a.py", 2), (("0.4.31", "0.4.31"), "jax/_src/a.py", 4),
        (("0.5.0", "0.5.0"), "jax/_src/b.py", 2)]
    assert small.fate("jax/_src/a.py", "f", "bad value for the argument: {x}", "0.5.0")["now"]["path"] == "jax/_src/b.py"
    assert small.fate("jax/_src/a.py", "g", "this one is gone soon", "0.5.0")["removed_in"] == "0.5.0"
    assert small.sites_for("a test") == []  # tests are not part of the installed package


# ---------------------------------------------------------------- pasted tracebacks from other releases

def _pasted(path: str, line: int, func: str, final: str) -> str:
    return ("Traceback (most recent call last):\n"
            '  File "/home/u/run.py", line 7, in <module>\n    step(key)\n'
            f'  File "/usr/lib/python3.10/site-packages/{path}", line {line}, in {func}\n'
            f"{final}\n")


def test_a_site_that_moved_names_that_release_and_the_installed_one():
    import jaxerrs

    text = _pasted("jax/_src/prng.py", 282, "__bool__", "TypeError: key array cannot be converted to boolean.")
    d = jaxerrs.diagnose_text(text)
    site = d.to_dict()["site"]
    assert site["path"] == "jax/_src/prng.py" and site["function"] == "PRNGKeyArray.__bool__"
    assert site["jax_version"] != d.evidence.jax_version and f"jax-v{site['jax_version']}/" in site["url"]
    assert any("jax/_src/random/prng.py" in n and "moved" in n for n in d.notes), d.notes


def test_a_site_no_release_has_is_never_invented():
    import jaxerrs

    text = _pasted("jax/_src/made_up.py", 12, "nothing", "TypeError: a message no JAX release ever raised here")
    d = jaxerrs.diagnose_text(text)
    assert d.site is None and any("does not guess" in n for n in d.notes)


# ---------------------------------------------------------------- the libraries' histories

def test_build_a_library_history_from_git(tmp_path) -> None:  # noqa: ANN001 - pytest's tmp_path
    """A library's builder: its own tags (``vX.Y.Z``), its package directory mapped to where it is installed
    (Orbax's checkpointing package lay at the repository's root, then moved into ``checkpoint/``: both are
    ``orbax/checkpoint`` in site-packages), tests left out."""
    import shutil

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "orbax"
    repo.mkdir()
    _git(repo, "init", "-q")
    old, new = repo / "orbax" / "checkpoint", repo / "checkpoint" / "orbax" / "checkpoint"
    versions = {
        "0.9.0": (old, {"a.py": 'def save(x):\n    raise ValueError(f"cannot save an item of this kind: {x}")\n'}),
        "0.10.0": (new, {"a.py": '\n\ndef save(x):\n    raise ValueError(f"cannot save an item of this kind: {x}")\n',
                         "a_test.py": 'raise ValueError("a test")\n'}),
        "0.11.0": (new, {"a.py": "def save(x):\n    return x\n"}),
    }
    for version, (pkg, files) in versions.items():
        shutil.rmtree(old, ignore_errors=True)
        shutil.rmtree(new, ignore_errors=True)
        pkg.mkdir(parents=True)
        for name, text in files.items():
            (pkg / name).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", version)
        _git(repo, "tag", f"v{version}")
    _git(repo, "tag", "export-v1.0.0")  # another package's tags in the same repository are not releases
    source = history.LIBRARY_SOURCES["orbax"]
    assert history.release_tags(repo / ".git", source.first, None, source) == ["v0.9.0", "v0.10.0", "v0.11.0"]
    out = tmp_path / "orbax.json.gz"
    assert history.main(["build", "--source", "orbax", "--git-dir", str(repo / ".git"), "--out", str(out)]) == 0
    small = history.History(history.load(out).data)
    assert small.releases() == ["0.9.0", "0.10.0", "0.11.0"] and small.data["package"] == "orbax"
    assert [(x.releases, x.path, x.function, x.line) for x in small.sites_for("cannot save an item of this kind: 3")] \
        == [(("0.9.0", "0.9.0"), "orbax/checkpoint/a.py", "save", 2), (("0.10.0", "0.10.0"), "orbax/checkpoint/a.py", "save", 4)]
    assert small.sites_for("a test") == []


def test_a_library_wording_only_older_releases_use_names_their_site_and_the_library():
    """A library's message that the installed release no longer raises (or a library not installed): from text
    alone, the library's history index names the library, the site in the latest release that raised it, and
    those releases."""
    import jaxerrs

    h = history.load_library("equinox")
    assert h is not None, "the shipped equinox history index is missing"
    template = "The following fields were not initialised during __init__: {missing_names}"
    hits = [x for x in h.sites_for(template, "ValueError") if x.template == template]
    assert hits, "no equinox release in the index raises these words"
    d = jaxerrs.diagnose_text("ValueError: The following fields were not initialised during __init__: {'w'}")
    assert d.is_jax and d.ecosystem == "equinox"
    last = max(hits, key=lambda x: history.version_key(x.releases[1]))
    assert d.site is not None and (d.site.path, d.site.function) == (last.path, last.function)
    assert d.site.library_version == last.releases[1]
    assert f"/blob/v{d.site.library_version}/equinox/" in d.site.url
    assert any("equinox" in n and d.site.library_version in n for n in d.notes), d.notes


@pytest.mark.parametrize("name", sorted(history.LIBRARY_SOURCES))
def test_every_library_history_is_shipped_and_covers_its_releases_from_2022(name):
    h = history.load_library(name)
    assert h is not None and h.data["package"] == name
    source = history.LIBRARY_SOURCES[name]
    assert history.version_key(h.releases()[0]) == source.first and len(h.releases()) >= 5
    assert all(s.path.startswith(source.roots[0][1] + "/") for s in h.sites)


def test_a_pasted_library_frame_that_raises_at_an_older_release_s_line_links_that_release():
    """A library frame showing a raise at a line where the installed release has none: the site is the frame's,
    and its release (so its link) is the latest one in the library's index that raises there."""
    import jaxerrs

    h = history.load_library("equinox")
    assert h is not None
    template = "The following fields were not initialised during __init__: {missing_names}"
    old = next(x for x in h.sites_for(template) if x.template == template)
    text = ("Traceback (most recent call last):\n  File \"/w/a.py\", line 5, in <module>\n    m = M()\n"
            f'  File "/env/lib/python3.11/site-packages/{old.path}", line {old.line}, in __call__\n'
            "    raise ValueError(\nValueError: The following fields were not initialised during __init__: {'w'}")
    d = jaxerrs.diagnose_text(text)
    assert d.ecosystem == "equinox" and d.site is not None and (d.site.path, d.site.line) == (old.path, old.line)
    assert d.site.library_version == old.releases[1]
    assert f"/blob/v{old.releases[1]}/{old.path}#L{old.line}" in d.site.url


def test_a_library_class_that_words_its_own_message_gives_its_raises_that_template():
    """Flax's error classes build their message in ``__init__``; the raise (``raise errors.ScopeParamShapeError(
    …)``) has no words of its own. The index gives each such raise its class's message in each release, so the
    older wording of a frequent Flax error, pasted without its module, still names Flax, its raise and a record."""
    import ast

    module = ast.parse('class E(Base):\n  def __init__(self, a, b):\n'
                       '    super().__init__(f"Initializer expected shape {a} but got {b} here")\n'
                       'class F(Base):\n  def __init__(self, a):\n    msg = f"cannot do {a} at all, sorry"\n'
                       '    Base.__init__(self, msg)\n')
    assert history.class_messages(module) == {"E": "Initializer expected shape {a} but got {b} here",
                                              "F": "cannot do {a} at all, sorry"}
    h = history.load_library("flax")
    assert h is not None
    old = [s for s in h.sites if s.cls == "ScopeParamShapeError" and s.template
           and s.template.startswith("Initializer expected to generate shape")]
    assert old and all(s.kind == "class message" for s in old)
    import jaxerrs

    d = jaxerrs.diagnose_text('ScopeParamShapeError: Initializer expected to generate shape (3, 4) but got shape '
                              '(5, 4) instead for parameter "kernel" in "/Dense_0".')
    assert d.is_jax and d.ecosystem == "flax" and d.record is not None
    assert d.record.id == "flax-linen-param-shape-mismatch"
    assert d.site is not None and (d.site.path, d.site.function) == ("flax/core/scope.py", "Scope.param")


def test_a_removed_name_s_message_from_a_module_table_is_placed_at_the_getattr_factory_s_raise():
    """JAX's modules build ``__getattr__`` from a table of names (``deprecation_getattr(__name__, _deprecations)``);
    an entry with no object left raises its message as an ``AttributeError`` inside the factory. The index gives
    that raise each release's messages, so an older release's removal message, which the installed JAX no
    longer words, is JAX's, at that raise, in the releases that had it."""
    import ast

    module = ast.parse(
        "from jax._src.deprecations import deprecation_getattr as _dg\n"
        "_deprecations = {\n"
        '    "old": ("jax.m.old was removed in JAX v0.7.0; use jax.m.new instead.", None),\n'
        '    "warned": ("jax.m.warned is deprecated; use jax.m.other instead.", print),\n'
        "}\n"
        "import typing\n"
        "if typing.TYPE_CHECKING:\n    pass\nelse:\n    __getattr__ = _dg(__name__, _deprecations)\n")
    assert history.getattr_tables(module) == {
        ("jax._src.deprecations", "deprecation_getattr"): ["jax.m.old was removed in JAX v0.7.0; use jax.m.new instead."]}
    h = history.load()
    text = ("jax.interpreters.xla.pytype_aval_mappings was deprecated in JAX v0.5.0 and removed in JAX v0.7.0. "
            "jax.core.pytype_aval_mappings can be used as a replacement in most cases.")
    hits = h.sites_for(text, "AttributeError")
    assert hits and {(x.path, x.function) for x in hits} == {("jax/_src/deprecations.py",
                                                              "deprecation_getattr.<locals>.getattr")}
    assert "0.7.0" in {r for x in hits for r in x.releases}
    import jaxerrs

    d = jaxerrs.diagnose_text(f"AttributeError: {text}")
    assert d.is_jax and d.site is not None
    assert (d.site.path, d.site.function) == ("jax/_src/deprecations.py", "deprecation_getattr.<locals>.getattr")


def test_an_older_release_s_wrapper_class_dates_a_paste_and_places_its_wording_in_those_releases():
    """``FilteredStackTrace: ValueError: …`` is what JAX 0.2.0-0.2.12 printed above a filtered traceback, and
    ``…Trace(level=1/0)`` how tracers printed their trace up to 0.4.35 (markers read from the tags). A wording
    many releases raised, in several places, is then placed where the releases the paste allows raised it."""
    import jaxerrs

    h = history.load()
    dated = h.releases_from_text("FilteredStackTrace: ValueError: anything at all")
    assert dated[0] == "0.2.0" and dated[-1] == "0.2.12"
    assert h.releases_from_text("UnfilteredStackTrace: ValueError: anything")[-1] == h.releases()[-1]
    assert h.releases_from_text("Traced<ShapedArray(float32[])>with<DynamicJaxprTrace(level=1/0)>")[-1] == "0.4.35"
    message = ("ValueError: compiling computation that requires 5 logical devices, but only 2 XLA devices are "
               "available (num_replicas=5, num_partitions=1)")
    plain = jaxerrs.diagnose_text(message)
    wrapped = jaxerrs.diagnose_text(f"FilteredStackTrace: {message}\n\nThe stack trace above excludes JAX-internal "
                                    "frames.")
    assert plain.site is not None and plain.site.function == "UnloadedPmapExecutable.from_hlo"
    assert wrapped.site is not None
    assert (wrapped.site.path, wrapped.site.function) == ("jax/interpreters/pxla.py", "parallel_callable")
    assert history.version_key(wrapped.site.jax_version) <= (0, 2, 12)


def test_a_library_s_own_class_pasted_without_its_module_names_the_library():
    """A class one library defines (its history index says so), distinctive enough, makes a pasted error that
    library's; a common name (``ValidationError``) or a user's own class does not."""
    import jaxerrs

    h = history.load_library("orbax")
    assert h is not None and "StepAlreadyExistsError" in h.defined_classes and "ValidationError" in h.defined_classes
    d = jaxerrs.diagnose_text("StepAlreadyExistsError: a message jaxerrs has never seen for step 3")
    assert d.is_jax and d.ecosystem == "orbax"
    for text in ("ValidationError: 1 validation error for Config", "MyOwnFancyThingError: nope"):
        assert not jaxerrs.diagnose_text(text).is_jax, text


def test_a_legacy_wording_s_note_names_only_releases_whose_raise_words_it_so():
    """A record's legacy range is open-ended ("<0.10.0") and the index reaches back to 0.2.0: the note names the
    releases whose raise there words it so. ``_mapped_axis_size`` lies in jax/_src/api.py from 0.2.13
    (``git show jax-v0.2.12:jax/_src/api.py`` fails) and words pmap's message so up to 0.9.2."""
    import jaxerrs

    d = jaxerrs.diagnose_text("ValueError: pmap got inconsistent sizes for array axes to be mapped:\n"
                              "arg 0 has shape (8,) and axis 0 is to be mapped")
    assert d.record is not None and d.record.id == "pmap-mapped-axis-not-divisible"
    assert any(n.startswith("These words are those of JAX 0.2.13–0.9.2,") for n in d.notes), d.notes


def test_an_older_wording_does_not_claim_the_installed_jax_words_it_otherwise_when_it_cannot_read_its_words():
    """0.3.24-0.4.25 raised "function compiled for …, called with …" in ``Compiled.call``; the installed
    ``Compiled.call`` also raises a message built elsewhere, which the catalog cannot read: it may say the same."""
    import jaxerrs

    d = jaxerrs.diagnose_text("TypeError: function compiled for PyTreeDef((*, *)), called with PyTreeDef((*,)).")
    assert d.is_jax and d.site is not None and d.site.function == "Compiled.call", d.to_dict()
    assert not any("does not raise it in these words" in n for n in d.notes), d.notes
    assert any("may say them too" in n for n in d.notes), d.notes


def test_a_longer_message_another_release_raised_elsewhere_places_the_site_there() -> None:
    """The installed raise words only the start of the message ("invalid value (nan) encountered in jit(f)");
    the paragraph JAX 0.4.21-0.5.0 added to it in ``_pjit_call_impl_python`` is most of the words: that raise
    is the site, in a release that words it so (0.4.38 raised it there: the kept release traceback)."""
    import jaxerrs

    kept = (Path(__file__).parent / "data" / "releases" / "0.4.38" / "debug-nans-invalid-value.txt").read_text()
    message = kept[kept.rindex("FloatingPointError: "):]
    d = jaxerrs.diagnose_text(message)
    assert d.record is not None and d.record.id == "debug-nans-invalid-value"
    assert d.site is not None and (d.site.path, d.site.function) == ("jax/_src/pjit.py", "_pjit_call_impl_python")
    assert history.version_key(d.site.jax_version) < (0, 5, 1), d.site
    # The installed release's own words still get the installed raise.
    now = jaxerrs.diagnose_text("FloatingPointError: invalid value (nan) encountered in jit(f)")
    assert now.site is not None and now.site.jax_version == jaxerrs.matcher._installed_jax()


def test_a_library_record_s_older_wording_keeps_the_site_and_note_of_the_releases_that_word_it() -> None:
    """Flax up to 0.6.7 worded ScopeParamShapeError "Inconsistent shapes between value and initializer …": the
    record's legacy pattern names the record, and the library's history index the raise of those releases."""
    import jaxerrs

    d = jaxerrs.diagnose_text('ScopeParamShapeError: Inconsistent shapes between value and initializer for '
                              'parameter "kernel" in "/Dense_0": (5, 1), (3, 1).')
    assert d.record is not None and d.record.id == "flax-linen-param-shape-mismatch" and d.ecosystem == "flax"
    assert d.site is not None and (d.site.path, d.site.function) == ("flax/core/scope.py", "Scope.param")
    assert history.version_key(d.site.library_version) <= (0, 6, 7), d.site
    assert any(n.startswith("These words are those of flax ") for n in d.notes), d.notes


def test_a_library_class_only_older_releases_raise_places_the_error_at_their_raise() -> None:
    """Equinox 0.11.0-0.11.4 named its runtime error ``EqxRuntimeError`` and raised it in one function only; the
    installed Equinox raises none of that name. The history index gives that raise, in the latest of those
    releases, and the record listing it."""
    import jaxerrs

    d = jaxerrs.diagnose_text("equinox._errors.EqxRuntimeError: The linear solver returned non-finite (NaN or inf) "
                              "output. This usually means that the ...")
    assert d.is_jax and d.ecosystem == "equinox"
    assert d.site is not None and (d.site.path, d.site.function) == ("equinox/_errors.py", "_error.<locals>.raises")
    assert d.site.library_version == "0.11.4" and "/blob/v0.11.4/equinox/_errors.py" in d.site.url
    assert d.record is not None and d.record.id == "equinox-error-if"
    assert any("0.11.0..0.11.4" in n for n in d.notes), d.notes


def test_what_a_bare_text_shows_of_its_release_places_the_site_in_that_release_s_file() -> None:
    """No JAX frame, but the wrapper class JAX 0.2.0-0.2.12 printed above a filtered traceback: the raise of the
    installed release's function, in the file those releases had it in, with a note. Not from the words alone
    (``wording=False``): a message whose wording changed since says which releases word it, not which one ran."""
    import jaxerrs

    text = "FilteredStackTrace: TypeError: Gradient only defined for scalar-output functions. Output had shape: (3,)."
    assert history.load().releases_from_text(text, wording=False)[-1] == "0.2.12"
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "grad-non-scalar-output"
    assert d.site is not None and (d.site.path, d.site.function, d.site.jax_version) == (
        "jax/api.py", "_check_scalar", "0.2.12")
    assert any("0.2.0–0.2.12" in n for n in d.notes), d.notes
    now = jaxerrs.diagnose_text(text.removeprefix("FilteredStackTrace: "))
    assert now.site is not None and now.site.path == "jax/_src/api.py"


def test_what_a_text_shows_of_its_release_places_the_words_where_it_raised_them_in_another_function() -> None:
    """The installed JAX raises these words too (``argnums_partial``), but ``FilteredStackTrace:`` says 0.2.0-0.2.12,
    which had no such function there and raised them in ``argnums_partial_except`` of ``jax/api_util.py``."""
    import jaxerrs

    message = ("ValueError: Non-hashable static arguments are not supported, as this can lead to unexpected "
               "cache-misses. Static argument (index 1) of type <class 'list'> for function f is non-hashable.")
    d = jaxerrs.diagnose_text("FilteredStackTrace: " + message)
    assert d.record is not None and d.record.id == "jit-non-hashable-static-arg"
    assert d.site is not None and (d.site.path, d.site.function) == ("jax/api_util.py", "argnums_partial_except")
    assert history.version_key(d.site.jax_version) <= (0, 2, 12) and "0.2.0–0.2.12" in d.notes[0]
    now = jaxerrs.diagnose_text(message)
    assert now.site is not None and (now.site.path, now.site.function) == ("jax/_src/api_util.py", "argnums_partial")


def test_a_last_frame_calling_on_under_python_s_class_is_placed_by_words_those_releases_raised_so() -> None:
    """The last JAX frame shown (0.2.4-0.3.23's ``logsumexp``) calls on into code the paste cuts off, and the class
    is Python's: words only JAX raised, in those releases, still say where (``_check_special``)."""
    import jaxerrs

    text = ('Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    loss = logsumexp(x)\n'
            '  File "/usr/lib/python3.8/site-packages/jax/_src/scipy/special.py", line 116, in logsumexp\n'
            "    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax.full_like(amax, 0)))\n"
            "FloatingPointError: invalid value (nan) encountered in convert_element_type")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "debug-nans-invalid-value"
    assert d.site is not None and d.site.function == "_check_special"
    assert history.version_key(d.site.jax_version) <= (0, 3, 23)


def test_the_python_a_paste_s_paths_show_bounds_its_release_from_above(h: history.History) -> None:
    """A release needs the Python its ``python_requires`` names (read at the tags: 3.8 from 0.4.0, 3.9 from 0.4.14,
    3.10 from 0.4.31, 3.11 from 0.7.0): paths under ``python3.7`` come from 0.3.25 or older. A Python every release
    installs on says nothing, and frames that say otherwise win (the Python is only soft evidence)."""
    assert h.releases_from_text('File "/usr/local/lib/python3.7/dist-packages/brax/envs/env.py", line 9')[-1] == "0.3.25"
    assert h.releases_from_text("Python 3.10.12 (main, Nov 2023)")[-1] == "0.6.2"
    assert h.releases_from_text('File "/usr/lib/python3.12/site-packages/app.py", line 3') == h.releases()
    # python3.10's paths, and a frame only 0.9.0 and later have (they need Python 3.11): the frame says which.
    assert h.releases_from_text(_pasted("jax/_src/pjit.py", 133, "_run_python_pjit", "x"))[0] == "0.9.0"


def test_a_bare_text_from_an_old_python_is_placed_where_those_releases_raised_it() -> None:
    """No JAX frame; the tracer's repr says 0.4.35 or older, and the user's frames run Python 3.7: the raise of
    0.3.25 or older, in the file those releases had it in (``jax/core.py``), not that of 0.4.12-0.4.35."""
    import jaxerrs

    text = ('  File "/usr/local/lib/python3.7/dist-packages/mypkg/model.py", line 40, in step\n'
            "    return onp.asarray(x)\n"
            "jax._src.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was called on the JAX "
            "Tracer object Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace(level=1/0)>")
    d = jaxerrs.diagnose_text(text)
    assert d.record is not None and d.record.id == "tracer-array-conversion"
    assert d.site is not None and (d.site.path, d.site.function) == ("jax/core.py", "Tracer.__array__")
    newer = jaxerrs.diagnose_text(text.replace("python3.7", "python3.11"))
    assert newer.site is not None and newer.site.path == "jax/_src/core.py"
