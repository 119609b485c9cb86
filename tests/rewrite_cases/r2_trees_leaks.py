"""Pytree structure mismatches built at the source, leaked tracers (scan bodies, caches, loops), reused
donated buffers, and library cells (Equinox, Optax, sharding specs).

Modelled on public threads (facts carry over, the code is ours): jax-ml/jax#16707 and jax-ml/jax#17798
(list against tuple trees in an optimizer step), google-deepmind/dm-haiku#214 and jax-ml/jax#4714 (values
kept from inside a scan body), felafax/felafax#55 (a cache written inside jit), jax-ml/jax#7144 and
jax-ml/jax#9237 (a donated train state used again), patrick-kidger/equinox#630 (jax transforms over a
module), jax-ml/jax#18951 (shard_map specs naming axes the mesh lacks).
"""

import textwrap

from rewrite_cases import case


def _s(*parts: str) -> str:
    return "\n".join(textwrap.dedent(p).strip("\n") for p in parts) + "\n"


SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

SETUP_PARTIAL = """
from functools import partial
import numpy as np
import jax
import jax.numpy as jnp
"""

OPTAX = SETUP + """
import optax
"""

EQX = SETUP + """
import equinox as eqx
"""

NNX = SETUP + """
from flax import nnx
"""

LINEN = SETUP + """
import flax.linen as nn
"""

LINREG = """
X = jnp.asarray(np.arange(12.0).reshape(6, 2) / 6.0, jnp.float32)
Y = jnp.asarray(np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0]), jnp.float32)
"""

