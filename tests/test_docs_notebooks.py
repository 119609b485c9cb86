"""Open acceptance set: JAX's own documentation notebooks, executed with jaxerrs loaded.

The notebooks live in shared/jax-docs-notebooks beside the clone (test data, not ours: see the README
there), or wherever the environment variable JAXERRS_DOCS_NOTEBOOKS points. Each is copied in memory, `%load_ext jaxerrs` is put in front, and it is executed with nbclient
in its own kernel. For every cell the manifest lists as raising we check the error output is there and
then, after it, either the panel for the curated record that truly explains that error (JAX errors) or
no panel at all (plain Python / NumPy errors). Cells that do not raise must not get a panel.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest

from notebook_support import (
    describe,
    errors,
    execute_all,
    executed_notebook,
    mentions_panel,
    panels,
    with_extension_loaded,
)

BESIDE_THE_CLONE = Path(__file__).resolve().parents[1].parent / "shared" / "jax-docs-notebooks"
DOCS = Path(os.environ.get("JAXERRS_DOCS_NOTEBOOKS") or BESIDE_THE_CLONE).expanduser()
MANIFEST = DOCS / "manifest.json"
if os.environ.get("JAXERRS_DOCS_NOTEBOOKS"):
    SKIP_REASON = (
        f"JAX docs notebooks not found: JAXERRS_DOCS_NOTEBOOKS={os.environ['JAXERRS_DOCS_NOTEBOOKS']} holds "
        "no manifest.json; point it at the jax-docs-notebooks folder (manifest.json and the notebooks)"
    )
else:
    SKIP_REASON = (
        f"JAX docs notebooks not found at {DOCS}: put the jax-docs-notebooks folder (manifest.json and the "
        "notebooks) there, i.e. ../shared/jax-docs-notebooks from the clone, or set "
        "JAXERRS_DOCS_NOTEBOOKS=/path/to/jax-docs-notebooks"
    )
CELL_TIMEOUT = 120
WORKERS = 2

# The oracle: (notebook, cell_index) -> id of the curated record whose explanation describes that
# cell's error, or None when the error is not a JAX error and must get no panel. Each choice was
# made by reading the cell source, the observed message and the candidate records.
EXPECTED: dict[tuple[str, int], str | None] = {
    # `jax_array[1, :] = 1.0` on a jnp array: JAX's __setitem__ refusal, word for word the record.
    ("Common_Gotchas_in_JAX.ipynb", 17): "jax-array-immutable-setitem",
    # `@jit` on a method, `c.calc(3)`: message says the CustomClass value was passed "at path self";
    # jit-method-self-argument is the record for exactly that (not the generic non-array argument).
    ("Common_Gotchas_in_JAX.ipynb", 36): "jit-method-self-argument",
    # `np.arange(10)[11]`: NumPy's own IndexError, no JAX frame involved -> no panel.
    ("Common_Gotchas_in_JAX.ipynb", 61): None,
    # `jnp.sum([1, 2, 3])`: check_arraylike rejects a Python list -> jnp-list-argument.
    ("Common_Gotchas_in_JAX.ipynb", 71): "jnp-list-argument",
    # `jax.jit(nansum)(x)` where nansum does `x[~jnp.isnan(x)]`: boolean mask under jit.
    ("Common_Gotchas_in_JAX.ipynb", 86): "non-concrete-boolean-index",
    # `if x < 3:` inside @jit: TracerBoolConversionError from a Python `if` on a tracer.
    ("control-flow.ipynb", 7): "tracer-bool-conversion",
    # `(x > 0) and (x < 3)` inside @jit: Python `and` calls bool() on a tracer; the record lists `and`.
    ("control-flow.ipynb", 9): "tracer-bool-conversion",
    # `jnp.ones((length,))` with `length` a jitted argument: canonicalize_shape gets a tracer.
    ("control-flow.ipynb", 17): "shape-not-concrete",
    # `is_even and (x > 0)` on a concrete 3-element jnp array outside jit: JAX's
    # check_bool_conversion raises NumPy's ambiguity ValueError -> truth-value-ambiguous
    # (the record states it is the concrete, outside-jit twin of the tracer bool error).
    ("control-flow.ipynb", 34): "truth-value-ambiguous",
    # `jax.tree.map(lambda x: x + 1, [Special(...), ...])`: the `+` fails in the user's lambda on a
    # plain Python object; JAX only called the lambda -> not a JAX error, no panel.
    ("custom_pytrees.ipynb", 3): None,
    # NamedTuple `MyOtherContainer` whose `name` leaf is a str, passed to a jitted f: "problematic value
    # is of type <class 'str'> ... at path x.name" -> jit-non-array-argument (its triggers name this case).
    ("custom_pytrees.ipynb", 17): "jit-non-array-argument",
    # `jax.jacobian` rebuilds MyTree via unflatten with None placeholders and the user's __init__ calls
    # jnp.asarray(None): "None is not a valid value for jnp.array" -> jnp-array-none (the record's
    # triggers name exactly this custom-pytree unflatten situation).
    ("custom_pytrees.ipynb", 20): "jnp-array-none",
    # `jax.jit(f)(5.)` with jax_debug_nans on, f does jnp.log(-w): the de-optimized re-run finds the
    # NaN in `log` -> debug-nans-invalid-value (not ...-not-reproduced-deoptimized: it was reproduced).
    ("debugging_flags.ipynb", 3): "debug-nans-invalid-value",
    # `jax.grad(f)` through jax.pure_callback -> pure-callback-no-jvp.
    ("external-callbacks.ipynb", 13): "pure-callback-no-jvp",
    # `jax.vmap` over a function calling io_callback(..., ordered=True) -> io-callback-ordered-vmap.
    ("external-callbacks.ipynb", 22): "io-callback-ordered-vmap",
    # `jax.grad` through io_callback -> io-callback-no-jvp.
    ("external-callbacks.ipynb", 26): "io-callback-no-jvp",
    # `jax.grad(j1)` where j1 wraps scipy.special.j1 in pure_callback without a custom rule.
    ("external-callbacks.ipynb", 45): "pure-callback-no-jvp",
    # `lax.add(1, 1.0)`: lax does no type promotion; int32 vs float32 -> lax-same-dtypes.
    ("key-concepts.ipynb", 16): "lax-same-dtypes",
    # `jax.tree.map(..., {1: 7, "y": 42})`: int and str keys cannot be sorted when flattening.
    ("pytrees.ipynb", 26): "pytree-dict-keys-unsortable",
    # `-x if neg else x` inside @jit with `neg` traced: Python conditional expression on a tracer.
    ("tracing.ipynb", 7): "tracer-bool-conversion",
    # `x.reshape(jnp.array(x.shape).prod())` inside @jit: the size is a traced jnp value; the record's
    # explanation names this very `jnp.array(x.shape).prod()` idiom.
    ("tracing.ipynb", 13): "shape-not-concrete",
}


def _manifest() -> dict | None:
    if not MANIFEST.is_file():
        return None
    return json.loads(MANIFEST.read_text())


def _raising_cells() -> list:
    manifest = _manifest()
    if manifest is None:
        return [pytest.param(None, None, None, marks=pytest.mark.skip(reason=SKIP_REASON), id="absent")]
    params = []
    for entry in manifest["notebooks"]:
        for cell in entry["cells"]:
            if cell["raises"]:
                name = entry["notebook"]
                params.append(pytest.param(name, cell["cell_index"], cell, id=f"{name}:{cell['cell_index']}"))
    return params


def _notebook_names() -> list:
    manifest = _manifest()
    if manifest is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="absent")]
    return [entry["notebook"] for entry in manifest["notebooks"]]


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """notebook name -> (executed copy with the load cell at index 0, seconds) or the exception it raised."""
    manifest = _manifest()
    if manifest is None:
        pytest.skip(SKIP_REASON)
    workdir = tmp_path_factory.mktemp("docs-notebooks")  # kernels' cwd: nothing is written into shared/
    notebooks = {e["notebook"]: with_extension_loaded(nbformat.read(DOCS / e["notebook"], as_version=4))
                 for e in manifest["notebooks"]}
    return execute_all(notebooks, workdir, CELL_TIMEOUT, "jax-docs-notebooks", workers=WORKERS)


_get = executed_notebook


def test_oracle_covers_the_manifest():
    manifest = _manifest()
    if manifest is None:
        pytest.skip(SKIP_REASON)
    listed = {
        (e["notebook"], c["cell_index"]) for e in manifest["notebooks"] for c in e["cells"] if c["raises"]
    }
    assert listed == set(EXPECTED), "manifest and oracle disagree; read the new cells and extend EXPECTED"
    assert manifest["total_raising_cells"] == len(listed)


@pytest.mark.parametrize(("name", "index", "cell_info"), _raising_cells())
def test_raising_cell(executed, name, index, cell_info):
    nb = _get(executed, name)
    cell = nb.cells[index + 1]  # +1: the inserted %load_ext cell
    where = f"{name} cell {index} ({cell.source.splitlines()[0]!r}): {describe(cell)}"

    errs = errors(cell)
    assert errs, f"expected an error output in {where}"
    err_index, err = errs[0]
    assert err["ename"] == cell_info["ename"], where
    assert err["evalue"].startswith(cell_info["evalue_stable_prefix"]), where
    assert err.get("traceback"), f"IPython's traceback is missing in {where}"

    expected = EXPECTED[(name, index)]
    found = panels(cell)
    if expected is None:
        assert not found and not mentions_panel(cell), f"non-JAX error got a jaxerrs panel in {where}"
        return

    assert len(found) == 1, f"expected exactly one panel in {where}"
    panel_index, panel, attrs = found[0]
    assert panel["output_type"] == "display_data", where
    assert panel_index > err_index, f"the panel must come after the traceback in {where}"
    assert attrs.get("data-record") == expected, (
        f"wrong record in {where}: got {attrs.get('data-record')!r}, expected {expected!r}"
    )


@pytest.mark.parametrize("name", _notebook_names())
def test_cells_that_do_not_raise_get_no_panel(executed, name):
    manifest = _manifest()
    entry = next(e for e in manifest["notebooks"] if e["notebook"] == name)
    raising = {c["cell_index"] for c in entry["cells"] if c["raises"]}
    nb = _get(executed, name)

    load_cell = nb.cells[0]
    assert not errors(load_cell), f"%load_ext jaxerrs failed in {name}: {describe(load_cell)}"

    problems = []
    for index, cell in enumerate(nb.cells[1:]):
        if cell.cell_type != "code" or index in raising:
            continue
        if errors(cell):
            problems.append(f"cell {index} raised but the manifest says it does not: {describe(cell)}")
        if mentions_panel(cell):
            problems.append(f"cell {index} does not raise but shows a jaxerrs panel: {describe(cell)}")
    assert not problems, f"{name}:\n" + "\n".join(problems)
