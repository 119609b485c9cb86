"""The raise-site catalog of the installed JAX."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxerrs import catalog, templates


@pytest.fixture(scope="module")
def cat() -> catalog.Catalog:
    return catalog.get(progress=False)


def test_every_raise_statement_is_listed(cat):
    count, files = 0, 0
    for d in catalog._package_dirs():
        for path in d.rglob("*.py"):
            files += 1
            count += sum(isinstance(n, ast.Raise) for n in ast.walk(ast.parse(path.read_bytes())))
    assert len(cat.sites) == count
    assert cat.files == files and not cat.skipped
    stats = cat.stats()
    print(f"\n{stats['raise_statements']} raise statements, {stats['with_literal_text']} with literal text")
    assert stats["with_literal_text"] > 0.85 * stats["raise_statements"]


def test_templates_of_each_kind(cat):
    by_template = {s.template: s for s in cat.sites if s.template}
    s = by_template["Value of type {type} is not convertible to boolean."]
    assert (s.path, s.function, s.kind) == ("jax/_src/core.py", "Tracer.__bool__", "fstring")
    kinds = {s.kind for s in cat.sites}
    assert {"literal", "fstring", "format", "percent", "concat", "variable", "helper", "reraise"} <= kinds
    for site in cat.sites:
        if site.template:
            assert templates.validate(site.template) in (None, "template has no literal text"), site


def test_a_message_assembled_from_named_parts_is_read_as_the_code_spells_it():
    """Words written away from the raise: a module's string constant, a local's one value on the way to the raise
    (not a later one in a branch the raise is outside of), and optional words read only where the message has
    none else. A parameter, a local bound twice or a closure's name stays a hole."""
    code = (
        'PREFIX = "[Lib] "\n'
        "def make(name, fn):\n"
        "    def check(x, custom=None, default=True, kind='array'):\n"
        "        msg = str(x)\n"
        '        head = f"Assertion {name} failed: " if default else ""\n'
        '        msg = f"{PREFIX}{head}{msg}"\n'
        "        if custom:\n"
        '            msg = f"{msg} [{custom}]"\n'
        "        raise AssertionError(msg)\n"
        "    return check\n"
        "def g(shape, kind):\n"
        '    what = f"{kind} leaf specifications"\n'
        '    raise ValueError(f"One of {what} got {shape}; {kind} is a parameter")\n'
        "def h(dialect=None):\n"
        "    if dialect is None:\n"
        '        dialect = "stablehlo"\n'
        '    raise ValueError(f"unknown dialect: {dialect}")\n')
    found = {s.function: s.template for s in catalog.extract_source(code, "lib/m.py")}
    assert found["make.<locals>.check"] == "[Lib] Assertion {name} failed: {msg}"
    assert found["g"] == "One of {kind} leaf specifications got {shape}; {kind} is a parameter"
    assert found["h"] == "unknown dialect: {dialect}"
    m = templates.match(found["make.<locals>.check"], "[Lib] Assertion assert_shape failed: got (2, 3)")
    assert m is not None and m.values["name"] == "assert_shape"


def test_a_local_s_words_added_in_a_branch_the_raise_is_outside_of_are_no_part_of_its_template():
    """``msg += …`` under an ``if`` the raise is not in may not have run (JAX 0.2.x's jaxlib check adds pip advice
    for one jaxlib only), so the template is the words every call says; a ``+=`` on the raise's own path stays,
    and so do the added words where a helper built the rest (they are all the code spells)."""
    code = (
        "def check(version, minimum):\n"
        '    msg = f"jaxlib is version {version}, but this version of jax requires version {minimum}."\n'
        "    if version == (0, 1, 23):\n"
        '        msg += " Upgrade pip."\n'
        '    msg += " See the install guide."\n'
        "    raise ValueError(msg)\n"
        "def spec(fails):\n"
        "    msg = _rank_error(fails)\n"
        "    if fails:\n"
        '        msg += " In particular, add at least one axis."\n'
        "    raise ValueError(msg)\n")
    found = {s.function: s.template for s in catalog.extract_source(code, "lib/m.py")}
    assert found["check"] == ("jaxlib is version {version}, but this version of jax requires version {minimum}. "
                              "See the install guide.")
    assert found["spec"] == " In particular, add at least one axis."


def test_a_raised_local_built_by_a_class_s_call_gives_that_class_and_words():
    """``exc = TreePathError(f"…"); raise exc from e`` raises the class the local was built with, in its words; a
    local that holds something else (a caught error, an item of a list) stays a re-raise of that name."""
    code = (
        "def f(path, g, errors):\n"
        "    try:\n"
        "        return g()\n"
        "    except TreePathError as e:\n"
        "        raise e\n"
        "    except Exception as e:\n"
        '        exc = TreePathError(f"Error at leaf with path {path}")\n'
        "        exc.path = path\n"
        "        raise exc from e\n"
        "    first = errors[0]\n"
        "    raise first\n")
    found = [(s.exc_class, s.template, s.kind) for s in catalog.extract_source(code, "lib/m.py")]
    assert found == [("e", None, "reraise"), ("TreePathError", "Error at leaf with path {path}", "fstring"),
                     ("first", None, "reraise")]