TREES = [
    # ---------------------------------------------------------------- a state tree written by hand as zeros
    case(
        "velocity-zeros-missing-scale", "tree-map-dict-missing-key", setup=SETUP,
        # the hand-written velocity lacks the new `scale` parameter: built from the parameters, it has it
        cell="""
        params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3), "scale": jnp.ones(())}
        velocity = {"w": jnp.zeros((2, 3)), "b": jnp.zeros(3)}

        @jax.jit
        def step(params, velocity):
            grads = jax.tree.map(lambda p: 0.5 * p, params)
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.1 * v, params, velocity)
            return params, velocity

        for _ in range(3):
            params, velocity = step(params, velocity)
        """,
        check="""
        def ref(p0):
            p, v = p0, 0.0
            for _ in range(3):
                v = 0.9 * v + 0.5 * p
                p = p - 0.1 * v
            return p
        np.testing.assert_allclose(np.asarray(params["w"]), np.full((2, 3), ref(1.0)), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(params["scale"]), ref(1.0), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(params["b"]), np.zeros(3), atol=1e-7)
        assert set(velocity) == {"w", "b", "scale"}
        """,
        wrong_fix="""
        params = {"w": jnp.ones((2, 3)), "b": jnp.zeros(3), "scale": jnp.ones(())}
        velocity = {"w": jnp.zeros((2, 3)), "b": jnp.zeros(3), "scale": jnp.ones(())}

        @jax.jit
        def step(params, velocity):
            grads = jax.tree.map(lambda p: 0.5 * p, params)
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.1 * v, params, velocity)
            return params, velocity

        for _ in range(3):
            params, velocity = step(params, velocity)
        """,
    ),
    case(
        "two-constant-trees-missing-key", "tree-map-dict-missing-key", setup=SETUP, offer="none",
        # both trees are written as constants, one with fewer keys: which one is meant is not said
        cell="""
        a = {"x": jnp.zeros(2), "y": jnp.zeros(3)}
        b = {"x": jnp.zeros(2)}
        c = jax.tree.map(lambda u, v: u + v, a, b)
        """,
        check="""
        assert set(c) == {"x", "y"}
        """,
        wrong_fix="""
        c = {"x": jnp.zeros(2)}
        """,
    ),
    # ---------------------------------------------------------------- a state list built from a tuple of params
    case(
        "momentum-list-from-param-tuple", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        def loss(params, x, y):
            w, b = params
            return jnp.mean((x @ w + b - y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        velocity = [jnp.zeros_like(p) for p in params]
        for step in range(5):
            grads = jax.grad(loss)(params, X, Y)
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.05 * v, params, velocity)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, vw, vb = np.zeros(2), 0.0, np.zeros(2), 0.0
        for _ in range(5):
            r = Xn @ w + b - Yn
            gw, gb = 2 * Xn.T @ r / 6, 2 * r.mean()
            vw, vb = 0.9 * vw + gw, 0.9 * vb + gb
            w, b = w - 0.05 * vw, b - 0.05 * vb
        assert isinstance(params, tuple)
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params, x, y):
            w, b = params
            return jnp.mean((x @ w + b - y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        velocity = [jnp.zeros_like(p) for p in params]
        for step in range(5):
            grads = jax.grad(loss)(params, X, Y)
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, tuple(velocity), grads)
            params = jax.tree.map(lambda p, v: p - 0.05 * v, params, grads)
        """,
    ),
    case(
        "momentum-list-passed-to-jitted-step", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        def loss(params, x, y):
            w, b = params
            return jnp.mean((x @ w + b - y) ** 2)

        @jax.jit
        def step(params, velocity, x, y):
            grads = jax.grad(loss)(params, x, y)
            velocity = jax.tree.map(lambda v, g: 0.8 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.1 * v, params, velocity)
            return params, velocity

        params = (jnp.ones(2), jnp.array(0.5))
        velocity = [jnp.zeros_like(p) for p in params]
        for _ in range(3):
            params, velocity = step(params, velocity, X, Y)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, vw, vb = np.ones(2), 0.5, np.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Yn
            gw, gb = 2 * Xn.T @ r / 6, 2 * r.mean()
            vw, vb = 0.8 * vw + gw, 0.8 * vb + gb
            w, b = w - 0.1 * vw, b - 0.1 * vb
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(velocity[0]), vw, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params, x, y):
            w, b = params
            return jnp.mean((x @ w + b - y) ** 2)

        @jax.jit
        def step(params, velocity, x, y):
            grads = jax.grad(loss)(params, x, y)
            params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            return params, velocity

        params = (jnp.ones(2), jnp.array(0.5))
        velocity = [jnp.zeros_like(p) for p in params]
        for _ in range(3):
            params, velocity = step(params, velocity, X, Y)
        """,
    ),
    case(
        "adam-moments-lists-from-param-tuple", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        m = [jnp.zeros_like(p) for p in params]
        v = [jnp.zeros_like(p) for p in params]
        b1, b2, lr, eps = 0.9, 0.999, 0.1, 1e-8
        for t in range(1, 4):
            g = jax.grad(loss)(params)
            m = jax.tree.map(lambda m_, g_: b1 * m_ + (1 - b1) * g_, m, g)
            v = jax.tree.map(lambda v_, g_: b2 * v_ + (1 - b2) * g_ ** 2, v, g)
            params = jax.tree.map(
                lambda p, m_, v_: p - lr * (m_ / (1 - b1 ** t)) / (jnp.sqrt(v_ / (1 - b2 ** t)) + eps),
                params, m, v)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        p = [np.zeros(2), np.zeros(())]
        m_ = [np.zeros(2), np.zeros(())]; v_ = [np.zeros(2), np.zeros(())]
        for t in range(1, 4):
            r = Xn @ p[0] + p[1] - Yn
            g = [2 * Xn.T @ r / 6, np.array(2 * r.mean())]
            for i in range(2):
                m_[i] = 0.9 * m_[i] + 0.1 * g[i]
                v_[i] = 0.999 * v_[i] + 0.001 * g[i] ** 2
                p[i] = p[i] - 0.1 * (m_[i] / (1 - 0.9 ** t)) / (np.sqrt(v_[i] / (1 - 0.999 ** t)) + 1e-8)
        np.testing.assert_allclose(np.asarray(params[0]), p[0], rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), p[1], rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        for t in range(1, 4):
            g = jax.grad(loss)(params)
            params = jax.tree.map(lambda p, g_: p - 0.1 * jnp.sign(g_), params, g)
        params = (params[0], params[1] * 0)
        """,
    ),
    case(
        "clipped-grads-list-into-optax-update", "tree-map-node-type-mismatch", setup=_s(OPTAX, LINREG),
        cell="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        tx = optax.sgd(0.1, momentum=0.9)
        opt_state = tx.init(params)
        for _ in range(3):
            grads = jax.grad(loss)(params)
            grads = [jnp.clip(g, -1.0, 1.0) for g in grads]
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, mw, mb = np.zeros(2), 0.0, np.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Yn
            gw, gb = np.clip(2 * Xn.T @ r / 6, -1, 1), np.clip(2 * r.mean(), -1, 1)
            mw, mb = gw + 0.9 * mw, gb + 0.9 * mb
            w, b = w - 0.1 * mw, b - 0.1 * mb
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        tx = optax.sgd(0.1, momentum=0.9)
        opt_state = tx.init(params)
        for _ in range(3):
            grads = jax.grad(loss)(params)
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        """,
    ),
    case(
        "sgd-updates-list-apply-updates", "tree-map-node-type-mismatch", setup=_s(OPTAX, LINREG),
        cell="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        for _ in range(4):
            grads = jax.grad(loss)(params)
            updates = [-0.2 * g for g in grads]
            params = optax.apply_updates(params, updates)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b = np.zeros(2), 0.0
        for _ in range(4):
            r = Xn @ w + b - Yn
            w, b = w - 0.2 * 2 * Xn.T @ r / 6, b - 0.2 * 2 * r.mean()
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = (jnp.zeros(2), jnp.array(0.0))
        for _ in range(4):
            grads = jax.grad(loss)(params)
            updates = tuple(-0.2 * g for g in grads[::-1])
            params = optax.apply_updates(params, updates[::-1])
            params = (params[0], params[1] * 0.0)
        """,
    ),
    case(
        "momentum-from-dict-values", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG), offer="review",
        cell="""
        def loss(params):
            return jnp.mean((X @ params["w"] + params["b"] - Y) ** 2)

        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        velocity = [jnp.zeros_like(p) for p in params.values()]
        for _ in range(3):
            grads = jax.grad(loss)(params)
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.05 * v, params, velocity)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, vw, vb = np.zeros(2), 0.0, np.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Yn
            vw, vb = 0.9 * vw + 2 * Xn.T @ r / 6, 0.9 * vb + 2 * r.mean()
            w, b = w - 0.05 * vw, b - 0.05 * vb
        np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params["b"]), b, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params):
            return jnp.mean((X @ params["w"] + params["b"] - Y) ** 2)

        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        for _ in range(3):
            grads = jax.grad(loss)(params)
            params = jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)
        """,
    ),
    case(
        "momentum-literal-list-vs-param-tuple", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        W, b = jnp.zeros(2), jnp.array(0.0)
        params = (W, b)
        velocity = [jnp.zeros_like(W), jnp.zeros_like(b)]

        def sgd_momentum(params, velocity, grads, lr=0.05, mu=0.9):
            velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
            return params, velocity

        for _ in range(4):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params, velocity = sgd_momentum(params, velocity, grads)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b0, vw, vb = np.zeros(2), 0.0, np.zeros(2), 0.0
        for _ in range(4):
            r = Xn @ w + b0 - Yn
            vw, vb = 0.9 * vw + 2 * Xn.T @ r / 6, 0.9 * vb + 2 * r.mean()
            w, b0 = w - 0.05 * vw, b0 - 0.05 * vb
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b0, rtol=1e-4)
        """,
        wrong_fix="""
        W, b = jnp.zeros(2), jnp.array(0.0)
        params = (W, b)
        velocity = (jnp.zeros_like(W), jnp.zeros_like(b))

        def sgd_momentum(params, velocity, grads, lr=0.05, mu=0.9):
            velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
            params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
            return params, velocity

        for _ in range(4):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params, velocity = sgd_momentum(params, velocity, grads)
        """,
    ),
    case(
        "ema-list-against-param-tuple", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        params = (jnp.ones(2), jnp.array(0.5))
        ema = list(jax.tree.map(jnp.copy, params))     # a list on purpose: layers get appended later
        for _ in range(2):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            ema = jax.tree.map(lambda e, p: 0.5 * e + 0.5 * p, ema, params)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b = np.ones(2), 0.5
        ew, eb = w.copy(), b
        for _ in range(2):
            r = Xn @ w + b - Yn
            w, b = w - 0.1 * 2 * Xn.T @ r / 6, b - 0.1 * 2 * r.mean()
            ew, eb = 0.5 * ew + 0.5 * w, 0.5 * eb + 0.5 * b
        assert isinstance(ema, list) and len(ema) == 2
        np.testing.assert_allclose(np.asarray(ema[0]), ew, rtol=1e-4)
        np.testing.assert_allclose(float(ema[1]), eb, rtol=1e-4)
        """,
        wrong_fix="""
        params = (jnp.ones(2), jnp.array(0.5))
        ema = list(jax.tree.map(jnp.copy, params))
        for _ in range(2):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        ema = list(params)
        """,
    ),
    case(
        "momentum-list-appended-later-review", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        offer="review",
        cell="""
        params = (jnp.zeros(2), jnp.array(0.0))
        velocity = [jnp.zeros_like(p) for p in params]
        grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        params = jax.tree.map(lambda p, v: p - 0.1 * v, params, velocity)
        history = velocity.count(None)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        r = -Yn
        np.testing.assert_allclose(np.asarray(params[0]), -0.1 * 2 * Xn.T @ r / 6, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), -0.1 * 2 * r.mean(), rtol=1e-4)
        assert history == 0
        """,
        wrong_fix="""
        params = (jnp.zeros(2), jnp.array(0.0))
        history = 0
        """,
    ),
    case(
        "momentum-optimizer-class-list-state", "tree-map-node-type-mismatch", setup=_s(SETUP, LINREG),
        cell="""
        class Momentum:
            def __init__(self, params, lr=0.05, beta=0.9):
                self.lr, self.beta = lr, beta
                self.velocity = [jnp.zeros_like(p) for p in params]

            def step(self, params, grads):
                self.velocity = jax.tree.map(lambda v, g: self.beta * v + g, self.velocity, grads)
                return jax.tree.map(lambda p, v: p - self.lr * v, params, self.velocity)

        params = (jnp.zeros(2), jnp.array(0.0))
        opt = Momentum(params)
        for _ in range(3):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params = opt.step(params, grads)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, vw, vb = np.zeros(2), 0.0, np.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Yn
            vw, vb = 0.9 * vw + 2 * Xn.T @ r / 6, 0.9 * vb + 2 * r.mean()
            w, b = w - 0.05 * vw, b - 0.05 * vb
        np.testing.assert_allclose(np.asarray(params[0]), w, rtol=1e-4)
        np.testing.assert_allclose(float(params[1]), b, rtol=1e-4)
        """,
        wrong_fix="""
        class Momentum:
            def __init__(self, params, lr=0.05, beta=0.9):
                self.lr, self.beta = lr, beta

            def step(self, params, grads):
                return jax.tree.map(lambda p, g: p - self.lr * g, params, grads)

        params = (jnp.zeros(2), jnp.array(0.0))
        opt = Momentum(params)
        for _ in range(3):
            grads = jax.grad(lambda p: jnp.mean((X @ p[0] + p[1] - Y) ** 2))(params)
            params = opt.step(params, grads)
        """,
    ),
    case(
        "rmsprop-aliases-tree-util", "tree-map-node-type-mismatch", setup=_s("""
        import numpy as np
        import jax
        """, LINREG.replace("jnp.", "jax.numpy.")),
        cell="""
        import jax.numpy as np
        from jax import tree_util as tu

        def loss(theta):
            w, b = theta
            return np.mean((X @ w + b - Y) ** 2)

        theta = (np.zeros(2), np.array(0.0))
        sq = [np.zeros_like(t) for t in theta]
        for _ in range(3):
            g = jax.grad(loss)(theta)
            sq = tu.tree_map(lambda s, g_: 0.9 * s + 0.1 * g_ ** 2, sq, g)
            theta = tu.tree_map(lambda t, g_, s: t - 0.01 * g_ / (np.sqrt(s) + 1e-8), theta, g, sq)
        """,
        check="""
        import numpy as onp
        Xn, Yn = onp.arange(12.0).reshape(6, 2) / 6.0, onp.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, sw, sb = onp.zeros(2), 0.0, onp.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Yn
            gw, gb = 2 * Xn.T @ r / 6, 2 * r.mean()
            sw, sb = 0.9 * sw + 0.1 * gw ** 2, 0.9 * sb + 0.1 * gb ** 2
            w, b = w - 0.01 * gw / (onp.sqrt(sw) + 1e-8), b - 0.01 * gb / (onp.sqrt(sb) + 1e-8)
        onp.testing.assert_allclose(onp.asarray(theta[0]), w, rtol=1e-4)
        onp.testing.assert_allclose(float(theta[1]), b, rtol=1e-4)
        """,
        wrong_fix="""
        import jax.numpy as np
        from jax import tree_util as tu

        def loss(theta):
            w, b = theta
            return np.mean((X @ w + b - Y) ** 2)

        theta = (np.zeros(2), np.array(0.0))
        for _ in range(3):
            g = jax.grad(loss)(theta)
            theta = tu.tree_map(lambda t, g_: t - 0.01 * np.sign(g_), theta, g)
        """,
    ),
    case(
        "optax-hand-grads-key-typo", "tree-map-dict-keys-mismatch", setup=_s(OPTAX, LINREG),
        cell="""
        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        tx = optax.adam(0.1)
        opt_state = tx.init(params)
        for _ in range(3):
            resid = X @ params["w"] + params["b"] - Y
            grads = {"w": 2 * X.T @ resid / len(Y), "bias": 2 * resid.mean()}   # closed form
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        """,
        check="""
        ref = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        tx_ref = optax.adam(0.1)
        st = tx_ref.init(ref)
        for _ in range(3):
            g = jax.grad(lambda p: jnp.mean((X @ p["w"] + p["b"] - Y) ** 2))(ref)
            u, st = tx_ref.update(g, st, ref)
            ref = optax.apply_updates(ref, u)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(ref["w"]), rtol=1e-4)
        np.testing.assert_allclose(float(params["b"]), float(ref["b"]), rtol=1e-4)
        """,
        wrong_fix="""
        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        tx = optax.adam(0.1)
        opt_state = tx.init(params)
        for _ in range(3):
            resid = X @ params["w"] + params["b"] - Y
            grads = {"w": 2 * X.T @ resid / len(Y), "b": jnp.zeros(())}
            updates, opt_state = tx.update(grads, opt_state, params)
            params = optax.apply_updates(params, updates)
        """,
    ),
    case(
        "momentum-list-skips-biases", "tree-map-list-length-mismatch", setup=_s(SETUP, LINREG), offer="none",
        cell="""
        def loss(params):
            w, b = params
            return jnp.mean((X @ w + b - Y) ** 2)

        params = [jnp.zeros(2), jnp.array(0.0)]
        velocity = [jnp.zeros_like(p) for p in params if p.ndim > 0]   # momentum on weights only?
        grads = jax.grad(loss)(params)
        velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
        """,
        check="""
        assert len(velocity) == 2
        """,
        wrong_fix="""
        params = [jnp.zeros(2), jnp.array(0.0)]
        velocity = [jnp.zeros(2)]
        """,
    ),
]

LEAKS = [
    # ---------------------------------------------------------------- a list appended inside a scan body
    case(
        "scan-body-appends-loss-history", "unexpected-tracer-leak", setup=_s(SETUP, LINREG),
        cell="""
        losses = []

        def train_step(w, _):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((X @ w - Y) ** 2))(w)
            losses.append(loss)
            return w - 0.1 * g, None

        w_final, _ = jax.lax.scan(train_step, jnp.zeros(2), None, length=5)
        curve = jnp.stack(losses)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, ref = np.zeros(2), []
        for _ in range(5):
            r = Xn @ w - Yn
            ref.append(np.mean(r ** 2))
            w = w - 0.1 * 2 * Xn.T @ r / 6
        np.testing.assert_allclose(np.asarray(curve), ref, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(w_final), w, rtol=1e-4)
        """,
        wrong_fix="""
        losses = []

        def train_step(w, _):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((X @ w - Y) ** 2))(w)
            return w - 0.1 * g, None

        w_final, _ = jax.lax.scan(train_step, jnp.zeros(2), None, length=5)
        curve = jnp.stack([jnp.mean((X @ w_final - Y) ** 2)] * 5)
        """,
    ),
    case(
        "scan-rollout-appends-states", "unexpected-tracer-leak", setup=SETUP,
        cell="""
        A = jnp.array([[0.9, 0.1], [-0.1, 0.9]])
        trajectory = []

        def dynamics(state, u):
            state = A @ state + u
            trajectory.append(state)
            return state, state.sum()

        controls = jnp.array([[0.1, 0.0], [0.0, 0.1], [0.1, 0.1]])
        final, totals = jax.lax.scan(dynamics, jnp.array([1.0, 0.0]), controls)
        xs = jnp.stack(trajectory)
        print(xs.shape, totals)
        """,
        check="""
        An = np.array([[0.9, 0.1], [-0.1, 0.9]])
        s, ref = np.array([1.0, 0.0]), []
        for u in np.array([[0.1, 0.0], [0.0, 0.1], [0.1, 0.1]]):
            s = An @ s + u
            ref.append(s)
        np.testing.assert_allclose(np.asarray(xs), np.stack(ref), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(totals), np.stack(ref).sum(1), rtol=1e-5)
        """,
        wrong_fix="""
        A = jnp.array([[0.9, 0.1], [-0.1, 0.9]])

        def dynamics(state, u):
            state = A @ state + u
            return state, state.sum()

        controls = jnp.array([[0.1, 0.0], [0.0, 0.1], [0.1, 0.1]])
        final, totals = jax.lax.scan(dynamics, jnp.array([1.0, 0.0]), controls)
        xs = jnp.stack([final] * 3)
        """,
    ),
    case(
        "fori-loop-body-appends-declined", "unexpected-tracer-leak", setup=SETUP, offer="none",
        cell="""
        history = []

        def body(i, x):
            x = 0.5 * x + 1.0
            history.append(x)        # fori_loop has no per-step output to carry this out
            return x

        x_final = jax.lax.fori_loop(0, 4, body, jnp.zeros(()))
        curve = jnp.stack(history)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(curve), [1.0, 1.5, 1.75, 1.875])
        """,
        wrong_fix="""
        def body(i, x):
            return 0.5 * x + 1.0

        x_final = jax.lax.fori_loop(0, 4, body, jnp.zeros(()))
        curve = jnp.stack([x_final] * 4)
        """,
    ),
    # ---------------------------------------------------------------- a global dict written inside jit
    case(
        "global-dict-stores-intermediate", "unexpected-tracer-leak", setup=SETUP,
        cell="""
        W = jnp.array([[1.0, -1.0], [0.5, 2.0]])
        debug = {}

        @jax.jit
        def forward(x):
            h = jnp.tanh(x @ W)
            debug["hidden"] = h
            return h.sum(axis=-1)

        out = forward(jnp.array([[1.0, 2.0]]))
        hidden_norm = jnp.linalg.norm(debug["hidden"])
        """,
        check="""
        h = np.tanh(np.array([[1.0, 2.0]]) @ np.array([[1.0, -1.0], [0.5, 2.0]]))
        np.testing.assert_allclose(float(hidden_norm), np.linalg.norm(h), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(out), h.sum(-1), rtol=1e-5)
        """,
        wrong_fix="""
        W = jnp.array([[1.0, -1.0], [0.5, 2.0]])
        debug = {}

        @jax.jit
        def forward(x):
            h = jnp.tanh(x @ W)
            return h.sum(axis=-1)

        out = forward(jnp.array([[1.0, 2.0]]))
        hidden_norm = jnp.linalg.norm(out)
        """,
    ),
    case(
        "checking-leaks-stats-dict", "tracer-leak-checker", setup=SETUP,
        cell="""
        stats = {}

        def normalise(x):
            mu, sigma = x.mean(), x.std()
            stats["mu"] = mu
            stats["sigma"] = sigma
            return (x - mu) / sigma

        with jax.checking_leaks():
            z = jax.jit(normalise)(jnp.array([1.0, 2.0, 4.0, 9.0]))
        """,
        check="""
        x = np.array([1.0, 2.0, 4.0, 9.0])
        np.testing.assert_allclose(np.asarray(z), (x - x.mean()) / x.std(), rtol=1e-5)
        np.testing.assert_allclose(float(stats["mu"]), x.mean(), rtol=1e-6)
        np.testing.assert_allclose(float(stats["sigma"]), x.std(), rtol=1e-5)
        """,
        wrong_fix="""
        stats = {}

        def normalise(x):
            mu, sigma = x.mean(), x.std()
            return (x - mu) / sigma

        with jax.checking_leaks():
            z = jax.jit(normalise)(jnp.array([1.0, 2.0, 4.0, 9.0]))
        stats = {"mu": z.mean(), "sigma": z.std()}
        """,
    ),
    case(
        "memo-cache-in-jit-declined", "unexpected-tracer-leak", setup=SETUP, offer="none",
        cell="""
        _norm_cache = {}

        @jax.jit
        def normalise(x):
            if "scale" not in _norm_cache:          # compute the scale once, reuse it afterwards
                _norm_cache["scale"] = jnp.abs(x).max()
            return x / _norm_cache["scale"]

        a = normalise(jnp.array([1.0, -4.0]))
        b = normalise(jnp.array([[2.0, 2.0]]))      # a new shape retraces: the cached tracer is stale
        """,
        check="""
        np.testing.assert_allclose(np.asarray(a), [0.25, -1.0])
        np.testing.assert_allclose(np.asarray(b), [[0.5, 0.5]])
        """,
        wrong_fix="""
        @jax.jit
        def normalise(x):
            return x / jnp.abs(x).max()

        a = normalise(jnp.array([1.0, -4.0]))
        b = normalise(jnp.array([[2.0, 2.0]]))
        """,
    ),
    # ---------------------------------------------------------------- appends in a Python loop inside jit
    case(
        "jitted-mlp-collects-activations", "unexpected-tracer-leak", setup=SETUP,
        cell="""
        layers = [jnp.array([[1.0, -1.0], [0.5, 1.0]]), jnp.array([[2.0, 0.0], [0.0, -1.0]])]
        activations = []

        @jax.jit
        def mlp(layers, x):
            for W in layers:
                x = jax.nn.relu(x @ W)
                activations.append(x)
            return x.sum()

        out = mlp(layers, jnp.array([1.0, 1.0]))
        sparsity = [float((a == 0).mean()) for a in activations]
        """,
        check="""
        x = np.array([1.0, 1.0]); acts = []
        for Wn in (np.array([[1.0, -1.0], [0.5, 1.0]]), np.array([[2.0, 0.0], [0.0, -1.0]])):
            x = np.maximum(x @ Wn, 0); acts.append(x)
        assert sparsity == [float((a == 0).mean()) for a in acts]
        np.testing.assert_allclose(float(out), x.sum(), rtol=1e-6)
        assert len(activations) == 2
        """,
        wrong_fix="""
        layers = [jnp.array([[1.0, -1.0], [0.5, 1.0]]), jnp.array([[2.0, 0.0], [0.0, -1.0]])]
        activations = []

        @jax.jit
        def mlp(layers, x):
            for W in layers:
                x = jax.nn.relu(x @ W)
            return x.sum()

        out = mlp(layers, jnp.array([1.0, 1.0]))
        sparsity = [0.0, 0.0]
        """,
    ),
    # ---------------------------------------------------------------- an attribute set inside a jitted method
    case(
        "jitted-method-keeps-hidden-on-self", "unexpected-tracer-leak", setup=SETUP_PARTIAL,
        cell="""
        class Encoder:
            def __init__(self, W):
                self.W = W
                self.last_hidden = None

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                h = jnp.tanh(x @ self.W)
                self.last_hidden = h          # kept to look at later
                return h.sum(axis=-1)

        enc = Encoder(jnp.array([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5]]))
        scores = enc(jnp.array([[1.0, 2.0], [-1.0, 0.5]]))
        peak = jnp.abs(enc.last_hidden).max()
        """,
        check="""
        h = np.tanh(np.array([[1.0, 2.0], [-1.0, 0.5]]) @ np.array([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5]]))
        np.testing.assert_allclose(np.asarray(scores), h.sum(-1), rtol=1e-5)
        np.testing.assert_allclose(float(peak), np.abs(h).max(), rtol=1e-5)
        """,
        wrong_fix="""
        class Encoder:
            def __init__(self, W):
                self.W = W
                self.last_hidden = None

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                h = jnp.tanh(x @ self.W)
                return h.sum(axis=-1)

        enc = Encoder(jnp.array([[0.5, -1.0, 2.0], [1.5, 0.5, -0.5]]))
        scores = enc(jnp.array([[1.0, 2.0], [-1.0, 0.5]]))
        peak = jnp.abs(scores).max()
        """,
    ),
]

DONATION = [
    case(
        "donated-train-state-pair-not-carried", "donated-buffer-reused", setup=_s(SETUP_PARTIAL, LINREG),
        cell="""
        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(w, velocity, x, y):
            g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            velocity = 0.9 * velocity + g
            return w - 0.1 * velocity, velocity

        w = jnp.zeros(2)
        velocity = jnp.zeros(2)
        for epoch in range(3):
            new_w, new_velocity = train_step(w, velocity, X, Y)
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w_, v_ = np.zeros(2), np.zeros(2)
        for _ in range(3):
            g = 2 * Xn.T @ (Xn @ w_ - Yn) / 6
            v_ = 0.9 * v_ + g
            w_ = w_ - 0.1 * v_
        np.testing.assert_allclose(np.asarray(new_w), w_, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(new_velocity), v_, rtol=1e-4)
        """,
        wrong_fix="""
        @jax.jit
        def train_step(w, velocity, x, y):
            g = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            velocity = 0.9 * velocity + g
            return w - 0.1 * velocity, velocity

        w = jnp.zeros(2)
        velocity = jnp.zeros(2)
        for epoch in range(3):
            new_w, new_velocity = train_step(w, velocity, X, Y)
        """,
    ),
    case(
        "earlier-cell-step-loop-keeps-old-params", "donated-buffer-reused", setup=_s(SETUP_PARTIAL, LINREG, """
        @partial(jax.jit, donate_argnums=0)
        def train_step(params, batch):
            x, y = batch
            loss, g = jax.value_and_grad(lambda p: jnp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)
            return jax.tree.map(lambda p, g: p - 0.1 * g, params, g), loss
        """),
        cell="""
        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        batches = [(X[:3], Y[:3]), (X[3:], Y[3:]), (X[:3], Y[:3])]
        losses = []
        for batch in batches:
            new_params, loss = train_step(params, batch)
            losses.append(float(loss))
        """,
        check="""
        Xn, Yn = np.arange(12.0).reshape(6, 2) / 6.0, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
        w, b, ref = np.zeros(2), 0.0, []
        for sl in (slice(0, 3), slice(3, 6), slice(0, 3)):
            r = Xn[sl] @ w + b - Yn[sl]
            ref.append(np.mean(r ** 2))
            w, b = w - 0.1 * 2 * Xn[sl].T @ r / 3, b - 0.1 * 2 * r.mean()
        np.testing.assert_allclose(losses, ref, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(new_params["w"]), w, rtol=1e-4)
        """,
        wrong_fix="""
        params = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        batches = [(X[:3], Y[:3]), (X[3:], Y[3:]), (X[:3], Y[:3])]
        losses = []
        for batch in batches:
            new_params, loss = train_step(jax.tree.map(jnp.copy, params), batch)
            losses.append(float(loss))
        """,
    ),
    case(
        "inline-jit-donation-then-reuse", "array-deleted", setup=SETUP,
        cell="""
        def standardise(x):
            return (x - x.mean()) / x.std()

        data = jnp.array([2.0, 4.0, 4.0, 6.0])
        z = jax.jit(standardise, donate_argnums=0)(data)
        print("range of the raw data:", data.max() - data.min())
        """,
        check="""
        d = np.array([2.0, 4.0, 4.0, 6.0])
        np.testing.assert_allclose(np.asarray(z), (d - d.mean()) / d.std(), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(data), d)
        """,
        wrong_fix="""
        def standardise(x):
            return (x - x.mean()) / x.std()

        data = jnp.array([2.0, 4.0, 4.0, 6.0])
        data = jax.jit(standardise, donate_argnums=0)(data)
        z = data
        print("range of the raw data:", data.max() - data.min())
        """,
    ),
    case(
        "donate-argnames-state-reused", "array-deleted", setup=SETUP,
        cell="""
        def relax(state, rate):
            return state * (1.0 - rate)

        relax = jax.jit(relax, donate_argnames="state")
        state = jnp.array([1.0, 2.0, 4.0])
        relaxed = relax(state=state, rate=0.5)
        delta = jnp.abs(relaxed - state).sum()
        """,
        check="""
        np.testing.assert_allclose(float(delta), 3.5, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(relaxed), [0.5, 1.0, 2.0])
        """,
        wrong_fix="""
        def relax(state, rate):
            return state * (1.0 - rate)

        relax = jax.jit(relax, donate_argnames="state")
        state = jnp.array([1.0, 2.0, 4.0])
        state = relax(state=state, rate=0.5)
        relaxed = state
        delta = jnp.abs(relaxed - state).sum()
        """,
    ),
]

ECOSYSTEM = [
    case(
        "eqx-two-jitted-functions", "equinox-jit-non-array-field", setup=EQX,
        cell="""
        model = eqx.nn.MLP(2, 1, 4, 1, key=jax.random.key(0))
        x = jnp.array([[0.5, -1.0], [1.0, 2.0]])
        y = jnp.array([[1.0], [0.0]])

        @jax.jit
        def predict(model, x):
            return jax.vmap(model)(x)

        @jax.jit
        def mse(model, x, y):
            return jnp.mean((predict(model, x) - y) ** 2)

        preds = predict(model, x)
        err = mse(model, x, y)
        """,
        check="""
        ref = np.stack([np.asarray(model(xi)) for xi in x])
        np.testing.assert_allclose(np.asarray(preds), ref, rtol=1e-5)
        np.testing.assert_allclose(float(err), np.mean((ref - np.array([[1.0], [0.0]])) ** 2), rtol=1e-5)
        """,
        wrong_fix="""
        model = eqx.nn.MLP(2, 1, 4, 1, key=jax.random.key(0))
        x = jnp.array([[0.5, -1.0], [1.0, 2.0]])
        y = jnp.array([[1.0], [0.0]])
        preds = jnp.zeros((2, 1))
        err = jnp.mean((preds - y) ** 2)
        """,
    ),
    case(
        "eqx-jit-step-with-jax-value-and-grad", "equinox-jit-non-array-field", setup=EQX,
        cell="""
        model = eqx.nn.MLP(2, 1, 3, 1, key=jax.random.key(1))
        x = jnp.array([[0.5, -1.0], [1.0, 2.0], [0.0, 1.0]])
        y = jnp.array([[1.0], [0.0], [0.5]])

        def loss_fn(model, x, y):
            return jnp.mean((jax.vmap(model)(x) - y) ** 2)

        @jax.jit
        def step(model, x, y):
            loss, grads = jax.value_and_grad(loss_fn)(model, x, y)
            updates = jax.tree.map(lambda g: -0.1 * g, grads)
            return eqx.apply_updates(model, updates), loss

        model0 = model
        model, loss = step(model, x, y)
        """,
        check="""
        params0, static = eqx.partition(model0, eqx.is_array)
        def ref_loss(p):
            m = eqx.combine(p, static)
            return jnp.mean((jax.vmap(m)(x) - y) ** 2)
        l0, g = jax.value_and_grad(ref_loss)(params0)
        np.testing.assert_allclose(float(loss), float(l0), rtol=1e-5)
        want = jax.tree.map(lambda p, gg: p - 0.1 * gg, params0, g)
        got = eqx.filter(model, eqx.is_array)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5)
        """,
        wrong_fix="""
        model = eqx.nn.MLP(2, 1, 3, 1, key=jax.random.key(1))
        x = jnp.array([[0.5, -1.0], [1.0, 2.0], [0.0, 1.0]])
        y = jnp.array([[1.0], [0.0], [0.5]])

        def loss_fn(model, x, y):
            return jnp.mean((jax.vmap(model)(x) - y) ** 2)

        @eqx.filter_jit
        def step(model, x, y):
            return model, loss_fn(model, x, y)

        model0 = model
        model, loss = step(model, x, y)
        """,
    ),
    # ---------------------------------------------------------------- Flax NNX layers whose sizes do not chain
    case(
        "nnx-mlp-second-layer-in-features", "flax-nnx-linear-in-features", setup=NNX,
        cell="""
        class MLP(nnx.Module):
            def __init__(self, rngs: nnx.Rngs):
                self.l1 = nnx.Linear(3, 8, rngs=rngs)
                self.l2 = nnx.Linear(4, 2, rngs=rngs)

            def __call__(self, x):
                x = nnx.relu(self.l1(x))
                return self.l2(x)

        model = MLP(nnx.Rngs(0))
        x = jnp.asarray(np.random.RandomState(0).normal(size=(5, 3)), jnp.float32)
        y = model(x)
        """,
        check="""
        k1, b1 = np.asarray(model.l1.kernel.value), np.asarray(model.l1.bias.value)
        k2, b2 = np.asarray(model.l2.kernel.value), np.asarray(model.l2.bias.value)
        assert k2.shape == (8, 2)
        ref = np.maximum(np.asarray(x) @ k1 + b1, 0) @ k2 + b2
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class MLP(nnx.Module):
            def __init__(self, rngs: nnx.Rngs):
                self.l1 = nnx.Linear(3, 8, rngs=rngs)
                self.l2 = nnx.Linear(4, 2, rngs=rngs)

            def __call__(self, x):
                x = nnx.relu(self.l1(x))
                return self.l2(x[:, :4])

        model = MLP(nnx.Rngs(0))
        x = jnp.asarray(np.random.RandomState(0).normal(size=(5, 3)), jnp.float32)
        y = model(x)
        """,
    ),
    case(
        "nnx-three-layers-two-sizes-off", "flax-nnx-linear-in-features", setup=NNX,
        cell="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.inp = nnx.Linear(in_features=4, out_features=16, rngs=rngs)
                self.hidden = nnx.Linear(in_features=8, out_features=8, rngs=rngs)
                self.out = nnx.Linear(in_features=4, out_features=1, rngs=rngs)

            def __call__(self, x):
                h = nnx.gelu(self.inp(x))
                h = nnx.gelu(self.hidden(h))
                return self.out(h)

        head = Head(nnx.Rngs(1))
        scores = head(jnp.ones((2, 4)))
        """,
        check="""
        import math
        def gelu(v):
            return np.asarray(jax.nn.gelu(jnp.asarray(v)))
        layers = [head.inp, head.hidden, head.out]
        assert [tuple(l.kernel.value.shape) for l in layers] == [(4, 16), (16, 8), (8, 1)]
        h = np.ones((2, 4))
        for i, l in enumerate(layers):
            h = h @ np.asarray(l.kernel.value) + np.asarray(l.bias.value)
            h = gelu(h) if i < 2 else h
        np.testing.assert_allclose(np.asarray(scores), h, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.inp = nnx.Linear(in_features=4, out_features=16, rngs=rngs)
                self.hidden = nnx.Linear(in_features=16, out_features=8, rngs=rngs)
                self.out = nnx.Linear(in_features=4, out_features=1, rngs=rngs)

            def __call__(self, x):
                h = nnx.gelu(self.inp(x))
                h = nnx.gelu(self.hidden(h))
                return self.out(h[:, :4])

        head = Head(nnx.Rngs(1))
        scores = head(jnp.ones((2, 4)))
        """,
    ),
    case(
        "nnx-first-layer-vs-data-declined", "flax-nnx-linear-in-features", setup=NNX, offer="none",
        cell="""
        class Classifier(nnx.Module):
            def __init__(self, rngs):
                self.fc = nnx.Linear(784, 10, rngs=rngs)

            def __call__(self, x):
                return self.fc(x)

        clf = Classifier(nnx.Rngs(0))
        logits = clf(jnp.ones((2, 28 * 28 + 1)))     # the data or the layer: which is wrong?
        """,
        check="""
        assert logits.shape == (2, 10)
        """,
        wrong_fix="""
        logits = jnp.ones((3, 10))
        """,
    ),
    # ---------------------------------------------------------------- Flax NNX dropout without the module's Rngs
    case(
        "nnx-dropout-built-without-rngs", "flax-nnx-dropout-needs-rngs", setup=NNX,
        cell="""
        class Block(nnx.Module):
            def __init__(self, din, dout, *, rngs: nnx.Rngs):
                self.lin = nnx.Linear(din, dout, rngs=rngs)
                self.drop = nnx.Dropout(0.5)

            def __call__(self, x):
                return self.drop(nnx.relu(self.lin(x)))

        block = Block(4, 64, rngs=nnx.Rngs(0))
        x = jnp.ones((8, 4))
        y = block(x)            # training mode: dropout is on
        """,
        check="""
        h = np.maximum(np.ones((8, 4)) @ np.asarray(block.lin.kernel.value) + np.asarray(block.lin.bias.value), 0)
        out = np.asarray(y)
        kept = out != 0
        assert 0.2 < 1 - kept.mean() < 0.8            # about half the activations dropped
        np.testing.assert_allclose(out[kept], h[kept] / 0.5, rtol=1e-5)
        """,
        wrong_fix="""
        class Block(nnx.Module):
            def __init__(self, din, dout, *, rngs: nnx.Rngs):
                self.lin = nnx.Linear(din, dout, rngs=rngs)
                self.drop = nnx.Dropout(0.5, deterministic=True)

            def __call__(self, x):
                return self.drop(nnx.relu(self.lin(x)))

        block = Block(4, 64, rngs=nnx.Rngs(0))
        x = jnp.ones((8, 4))
        y = block(x)
        """,
    ),
    case(
        "nnx-bare-dropout-declined", "flax-nnx-dropout-needs-rngs", setup=NNX, offer="none",
        cell="""
        drop = nnx.Dropout(0.3)
        y = drop(jnp.ones((4, 4)))
        """,
        check="""
        assert (np.asarray(y) == 0).any()
        """,
        wrong_fix="""
        y = jnp.ones((4, 4))
        """,
    ),
    # ---------------------------------------------------------------- Flax Linen initialised for another input
    case(
        "linen-init-with-mnist-dummy-on-cifar", "flax-linen-param-shape-mismatch", setup=LINEN,
        cell="""
        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                x = nn.relu(nn.Dense(32)(x))
                return nn.Dense(10)(x)

        model = MLP()
        variables = model.init(jax.random.key(0), jnp.ones((1, 784)))   # dummy batch from the MNIST notebook
        images = jnp.asarray(np.random.RandomState(0).normal(size=(8, 3072)), jnp.float32)

        @jax.jit
        def predict(variables, x):
            return model.apply(variables, x)

        logits = predict(variables, images)
        """,
        check="""
        p = variables["params"]
        k0, b0 = np.asarray(p["Dense_0"]["kernel"]), np.asarray(p["Dense_0"]["bias"])
        k1, b1 = np.asarray(p["Dense_1"]["kernel"]), np.asarray(p["Dense_1"]["bias"])
        assert k0.shape == (3072, 32)
        ref = np.maximum(np.asarray(images) @ k0 + b0, 0) @ k1 + b1
        np.testing.assert_allclose(np.asarray(logits), ref, rtol=1e-4, atol=1e-4)
        """,
        wrong_fix="""
        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                x = nn.relu(nn.Dense(32)(x))
                return nn.Dense(10)(x)

        model = MLP()
        variables = model.init(jax.random.key(0), jnp.ones((1, 784)))
        images = jnp.asarray(np.random.RandomState(0).normal(size=(8, 3072)), jnp.float32)

        @jax.jit
        def predict(variables, x):
            return model.apply(variables, x[:, :784])

        logits = predict(variables, images)
        """,
    ),
    case(
        "linen-params-of-another-width-declined", "flax-linen-param-shape-mismatch", setup=LINEN, offer="none",
        cell="""
        old = nn.Dense(4).init(jax.random.key(0), jnp.ones((1, 3)))   # saved before the layer was widened
        layer = nn.Dense(6)
        out = layer.apply(old, jnp.ones((2, 3)))
        """,
        check="""
        assert out.shape == (2, 6)
        """,
        wrong_fix="""
        out = jnp.zeros((2, 4))
        """,
    ),
    # ---------------------------------------------------------------- a spec naming an axis the mesh lacks
    case(
        "partitionspec-batch-vs-data-axis", "partitionspec-axis-not-in-mesh", setup=SETUP,
        cell="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((4,), ("data",))
        batch = jnp.arange(16.0).reshape(8, 2)
        sharded = jax.device_put(batch, NamedSharding(mesh, P("batch", None)))
        col_means = jax.jit(lambda b: b.mean(axis=0))(sharded)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(col_means), np.arange(16.0).reshape(8, 2).mean(0))
        assert len(sharded.sharding.device_set) == 4
        """,
        wrong_fix="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((4,), ("data",))
        batch = jnp.arange(16.0).reshape(8, 2)
        sharded = jax.device_put(batch, jax.devices()[0])
        col_means = jax.jit(lambda b: b.mean(axis=0))(sharded)
        """,
    ),
    case(
        "shard-map-specs-typo-axis", "shard-map-out-specs-non-manual-axis", setup=SETUP,
        cell="""
        from jax.sharding import Mesh, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()), ("devices",))

        def local_sum(x):
            return jax.lax.psum(x.sum(keepdims=True), "devices")

        total = jax.shard_map(local_sum, mesh=mesh, in_specs=P("device"), out_specs=P())(jnp.arange(8.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(total), [28.0])
        """,
        wrong_fix="""
        from jax.sharding import Mesh, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()), ("devices",))
        total = jnp.array([jnp.arange(8.0)[:2].sum()])
        """,
    ),
    case(
        "specs-from-2d-mesh-on-1d-mesh", "partitionspec-axis-not-in-mesh", setup=SETUP,
        cell="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((4,), ("data",))          # was (2, 2) with ("data", "model") on the pod
        x = jax.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(mesh, P("data", "model")))
        w = jax.device_put(jnp.ones((4, 3)), NamedSharding(mesh, P(None, "model")))
        y = jax.jit(jnp.matmul)(x, w)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.arange(32.0).reshape(8, 4) @ np.ones((4, 3)))
        assert len(x.sharding.device_set) == 4
        """,
        wrong_fix="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((4,), ("data",))
        x = jnp.arange(32.0).reshape(8, 4)
        w = jnp.ones((4, 3))
        y = jax.jit(jnp.matmul)(x, w)
        """,
    ),
    case(
        "spec-axis-ambiguous-on-2d-mesh", "partitionspec-axis-not-in-mesh", setup=SETUP, offer="none",
        cell="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((2, 2), ("x", "y"))
        batch = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("batch", None)))
        """,
        check="""
        assert batch.sharding.spec[0] in ("x", "y", ("x", "y"))
        """,
        wrong_fix="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((2, 2), ("x", "y"))
        batch = jnp.ones((8, 4))
        """,
    ),
    # ---------------------------------------------------------------- one mesh axis on two dimensions of a spec
    case(
        "spec-same-axis-both-dims-of-weight", "partitionspec-duplicate-mesh-axis", setup=SETUP,
        cell="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((2, 2), ("data", "model"))
        w = jax.device_put(jnp.arange(16.0).reshape(4, 4), NamedSharding(mesh, P("model", "model")))
        x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data", None)))
        y = jax.jit(lambda x, w: jnp.tanh(x @ w / 10))(x, w)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.tanh(np.ones((8, 4)) @ np.arange(16.0).reshape(4, 4) / 10),
                                   rtol=1e-6)
        assert "model" in tuple(w.sharding.spec) and len(w.sharding.device_set) == 4
        """,
        wrong_fix="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((2, 2), ("data", "model"))
        w = jax.device_put(jnp.arange(16.0).reshape(4, 4), NamedSharding(mesh, P(None, None)))
        x = jax.device_put(jnp.ones((8, 4)), NamedSharding(mesh, P("data", None)))
        y = jax.jit(lambda x, w: jnp.tanh(x @ w / 10))(x, w)
        """,
    ),
    case(
        "spec-same-axis-twice-in-shard-map", "partitionspec-duplicate-mesh-axis", setup=SETUP, offer="none",
        cell="""
        from jax.sharding import NamedSharding, PartitionSpec as P

        mesh = jax.make_mesh((2, 2), ("x", "y"))

        def blockwise(a):
            return a * 2

        a = jax.device_put(jnp.ones((4, 4)), NamedSharding(mesh, P("x", "x")))
        out = jax.shard_map(blockwise, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))(a)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), 2 * np.ones((4, 4)))
        """,
        wrong_fix="""
        out = jnp.ones((4, 4))
        """,
    ),
    case(
        "shard-map-spec-and-psum-old-axis-name", "shard-map-out-specs-non-manual-axis", setup=SETUP,
        cell="""
        from jax.sharding import Mesh, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()), ("batch",))

        def mean_loss(pred, target):
            local = jnp.sum((pred - target) ** 2)
            return jax.lax.psum(local, "i") / 8.0        # "i" as in the old pmap code

        loss = jax.shard_map(mean_loss, mesh=mesh, in_specs=(P("i"), P("i")), out_specs=P())(
            jnp.arange(8.0), jnp.ones(8))
        """,
        check="""
        np.testing.assert_allclose(float(loss), np.mean((np.arange(8.0) - 1.0) ** 2), rtol=1e-6)
        """,
        wrong_fix="""
        from jax.sharding import Mesh, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()), ("batch",))

        def mean_loss(pred, target):
            return jnp.sum((pred - target) ** 2) / 8.0

        loss = jax.shard_map(mean_loss, mesh=mesh, in_specs=(P("batch"), P("batch")), out_specs=P("batch"))(
            jnp.arange(8.0), jnp.ones(8)).sum() / 4
        """,
    ),
]

