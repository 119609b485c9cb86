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


@pytest.mark.parametrize(("cell", "note", "gone"), [
    ("import jax\njax.tree_map(lambda x: x, [1])", "`jax.tree_map` existed up to JAX 0.5.3 (gone from 0.6.0)", None),
    # A library's name, on a Flax that dropped it (0.12.1 on).
    ("from flax import nnx\nnnx.ArrayRef", "`flax.nnx.ArrayRef` existed up to Flax 0.12.0 (gone from 0.12.1)",
     ("flax", (0, 12, 1))),
])
def test_panel_shows_the_note_in_a_real_shell(shell, cell, note, gone):
    import importlib.metadata

    from jaxerrs.history import version_key

    if gone and version_key(importlib.metadata.version(gone[0])) < gone[1]:
        pytest.skip(f"this {gone[0]} still has the name")
    ip = shell
    ip.run_line_magic("load_ext", "jaxerrs")
    with capture_output() as cap:
        ip.run_cell(cell)
    assert "AttributeError" in cap.stdout
    assert note in cap.stdout


def test_opaque_modules_and_shims():
    """A star import or a lazy loader hides names from the source; JAX's and Optax's deprecation getattr and
    Flax's shim (compare with constants, raise for the rest) do not, and the shim's names count."""
    assert api_names.opaque("from jax._src.x import *\n")
    assert api_names.opaque("import lazy as _lazy\n__getattr__, __dir__, __all__ = _lazy.attach(__name__, ['a'])\n")
    assert api_names.opaque("def __getattr__(name):\n    return globals()[name.lower()]\n")
    assert not api_names.opaque("_deprecations = {}\n__getattr__ = _deprecation_getattr(__name__, _deprecations)\n")
    shim = '''
import typing as _tp
if _tp.TYPE_CHECKING:
    pass
else:
    def __getattr__(name):
        if name == "VariableState":
            return Variable
        raise AttributeError(f"Module {__name__} has no attribute '{name}'")
'''
    assert not api_names.opaque(shim)
    assert "VariableState" in api_names.public_names(shim)


def test_what_answers_a_module_s_missing_name():
    """A module's ``__getattr__`` (JAX's deprecation getattr, a lazy loader's, its own) answers a name it lacks;
    without one, Python's own lookup does."""
    assert api_names.getattr_kind("_deprecations = {}\n__getattr__ = _deprecation_getattr(__name__, _deprecations)\n"
                                  ) == "deprecation"
    assert api_names.getattr_kind("import lazy as _lazy\n__getattr__, __dir__, __all__ = _lazy.attach(__name__, [])\n"
                                  ) == "lazy"
    assert api_names.getattr_kind("if True:\n    def __getattr__(name):\n        raise AttributeError(name)\n") == "function"
    assert api_names.getattr_kind("from jax._src.random import key\n") is None


@pytest.mark.parametrize(("message", "kinds"), [
    # jax.api_util.debug_info is 0.5.1's: every release before it has no module __getattr__ in jax.api_util.
    ("module 'jax.api_util' has no attribute 'debug_info'", {None}),
    # jax.core.Shape left in 0.4.29; releases before 0.2.13 lacked it too, with no __getattr__ then.
    ("module 'jax.core' has no attribute 'Shape'", {None, "deprecation"}),
])
def test_the_releases_a_failed_lookup_may_come_from(message, kinds):
    module, name, releases = api_names.failed_lookup_releases(message, None, "0.10.2")
    assert releases and {api_names.lookup_at(module, r) for r in releases} == kinds
    assert not set(releases) & set(api_names.fate(module, name).releases)
    assert api_names.failed_lookup_releases(message, "0.4.30", "0.10.2")[2] == ["0.4.30"]


def test_an_opaque_release_leaves_a_name_s_absence_unknown():
    """``flax/nnx/__init__.py`` of Flax 0.11.0 ends in a module ``__getattr__`` that is no shim: whether it served
    ``ArrayRef`` there is unknown, so the note does not say the name was new in 0.11.1; that it went in 0.12.1
    (``git show v0.12.1:flax/nnx/__init__.py`` has no ArrayRef) it still says."""
    f = api_names.fate("flax.nnx", "ArrayRef")
    assert f is not None and f.unknown == ("0.11.0",) and f.releases[0] == "0.11.1"
    note = f.note(None)
    assert note == "`flax.nnx.ArrayRef` existed up to Flax 0.12.0 (gone from 0.12.1)."