def test_functions_are_real_qualnames(cat):
    """Spot-check: module-level and method sites name the function object's co_qualname."""
    checked = 0
    for s in cat.sites[::25]:
        if "<locals>" in s.function or s.function == "<module>" or not s.path.startswith("jax/_src/"):
            continue
        try:
            obj = importlib.import_module(s.path[:-3].replace("/", "."))
        except Exception:  # noqa: BLE001 - optional modules (GPU plugins) may not import here
            continue
        for part in s.function.split("."):
            obj = getattr(obj, part, None)
        try:
            obj = inspect.unwrap(getattr(obj, "__func__", obj))
        except ValueError:
            continue
        code = getattr(obj, "__code__", None)
        if code is None:
            continue  # decorated or wrapped beyond recognition
        assert code.co_qualname == s.function, s
        assert code.co_firstlineno <= s.line
        checked += 1
    assert checked > 50


def test_excerpt_reads_the_installed_source(cat):
    [s] = [x for x in cat.sites if x.template == "Value of type {type} is not convertible to boolean."]
    assert "raise TypeError" in cat.excerpt(s, context=0)


def test_cache_is_built_once_and_damage_is_repaired(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXERRS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(catalog, "_CATALOG", None)
    built = catalog.get(progress=False)
    [path] = list(tmp_path.glob("catalog-jax-*.json"))
    assert json.loads(path.read_text())["jax_version"] == built.jax_version
    monkeypatch.setattr(catalog, "_CATALOG", None)
    loaded = catalog.get(progress=False)
    assert [s.key for s in loaded.sites] == [s.key for s in built.sites]
    path.write_text("{ damaged")
    monkeypatch.setattr(catalog, "_CATALOG", None)
    assert len(catalog.get(progress=False).sites) == len(built.sites)
    assert json.loads(path.read_text())["format"] == catalog.FORMAT_VERSION


def test_unparsable_files_are_skipped_and_counted(tmp_path, monkeypatch):
    pkg = tmp_path / "jax"
    pkg.mkdir()
    (pkg / "good.py").write_text("def f(x):\n    raise ValueError(f'bad {x}')\n")
    (pkg / "broken.py").write_text("def f(:\n")
    (pkg / "binary.py").write_bytes(b"\xff\xfe\x00garbage")
    monkeypatch.setattr(catalog, "_package_dirs", lambda: [pkg])
    cat = catalog.build(progress=False)
    assert [(s.path, s.function, s.template) for s in cat.sites] == [("jax/good.py", "f", "bad {x}")]
    assert set(cat.skipped) == {"jax/broken.py", "jax/binary.py"} and cat.files == 3


def test_catalog_cli():
    out = subprocess.run([sys.executable, "-m", "jaxerrs", "catalog", "--stats"], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    assert stats["raise_statements"] > 5000 and stats["jax_version"]


def test_template_matching_is_whitespace_insensitive_and_extracts_values():
    m = templates.match("got incompatible shapes for broadcasting: {shapes}.", "add got incompatible\n  shapes "
                        "for broadcasting: (3,), (4,).")
    assert m is not None and m.values["shapes"] == "(3,), (4,)"
    assert templates.match("literal {{braces}} {x}", "literal {braces} 12") is not None
    assert templates.validate("bad {") is not None


def test_relpath_of_frames():
    from jaxerrs.evidence import frame_kind, jax_relpath

    assert jax_relpath("/x/lib/python3.11/site-packages/jax/_src/core.py") == "jax/_src/core.py"
    assert jax_relpath("~/.venv/lib/site-packages/jaxlib/xla_client.py") == "jaxlib/xla_client.py"
    assert jax_relpath("/home/me/jaxproject/model.py") is None
    assert frame_kind(str(Path(json.__file__))) == "lib"
    assert frame_kind("/tmp/ipykernel_1/123.py") == "user"
    # Python's library in the layouts tracebacks show: pyenv, conda, Windows (Anaconda's folder is lower case).
    for stdlib in ("/home/u/.pyenv/versions/3.10.4/lib/python3.10/contextlib.py", "/opt/conda/lib/python3.10/abc.py",
                   "C:\\Python311\\Lib\\dataclasses.py", "C:\\ProgramData\\Anaconda3\\lib\\asyncio\\base_events.py"):
        assert frame_kind(stdlib) == "lib", stdlib
    # A folder named lib holding the user's own modules is theirs.
    assert frame_kind("C:\\Users\\me\\proj\\lib\\train.py") == "user"
    assert frame_kind("/home/me/proj/lib/contextlib_helpers.py") == "user"


def test_installed_libraries_are_indexed_and_searchable():
    """Flax, Optax, Equinox, Orbax, Chex: their raise statements are catalogued like JAX's, and found by search."""
    pytest.importorskip("optax")
    from jaxerrs import catalog, search

    libs = {c.package: c for c in catalog.library_catalogs()}
    assert "optax" in libs and libs["optax"].jax_version  # the library's own version
    for name, lib in libs.items():
        assert lib.sites and all(s.path.startswith(name + "/") for s in lib.sites), name
    site = next(s for s in libs["optax"].sites if s.template == "Unknown initial guess strategy: {initial_guess_strategy}")
    hits = search("Unknown initial guess strategy", limit=5)
    assert hits[0].kind == "site" and hits[0].id == f"{site.path}:{site.line}"
