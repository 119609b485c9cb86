"""Property tests of ``tree-structure``'s safe rewrite of a state tree built in Python (a comprehension or a
list display mapped against a tuple of parameters): on random instances, the rewritten cell computes what
the failing cell meant, the same updates applied position by position.

The meaning is computed another way: the same cell with ``jax.tree.map`` replaced by a map that pairs the
trees' items by position (what the user expected a list and a tuple of the same items to do). Instances
that break the rule's precondition (a dict's ``.values()``, a state used with list methods) must come back
``review``. Same machinery as tests/test_rewrite_properties.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from test_rewrite_properties import SETUP, Cells

SEEDS = range(3)

_POSITIONAL_MAP = '''
def _positional_map(f, *trees):
    """jax.tree.map as the user expected it: flat containers paired by position, whatever their type."""
    return type(trees[0])(f(*items) for items in zip(*trees, strict=True))
'''


@pytest.fixture(scope="module")
def cells(_ipython):
    ip = _ipython
    if "jaxerrs" not in ip.extension_manager.loaded:
        ip.run_line_magic("load_ext", "jaxerrs")
    yield Cells(ip)
    ip.run_line_magic("unload_ext", "jaxerrs")


def _program(rng: np.random.RandomState) -> tuple[str, str, int]:
    """(failing cell, number of parameters) for a random optimizer loop over a tuple of parameters whose
    state is built in Python as a list."""
    n = rng.randint(1, 5)
    shapes = [tuple(int(d) for d in rng.randint(1, 4, size=rng.randint(0, 3))) for _ in range(n)]
    params = ", ".join(f"jnp.asarray(np.random.RandomState({i}).normal(size={s}), jnp.float32)"
                       for i, s in enumerate(shapes))
    params = f"({params},)" if n == 1 else f"({params})"
    build = rng.choice(["comp-zeros", "comp-scaled", "display", "map"])
    if build == "comp-zeros":
        state = "[jnp.zeros_like(p) for p in params]"
    elif build == "comp-scaled":
        state = f"[{rng.uniform(0.1, 2.0):.3f} * p + 1.0 for p in params]"
    elif build == "map":
        state = "list(map(jnp.ones_like, params))"
    else:
        state = "[" + ", ".join(f"jnp.full_like(params[{i}], {rng.uniform(-1, 1):.3f})" for i in range(n)) + "]"
    beta, lr = rng.uniform(0.5, 0.95), rng.uniform(0.01, 0.2)
    steps = rng.randint(1, 4)
    cell = f"""
params = {params}
state = {state}
for _ in range({steps}):
    grads = jax.grad(lambda ps: sum(jnp.sum(jnp.sin(p) * (i + 1)) for i, p in enumerate(ps)))(params)
    state = jax.tree.map(lambda s, g: {beta:.3f} * s + g, state, grads)
    params = jax.tree.map(lambda p, s: p - {lr:.3f} * s, params, state)
"""
    return cell, n


@pytest.mark.parametrize("seed", SEEDS)
def test_state_tree_source_matches_positional_meaning(cells, seed):
    rng = np.random.RandomState(seed)
    for _ in range(3):
        cell, n = _program(rng)
        fixed = cells.fixed(cell, "tree-structure")
        got = cells.run(fixed)
        got_params = [np.asarray(p) for p in got["params"]]
        assert isinstance(got["params"], tuple) and len(got_params) == n
        meant = cells.run(_POSITIONAL_MAP + cell.replace("jax.tree.map(", "_positional_map("))
        for a, b in zip(got_params, meant["params"], strict=True):
            np.testing.assert_allclose(a, np.asarray(b), rtol=1e-6, atol=1e-6)


_NOT_SAFE = [
    # a dict's values: the new state is keyed (and ordered) as the dict, not positional
    "params = {'w': jnp.ones(2), 'b': jnp.zeros(())}\nstate = [jnp.zeros_like(p) for p in params.values()]\n"
    "grads = jax.grad(lambda ps: jnp.sum(ps['w'] ** 2) + ps['b'])(params)\n"
    "state = jax.tree.map(lambda s, g: s + g, state, grads)\n",
    # the state is used as only a list can be
    "params = (jnp.ones(2), jnp.zeros(()))\nstate = [jnp.zeros_like(p) for p in params]\n"
    "grads = jax.grad(lambda ps: jnp.sum(ps[0] ** 2) + ps[1])(params)\n"
    "state = jax.tree.map(lambda s, g: s + g, state, grads)\nstate.append(jnp.zeros(()))\n",
    # ... or in a function of the cell it is passed to
    "params = (jnp.ones(2), jnp.zeros(()))\nstate = [jnp.zeros_like(p) for p in params]\n"
    "def reset_first(state):\n    state[0] = jnp.zeros(2)\n    return state\n\n"
    "grads = jax.grad(lambda ps: jnp.sum(ps[0] ** 2) + ps[1])(params)\n"
    "state = jax.tree.map(lambda s, g: s + g, state, grads)\nstate = reset_first(state)\n",
]


@pytest.mark.parametrize("cell", _NOT_SAFE)
def test_state_tree_source_not_safe_when_a_precondition_fails(cells, cell):
    rw = cells.not_safe(cell, SETUP)
    assert rw is not None and rw["rule"] == "tree-structure"