# ---------------------------------------------------------------------------------------- siblings (issue #17)
SIBLINGS = [
    case(
        "scan-body-appends-two-histories", "unexpected-tracer-leak", setup=SETUP,
        cell="""
        xs_hist, gain_hist = [], []

        def kalman_step(x, z):
            gain = 0.5 / (1.0 + 0.1 * x ** 2)
            x = x + gain * (z - x)
            xs_hist.append(x)
            gain_hist.append(gain)
            return x, None

        z = jnp.array([1.0, 1.2, 0.9, 1.1])
        x_final, _ = jax.lax.scan(kalman_step, jnp.float32(0.0), z)
        est = jnp.stack(xs_hist)
        gains = jnp.stack(gain_hist)
        """,
        check="""
        x, E, G = 0.0, [], []
        for zi in [1.0, 1.2, 0.9, 1.1]:
            g = 0.5 / (1.0 + 0.1 * x ** 2)
            x = x + g * (zi - x)
            E.append(x)
            G.append(g)
        np.testing.assert_allclose(np.asarray(est), E, rtol=1e-5)
        np.testing.assert_allclose(np.asarray(gains), G, rtol=1e-5)
        """,
        wrong_fix="""
        xs_hist, gain_hist = [], []

        def kalman_step(x, z):
            gain = 0.5 / (1.0 + 0.1 * x ** 2)
            x = x + gain * (z - x)
            return x, x

        z = jnp.array([1.0, 1.2, 0.9, 1.1])
        x_final, est = jax.lax.scan(kalman_step, jnp.float32(0.0), z)
        gains = jnp.zeros(4)
        """,
    ),
]

CASES = TREES + LEAKS + DONATION + ECOSYSTEM + SIBLINGS