@pytest.mark.parametrize(("message", "installed", "expected"), [
    # git show v0.2.2:optax/__init__.py has no lbfgs; v0.2.3's imports it from optax._src.alias.
    ("module 'optax' has no attribute 'lbfgs'", "0.2.1",
     "`optax.lbfgs` is new in Optax 0.2.3; the installed Optax 0.2.1 is older"),
    ("module 'optax' has no attribute 'lbfgs'", None, "`optax.lbfgs` exists from Optax 0.2.3 on"),
    # Flax's own module __getattr__ words it without quotes; flax/nnx/ first ships in v0.8.4.
    ("Module flax.nnx has no attribute 'ModelAndOptimizer'", "0.10.7", "is new in Flax 0.11.0"),
    ("cannot import name 'nnx' from 'flax' (/x/flax/__init__.py)", None, "`flax.nnx` exists from Flax 0.8.4 on"),
    ("No module named 'flax.nnx'", None, "`flax.nnx` exists from Flax 0.8.4 on"),
    ("module 'flax.linen.initializers' has no attribute 'zeros_init'", None, "exists from Flax 0.6.4 on"),
])
def test_note_for_a_library_name(message, installed, expected):
    note = api_names.note_for(message, installed)
    assert note is not None and expected in note


@pytest.mark.parametrize("module", ["jax", "jax.numpy", "jax.lax", "jax.random", "jax.sharding", "optax", "equinox",
                                    "chex", "flax.nnx", "flax.linen", "orbax.checkpoint"])
def test_index_agrees_with_the_installed_sources(module):
    """The shipped index of JAX or a library, for its installed release, holds what that release's own files bind,
    and says the module hides names exactly where its source does."""
    import importlib
    import importlib.metadata
    from pathlib import Path

    package = module.split(".")[0]
    version = importlib.metadata.version("orbax-checkpoint" if package == "orbax" else package)
    data = api_names._data(package)
    if version not in data["releases"]:
        pytest.skip(f"{package} {version} is not an indexed release")
    source = Path(importlib.import_module(module).__file__).read_text(encoding="utf-8")
    i = data["releases"].index(version)
    indexed = {n for n, runs in data["names"][module].items() if any(lo <= i <= hi for lo, hi in runs)}
    assert indexed == api_names.public_names(source)
    assert any(lo <= i <= hi for lo, hi in data["opaque"].get(module, [])) == api_names.opaque(source)
    assert api_names.lookup_at(module, version) == api_names.getattr_kind(source)


@pytest.mark.parametrize(("text", "library", "expected"), [
    ("AttributeError: module 'optax' has no attribute 'lbfgs'", "optax", "exists from Optax 0.2.3 on"),
    ("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    from flax import nnx\n"
     "ImportError: cannot import name 'nnx' from 'flax' (/usr/lib/python3/site-packages/flax/__init__.py)",
     "flax", "`flax.nnx` exists from Flax 0.8.4 on"),
    ("AttributeError: module 'flax.nnx' has no attribute 'ModelAndOptimizer'", "flax", "from Flax 0.11.0 on"),
])
def test_pasted_library_name_gets_its_library_s_releases_and_no_jax_site(text, library, expected):
    """A library's missing name is that library's matter: no JAX raise (its lazy loader words such messages too)
    is named as the site, and no record is guessed from the words."""
    d = diagnose_from_text(text)
    assert d.is_jax and d.ecosystem == library
    assert any(expected in n for n in d.notes)
    assert d.record is None and not any(c.record for c in d.candidates)
    assert d.site is None or not d.site.path.startswith("jax/")


@pytest.mark.parametrize("message", [
    "module 'jaxtyping' has no attribute 'Float32'", "No module named 'flaxmodels.resnet'",
    "cannot import name 'x' from 'optaxx'", "Module flaxformer has no attribute 'x'",
])
def test_a_package_that_only_starts_like_an_indexed_one_is_not_it(message):
    assert api_names.named_package(message) is None and api_names.note_for(message, None) is None


def test_a_failed_import_of_another_package_stays_not_jax():
    d = diagnose_from_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                           "    from absl import nothing_here\n"
                           "ImportError: cannot import name 'nothing_here' from 'absl' (/x/absl/__init__.py)")
    assert not d.is_jax
