"""The public-name index across JAX releases (src/jaxerrs/api_names.py) and the notes it gives the panel."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

from jaxerrs import api_names
from jaxerrs.matcher import diagnose_exception, diagnose_from_text


def test_public_names_reads_top_level_bindings_and_deprecations():
    source = '''
from jax._src.api import jit as jit, vmap
import jax.numpy as numpy
if True:
    from jax._src.x import shard_map as shard_map
try:
    from jax._src.y import ffi
except ImportError:
    pass
def helper(): pass
_private = 1
_deprecations = {
    "tree_map": ("jax.tree_map was removed; use jax.tree.map", None),
    "old_name": ("deprecated", helper),
}
'''
    names = api_names.public_names(source)
    assert {"jit", "vmap", "numpy", "shard_map", "ffi", "helper", "old_name"} <= names
    assert "tree_map" not in names and "_private" not in names and "_deprecations" not in names
    assert api_names.public_names("def broken(:\n") == set()


def test_index_knows_when_names_came_and_went():
    shard_map = api_names.fate("jax", "shard_map")
    assert shard_map is not None and shard_map.releases[0] == "0.6.1" and shard_map.releases[-1] == shard_map.last
    tree_map = api_names.fate("jax", "tree_map")
    assert tree_map is not None and tree_map.releases[-1] == "0.5.3"
    assert api_names.fate("jax", "vamp").releases == ()  # a typo: in no release
    assert api_names.fate("jax.no_such_module", "x") is None
    maps = api_names.module_fate("jax.experimental.maps")
    assert maps is not None and maps.releases and maps.releases[-1] != maps.last


@pytest.mark.parametrize(("message", "installed", "expected"), [
    ("module 'jax' has no attribute 'shard_map'", "0.4.38", "`jax.shard_map` is new in JAX 0.6.1; the installed JAX 0.4.38 is older"),
    ("module 'jax' has no attribute 'shard_map'", None, "`jax.shard_map` exists from JAX 0.6.1 on"),
    ("module 'jax.lax' has no attribute 'reduce_sum'", "0.4.38", "`jax.lax.reduce_sum` is new in JAX 0.5.1"),
    ("module 'jax' has no attribute 'tree_map'", "0.10.2", "`jax.tree_map` existed up to JAX 0.5.3 (gone from 0.6.0)"),
    ("cannot import name 'tree_map' from 'jax' (/x/jax/__init__.py)", "0.10.2", "gone from 0.6.0"),
    # jax/experimental/maps.py: first in 0.2.7, last in 0.4.30 (``git show jax-v0.2.6:jax/experimental/maps.py`` fails).
    ("No module named 'jax.experimental.maps'", "0.10.2", "`jax.experimental.maps` existed only in JAX 0.2.7 to 0.4.30"),
    # Removals before 0.4.30, from the index's older releases (JAX's changelog says the same).
    ("module 'jax.ops' has no attribute 'index_update'", "0.10.2", "existed up to JAX 0.3.1 (gone from 0.3.2)"),
    ("module 'jax' has no attribute 'tree_multimap'", "0.10.2", "existed up to JAX 0.3.15 (gone from 0.3.16)"),
])
def test_note_for_message(message, installed, expected):
    note = api_names.note_for(message, installed)
    assert note is not None and expected in note


def test_no_note_for_a_release_newer_than_the_index():
    assert api_names.note_for("module 'jax' has no attribute 'shard_map'", "99.0.0") is None


@pytest.mark.parametrize("message", ["module 'jax' has no attribute 'vamp'", "module 'numpy' has no attribute 'shard_map'",
                                     "module 'jax' has no attribute 'jit'", "division by zero"])
def test_no_note_when_the_index_says_nothing(message):
    assert api_names.note_for(message, "0.10.2") is None


def test_live_removed_name_gets_the_release_it_left():
    import jax

    with pytest.raises(AttributeError) as info:
        jax.tree_map  # noqa: B018 - removed in 0.6.0
    d = diagnose_exception(info.value)
    assert d.is_jax and d.record is not None and d.record.id == "removed-jax-tree-functions"
    assert any("gone from 0.6.0" in n for n in d.notes)


def test_pasted_newer_name_is_said_to_be_newer():
    d = diagnose_from_text("AttributeError: module 'jax' has no attribute 'shard_map'")
    assert d.is_jax and any("exists from JAX 0.6.1 on" in n for n in d.notes)


def test_panel_shows_the_note_in_a_real_shell(shell):
    ip = shell
    ip.run_line_magic("load_ext", "jaxerrs")
    with capture_output() as cap:
        ip.run_cell("import jax\njax.tree_map(lambda x: x, [1])")
    assert "AttributeError" in cap.stdout
    assert "gone from 0.6.0" in cap.stdout


@pytest.mark.parametrize("module", ["jax", "jax.numpy", "jax.lax", "jax.random", "jax.sharding"])
def test_index_agrees_with_the_installed_sources(module):
    """The shipped index, for the installed release, holds what that release's own files bind."""
    import importlib
    import importlib.metadata
    from pathlib import Path

    version = importlib.metadata.version("jax")
    data = api_names._data()
    if version not in data["releases"]:
        pytest.skip(f"JAX {version} is not an indexed release")
    source = Path(importlib.import_module(module).__file__).read_text(encoding="utf-8")
    i = data["releases"].index(version)
    indexed = {n for n, runs in data["names"][module].items() if any(lo <= i <= hi for lo, hi in runs)}
    assert indexed == api_names.public_names(source)
