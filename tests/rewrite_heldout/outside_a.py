"""Held-out "fix my cell" cases, set A from outside the team: tracing errors inside ``jit`` and friends.

Kinds: in-place ``x[i] = v`` inside jitted code and modules, shapes / ``arange`` / ``linspace`` sizes
from traced values, Python ``if``/``while`` on tracers, traced slice bounds, boolean-mask indexing under
``jit``, tracers used as Python ints (``range``, list index), unhashable static arguments, and
``float()``/``int()`` of tracers. Shapes: several places of one cause per cell, failing definitions in an
``earlier`` cell, methods (plain classes, Flax NNX, Equinox), decorator spellings and module aliases.

Written blind to the rewriter (nothing under ``src/`` nor the proof cases was read), 2026-10, each cell
modelled on the public thread named in its ``source``.
"""

from rewrite_heldout import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
from functools import partial
"""

SETUP_ONP = """
import numpy as onp
import jax
from functools import partial
"""

SETUP_NNX = SETUP + """
from flax import nnx
"""

SETUP_EQX = SETUP + """
import equinox as eqx
"""

SETUP_OPTAX = SETUP + """
import optax
"""

CASES = [
    # ------------------------------------------------------------------ jax-array-immutable-setitem
    case(
        "oa-setitem-eqx-pendulum-vector-field", "jax-array-immutable-setitem", setup=SETUP_EQX,
        source="https://github.com/patrick-kidger/equinox/issues/37",
        cell="""
        class Pendulum(eqx.Module):
            g: float
            length: float

            def __call__(self, t, y):
                dy = jnp.zeros(2)
                dy[0] = y[1]
                dy[1] = -(self.g / self.length) * jnp.sin(y[0])
                return dy

        rhs = eqx.filter_jit(Pendulum(9.81, 2.0))
        y = jnp.array([0.3, 0.0])
        for _ in range(100):
            y = y + 0.01 * rhs(0.0, y)
        """,
        check="""
        ref = np.array([0.3, 0.0])
        for _ in range(100):
            ref = ref + 0.01 * np.array([ref[1], -(9.81 / 2.0) * np.sin(ref[0])])
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Pendulum(eqx.Module):
            g: float
            length: float

            def __call__(self, t, y):
                dy = jnp.zeros(2)
                dy = dy.at[0].set(y[1])
                dy.at[1].set(-(self.g / self.length) * jnp.sin(y[0]))
                return dy

        rhs = eqx.filter_jit(Pendulum(9.81, 2.0))
        y = jnp.array([0.3, 0.0])
        for _ in range(100):
            y = y + 0.01 * rhs(0.0, y)
        """,
        alt_fixes=[
            """
            class Pendulum(eqx.Module):
                g: float
                length: float

                def __call__(self, t, y):
                    dy = jnp.zeros(2)
                    dy = dy.at[0].set(y[1])
                    dy = dy.at[1].set(-(self.g / self.length) * jnp.sin(y[0]))
                    return dy

            rhs = eqx.filter_jit(Pendulum(9.81, 2.0))
            y = jnp.array([0.3, 0.0])
            for _ in range(100):
                y = y + 0.01 * rhs(0.0, y)
            """,
            """
            class Pendulum(eqx.Module):
                g: float
                length: float

                def __call__(self, t, y):
                    return jnp.stack([y[1], -(self.g / self.length) * jnp.sin(y[0])])

            rhs = eqx.filter_jit(Pendulum(9.81, 2.0))
            y = jnp.array([0.3, 0.0])
            for _ in range(100):
                y = y + 0.01 * rhs(0.0, y)
            """,
        ],
    ),
    case(
        "oa-setitem-earlier-lqr-rollout-buffers", "jax-array-immutable-setitem", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/2219",
        earlier="""
        @jax.jit
        def rollout(theta, x0):
            T = 20
            xs = jnp.zeros(T)
            us = jnp.zeros(T)
            x = x0
            for t in range(T):
                u = -theta * x
                xs[t] = x
                us[t] = u
                x = 0.9 * x + u
            return xs, us
        """,
        cell="""
        xs, us = rollout(0.3, 1.0)
        cost = jnp.sum(xs ** 2) + 0.1 * jnp.sum(us ** 2)
        """,
        check="""
        rx, ru, x = np.zeros(20), np.zeros(20), 1.0
        for t in range(20):
            u = -0.3 * x
            rx[t], ru[t] = x, u
            x = 0.9 * x + u
        np.testing.assert_allclose(np.asarray(xs), rx, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(np.asarray(us), ru, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(float(cost), np.sum(rx ** 2) + 0.1 * np.sum(ru ** 2), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def rollout(theta, x0):
            T = 20
            xs = jnp.zeros(T)
            us = jnp.zeros(T)
            x = x0
            for t in range(T):
                u = -theta * x
                xs = xs.at[t].set(x)
                us.at[t].set(u)
                x = 0.9 * x + u
            return xs, us
        """,
        alt_fixes=[
            """
            @jax.jit
            def rollout(theta, x0):
                T = 20
                xs = jnp.zeros(T)
                us = jnp.zeros(T)
                x = x0
                for t in range(T):
                    u = -theta * x
                    xs = xs.at[t].set(x)
                    us = us.at[t].set(u)
                    x = 0.9 * x + u
                return xs, us
            """,
            """
            @jax.jit
            def rollout(theta, x0):
                def step(x, _):
                    u = -theta * x
                    return 0.9 * x + u, (x, u)
                _, (xs, us) = jax.lax.scan(step, jnp.asarray(x0, jnp.float32), None, length=20)
                return xs, us
            """,
        ],
    ),
    case(
        "oa-setitem-nnx-causal-attention-mask", "jax-array-immutable-setitem", setup=SETUP_NNX,
        source="written for the shape: masking future positions row by row inside a Flax NNX attention `__call__` under nnx.jit",
        cell="""
        class CausalSelfAttention(nnx.Module):
            def __init__(self, d, *, rngs):
                self.q = nnx.Linear(d, d, rngs=rngs)
                self.k = nnx.Linear(d, d, rngs=rngs)
                self.v = nnx.Linear(d, d, rngs=rngs)

            def __call__(self, x):
                T, d = x.shape
                scores = self.q(x) @ self.k(x).T / jnp.sqrt(d)
                for i in range(T):
                    scores[i, i + 1:] = -jnp.inf
                return jax.nn.softmax(scores, axis=-1) @ self.v(x)

        @nnx.jit
        def forward(model, x):
            return model(x)

        attn = CausalSelfAttention(8, rngs=nnx.Rngs(0))
        x = jax.random.normal(jax.random.key(1), (5, 8))
        out = forward(attn, x)
        """,
        check="""
        def lin(layer, a):
            return a @ np.asarray(layer.kernel[...]) + np.asarray(layer.bias[...])
        xn = np.asarray(x, dtype=np.float64)
        s = lin(attn.q, xn) @ lin(attn.k, xn).T / np.sqrt(8)
        s = np.where(np.tril(np.ones((5, 5), bool)), s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True)); p /= p.sum(-1, keepdims=True)
        np.testing.assert_allclose(np.asarray(out), p @ lin(attn.v, xn), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class CausalSelfAttention(nnx.Module):
            def __init__(self, d, *, rngs):
                self.q = nnx.Linear(d, d, rngs=rngs)
                self.k = nnx.Linear(d, d, rngs=rngs)
                self.v = nnx.Linear(d, d, rngs=rngs)

            def __call__(self, x):
                T, d = x.shape
                scores = self.q(x) @ self.k(x).T / jnp.sqrt(d)
                keep = jnp.triu(jnp.ones((T, T), bool))
                scores = jnp.where(keep, scores, -jnp.inf)
                return jax.nn.softmax(scores, axis=-1) @ self.v(x)

        @nnx.jit
        def forward(model, x):
            return model(x)

        attn = CausalSelfAttention(8, rngs=nnx.Rngs(0))
        x = jax.random.normal(jax.random.key(1), (5, 8))
        out = forward(attn, x)
        """,
        alt_fixes=[
            """
            class CausalSelfAttention(nnx.Module):
                def __init__(self, d, *, rngs):
                    self.q = nnx.Linear(d, d, rngs=rngs)
                    self.k = nnx.Linear(d, d, rngs=rngs)
                    self.v = nnx.Linear(d, d, rngs=rngs)

                def __call__(self, x):
                    T, d = x.shape
                    scores = self.q(x) @ self.k(x).T / jnp.sqrt(d)
                    for i in range(T):
                        scores = scores.at[i, i + 1:].set(-jnp.inf)
                    return jax.nn.softmax(scores, axis=-1) @ self.v(x)

            @nnx.jit
            def forward(model, x):
                return model(x)

            attn = CausalSelfAttention(8, rngs=nnx.Rngs(0))
            x = jax.random.normal(jax.random.key(1), (5, 8))
            out = forward(attn, x)
            """,
            """
            class CausalSelfAttention(nnx.Module):
                def __init__(self, d, *, rngs):
                    self.q = nnx.Linear(d, d, rngs=rngs)
                    self.k = nnx.Linear(d, d, rngs=rngs)
                    self.v = nnx.Linear(d, d, rngs=rngs)

                def __call__(self, x):
                    T, d = x.shape
                    scores = self.q(x) @ self.k(x).T / jnp.sqrt(d)
                    causal = jnp.tril(jnp.ones((T, T), bool))
                    scores = jnp.where(causal, scores, -jnp.inf)
                    return jax.nn.softmax(scores, axis=-1) @ self.v(x)

            @nnx.jit
            def forward(model, x):
                return model(x)

            attn = CausalSelfAttention(8, rngs=nnx.Rngs(0))
            x = jax.random.normal(jax.random.key(1), (5, 8))
            out = forward(attn, x)
            """,
        ],
    ),
    case(
        "oa-setitem-xp-jacobi-dirichlet-ends", "jax-array-immutable-setitem", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/7116",
        cell="""
        import jax.numpy as xp

        @jax.jit
        def relax(u, left, right):
            for _ in range(50):
                u_new = 0.5 * (xp.roll(u, 1) + xp.roll(u, -1))
                u_new[0] = left
                u_new[-1] = right
                u = u_new
            return u

        u = relax(xp.zeros(11), 1.0, 0.0)
        """,
        check="""
        ref = np.zeros(11)
        for _ in range(50):
            new = 0.5 * (np.roll(ref, 1) + np.roll(ref, -1))
            new[0], new[-1] = 1.0, 0.0
            ref = new
        np.testing.assert_allclose(np.asarray(u), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        import jax.numpy as xp

        @jax.jit
        def relax(u, left, right):
            for _ in range(50):
                u_new = 0.5 * (xp.roll(u, 1) + xp.roll(u, -1))
                u_new = u_new.at[0].set(left)
                u = u_new
            return u

        u = relax(xp.zeros(11), 1.0, 0.0)
        """,
        alt_fixes=[
            """
            import jax.numpy as xp

            @jax.jit
            def relax(u, left, right):
                for _ in range(50):
                    u_new = 0.5 * (xp.roll(u, 1) + xp.roll(u, -1))
                    u_new = u_new.at[0].set(left)
                    u_new = u_new.at[-1].set(right)
                    u = u_new
                return u

            u = relax(xp.zeros(11), 1.0, 0.0)
            """,
            """
            import jax.numpy as xp

            @jax.jit
            def relax(u, left, right):
                for _ in range(50):
                    inner = 0.5 * (u[:-2] + u[2:])
                    u = xp.concatenate([xp.array([left]), inner, xp.array([right])])
                return u

            u = relax(xp.zeros(11), 1.0, 0.0)
            """,
        ],
    ),
    # ------------------------------------------------------------------ shape-not-concrete
    case(
        "oa-shape-kv-cache-layers-not-static", "shape-not-concrete", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/204",
        cell="""
        @partial(jax.jit, static_argnames=("max_len",))
        def init_cache(prompt_k, prompt_v, max_len, n_layers):
            b, t, d = prompt_k.shape
            k_cache = jnp.zeros((n_layers, b, max_len, d))
            v_cache = jnp.zeros((n_layers, b, max_len, d))
            k_cache = k_cache.at[:, :, :t].set(prompt_k)
            v_cache = v_cache.at[:, :, :t].set(prompt_v)
            return k_cache, v_cache

        pk = jnp.ones((2, 3, 4))
        pv = 2 * jnp.ones((2, 3, 4))
        k_cache, v_cache = init_cache(pk, pv, max_len=8, n_layers=3)
        """,
        check="""
        ref_k = np.zeros((3, 2, 8, 4)); ref_k[:, :, :3] = 1.0
        ref_v = np.zeros((3, 2, 8, 4)); ref_v[:, :, :3] = 2.0
        np.testing.assert_allclose(np.asarray(k_cache), ref_k)
        np.testing.assert_allclose(np.asarray(v_cache), ref_v)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("max_len",))
        def init_cache(prompt_k, prompt_v, max_len, n_layers):
            b, t, d = prompt_k.shape
            k_cache = jnp.zeros((b, max_len, d))
            v_cache = jnp.zeros((b, max_len, d))
            k_cache = k_cache.at[:, :t].set(prompt_k)
            v_cache = v_cache.at[:, :t].set(prompt_v)
            return k_cache, v_cache

        pk = jnp.ones((2, 3, 4))
        pv = 2 * jnp.ones((2, 3, 4))
        k_cache, v_cache = init_cache(pk, pv, max_len=8, n_layers=3)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames=("max_len", "n_layers"))
            def init_cache(prompt_k, prompt_v, max_len, n_layers):
                b, t, d = prompt_k.shape
                k_cache = jnp.zeros((n_layers, b, max_len, d))
                v_cache = jnp.zeros((n_layers, b, max_len, d))
                k_cache = k_cache.at[:, :, :t].set(prompt_k)
                v_cache = v_cache.at[:, :, :t].set(prompt_v)
                return k_cache, v_cache

            pk = jnp.ones((2, 3, 4))
            pv = 2 * jnp.ones((2, 3, 4))
            k_cache, v_cache = init_cache(pk, pv, max_len=8, n_layers=3)
            """,
            """
            @partial(jax.jit, static_argnums=(2, 3))
            def init_cache(prompt_k, prompt_v, max_len, n_layers):
                b, t, d = prompt_k.shape
                pad = ((0, 0), (0, max_len - t), (0, 0))
                k_cache = jnp.broadcast_to(jnp.pad(prompt_k, pad), (n_layers, b, max_len, d))
                v_cache = jnp.broadcast_to(jnp.pad(prompt_v, pad), (n_layers, b, max_len, d))
                return k_cache, v_cache

            pk = jnp.ones((2, 3, 4))
            pv = 2 * jnp.ones((2, 3, 4))
            k_cache, v_cache = init_cache(pk, pv, 8, 3)
            """,
        ],
    ),
    case(
        "oa-shape-earlier-jit-import-random-walks", "shape-not-concrete", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/648",
        earlier="""
        from jax import jit, random

        @jit
        def sample_walks(key, n_walkers, n_steps):
            steps = 2 * random.randint(key, (n_walkers, n_steps), 0, 2) - 1
            return jnp.cumsum(steps, axis=1)
        """,
        cell="""
        walks = sample_walks(random.key(0), 100, 50)
        msd = jnp.mean(walks[:, -1] ** 2)
        """,
        check="""
        ref = np.cumsum(2 * np.asarray(jax.random.randint(jax.random.key(0), (100, 50), 0, 2)) - 1, axis=1)
        np.testing.assert_array_equal(np.asarray(walks), ref)
        np.testing.assert_allclose(float(msd), np.mean(ref[:, -1] ** 2), rtol=1e-6)
        """,
        wrong_fix="""
        from jax import jit, random

        @partial(jit, static_argnames=("n_walkers",))
        def sample_walks(key, n_walkers, n_steps):
            steps = 2 * random.randint(key, (n_walkers, n_steps), 0, 2) - 1
            return jnp.cumsum(steps, axis=1)
        """,
        alt_fixes=[
            """
            from jax import jit, random

            @partial(jit, static_argnums=(1, 2))
            def sample_walks(key, n_walkers, n_steps):
                steps = 2 * random.randint(key, (n_walkers, n_steps), 0, 2) - 1
                return jnp.cumsum(steps, axis=1)
            """,
            """
            from jax import jit, random

            @partial(jit, static_argnames=("n_walkers", "n_steps"))
            def sample_walks(key, n_walkers, n_steps):
                steps = 2 * random.randint(key, (n_walkers, n_steps), 0, 2) - 1
                return jnp.cumsum(steps, axis=1)
            """,
        ],
    ),
    case(
        "oa-shape-jit-module-heads-reshape", "shape-not-concrete", setup=SETUP_EQX,
        source="https://github.com/patrick-kidger/equinox/issues/236",
        cell="""
        class Projections(eqx.Module):
            wq: jax.Array
            wk: jax.Array

        @jax.jit
        def head_scores(model, x, n_heads):
            T = x.shape[0]
            q = (x @ model.wq).reshape(T, n_heads, -1)
            k = (x @ model.wk).reshape(T, n_heads, -1)
            return jnp.einsum("thd,shd->hts", q, k)

        kq, kk, kx = jax.random.split(jax.random.key(0), 3)
        proj = Projections(jax.random.normal(kq, (8, 8)), jax.random.normal(kk, (8, 8)))
        x = jax.random.normal(kx, (5, 8))
        scores = head_scores(proj, x, 2)
        """,
        check="""
        xq = np.asarray(x) @ np.asarray(proj.wq); xk = np.asarray(x) @ np.asarray(proj.wk)
        ref = np.einsum("thd,shd->hts", xq.reshape(5, 2, 4), xk.reshape(5, 2, 4))
        np.testing.assert_allclose(np.asarray(scores), ref, rtol=1e-4, atol=1e-4)
        """,
        wrong_fix="""
        class Projections(eqx.Module):
            wq: jax.Array
            wk: jax.Array

        @jax.jit
        def head_scores(model, x, n_heads):
            T = x.shape[0]
            q = (x @ model.wq).reshape(T, -1, 2)
            k = (x @ model.wk).reshape(T, -1, 2)
            return jnp.einsum("thd,shd->hts", q, k)

        kq, kk, kx = jax.random.split(jax.random.key(0), 3)
        proj = Projections(jax.random.normal(kq, (8, 8)), jax.random.normal(kk, (8, 8)))
        x = jax.random.normal(kx, (5, 8))
        scores = head_scores(proj, x, 2)
        """,
        alt_fixes=[
            """
            class Projections(eqx.Module):
                wq: jax.Array
                wk: jax.Array

            @partial(jax.jit, static_argnames="n_heads")
            def head_scores(model, x, n_heads):
                T = x.shape[0]
                q = (x @ model.wq).reshape(T, n_heads, -1)
                k = (x @ model.wk).reshape(T, n_heads, -1)
                return jnp.einsum("thd,shd->hts", q, k)

            kq, kk, kx = jax.random.split(jax.random.key(0), 3)
            proj = Projections(jax.random.normal(kq, (8, 8)), jax.random.normal(kk, (8, 8)))
            x = jax.random.normal(kx, (5, 8))
            scores = head_scores(proj, x, 2)
            """,
            """
            class Projections(eqx.Module):
                wq: jax.Array
                wk: jax.Array

            @eqx.filter_jit
            def head_scores(model, x, n_heads):
                T = x.shape[0]
                q = (x @ model.wq).reshape(T, n_heads, -1)
                k = (x @ model.wk).reshape(T, n_heads, -1)
                return jnp.einsum("thd,shd->hts", q, k)

            kq, kk, kx = jax.random.split(jax.random.key(0), 3)
            proj = Projections(jax.random.normal(kq, (8, 8)), jax.random.normal(kk, (8, 8)))
            x = jax.random.normal(kx, (5, 8))
            scores = head_scores(proj, x, 2)
            """,
        ],
    ),
    case(
        "oa-shape-np-alias-prefix-sums-add", "shape-not-concrete", setup=SETUP_ONP,
        source="https://github.com/jax-ml/jax/issues/4449",
        cell="""
        from jax import numpy as np

        @jax.jit
        def prefix_sums(x):
            n = np.add(x.size, 1)
            sums = np.zeros((n,))
            counts = np.zeros((n,), dtype=np.int32)
            sums = sums.at[1:].set(np.cumsum(x))
            counts = counts.at[1:].set(np.arange(1, x.size + 1))
            return sums, counts

        sums, counts = prefix_sums(np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
        running_mean = sums[1:] / counts[1:]
        """,
        check="""
        x = onp.array([3.0, 1.0, 4.0, 1.0, 5.0])
        onp.testing.assert_allclose(onp.asarray(sums), onp.concatenate([[0.0], onp.cumsum(x)]))
        onp.testing.assert_array_equal(onp.asarray(counts), onp.arange(6))
        onp.testing.assert_allclose(onp.asarray(running_mean), onp.cumsum(x) / onp.arange(1, 6), rtol=1e-6)
        """,
        wrong_fix="""
        from jax import numpy as np

        @jax.jit
        def prefix_sums(x):
            sums = np.cumsum(x)
            counts = np.arange(1, x.size + 1)
            return sums, counts

        sums, counts = prefix_sums(np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
        running_mean = sums[1:] / counts[1:]
        """,
        alt_fixes=[
            """
            from jax import numpy as np

            @jax.jit
            def prefix_sums(x):
                n = x.size + 1
                sums = np.zeros((n,))
                counts = np.zeros((n,), dtype=np.int32)
                sums = sums.at[1:].set(np.cumsum(x))
                counts = counts.at[1:].set(np.arange(1, x.size + 1))
                return sums, counts

            sums, counts = prefix_sums(np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
            running_mean = sums[1:] / counts[1:]
            """,
            """
            from jax import numpy as np

            @jax.jit
            def prefix_sums(x):
                sums = np.concatenate([np.zeros(1), np.cumsum(x)])
                counts = np.arange(x.size + 1, dtype=np.int32)
                return sums, counts

            sums, counts = prefix_sums(np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
            running_mean = sums[1:] / counts[1:]
            """,
        ],
    ),
    # ------------------------------------------------------------------ tracer-bool-conversion
    case(
        "oa-bool-earlier-newton-while-and-if", "tracer-bool-conversion", setup=SETUP,
        source="https://github.com/data-apis/array-api/pull/999",
        earlier="""
        @jax.jit
        def newton_sqrt(a, tol=1e-5):
            x = a
            it = 0
            while abs(x * x - a) > tol and it < 50:
                x = 0.5 * (x + a / x)
                it += 1
            if it == 50:
                x = jnp.nan
            return x
        """,
        cell="""
        roots = jnp.stack([newton_sqrt(a) for a in [2.0, 9.0, 10.0, 0.25]])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(roots), np.sqrt([2.0, 9.0, 10.0, 0.25]), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def newton_sqrt(a, tol=1e-5):
            x = jnp.asarray(a)
            x = jax.lax.cond(jnp.abs(x * x - a) > tol, lambda x: 0.5 * (x + a / x), lambda x: x, x)
            return x
        """,
        alt_fixes=[
            """
            @jax.jit
            def newton_sqrt(a, tol=1e-5):
                def cond(state):
                    x, it = state
                    return (jnp.abs(x * x - a) > tol) & (it < 50)

                def body(state):
                    x, it = state
                    return 0.5 * (x + a / x), it + 1

                x, it = jax.lax.while_loop(cond, body, (jnp.asarray(a, jnp.float32), 0))
                return jnp.where(it == 50, jnp.nan, x)
            """,
            """
            @jax.jit
            def newton_sqrt(a, tol=1e-5):
                def body(i, state):
                    x, done = state
                    done = done | (jnp.abs(x * x - a) <= tol)
                    return jnp.where(done, x, 0.5 * (x + a / x)), done

                x, done = jax.lax.fori_loop(0, 50, body, (jnp.asarray(a, jnp.float32), False))
                return jax.lax.cond(done | (jnp.abs(x * x - a) <= tol), lambda: x, lambda: jnp.float32(jnp.nan))
            """,
        ],
    ),
    case(
        "oa-bool-nnx-mlp-train-flag-two-dropouts", "tracer-bool-conversion", setup=SETUP_NNX,
        source="https://github.com/google/flax/issues/4146",
        cell="""
        class MLP(nnx.Module):
            def __init__(self, *, rngs):
                self.l1 = nnx.Linear(4, 16, rngs=rngs)
                self.l2 = nnx.Linear(16, 16, rngs=rngs)
                self.out = nnx.Linear(16, 1, rngs=rngs)
                self.drop = nnx.Dropout(0.5, rngs=rngs)

            def __call__(self, x, train):
                h = nnx.relu(self.l1(x))
                if train:
                    h = self.drop(h)
                h = nnx.relu(self.l2(h))
                if train:
                    h = self.drop(h)
                return self.out(h)

        @nnx.jit
        def predict(model, x, train):
            return model(x, train)

        model = MLP(rngs=nnx.Rngs(0))
        x = jnp.linspace(-1, 1, 12).reshape(3, 4)
        y_eval = predict(model, x, False)
        y_train = predict(model, x, True)
        """,
        check="""
        def lin(layer, a):
            return a @ np.asarray(layer.kernel[...]) + np.asarray(layer.bias[...])
        xn = np.linspace(-1, 1, 12).reshape(3, 4)
        h = np.maximum(lin(model.l1, xn), 0); h = np.maximum(lin(model.l2, h), 0)
        np.testing.assert_allclose(np.asarray(y_eval), lin(model.out, h), rtol=1e-4, atol=1e-5)
        assert not np.allclose(np.asarray(y_train), np.asarray(y_eval)), "train=True must apply dropout"
        """,
        wrong_fix="""
        class MLP(nnx.Module):
            def __init__(self, *, rngs):
                self.l1 = nnx.Linear(4, 16, rngs=rngs)
                self.l2 = nnx.Linear(16, 16, rngs=rngs)
                self.out = nnx.Linear(16, 1, rngs=rngs)
                self.drop = nnx.Dropout(0.5, rngs=rngs)

            def __call__(self, x, train):
                h = nnx.relu(self.l1(x))
                if train is True:
                    h = self.drop(h)
                h = nnx.relu(self.l2(h))
                if train is True:
                    h = self.drop(h)
                return self.out(h)

        @nnx.jit
        def predict(model, x, train):
            return model(x, train)

        model = MLP(rngs=nnx.Rngs(0))
        x = jnp.linspace(-1, 1, 12).reshape(3, 4)
        y_eval = predict(model, x, False)
        y_train = predict(model, x, True)
        """,
        alt_fixes=[
            """
            class MLP(nnx.Module):
                def __init__(self, *, rngs):
                    self.l1 = nnx.Linear(4, 16, rngs=rngs)
                    self.l2 = nnx.Linear(16, 16, rngs=rngs)
                    self.out = nnx.Linear(16, 1, rngs=rngs)
                    self.drop = nnx.Dropout(0.5, rngs=rngs)

                def __call__(self, x, train):
                    h = nnx.relu(self.l1(x))
                    if train:
                        h = self.drop(h)
                    h = nnx.relu(self.l2(h))
                    if train:
                        h = self.drop(h)
                    return self.out(h)

            @partial(nnx.jit, static_argnames="train")
            def predict(model, x, train):
                return model(x, train)

            model = MLP(rngs=nnx.Rngs(0))
            x = jnp.linspace(-1, 1, 12).reshape(3, 4)
            y_eval = predict(model, x, train=False)
            y_train = predict(model, x, train=True)
            """,
            """
            class MLP(nnx.Module):
                def __init__(self, *, rngs):
                    self.l1 = nnx.Linear(4, 16, rngs=rngs)
                    self.l2 = nnx.Linear(16, 16, rngs=rngs)
                    self.out = nnx.Linear(16, 1, rngs=rngs)
                    self.drop = nnx.Dropout(0.5, rngs=rngs)

                def __call__(self, x, train):
                    h = nnx.relu(self.l1(x))
                    h = jnp.where(train, self.drop(h), h)
                    h = nnx.relu(self.l2(h))
                    h = jnp.where(train, self.drop(h), h)
                    return self.out(h)

            @nnx.jit
            def predict(model, x, train):
                return model(x, train)

            model = MLP(rngs=nnx.Rngs(0))
            x = jnp.linspace(-1, 1, 12).reshape(3, 4)
            y_eval = predict(model, x, False)
            y_train = predict(model, x, True)
            """,
        ],
    ),
    case(
        "oa-bool-mandelbrot-early-return-jit-vmap", "tracer-bool-conversion", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/24740",
        cell="""
        def escape_time(c, max_iter=30):
            z = 0j
            for i in range(max_iter):
                z = z * z + c
                if jnp.abs(z) > 2.0:
                    return i
            return max_iter

        escape = jax.jit(jax.vmap(escape_time))
        cs = jnp.array([0.0 + 0j, -0.75 + 0.1j, 0.3 + 0.5j, 1.0 + 1.0j, -2.0 + 0j, 0.26 + 0j])
        counts = escape(cs)
        """,
        check="""
        def ref(c, max_iter=30):
            z = 0j
            for i in range(max_iter):
                z = z * z + c
                if abs(z) > 2.0:
                    return i
            return max_iter
        cs_np = np.asarray(cs).astype(np.complex64)
        np.testing.assert_array_equal(np.asarray(counts), [ref(c) for c in cs_np])
        """,
        wrong_fix="""
        def escape_time(c, max_iter=30):
            z = 0j
            n = max_iter
            for i in range(max_iter):
                z = z * z + c
                n = jnp.where(jnp.abs(z) > 2.0, i, n)
            return n

        escape = jax.jit(jax.vmap(escape_time))
        cs = jnp.array([0.0 + 0j, -0.75 + 0.1j, 0.3 + 0.5j, 1.0 + 1.0j, -2.0 + 0j, 0.26 + 0j])
        counts = escape(cs)
        """,
        alt_fixes=[
            """
            def escape_time(c, max_iter=30):
                z = 0j
                n = max_iter
                for i in range(max_iter):
                    z = z * z + c
                    n = jnp.where((jnp.abs(z) > 2.0) & (n == max_iter), i, n)
                return n

            escape = jax.jit(jax.vmap(escape_time))
            cs = jnp.array([0.0 + 0j, -0.75 + 0.1j, 0.3 + 0.5j, 1.0 + 1.0j, -2.0 + 0j, 0.26 + 0j])
            counts = escape(cs)
            """,
            """
            def escape_time(c, max_iter=30):
                def cond(state):
                    z, i, escaped = state
                    return (i < max_iter) & ~escaped

                def body(state):
                    z, i, escaped = state
                    z = z * z + c
                    escaped = jnp.abs(z) > 2.0
                    return z, jnp.where(escaped, i, i + 1), escaped

                _, i, _ = jax.lax.while_loop(cond, body, (jnp.complex64(0), 0, False))
                return i

            escape = jax.jit(jax.vmap(escape_time))
            cs = jnp.array([0.0 + 0j, -0.75 + 0.1j, 0.3 + 0.5j, 1.0 + 1.0j, -2.0 + 0j, 0.26 + 0j])
            counts = escape(cs)
            """,
        ],
    ),
    case(
        "oa-bool-lax-alias-adaptive-proposal-scale", "tracer-bool-conversion", setup=SETUP,
        source="https://github.com/mlysy/pfjax/issues/3",
        cell="""
        import jax.lax as L

        def adapt(i, state):
            rw_sd, accept = state
            delta = 0.5 / jnp.sqrt(i + 1.0)
            if accept[i] < 0.44:
                rw_sd = rw_sd * jnp.exp(-delta)
            else:
                rw_sd = rw_sd * jnp.exp(delta)
            return rw_sd, accept

        accept_rates = jnp.array([0.1, 0.2, 0.6, 0.5, 0.3, 0.45, 0.44, 0.9])
        rw_sd, _ = L.fori_loop(0, accept_rates.shape[0], adapt, (jnp.float32(1.0), accept_rates))
        """,
        check="""
        sd = 1.0
        for i, a in enumerate(np.asarray(accept_rates)):
            d = 0.5 / np.sqrt(i + 1.0)
            sd = sd * np.exp(-d) if a < np.float32(0.44) else sd * np.exp(d)
        np.testing.assert_allclose(float(rw_sd), sd, rtol=1e-5)
        """,
        wrong_fix="""
        import jax.lax as L

        def adapt(i, state):
            rw_sd, accept = state
            delta = 0.5 / jnp.sqrt(i + 1.0)
            rw_sd = rw_sd * jnp.exp(-delta * (accept[i] < 0.44))
            return rw_sd, accept

        accept_rates = jnp.array([0.1, 0.2, 0.6, 0.5, 0.3, 0.45, 0.44, 0.9])
        rw_sd, _ = L.fori_loop(0, accept_rates.shape[0], adapt, (jnp.float32(1.0), accept_rates))
        """,
        alt_fixes=[
            """
            import jax.lax as L

            def adapt(i, state):
                rw_sd, accept = state
                delta = 0.5 / jnp.sqrt(i + 1.0)
                rw_sd = rw_sd * jnp.exp(jnp.where(accept[i] < 0.44, -delta, delta))
                return rw_sd, accept

            accept_rates = jnp.array([0.1, 0.2, 0.6, 0.5, 0.3, 0.45, 0.44, 0.9])
            rw_sd, _ = L.fori_loop(0, accept_rates.shape[0], adapt, (jnp.float32(1.0), accept_rates))
            """,
            """
            import jax.lax as L

            def adapt(i, state):
                rw_sd, accept = state
                delta = 0.5 / jnp.sqrt(i + 1.0)
                rw_sd = L.cond(accept[i] < 0.44,
                               lambda s: s * jnp.exp(-delta),
                               lambda s: s * jnp.exp(delta),
                               rw_sd)
                return rw_sd, accept

            accept_rates = jnp.array([0.1, 0.2, 0.6, 0.5, 0.3, 0.45, 0.44, 0.9])
            rw_sd, _ = L.fori_loop(0, accept_rates.shape[0], adapt, (jnp.float32(1.0), accept_rates))
            """,
        ],
    ),
    # ------------------------------------------------------------------ concretization-arange
    case(
        "oa-arange-earlier-fixed-step-solver-scan", "concretization-arange", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/5017",
        earlier="""
        def fixed_step_solve(rhs, t_span, y0, max_dt):
            delta_t = t_span[1] - t_span[0]
            steps = (delta_t // max_dt).astype(int)
            h = delta_t / steps

            def body(y, k):
                t = t_span[0] + h * k
                return y + h * rhs(t, y), None

            y_final, _ = jax.lax.scan(body, y0, jnp.arange(steps))
            return y_final

        @jax.jit
        def simulate(coeff, t_final):
            return fixed_step_solve(lambda t, y: coeff * y, jnp.array([0.0, t_final]), jnp.float32(1.0), 0.25)
        """,
        cell="""
        y1 = simulate(-0.5, 1.0)
        y2 = simulate(-0.5, 2.0)
        """,
        check="""
        np.testing.assert_allclose(float(y1), (1 - 0.25 * 0.5) ** 4, rtol=1e-5)
        np.testing.assert_allclose(float(y2), (1 - 0.25 * 0.5) ** 8, rtol=1e-5)
        """,
        wrong_fix="""
        def fixed_step_solve(rhs, t_span, y0, max_dt):
            delta_t = t_span[1] - t_span[0]
            steps = (delta_t // max_dt).astype(int)
            h = delta_t / steps

            def body(y, k):
                t = t_span[0] + h * k
                return y + h * rhs(t, y), None

            y_final, _ = jax.lax.scan(body, y0, jnp.arange(4))
            return y_final

        @jax.jit
        def simulate(coeff, t_final):
            return fixed_step_solve(lambda t, y: coeff * y, jnp.array([0.0, t_final]), jnp.float32(1.0), 0.25)
        """,
        alt_fixes=[
            """
            def fixed_step_solve(rhs, t_span, y0, max_dt):
                delta_t = t_span[1] - t_span[0]
                steps = (delta_t // max_dt).astype(int)
                h = delta_t / steps

                def body(k, y):
                    t = t_span[0] + h * k
                    return y + h * rhs(t, y)

                return jax.lax.fori_loop(0, steps, body, y0)

            @jax.jit
            def simulate(coeff, t_final):
                return fixed_step_solve(lambda t, y: coeff * y, jnp.array([0.0, t_final]), jnp.float32(1.0), 0.25)
            """,
            """
            def fixed_step_solve(rhs, t_span, y0, max_dt):
                delta_t = t_span[1] - t_span[0]
                steps = int(delta_t // max_dt)
                h = delta_t / steps

                def body(y, k):
                    t = t_span[0] + h * k
                    return y + h * rhs(t, y), None

                y_final, _ = jax.lax.scan(body, y0, jnp.arange(steps))
                return y_final

            @partial(jax.jit, static_argnames="t_final")
            def simulate(coeff, t_final):
                return fixed_step_solve(lambda t, y: coeff * y, (0.0, t_final), jnp.float32(1.0), 0.25)
            """,
        ],
    ),
    case(
        "oa-arange-np-alias-psf-pixel-grid", "concretization-arange", setup=SETUP_ONP,
        source="https://github.com/LouisDesdoigts/dLux/issues/260",
        cell="""
        from jax import numpy as np

        @jax.jit
        def gaussian_psf(nx, ny, pixel_scale, sigma):
            xs = (np.arange(nx) - (nx - 1) / 2.0) * pixel_scale
            ys = (np.arange(ny) - (ny - 1) / 2.0) * pixel_scale
            X, Y = np.meshgrid(xs, ys)
            psf = np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))
            return psf / psf.sum()

        psf = gaussian_psf(5, 4, 0.5, 1.0)
        """,
        check="""
        xs = (onp.arange(5) - 2.0) * 0.5; ys = (onp.arange(4) - 1.5) * 0.5
        X, Y = onp.meshgrid(xs, ys)
        ref = onp.exp(-(X ** 2 + Y ** 2) / 2.0); ref /= ref.sum()
        onp.testing.assert_allclose(onp.asarray(psf), ref, rtol=1e-5)
        """,
        wrong_fix="""
        from jax import numpy as np

        @partial(jax.jit, static_argnames="nx")
        def gaussian_psf(nx, ny, pixel_scale, sigma):
            xs = (np.arange(nx) - (nx - 1) / 2.0) * pixel_scale
            ys = (np.arange(ny) - (ny - 1) / 2.0) * pixel_scale
            X, Y = np.meshgrid(xs, ys)
            psf = np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))
            return psf / psf.sum()

        psf = gaussian_psf(5, 4, 0.5, 1.0)
        """,
        alt_fixes=[
            """
            from jax import numpy as np

            @partial(jax.jit, static_argnames=("nx", "ny"))
            def gaussian_psf(nx, ny, pixel_scale, sigma):
                xs = (np.arange(nx) - (nx - 1) / 2.0) * pixel_scale
                ys = (np.arange(ny) - (ny - 1) / 2.0) * pixel_scale
                X, Y = np.meshgrid(xs, ys)
                psf = np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))
                return psf / psf.sum()

            psf = gaussian_psf(5, 4, 0.5, 1.0)
            """,
            """
            from jax import numpy as np

            def gaussian_psf(nx, ny, pixel_scale, sigma):
                return _psf(nx, ny, pixel_scale, sigma)

            @partial(jax.jit, static_argnums=(0, 1))
            def _psf(nx, ny, pixel_scale, sigma):
                half_x, half_y = (nx - 1) / 2.0 * pixel_scale, (ny - 1) / 2.0 * pixel_scale
                X, Y = np.meshgrid(np.linspace(-half_x, half_x, nx), np.linspace(-half_y, half_y, ny))
                psf = np.exp(-(X ** 2 + Y ** 2) / (2 * sigma ** 2))
                return psf / psf.sum()

            psf = gaussian_psf(5, 4, 0.5, 1.0)
            """,
        ],
    ),
    case(
        "oa-arange-method-static-self-only", "concretization-arange", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/19433",
        cell="""
        class Smoother:
            def __init__(self, sigma):
                self.sigma = sigma

            @partial(jax.jit, static_argnames=("self",))
            def kernel(self, half_width):
                t = jnp.arange(-half_width, half_width + 1)
                k = jnp.exp(-0.5 * (t / self.sigma) ** 2)
                return k / k.sum()

            def __call__(self, x, half_width):
                return jnp.convolve(x, self.kernel(half_width), mode="same")

        sm = Smoother(1.5)
        y = sm(jnp.sin(jnp.linspace(0, 6, 40)), 3)
        """,
        check="""
        t = np.arange(-3, 4); k = np.exp(-0.5 * (t / 1.5) ** 2); k /= k.sum()
        ref = np.convolve(np.sin(np.linspace(0, 6, 40)), k, mode="same")
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Smoother:
            def __init__(self, sigma):
                self.sigma = sigma

            @partial(jax.jit, static_argnames=("half_width",))
            def kernel(self, half_width):
                t = jnp.arange(-half_width, half_width + 1)
                k = jnp.exp(-0.5 * (t / self.sigma) ** 2)
                return k / k.sum()

            def __call__(self, x, half_width):
                return jnp.convolve(x, self.kernel(half_width), mode="same")

        sm = Smoother(1.5)
        y = sm(jnp.sin(jnp.linspace(0, 6, 40)), 3)
        """,
        alt_fixes=[
            """
            class Smoother:
                def __init__(self, sigma):
                    self.sigma = sigma

                @partial(jax.jit, static_argnames=("self", "half_width"))
                def kernel(self, half_width):
                    t = jnp.arange(-half_width, half_width + 1)
                    k = jnp.exp(-0.5 * (t / self.sigma) ** 2)
                    return k / k.sum()

                def __call__(self, x, half_width):
                    return jnp.convolve(x, self.kernel(half_width), mode="same")

            sm = Smoother(1.5)
            y = sm(jnp.sin(jnp.linspace(0, 6, 40)), 3)
            """,
            """
            class Smoother:
                def __init__(self, sigma):
                    self.sigma = sigma

                @partial(jax.jit, static_argnums=(0, 1))
                def kernel(self, half_width):
                    t = jnp.arange(-half_width, half_width + 1)
                    k = jnp.exp(-0.5 * (t / self.sigma) ** 2)
                    return k / k.sum()

                def __call__(self, x, half_width):
                    return jnp.convolve(x, self.kernel(half_width), mode="same")

            sm = Smoother(1.5)
            y = sm(jnp.sin(jnp.linspace(0, 6, 40)), 3)
            """,
        ],
    ),
    # ------------------------------------------------------------------ concretization-linspace-num
    case(
        "oa-linspace-time-and-space-grids", "concretization-linspace-num", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/5208",
        cell="""
        @jax.jit
        def make_grids():
            t0, tf, dt = 0.0, 1.0, 0.1
            x0, xf, dx = -1.0, 1.0, 0.25
            n_t = jnp.maximum(jnp.abs((tf - t0) / dt), 1).astype(int)
            n_x = jnp.maximum(jnp.abs((xf - x0) / dx), 1).astype(int)
            ts = jnp.linspace(t0, tf, n_t + 1)
            xs = jnp.linspace(x0, xf, n_x + 1)
            return ts, xs

        ts, xs = make_grids()
        T, X = jnp.meshgrid(ts, xs, indexing="ij")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ts), np.linspace(0.0, 1.0, 11), atol=1e-6)
        np.testing.assert_allclose(np.asarray(xs), np.linspace(-1.0, 1.0, 9), atol=1e-6)
        assert T.shape == (11, 9) and X.shape == (11, 9)
        """,
        wrong_fix="""
        @jax.jit
        def make_grids():
            t0, tf, dt = 0.0, 1.0, 0.1
            x0, xf, dx = -1.0, 1.0, 0.25
            ts = jnp.arange(t0, tf, dt)
            xs = jnp.arange(x0, xf, dx)
            return ts, xs

        ts, xs = make_grids()
        T, X = jnp.meshgrid(ts, xs, indexing="ij")
        """,
        alt_fixes=[
            """
            @jax.jit
            def make_grids():
                t0, tf, dt = 0.0, 1.0, 0.1
                x0, xf, dx = -1.0, 1.0, 0.25
                n_t = max(int(round(abs((tf - t0) / dt))), 1)
                n_x = max(int(round(abs((xf - x0) / dx))), 1)
                ts = jnp.linspace(t0, tf, n_t + 1)
                xs = jnp.linspace(x0, xf, n_x + 1)
                return ts, xs

            ts, xs = make_grids()
            T, X = jnp.meshgrid(ts, xs, indexing="ij")
            """,
            """
            @jax.jit
            def make_grids():
                t0, tf, dt = 0.0, 1.0, 0.1
                x0, xf, dx = -1.0, 1.0, 0.25
                n_t = np.maximum(np.rint(np.abs((tf - t0) / dt)), 1).astype(int)
                n_x = np.maximum(np.rint(np.abs((xf - x0) / dx)), 1).astype(int)
                ts = jnp.linspace(t0, tf, int(n_t) + 1)
                xs = jnp.linspace(x0, xf, int(n_x) + 1)
                return ts, xs

            ts, xs = make_grids()
            T, X = jnp.meshgrid(ts, xs, indexing="ij")
            """,
        ],
    ),
    case(
        "oa-linspace-earlier-soft-histogram-bins", "concretization-linspace-num", setup=SETUP + """
samples = jax.random.normal(jax.random.key(3), (200,))
""",
        source="written for the shape: the number of histogram bins passed as an argument to a function wrapped with `f = jax.jit(g)`",
        earlier="""
        def soft_histogram(x, n_bins, bandwidth=0.2):
            edges = jnp.linspace(x.min(), x.max(), n_bins + 1)
            centers = 0.5 * (edges[1:] + edges[:-1])
            w = jnp.exp(-0.5 * ((x[:, None] - centers[None, :]) / bandwidth) ** 2)
            return centers, w.sum(0) / w.sum()

        soft_hist = jax.jit(soft_histogram)
        """,
        cell="""
        centers, density = soft_hist(samples, 8)
        centers5, density5 = soft_hist(samples, 5)
        """,
        check="""
        def ref(x, n_bins, bw=0.2):
            x = np.asarray(x, np.float64)
            e = np.linspace(x.min(), x.max(), n_bins + 1); c = 0.5 * (e[1:] + e[:-1])
            w = np.exp(-0.5 * ((x[:, None] - c[None, :]) / bw) ** 2)
            return c, w.sum(0) / w.sum()
        for (c, d), n in [((centers, density), 8), ((centers5, density5), 5)]:
            rc, rd = ref(samples, n)
            np.testing.assert_allclose(np.asarray(c), rc, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(d), rd, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        def soft_histogram(x, n_bins, bandwidth=0.2):
            edges = jnp.linspace(x.min(), x.max(), 9)
            centers = 0.5 * (edges[1:] + edges[:-1])
            w = jnp.exp(-0.5 * ((x[:, None] - centers[None, :]) / bandwidth) ** 2)
            return centers, w.sum(0) / w.sum()

        soft_hist = jax.jit(soft_histogram)
        """,
        alt_fixes=[
            """
            def soft_histogram(x, n_bins, bandwidth=0.2):
                edges = jnp.linspace(x.min(), x.max(), n_bins + 1)
                centers = 0.5 * (edges[1:] + edges[:-1])
                w = jnp.exp(-0.5 * ((x[:, None] - centers[None, :]) / bandwidth) ** 2)
                return centers, w.sum(0) / w.sum()

            soft_hist = jax.jit(soft_histogram, static_argnums=1)
            """,
            """
            def soft_histogram(x, n_bins, bandwidth=0.2):
                frac = (jnp.arange(n_bins) + 0.5) / n_bins
                centers = x.min() + frac * (x.max() - x.min())
                w = jnp.exp(-0.5 * ((x[:, None] - centers[None, :]) / bandwidth) ** 2)
                return centers, w.sum(0) / w.sum()

            soft_hist = jax.jit(soft_histogram, static_argnames="n_bins")
            """,
        ],
    ),
    case(
        "oa-linspace-eqx-int-field-under-jax-jit", "concretization-linspace-num", setup=SETUP_EQX,
        source="https://github.com/patrick-kidger/equinox/issues/1062",
        cell="""
        class RadialProfile(eqx.Module):
            amplitude: jax.Array
            scale: jax.Array
            n_quad: int = 64

            def __call__(self, r_max):
                r = jnp.linspace(0.0, r_max, self.n_quad)
                rho = self.amplitude * jnp.exp(-r / self.scale)
                return jnp.trapezoid(4 * jnp.pi * r ** 2 * rho, r)

        @jax.jit
        def enclosed_mass(model, r_max):
            return model(r_max)

        profile = RadialProfile(jnp.array(2.0), jnp.array(0.5), n_quad=16)
        m = enclosed_mass(profile, 3.0)
        """,
        check="""
        r = np.linspace(0.0, 3.0, 16)
        np.testing.assert_allclose(float(m), np.trapezoid(4 * np.pi * r ** 2 * 2.0 * np.exp(-r / 0.5), r), rtol=1e-5)
        """,
        wrong_fix="""
        class RadialProfile(eqx.Module):
            amplitude: jax.Array
            scale: jax.Array
            n_quad: int = 64

            def __call__(self, r_max):
                r = jnp.linspace(0.0, r_max, 64)
                rho = self.amplitude * jnp.exp(-r / self.scale)
                return jnp.trapezoid(4 * jnp.pi * r ** 2 * rho, r)

        @jax.jit
        def enclosed_mass(model, r_max):
            return model(r_max)

        profile = RadialProfile(jnp.array(2.0), jnp.array(0.5), n_quad=16)
        m = enclosed_mass(profile, 3.0)
        """,
        alt_fixes=[
            """
            class RadialProfile(eqx.Module):
                amplitude: jax.Array
                scale: jax.Array
                n_quad: int = 64

                def __call__(self, r_max):
                    r = jnp.linspace(0.0, r_max, self.n_quad)
                    rho = self.amplitude * jnp.exp(-r / self.scale)
                    return jnp.trapezoid(4 * jnp.pi * r ** 2 * rho, r)

            @eqx.filter_jit
            def enclosed_mass(model, r_max):
                return model(r_max)

            profile = RadialProfile(jnp.array(2.0), jnp.array(0.5), n_quad=16)
            m = enclosed_mass(profile, 3.0)
            """,
            """
            class RadialProfile(eqx.Module):
                amplitude: jax.Array
                scale: jax.Array
                n_quad: int = eqx.field(static=True, default=64)

                def __call__(self, r_max):
                    r = jnp.linspace(0.0, r_max, self.n_quad)
                    rho = self.amplitude * jnp.exp(-r / self.scale)
                    return jnp.trapezoid(4 * jnp.pi * r ** 2 * rho, r)

            @jax.jit
            def enclosed_mass(model, r_max):
                return model(r_max)

            profile = RadialProfile(jnp.array(2.0), jnp.array(0.5), n_quad=16)
            m = enclosed_mass(profile, 3.0)
            """,
        ],
    ),
    # ------------------------------------------------------------------ traced-slice-bounds
    case(
        "oa-slice-fori-windowed-correlation", "traced-slice-bounds", setup=SETUP + """
kx, ky = jax.random.split(jax.random.key(0))
x = jax.random.normal(kx, (30,))
y = 0.5 * x + jax.random.normal(ky, (30,))
""",
        source="https://github.com/jax-ml/jax/issues/7222",
        cell="""
        @jax.jit
        def rolling_corr(x, y):
            w = 6
            n = x.shape[0] - w + 1
            def body(i, out):
                xw = x[i:i + w]
                yw = y[i:i + w]
                return out.at[i].set(jnp.corrcoef(xw, yw)[0, 1])
            return jax.lax.fori_loop(0, n, body, jnp.zeros(n))

        corr = rolling_corr(x, y)
        """,
        check="""
        xn, yn = np.asarray(x, np.float64), np.asarray(y, np.float64)
        ref = [np.corrcoef(xn[i:i + 6], yn[i:i + 6])[0, 1] for i in range(25)]
        np.testing.assert_allclose(np.asarray(corr), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def rolling_corr(x, y):
            w = 6
            n = x.shape[0] - w + 1
            def body(i, out):
                xw = jax.lax.dynamic_slice_in_dim(x, i, w)
                yw = y[i:i + w]
                return out.at[i].set(jnp.corrcoef(xw, yw)[0, 1])
            return jax.lax.fori_loop(0, n, body, jnp.zeros(n))

        corr = rolling_corr(x, y)
        """,
        alt_fixes=[
            """
            @jax.jit
            def rolling_corr(x, y):
                w = 6
                n = x.shape[0] - w + 1
                def body(i, out):
                    xw = jax.lax.dynamic_slice_in_dim(x, i, w)
                    yw = jax.lax.dynamic_slice_in_dim(y, i, w)
                    return out.at[i].set(jnp.corrcoef(xw, yw)[0, 1])
                return jax.lax.fori_loop(0, n, body, jnp.zeros(n))

            corr = rolling_corr(x, y)
            """,
            """
            @jax.jit
            def rolling_corr(x, y):
                w = 6
                n = x.shape[0] - w + 1
                idx = jnp.arange(n)[:, None] + jnp.arange(w)[None, :]
                return jax.vmap(lambda a, b: jnp.corrcoef(a, b)[0, 1])(x[idx], y[idx])

            corr = rolling_corr(x, y)
            """,
        ],
    ),
    case(
        "oa-slice-method-kv-cache-window", "traced-slice-bounds", setup=SETUP + """
kk, kv, kq = jax.random.split(jax.random.key(7), 3)
K = jax.random.normal(kk, (10, 4))
V = jax.random.normal(kv, (10, 4))
q = jax.random.normal(kq, (4,))
""",
        source="https://github.com/AakashKumarNain/mistral_jax/issues/1",
        cell="""
        class KVCache:
            def __init__(self, k, v):
                self.k = k
                self.v = v

            @partial(jax.jit, static_argnums=(0, 3))
            def attend_window(self, start, q, length):
                k = self.k[start:start + length]
                v = self.v[start:start + length]
                att = jax.nn.softmax(k @ q / jnp.sqrt(q.shape[-1]))
                return att @ v

        cache = KVCache(K, V)
        outs = jnp.stack([cache.attend_window(s, q, 4) for s in range(0, 7, 2)])
        """,
        check="""
        Kn, Vn, qn = np.asarray(K, np.float64), np.asarray(V, np.float64), np.asarray(q, np.float64)
        ref = []
        for s in range(0, 7, 2):
            a = Kn[s:s + 4] @ qn / 2.0
            a = np.exp(a - a.max()); a /= a.sum()
            ref.append(a @ Vn[s:s + 4])
        np.testing.assert_allclose(np.asarray(outs), np.stack(ref), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class KVCache:
            def __init__(self, k, v):
                self.k = k
                self.v = v

            @partial(jax.jit, static_argnums=(0, 3))
            def attend_window(self, start, q, length):
                k = jax.lax.dynamic_slice_in_dim(self.k, start, length)
                v = self.v[:length]
                att = jax.nn.softmax(k @ q / jnp.sqrt(q.shape[-1]))
                return att @ v

        cache = KVCache(K, V)
        outs = jnp.stack([cache.attend_window(s, q, 4) for s in range(0, 7, 2)])
        """,
        alt_fixes=[
            """
            class KVCache:
                def __init__(self, k, v):
                    self.k = k
                    self.v = v

                @partial(jax.jit, static_argnums=(0, 3))
                def attend_window(self, start, q, length):
                    k = jax.lax.dynamic_slice_in_dim(self.k, start, length)
                    v = jax.lax.dynamic_slice_in_dim(self.v, start, length)
                    att = jax.nn.softmax(k @ q / jnp.sqrt(q.shape[-1]))
                    return att @ v

            cache = KVCache(K, V)
            outs = jnp.stack([cache.attend_window(s, q, 4) for s in range(0, 7, 2)])
            """,
            """
            class KVCache:
                def __init__(self, k, v):
                    self.k = k
                    self.v = v

                @partial(jax.jit, static_argnums=(0, 1, 3))
                def attend_window(self, start, q, length):
                    k = self.k[start:start + length]
                    v = self.v[start:start + length]
                    att = jax.nn.softmax(k @ q / jnp.sqrt(q.shape[-1]))
                    return att @ v

            cache = KVCache(K, V)
            outs = jnp.stack([cache.attend_window(s, q, 4) for s in range(0, 7, 2)])
            """,
        ],
    ),
    case(
        "oa-slice-earlier-head-tail-sums", "traced-slice-bounds", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/1007",
        earlier="""
        @jax.jit
        def split_sums(a, k):
            head = jnp.sum(a[:k])
            tail = jnp.sum(a[k:])
            return head, tail
        """,
        cell="""
        a = jnp.arange(1.0, 11.0)
        pairs = [split_sums(a, k) for k in (2, 4, 7)]
        ratios = jnp.array([h / t for h, t in pairs])
        """,
        check="""
        an = np.arange(1.0, 11.0)
        for (h, t), k in zip(pairs, (2, 4, 7)):
            np.testing.assert_allclose([float(h), float(t)], [an[:k].sum(), an[k:].sum()], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(ratios), [an[:k].sum() / an[k:].sum() for k in (2, 4, 7)], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def split_sums(a, k):
            idx = jnp.arange(a.shape[0])
            head = jnp.sum(jnp.where(idx < k, a, 0))
            tail = jnp.sum(jnp.where(idx > k, a, 0))
            return head, tail
        """,
        alt_fixes=[
            """
            @jax.jit
            def split_sums(a, k):
                idx = jnp.arange(a.shape[0])
                head = jnp.sum(jnp.where(idx < k, a, 0))
                tail = jnp.sum(jnp.where(idx >= k, a, 0))
                return head, tail
            """,
            """
            @partial(jax.jit, static_argnums=1)
            def split_sums(a, k):
                head = jnp.sum(a[:k])
                tail = jnp.sum(a[k:])
                return head, tail
            """,
        ],
    ),
    case(
        "oa-slice-xp-stft-frame-at-hop", "traced-slice-bounds", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/4309",
        cell="""
        import jax.numpy as xp

        @jax.jit
        def frame_energy(signal, frame_idx):
            hop, n_fft = 4, 8
            start = frame_idx * hop
            frame = signal[start:start + n_fft] * xp.hanning(n_fft)
            return xp.sum(xp.abs(xp.fft.rfft(frame)) ** 2)

        sig = xp.sin(0.3 * xp.arange(64.0)) * xp.linspace(0.0, 1.0, 64)
        energies = xp.stack([frame_energy(sig, i) for i in range(10)])
        """,
        check="""
        s = np.sin(0.3 * np.arange(64.0)) * np.linspace(0.0, 1.0, 64)
        ref = [np.sum(np.abs(np.fft.rfft(s[4 * i:4 * i + 8] * np.hanning(8))) ** 2) for i in range(10)]
        np.testing.assert_allclose(np.asarray(energies), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        import jax.numpy as xp

        @jax.jit
        def frame_energy(signal, frame_idx):
            hop, n_fft = 4, 8
            frame = jax.lax.dynamic_slice(signal, (frame_idx,), (n_fft,)) * xp.hanning(n_fft)
            return xp.sum(xp.abs(xp.fft.rfft(frame)) ** 2)

        sig = xp.sin(0.3 * xp.arange(64.0)) * xp.linspace(0.0, 1.0, 64)
        energies = xp.stack([frame_energy(sig, i) for i in range(10)])
        """,
        alt_fixes=[
            """
            import jax.numpy as xp

            @jax.jit
            def frame_energy(signal, frame_idx):
                hop, n_fft = 4, 8
                start = frame_idx * hop
                frame = jax.lax.dynamic_slice(signal, (start,), (n_fft,)) * xp.hanning(n_fft)
                return xp.sum(xp.abs(xp.fft.rfft(frame)) ** 2)

            sig = xp.sin(0.3 * xp.arange(64.0)) * xp.linspace(0.0, 1.0, 64)
            energies = xp.stack([frame_energy(sig, i) for i in range(10)])
            """,
            """
            import jax.numpy as xp

            @partial(jax.jit, static_argnums=1)
            def frame_energy(signal, frame_idx):
                hop, n_fft = 4, 8
                start = frame_idx * hop
                frame = signal[start:start + n_fft] * xp.hanning(n_fft)
                return xp.sum(xp.abs(xp.fft.rfft(frame)) ** 2)

            sig = xp.sin(0.3 * xp.arange(64.0)) * xp.linspace(0.0, 1.0, 64)
            energies = xp.stack([frame_energy(sig, i) for i in range(10)])
            """,
        ],
    ),
    # ------------------------------------------------------------------ non-concrete-boolean-index
    case(
        "oa-boolmask-masked-mse-pred-and-target", "non-concrete-boolean-index", setup=SETUP + """
kx, kw = jax.random.split(jax.random.key(1))
X = jax.random.normal(kx, (12, 3))
y = X @ jnp.array([1.0, -2.0, 0.5]) + 0.3
valid = jnp.array([True, True, False, True, False, True, True, True, False, True, True, False])
w = jnp.zeros(3)
""",
        source="https://github.com/PlasmaControl/DESC/issues/625",
        cell="""
        @jax.jit
        def masked_mse(pred, target, valid):
            p = pred[valid]
            t = target[valid]
            return jnp.mean((p - t) ** 2)

        def loss_fn(w, X, y, valid):
            return masked_mse(X @ w, y, valid)

        loss, grad = jax.value_and_grad(loss_fn)(w, X, y, valid)
        """,
        check="""
        Xn, yn, vn = np.asarray(X, np.float64), np.asarray(y, np.float64), np.asarray(valid)
        r = Xn[vn] @ np.zeros(3) - yn[vn]
        np.testing.assert_allclose(float(loss), np.mean(r ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(grad), 2 * Xn[vn].T @ r / vn.sum(), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def masked_mse(pred, target, valid):
            return jnp.mean(jnp.where(valid, (pred - target) ** 2, 0.0))

        def loss_fn(w, X, y, valid):
            return masked_mse(X @ w, y, valid)

        loss, grad = jax.value_and_grad(loss_fn)(w, X, y, valid)
        """,
        alt_fixes=[
            """
            @jax.jit
            def masked_mse(pred, target, valid):
                se = jnp.where(valid, (pred - target) ** 2, 0.0)
                return se.sum() / valid.sum()

            def loss_fn(w, X, y, valid):
                return masked_mse(X @ w, y, valid)

            loss, grad = jax.value_and_grad(loss_fn)(w, X, y, valid)
            """,
            """
            @jax.jit
            def masked_mse(pred, target, valid):
                return jnp.mean((pred - target) ** 2, where=valid)

            def loss_fn(w, X, y, valid):
                return masked_mse(X @ w, y, valid)

            loss, grad = jax.value_and_grad(loss_fn)(w, X, y, valid)
            """,
        ],
    ),
    case(
        "oa-boolmask-earlier-jit-import-trimmed-mean", "non-concrete-boolean-index", setup=SETUP + """
data = jnp.concatenate([jnp.linspace(-1.0, 1.0, 21), jnp.array([15.0, -12.0])])
""",
        source="https://evox.readthedocs.io/en/v0.9.1-dev/_sources/guide/developer/2-jit-able.md",
        earlier="""
        from jax import jit

        @jit
        def robust_mean(x):
            mu, sd = x.mean(), x.std()
            kept = x[jnp.abs(x - mu) < 2 * sd]
            return kept.mean()
        """,
        cell="""
        m = robust_mean(data)
        m_shift = robust_mean(data + 3.0)
        """,
        check="""
        d = np.asarray(data, np.float64)
        ref = d[np.abs(d - d.mean()) < 2 * d.std()].mean()
        np.testing.assert_allclose(float(m), ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(float(m_shift), ref + 3.0, rtol=1e-5, atol=1e-5)
        """,
        wrong_fix="""
        from jax import jit

        @jit
        def robust_mean(x):
            mu, sd = x.mean(), x.std()
            return jnp.clip(x, mu - 2 * sd, mu + 2 * sd).mean()
        """,
        alt_fixes=[
            """
            from jax import jit

            @jit
            def robust_mean(x):
                mu, sd = x.mean(), x.std()
                keep = jnp.abs(x - mu) < 2 * sd
                return jnp.mean(x, where=keep)
            """,
            """
            from jax import jit

            @jit
            def robust_mean(x):
                mu, sd = x.mean(), x.std()
                keep = jnp.abs(x - mu) < 2 * sd
                return jnp.sum(jnp.where(keep, x, 0.0)) / jnp.sum(keep)
            """,
        ],
    ),
    case(
        "oa-boolmask-nnx-mean-pool-skip-padding", "non-concrete-boolean-index", setup=SETUP_NNX,
        source="written for the shape: mean-pooling token embeddings with `h[tokens != pad]` inside a Flax NNX `__call__` under nnx.jit",
        cell="""
        class BagOfEmbeddings(nnx.Module):
            def __init__(self, vocab, dim, *, rngs):
                self.embed = nnx.Embed(vocab, dim, rngs=rngs)
                self.head = nnx.Linear(dim, 2, rngs=rngs)

            def __call__(self, tokens):
                h = self.embed(tokens)
                pooled = h[tokens != 0].mean(axis=0)
                return self.head(pooled)

        @nnx.jit
        def predict(model, tokens):
            return model(tokens)

        model = BagOfEmbeddings(20, 8, rngs=nnx.Rngs(0))
        logits = predict(model, jnp.array([5, 3, 9, 0, 0]))
        """,
        check="""
        E = np.asarray(model.embed.embedding[...], np.float64)
        pooled = E[[5, 3, 9]].mean(0)
        ref = pooled @ np.asarray(model.head.kernel[...]) + np.asarray(model.head.bias[...])
        np.testing.assert_allclose(np.asarray(logits), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class BagOfEmbeddings(nnx.Module):
            def __init__(self, vocab, dim, *, rngs):
                self.embed = nnx.Embed(vocab, dim, rngs=rngs)
                self.head = nnx.Linear(dim, 2, rngs=rngs)

            def __call__(self, tokens):
                h = self.embed(tokens)
                pooled = (h * (tokens != 0)[:, None]).mean(axis=0)
                return self.head(pooled)

        @nnx.jit
        def predict(model, tokens):
            return model(tokens)

        model = BagOfEmbeddings(20, 8, rngs=nnx.Rngs(0))
        logits = predict(model, jnp.array([5, 3, 9, 0, 0]))
        """,
        alt_fixes=[
            """
            class BagOfEmbeddings(nnx.Module):
                def __init__(self, vocab, dim, *, rngs):
                    self.embed = nnx.Embed(vocab, dim, rngs=rngs)
                    self.head = nnx.Linear(dim, 2, rngs=rngs)

                def __call__(self, tokens):
                    h = self.embed(tokens)
                    mask = (tokens != 0)[:, None]
                    pooled = (h * mask).sum(axis=0) / mask.sum()
                    return self.head(pooled)

            @nnx.jit
            def predict(model, tokens):
                return model(tokens)

            model = BagOfEmbeddings(20, 8, rngs=nnx.Rngs(0))
            logits = predict(model, jnp.array([5, 3, 9, 0, 0]))
            """,
            """
            class BagOfEmbeddings(nnx.Module):
                def __init__(self, vocab, dim, *, rngs):
                    self.embed = nnx.Embed(vocab, dim, rngs=rngs)
                    self.head = nnx.Linear(dim, 2, rngs=rngs)

                def __call__(self, tokens):
                    h = self.embed(tokens)
                    pooled = jnp.mean(h, axis=0, where=(tokens != 0)[:, None])
                    return self.head(pooled)

            @nnx.jit
            def predict(model, tokens):
                return model(tokens)

            model = BagOfEmbeddings(20, 8, rngs=nnx.Rngs(0))
            logits = predict(model, jnp.array([5, 3, 9, 0, 0]))
            """,
        ],
    ),
    case(
        "oa-boolmask-optax-step-ignore-unlabeled", "non-concrete-boolean-index", setup=SETUP_OPTAX + """
kx, kw = jax.random.split(jax.random.key(2))
x = jax.random.normal(kx, (10, 4))
labels = jnp.array([0, 2, -1, 1, 1, -1, 0, 2, -1, 1])
params = {"W": 0.1 * jax.random.normal(kw, (4, 3)), "b": jnp.zeros(3)}
""",
        source="https://github.com/ml-explore/mlx/issues/1311",
        cell="""
        def loss_fn(params, x, labels):
            logits = x @ params["W"] + params["b"]
            keep = labels >= 0          # -1 marks unlabeled rows
            ce = optax.softmax_cross_entropy_with_integer_labels(logits[keep], labels[keep])
            return ce.mean()

        opt = optax.sgd(0.5)

        @jax.jit
        def step(params, opt_state, x, labels):
            loss, g = jax.value_and_grad(loss_fn)(params, x, labels)
            updates, opt_state = opt.update(g, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        opt_state = opt.init(params)
        for _ in range(5):
            params, opt_state, loss = step(params, opt_state, x, labels)
        """,
        check="""
        idx = np.nonzero(np.asarray(labels) >= 0)[0]
        xs, ls = x[idx], jnp.asarray(np.asarray(labels)[idx])
        def ref_loss(p):
            lg = xs @ p["W"] + p["b"]
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(lg), ls[:, None], axis=1))
        kx, kw = jax.random.split(jax.random.key(2))
        p = {"W": 0.1 * jax.random.normal(kw, (4, 3)), "b": jnp.zeros(3)}
        for _ in range(5):
            l, g = jax.value_and_grad(ref_loss)(p)
            p = jax.tree_util.tree_map(lambda a, b: a - 0.5 * b, p, g)
        np.testing.assert_allclose(np.asarray(params["W"]), np.asarray(p["W"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(params["b"]), np.asarray(p["b"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(loss), float(l), rtol=1e-4)
        """,
        wrong_fix="""
        def loss_fn(params, x, labels):
            logits = x @ params["W"] + params["b"]
            keep = labels >= 0          # -1 marks unlabeled rows
            ce = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.where(keep, labels, 0))
            return (ce * keep).mean()

        opt = optax.sgd(0.5)

        @jax.jit
        def step(params, opt_state, x, labels):
            loss, g = jax.value_and_grad(loss_fn)(params, x, labels)
            updates, opt_state = opt.update(g, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        opt_state = opt.init(params)
        for _ in range(5):
            params, opt_state, loss = step(params, opt_state, x, labels)
        """,
        alt_fixes=[
            """
            def loss_fn(params, x, labels):
                logits = x @ params["W"] + params["b"]
                keep = labels >= 0          # -1 marks unlabeled rows
                ce = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.where(keep, labels, 0))
                return jnp.sum(ce * keep) / jnp.sum(keep)

            opt = optax.sgd(0.5)

            @jax.jit
            def step(params, opt_state, x, labels):
                loss, g = jax.value_and_grad(loss_fn)(params, x, labels)
                updates, opt_state = opt.update(g, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            opt_state = opt.init(params)
            for _ in range(5):
                params, opt_state, loss = step(params, opt_state, x, labels)
            """,
            """
            def loss_fn(params, x, labels):
                logits = x @ params["W"] + params["b"]
                keep = labels >= 0          # -1 marks unlabeled rows
                ce = optax.softmax_cross_entropy_with_integer_labels(logits, jnp.maximum(labels, 0))
                return jnp.mean(ce, where=keep)

            opt = optax.sgd(0.5)

            @jax.jit
            def step(params, opt_state, x, labels):
                loss, g = jax.value_and_grad(loss_fn)(params, x, labels)
                updates, opt_state = opt.update(g, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            opt_state = opt.init(params)
            for _ in range(5):
                params, opt_state, loss = step(params, opt_state, x, labels)
            """,
        ],
    ),
    # ------------------------------------------------------------------ tracer-integer-conversion
    case(
        "oa-intconv-earlier-forward-euler-range", "tracer-integer-conversion", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/25186",
        earlier="""
        @jax.jit
        def forward_euler(y0, t0, t1, dt):
            n_steps = jnp.round((t1 - t0) / dt).astype(int)
            y = y0
            for _ in range(n_steps):
                y = y + dt * (-2.0 * y + 1.0)
            return y
        """,
        cell="""
        y_coarse = forward_euler(0.0, 0.0, 1.0, 0.1)
        y_fine = forward_euler(0.0, 0.0, 1.0, 0.05)
        """,
        check="""
        def ref(dt):
            y = 0.0
            for _ in range(int(round(1.0 / dt))):
                y = y + dt * (-2.0 * y + 1.0)
            return y
        np.testing.assert_allclose(float(y_coarse), ref(0.1), rtol=1e-5)
        np.testing.assert_allclose(float(y_fine), ref(0.05), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def forward_euler(y0, t0, t1, dt):
            y = y0
            for _ in range(10):
                y = y + dt * (-2.0 * y + 1.0)
            return y
        """,
        alt_fixes=[
            """
            @jax.jit
            def forward_euler(y0, t0, t1, dt):
                n_steps = jnp.round((t1 - t0) / dt).astype(int)
                return jax.lax.fori_loop(0, n_steps, lambda i, y: y + dt * (-2.0 * y + 1.0), jnp.asarray(y0, jnp.float32))
            """,
            """
            @partial(jax.jit, static_argnames=("t0", "t1", "dt"))
            def forward_euler(y0, t0, t1, dt):
                n_steps = round((t1 - t0) / dt)
                y = y0
                for _ in range(n_steps):
                    y = y + dt * (-2.0 * y + 1.0)
                return y
            """,
        ],
    ),
    case(
        "oa-intconv-method-layer-lists-index", "tracer-integer-conversion", setup=SETUP,
        source="https://github.com/jax-ml/jax/pull/5853",
        cell="""
        class LayerBank:
            def __init__(self, key, n_layers=4, dim=3):
                keys = jax.random.split(key, n_layers)
                self.Ws = [jax.random.normal(k, (dim, dim)) for k in keys]
                self.bs = [jnp.full(dim, 0.1 * i) for i in range(n_layers)]

            @partial(jax.jit, static_argnums=0)
            def apply_layer(self, x, layer):
                return jnp.tanh(x @ self.Ws[layer] + self.bs[layer])

        bank = LayerBank(jax.random.key(0))
        x = jnp.ones(3)
        outs = jnp.stack([bank.apply_layer(x, i) for i in range(4)])
        """,
        check="""
        keys = jax.random.split(jax.random.key(0), 4)
        ref = [np.tanh(np.ones(3) @ np.asarray(jax.random.normal(k, (3, 3))) + 0.1 * i) for i, k in enumerate(keys)]
        np.testing.assert_allclose(np.asarray(outs), np.stack(ref), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        class LayerBank:
            def __init__(self, key, n_layers=4, dim=3):
                keys = jax.random.split(key, n_layers)
                self.Ws = [jax.random.normal(k, (dim, dim)) for k in keys]
                self.bs = [jnp.full(dim, 0.1 * i) for i in range(n_layers)]

            @partial(jax.jit, static_argnums=0)
            def apply_layer(self, x, layer):
                return jnp.tanh(x @ jnp.stack(self.Ws)[layer] + self.bs[layer])

        bank = LayerBank(jax.random.key(0))
        x = jnp.ones(3)
        outs = jnp.stack([bank.apply_layer(x, i) for i in range(4)])
        """,
        alt_fixes=[
            """
            class LayerBank:
                def __init__(self, key, n_layers=4, dim=3):
                    keys = jax.random.split(key, n_layers)
                    self.Ws = [jax.random.normal(k, (dim, dim)) for k in keys]
                    self.bs = [jnp.full(dim, 0.1 * i) for i in range(n_layers)]

                @partial(jax.jit, static_argnums=(0, 2))
                def apply_layer(self, x, layer):
                    return jnp.tanh(x @ self.Ws[layer] + self.bs[layer])

            bank = LayerBank(jax.random.key(0))
            x = jnp.ones(3)
            outs = jnp.stack([bank.apply_layer(x, i) for i in range(4)])
            """,
            """
            class LayerBank:
                def __init__(self, key, n_layers=4, dim=3):
                    keys = jax.random.split(key, n_layers)
                    self.Ws = [jax.random.normal(k, (dim, dim)) for k in keys]
                    self.bs = [jnp.full(dim, 0.1 * i) for i in range(n_layers)]

                @partial(jax.jit, static_argnums=0)
                def apply_layer(self, x, layer):
                    W = jnp.stack(self.Ws)[layer]
                    b = jnp.stack(self.bs)[layer]
                    return jnp.tanh(x @ W + b)

            bank = LayerBank(jax.random.key(0))
            x = jnp.ones(3)
            outs = jnp.stack([bank.apply_layer(x, i) for i in range(4)])
            """,
        ],
    ),
    case(
        "oa-intconv-lax-alias-inner-range-from-i", "tracer-integer-conversion", setup=SETUP + """
positions = jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [1.5, 1.5], [3.0, 0.5]])
""",
        source="https://github.com/jax-ml/jax/issues/10400",
        cell="""
        import jax.lax as L

        def coulomb_energy(pos):
            n = pos.shape[0]
            def outer(i, e):
                for j in range(i + 1, n):
                    e = e + 1.0 / jnp.linalg.norm(pos[i] - pos[j])
                return e
            return L.fori_loop(0, n, outer, 0.0)

        E = jax.jit(coulomb_energy)(positions)
        """,
        check="""
        p = np.asarray(positions, np.float64)
        ref = sum(1.0 / np.linalg.norm(p[i] - p[j]) for i in range(5) for j in range(i + 1, 5))
        np.testing.assert_allclose(float(E), ref, rtol=1e-5)
        """,
        wrong_fix="""
        import jax.lax as L

        def coulomb_energy(pos):
            n = pos.shape[0]
            def outer(i, e):
                def inner(j, e):
                    r = jnp.linalg.norm(pos[i] - pos[j])
                    return e + jnp.where(j != i, 1.0 / r, 0.0)
                return L.fori_loop(0, n, inner, e)
            return L.fori_loop(0, n, outer, 0.0)

        E = jax.jit(coulomb_energy)(positions)
        """,
        alt_fixes=[
            """
            import jax.lax as L

            def coulomb_energy(pos):
                n = pos.shape[0]
                def outer(i, e):
                    def inner(j, e):
                        return e + 1.0 / jnp.linalg.norm(pos[i] - pos[j])
                    return L.fori_loop(i + 1, n, inner, e)
                return L.fori_loop(0, n, outer, 0.0)

            E = jax.jit(coulomb_energy)(positions)
            """,
            """
            def coulomb_energy(pos):
                n = pos.shape[0]
                d = jnp.linalg.norm(pos[:, None, :] - pos[None, :, :] + jnp.eye(n)[..., None], axis=-1)
                i, j = jnp.triu_indices(n, k=1)
                return jnp.sum(1.0 / d[i, j])

            E = jax.jit(coulomb_energy)(positions)
            """,
        ],
    ),
    # ------------------------------------------------------------------ jit-non-hashable-static-arg
    case(
        "oa-nonhash-dict-model-kwargs-static", "jit-non-hashable-static-arg", setup=SETUP,
        source="https://github.com/google/flax/issues/587",
        cell="""
        @partial(jax.jit, static_argnums=(1, 2))
        def create_params(key, input_dim, model_kwargs):
            sizes = [input_dim] + [model_kwargs["hidden"]] * model_kwargs["n_layers"] + [model_kwargs["out"]]
            keys = jax.random.split(key, len(sizes) - 1)
            return [model_kwargs["init_scale"] * jax.random.normal(k, (m, n))
                    for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        params = create_params(jax.random.key(0), 4, {"hidden": 8, "n_layers": 2, "out": 1, "init_scale": 0.1})
        """,
        check="""
        sizes = [4, 8, 8, 1]
        keys = jax.random.split(jax.random.key(0), 3)
        assert [p.shape for p in params] == [(4, 8), (8, 8), (8, 1)]
        for p, k, m, n in zip(params, keys, sizes[:-1], sizes[1:]):
            np.testing.assert_allclose(np.asarray(p), 0.1 * np.asarray(jax.random.normal(k, (m, n))), rtol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=(1,))
        def create_params(key, input_dim, model_kwargs):
            sizes = [input_dim] + [model_kwargs["hidden"]] * model_kwargs["n_layers"] + [model_kwargs["out"]]
            keys = jax.random.split(key, len(sizes) - 1)
            return [model_kwargs["init_scale"] * jax.random.normal(k, (m, n))
                    for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        params = create_params(jax.random.key(0), 4, {"hidden": 8, "n_layers": 2, "out": 1, "init_scale": 0.1})
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=(1, 2))
            def create_params(key, input_dim, model_kwargs):
                model_kwargs = dict(model_kwargs)
                sizes = [input_dim] + [model_kwargs["hidden"]] * model_kwargs["n_layers"] + [model_kwargs["out"]]
                keys = jax.random.split(key, len(sizes) - 1)
                return [model_kwargs["init_scale"] * jax.random.normal(k, (m, n))
                        for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

            kwargs = {"hidden": 8, "n_layers": 2, "out": 1, "init_scale": 0.1}
            params = create_params(jax.random.key(0), 4, tuple(sorted(kwargs.items())))
            """,
            """
            def create_params(key, input_dim, model_kwargs):
                sizes = [input_dim] + [model_kwargs["hidden"]] * model_kwargs["n_layers"] + [model_kwargs["out"]]

                @jax.jit
                def init(key):
                    keys = jax.random.split(key, len(sizes) - 1)
                    return [model_kwargs["init_scale"] * jax.random.normal(k, (m, n))
                            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]
                return init(key)

            params = create_params(jax.random.key(0), 4, {"hidden": 8, "n_layers": 2, "out": 1, "init_scale": 0.1})
            """,
        ],
    ),
    case(
        "oa-nonhash-earlier-list-sizes-and-activations", "jit-non-hashable-static-arg", setup=SETUP + """
k1, k2 = jax.random.split(jax.random.key(4))
params = [(jax.random.normal(k1, (3, 5)), jnp.zeros(5)), (jax.random.normal(k2, (5, 2)), jnp.ones(2))]
x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
""",
        source="https://github.com/genjax-community/genjax/issues/1179",
        earlier="""
        @partial(jax.jit, static_argnames=("layer_sizes", "activations"))
        def mlp_forward(params, x, layer_sizes, activations):
            h = x
            for (W, b), n, act in zip(params, layer_sizes[1:], activations):
                h = act(h @ W + b)
                assert h.shape[-1] == n
            return h
        """,
        cell="""
        y = mlp_forward(params, x, layer_sizes=[3, 5, 2], activations=[jnp.tanh, jax.nn.softplus])
        """,
        check="""
        (W1, b1), (W2, b2) = [(np.asarray(W, np.float64), np.asarray(b, np.float64)) for W, b in params]
        h = np.tanh(np.asarray(x, np.float64) @ W1 + b1)
        ref = np.log1p(np.exp(h @ W2 + b2))
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("layer_sizes", "activations"))
        def _mlp_forward(params, x, layer_sizes, activations):
            h = x
            for (W, b), n, act in zip(params, layer_sizes[1:], activations):
                h = act(h @ W + b)
                assert h.shape[-1] == n
            return h

        def mlp_forward(params, x, layer_sizes, activations):
            return _mlp_forward(params, x, layer_sizes=tuple(layer_sizes), activations=activations)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames=("layer_sizes", "activations"))
            def _mlp_forward(params, x, layer_sizes, activations):
                h = x
                for (W, b), n, act in zip(params, layer_sizes[1:], activations):
                    h = act(h @ W + b)
                    assert h.shape[-1] == n
                return h

            def mlp_forward(params, x, layer_sizes, activations):
                return _mlp_forward(params, x, layer_sizes=tuple(layer_sizes), activations=tuple(activations))
            """,
            """
            def mlp_forward(params, x, layer_sizes, activations):
                acts = tuple(activations)

                @jax.jit
                def run(params, x):
                    h = x
                    for (W, b), act in zip(params, acts):
                        h = act(h @ W + b)
                    return h

                y = run(params, x)
                assert y.shape[-1] == layer_sizes[-1]
                return y
            """,
        ],
    ),
    case(
        "oa-nonhash-dataclass-self-static-method", "jit-non-hashable-static-arg", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/3701",
        cell="""
        from dataclasses import dataclass

        @dataclass
        class Oscillator:
            omega: float
            damping: float

            @partial(jax.jit, static_argnums=0)
            def step(self, state, dt):
                x, v = state
                a = -self.omega ** 2 * x - 2 * self.damping * v
                return jnp.stack([x + dt * v, v + dt * a])

        osc = Oscillator(2.0, 0.1)
        s = jnp.array([1.0, 0.0])
        for _ in range(50):
            s = osc.step(s, 0.05)
        """,
        check="""
        x, v = 1.0, 0.0
        for _ in range(50):
            a = -4.0 * x - 0.2 * v
            x, v = x + 0.05 * v, v + 0.05 * a
        np.testing.assert_allclose(np.asarray(s), [x, v], rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        from dataclasses import dataclass

        @dataclass
        class Oscillator:
            omega: float
            damping: float

            @partial(jax.jit, static_argnums=2)
            def step(self, state, dt):
                x, v = state
                a = -self.omega ** 2 * x - 2 * self.damping * v
                return jnp.stack([x + dt * v, v + dt * a])

        osc = Oscillator(2.0, 0.1)
        s = jnp.array([1.0, 0.0])
        for _ in range(50):
            s = osc.step(s, 0.05)
        """,
        alt_fixes=[
            """
            from dataclasses import dataclass

            @dataclass(frozen=True)
            class Oscillator:
                omega: float
                damping: float

                @partial(jax.jit, static_argnums=0)
                def step(self, state, dt):
                    x, v = state
                    a = -self.omega ** 2 * x - 2 * self.damping * v
                    return jnp.stack([x + dt * v, v + dt * a])

            osc = Oscillator(2.0, 0.1)
            s = jnp.array([1.0, 0.0])
            for _ in range(50):
                s = osc.step(s, 0.05)
            """,
            """
            from dataclasses import dataclass

            @partial(jax.tree_util.register_dataclass, data_fields=["omega", "damping"], meta_fields=[])
            @dataclass
            class Oscillator:
                omega: float
                damping: float

                @jax.jit
                def step(self, state, dt):
                    x, v = state
                    a = -self.omega ** 2 * x - 2 * self.damping * v
                    return jnp.stack([x + dt * v, v + dt * a])

            osc = Oscillator(2.0, 0.1)
            s = jnp.array([1.0, 0.0])
            for _ in range(50):
                s = osc.step(s, 0.05)
            """,
        ],
    ),
    # ------------------------------------------------------------------ concretization-python-scalar-conversion
    case(
        "oa-scalarconv-float-logging-optax-step", "concretization-python-scalar-conversion", setup=SETUP_OPTAX + """
kx, kn = jax.random.split(jax.random.key(5))
X = jax.random.normal(kx, (32, 2))
Y = X @ jnp.array([2.0, -1.0]) + 0.5 + 0.01 * jax.random.normal(kn, (32,))
params = {"w": jnp.zeros(2), "b": jnp.zeros(())}
""",
        source="https://github.com/marin-community/levanter/issues/1164",
        cell="""
        opt = optax.adam(0.05)

        @jax.jit
        def train_step(params, opt_state, x, y):
            def loss_fn(p):
                return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = opt.update(grads, opt_state)
            params = optax.apply_updates(params, updates)
            print(f"loss={float(loss):.4f} grad_norm={float(optax.global_norm(grads)):.4f}")
            return params, opt_state

        opt_state = opt.init(params)
        for epoch in range(20):
            params, opt_state = train_step(params, opt_state, X, Y)
        """,
        check="""
        o = optax.adam(0.05)
        p = {"w": jnp.zeros(2), "b": jnp.zeros(())}
        st = o.init(p)
        for _ in range(20):
            g = jax.grad(lambda q: jnp.mean((X @ q["w"] + q["b"] - Y) ** 2))(p)
            u, st = o.update(g, st)
            p = optax.apply_updates(p, u)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(p["w"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(params["b"]), float(p["b"]), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        opt = optax.adam(0.05)

        @jax.jit
        def train_step(params, opt_state, x, y):
            def loss_fn(p):
                return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = opt.update(grads, opt_state)
            params = optax.apply_updates(params, updates)
            print(f"loss={loss} grad_norm={float(optax.global_norm(grads)):.4f}")
            return params, opt_state

        opt_state = opt.init(params)
        for epoch in range(20):
            params, opt_state = train_step(params, opt_state, X, Y)
        """,
        alt_fixes=[
            """
            opt = optax.adam(0.05)

            @jax.jit
            def train_step(params, opt_state, x, y):
                def loss_fn(p):
                    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)
                loss, grads = jax.value_and_grad(loss_fn)(params)
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
                jax.debug.print("loss={l:.4f} grad_norm={g:.4f}", l=loss, g=optax.global_norm(grads))
                return params, opt_state

            opt_state = opt.init(params)
            for epoch in range(20):
                params, opt_state = train_step(params, opt_state, X, Y)
            """,
            """
            opt = optax.adam(0.05)

            @jax.jit
            def train_step(params, opt_state, x, y):
                def loss_fn(p):
                    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)
                loss, grads = jax.value_and_grad(loss_fn)(params)
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
                return params, opt_state, loss, optax.global_norm(grads)

            opt_state = opt.init(params)
            for epoch in range(20):
                params, opt_state, loss, gnorm = train_step(params, opt_state, X, Y)
                print(f"loss={float(loss):.4f} grad_norm={float(gnorm):.4f}")
            """,
        ],
    ),
    case(
        "oa-scalarconv-earlier-int-ceil-resample", "concretization-python-scalar-conversion", setup=SETUP + """
t = jnp.array([0.0, 0.3, 0.7, 1.0, 1.6, 2.0])
yv = jnp.sin(t)
""",
        source="https://github.com/asantini29/phentax/pull/28",
        earlier="""
        @jax.jit
        def resample_uniform(t, y, delta_t):
            T = t[-1] - t[0]
            n = int(jnp.ceil(T / delta_t)) + 1
            t_new = t[0] + delta_t * jnp.arange(n)
            return t_new, jnp.interp(t_new, t, y)
        """,
        cell="""
        t_new, y_new = resample_uniform(t, yv, 0.25)
        """,
        check="""
        tn = np.asarray(t, np.float64)
        ref_t = 0.25 * np.arange(int(np.ceil(2.0 / 0.25)) + 1)
        np.testing.assert_allclose(np.asarray(t_new), ref_t, atol=1e-6)
        np.testing.assert_allclose(np.asarray(y_new), np.interp(ref_t, tn, np.sin(tn)), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def resample_uniform(t, y, delta_t):
            T = t[-1] - t[0]
            n = jnp.ceil(T / delta_t).astype(int) + 1
            t_new = t[0] + delta_t * jnp.arange(n)
            return t_new, jnp.interp(t_new, t, y)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames="n")
            def _resample(t, y, delta_t, n):
                t_new = t[0] + delta_t * jnp.arange(n)
                return t_new, jnp.interp(t_new, t, y)

            def resample_uniform(t, y, delta_t):
                n = int(np.ceil(float(t[-1] - t[0]) / delta_t)) + 1
                return _resample(t, y, delta_t, n)
            """,
            """
            def resample_uniform(t, y, delta_t):
                T = t[-1] - t[0]
                n = int(jnp.ceil(T / delta_t)) + 1
                t_new = t[0] + delta_t * jnp.arange(n)
                return t_new, jnp.interp(t_new, t, y)
            """,
        ],
    ),
    case(
        "oa-scalarconv-eqx-int-argmax-action-table", "concretization-python-scalar-conversion", setup=SETUP_EQX + """
obs_batch = jax.random.normal(jax.random.key(9), (6, 4))
""",
        source="written for the shape: `int(jnp.argmax(...))` used as a Python index inside an Equinox module under eqx.filter_jit",
        cell="""
        class GreedyPolicy(eqx.Module):
            logits_net: eqx.nn.Linear
            action_values: jax.Array

            def __call__(self, obs):
                logits = self.logits_net(obs)
                a = int(jnp.argmax(logits))
                return self.action_values[a]

        policy = GreedyPolicy(eqx.nn.Linear(4, 3, key=jax.random.key(0)), jnp.array([-1.0, 0.0, 1.0]))
        act = eqx.filter_jit(policy)
        actions = jnp.stack([act(o) for o in obs_batch])
        """,
        check="""
        W = np.asarray(policy.logits_net.weight, np.float64); b = np.asarray(policy.logits_net.bias, np.float64)
        idx = np.argmax(np.asarray(obs_batch, np.float64) @ W.T + b, axis=1)
        np.testing.assert_allclose(np.asarray(actions), np.array([-1.0, 0.0, 1.0])[idx])
        """,
        wrong_fix="""
        class GreedyPolicy(eqx.Module):
            logits_net: eqx.nn.Linear
            action_values: jax.Array

            def __call__(self, obs):
                logits = self.logits_net(obs)
                return self.action_values @ jax.nn.softmax(logits)

        policy = GreedyPolicy(eqx.nn.Linear(4, 3, key=jax.random.key(0)), jnp.array([-1.0, 0.0, 1.0]))
        act = eqx.filter_jit(policy)
        actions = jnp.stack([act(o) for o in obs_batch])
        """,
        alt_fixes=[
            """
            class GreedyPolicy(eqx.Module):
                logits_net: eqx.nn.Linear
                action_values: jax.Array

                def __call__(self, obs):
                    logits = self.logits_net(obs)
                    return self.action_values[jnp.argmax(logits)]

            policy = GreedyPolicy(eqx.nn.Linear(4, 3, key=jax.random.key(0)), jnp.array([-1.0, 0.0, 1.0]))
            act = eqx.filter_jit(policy)
            actions = jnp.stack([act(o) for o in obs_batch])
            """,
            """
            class GreedyPolicy(eqx.Module):
                logits_net: eqx.nn.Linear
                action_values: jax.Array

                def __call__(self, obs):
                    logits = self.logits_net(obs)
                    return jnp.take(self.action_values, jnp.argmax(logits))

            policy = GreedyPolicy(eqx.nn.Linear(4, 3, key=jax.random.key(0)), jnp.array([-1.0, 0.0, 1.0]))
            act = eqx.filter_jit(policy)
            actions = jax.vmap(act)(obs_batch)
            """,
        ],
    ),
    case(
        "oa-scalarconv-lax-alias-scan-math-module", "concretization-python-scalar-conversion", setup=SETUP,
        source="https://github.com/blackjax-devs/blackjax/issues/1029",
        cell="""
        import math
        import jax.lax as L

        def decay_step(carry, t):
            n, k = carry
            n = n * math.exp(-float(k) * 0.1)
            k = 0.3 * (1 + 0.5 * math.sin(float(t)))
            return (n, k), n

        _, trace = L.scan(decay_step, (jnp.float32(100.0), jnp.float32(0.3)), jnp.arange(20.0))
        """,
        check="""
        n, k, ref = 100.0, 0.3, []
        for t in range(20):
            n = n * np.exp(-k * 0.1)
            k = 0.3 * (1 + 0.5 * np.sin(float(t)))
            ref.append(n)
        np.testing.assert_allclose(np.asarray(trace), ref, rtol=1e-5)
        """,
        wrong_fix="""
        import math
        import jax.lax as L

        def decay_step(carry, t):
            n, k = carry
            n = n * jnp.exp(-k * 0.1)
            k = 0.3 * (1 + 0.5 * math.sin(float(t)))
            return (n, k), n

        _, trace = L.scan(decay_step, (jnp.float32(100.0), jnp.float32(0.3)), jnp.arange(20.0))
        """,
        alt_fixes=[
            """
            import math
            import jax.lax as L

            def decay_step(carry, t):
                n, k = carry
                n = n * jnp.exp(-k * 0.1)
                k = 0.3 * (1 + 0.5 * jnp.sin(t))
                return (n, k), n

            _, trace = L.scan(decay_step, (jnp.float32(100.0), jnp.float32(0.3)), jnp.arange(20.0))
            """,
            """
            import math
            import jax.lax as L

            def decay_step(carry, t):
                n, k = carry
                n = n * L.exp(-k * 0.1)
                k = 0.3 * (1 + 0.5 * L.sin(t))
                return (n, k), n

            _, trace = L.scan(decay_step, (jnp.float32(100.0), jnp.float32(0.3)), jnp.arange(20.0))
            """,
        ],
    ),
]
