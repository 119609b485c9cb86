"""``x[i] = v`` and ``x[i] += v`` on JAX arrays."""

from rewrite_cases import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

CASES = [
    case(
        "setitem-in-jitted-update", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        @jax.jit
        def zero_first(x):
            x[0] = 0.0   # reset the first entry
            return x

        out = zero_first(jnp.arange(1.0, 5.0))
        """,
        check="""
        ref = np.arange(1.0, 5.0); ref[0] = 0.0
        np.testing.assert_allclose(np.asarray(out), ref)
        """,
        wrong_fix="""
        @jax.jit
        def zero_first(x):
            return x
        out = zero_first(jnp.arange(1.0, 5.0))
        """,
    ),
    case(
        "iadd-histogram-loop", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        counts = jnp.zeros(4)
        labels = [0, 2, 2, 3, 0, 2]
        for lab in labels:
            counts[lab] += 1
        """,
        check="""
        np.testing.assert_allclose(np.asarray(counts), np.bincount([0, 2, 2, 3, 0, 2], minlength=4))
        """,
        wrong_fix="""
        counts = jnp.zeros(4)
        labels = [0, 2, 2, 3, 0, 2]
        for lab in labels:
            counts = counts.at[lab].set(1)
        """,
    ),
]
