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
    # ------------------------------------------------------------------ the cause, not the line (issue #17)
    case(
        "markov-ring-two-setitems", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        n = 5
        p = 0.7
        T = jnp.zeros((n, n))
        for i in range(n):
            T[i, i] = p                 # stay
            T[i, (i + 1) % n] = 1 - p   # move to the next state
        """,
        check="""
        ref = np.zeros((5, 5))
        for i in range(5):
            ref[i, i] = 0.7
            ref[i, (i + 1) % 5] = 0.3
        np.testing.assert_allclose(np.asarray(T), ref, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(T).sum(axis=1), np.ones(5), rtol=1e-6)
        """,
        wrong_fix="""
        n = 5
        p = 0.7
        T = jnp.zeros((n, n))
        for i in range(n):
            T = T.at[i, i].set(p)
        """,
    ),
    case(
        "running-moments-iadd", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        samples = [1.0, 2.0, 4.0, -3.0]
        moments = jnp.zeros(3)   # count, sum, sum of squares
        for v in samples:
            moments[0] += 1
            moments[1] += v
            moments[2] += v * v
        mean = moments[1] / moments[0]
        """,
        check="""
        xs = np.array([1.0, 2.0, 4.0, -3.0])
        np.testing.assert_allclose(np.asarray(moments), [4, xs.sum(), (xs ** 2).sum()], rtol=1e-6)
        np.testing.assert_allclose(float(mean), xs.mean(), rtol=1e-6)
        """,
        wrong_fix="""
        samples = [1.0, 2.0, 4.0, -3.0]
        moments = jnp.zeros(3)
        for v in samples:
            moments = moments.at[0].add(1)
            moments = moments.at[1].add(v)
            moments = moments.at[2].set(v * v)
        mean = moments[1] / moments[0]
        """,
    ),
    case(
        "setitem-with-alias-kept", "jax-array-immutable-setitem", setup=SETUP, offer="review",
        cell="""
        weights = jnp.ones(4)
        initial = weights   # keep the starting point to compare against
        weights[0] = 0.5
        weights[3] *= 2.0
        """,
        check="""
        np.testing.assert_allclose(np.asarray(weights), [0.5, 1.0, 1.0, 2.0])
        """,
        wrong_fix="""
        weights = jnp.ones(4)
        initial = weights
        weights = weights.at[0].set(0.5)
        """,
    ),
    case(
        "setitem-chained-index-left", "jax-array-immutable-setitem", setup=SETUP, offer="none",
        cell="""
        grid = jnp.zeros((3, 3))
        grid[0, 0] = 1.0
        grid[1][1] = 2.0   # a chained index: writes into a copy of row 1
        """,
        check="""
        ref = np.zeros((3, 3)); ref[0, 0] = 1.0; ref[1, 1] = 2.0
        np.testing.assert_allclose(np.asarray(grid), ref)
        """,
        wrong_fix="""
        grid = jnp.zeros((3, 3))
        grid = grid.at[0, 0].set(1.0)
        """,
    ),
    # ------------------------------------------------------------------ siblings: another array of the scope
    case(
        "two-buffers-jitted-loop", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        @jax.jit
        def running_stats(xs):
            means = jnp.zeros(xs.shape[0])
            maxes = jnp.zeros(xs.shape[0])
            for k in range(xs.shape[0]):
                means[k] = jnp.mean(xs[: k + 1])
                maxes[k] = jnp.max(xs[: k + 1])
            return means, maxes

        m, mx = running_stats(jnp.array([3.0, 1.0, 4.0, 1.0, 5.0]))
        """,
        check="""
        v = np.array([3.0, 1.0, 4.0, 1.0, 5.0])
        np.testing.assert_allclose(np.asarray(m), [v[: k + 1].mean() for k in range(5)], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(mx), np.maximum.accumulate(v))
        """,
        wrong_fix="""
        @jax.jit
        def running_stats(xs):
            means = jnp.zeros(xs.shape[0])
            maxes = jnp.zeros(xs.shape[0])
            for k in range(xs.shape[0]):
                means = means.at[k].set(jnp.mean(xs[: k + 1]))
            return means, maxes

        m, mx = running_stats(jnp.array([3.0, 1.0, 4.0, 1.0, 5.0]))
        """,
    ),
    case(
        "jax-buffer-beside-numpy-buffer", "jax-array-immutable-setitem", setup=SETUP,
        cell="""
        steps = 6
        log_np = np.zeros(steps)      # a NumPy log: stores into it are fine
        traj = jnp.zeros(steps)
        x = 1.0
        for t in range(steps):
            x = 0.5 * x + 1.0
            log_np[t] = x
            traj[t] = x
        """,
        check="""
        ref, x = np.zeros(6), 1.0
        for t in range(6):
            x = 0.5 * x + 1.0
            ref[t] = x
        np.testing.assert_allclose(np.asarray(traj), ref, rtol=1e-6)
        np.testing.assert_allclose(log_np, ref)
        assert isinstance(log_np, np.ndarray)
        """,
        wrong_fix="""
        steps = 6
        log_np = jnp.zeros(steps)
        traj = jnp.zeros(steps)
        """,
    ),
    case(
        "mask-store-in-jitted-clip", "jax-array-immutable-setitem", setup=SETUP,
        # a boolean mask store under jit: `.at[mask]` has no static size there, `jnp.where` keeps the values
        cell="""
        @jax.jit
        def relu_and_cap(x, cap):
            x[x < 0] = 0.0
            x[x > cap] *= 0.5
            return x

        y = relu_and_cap(jnp.array([-1.0, 0.5, 3.0, 8.0]), 2.0)
        """,
        check="""
        x = np.array([-1.0, 0.5, 3.0, 8.0])
        x[x < 0] = 0.0
        x[x > 2.0] *= 0.5
        np.testing.assert_allclose(np.asarray(y), x)
        """,
        wrong_fix="""
        @jax.jit
        def relu_and_cap(x, cap):
            return jnp.clip(x, 0.0, cap)

        y = relu_and_cap(jnp.array([-1.0, 0.5, 3.0, 8.0]), 2.0)
        """,
    ),
]
