"""Shapes (matmul, broadcasting), pytree structure mismatches, leaked tracers and donated buffers."""

import textwrap

from rewrite_cases import case


def _s(*parts: str) -> str:
    """Setup from pieces written at different indents."""
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

RNG = """
rng = np.random.default_rng(0)
"""

MATMUL = [
    case(
        "mlp-second-layer-stored-out-in", "dot-general-contracting-mismatch", setup=_s(SETUP, RNG, """
        x_np = rng.normal(size=(4, 3)).astype(np.float32)
        params = {"w1": jnp.asarray(rng.normal(size=(3, 5)), jnp.float32),
                  "w2": jnp.asarray(rng.normal(size=(2, 5)), jnp.float32)}   # torch-style (out, in)
        """),
        cell="""
        @jax.jit
        def mlp(params, x):
            h = jnp.tanh(x @ params["w1"])
            return h @ params["w2"]      # logits

        logits = mlp(params, jnp.asarray(x_np))
        """,
        check="""
        w1, w2 = np.asarray(params["w1"]), np.asarray(params["w2"])
        ref = np.tanh(x_np @ w1) @ w2.T
        assert logits.shape == (4, 2)
        np.testing.assert_allclose(np.asarray(logits), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def mlp(params, x):
            h = jnp.tanh(x @ params["w1"])
            return h @ params["w2"].reshape(5, 2)

        logits = mlp(params, jnp.asarray(x_np))
        """,
    ),
    case(
        "linear-module-call", "dot-general-contracting-mismatch", setup=_s(SETUP, RNG),
        cell="""
        class Linear:
            def __init__(self, n_in, n_out, seed=0):
                k = np.random.default_rng(seed)
                self.W = jnp.asarray(k.normal(size=(n_out, n_in)), jnp.float32)
                self.b = jnp.zeros(n_out)

            def __call__(self, x):
                return x @ self.W + self.b

        layer = Linear(3, 2)
        batch = jnp.asarray(rng.normal(size=(5, 3)), jnp.float32)
        out = layer(batch)
        """,
        check="""
        ref = np.asarray(batch) @ np.asarray(layer.W).T
        assert out.shape == (5, 2)
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Linear:
            def __init__(self, n_in, n_out, seed=0):
                k = np.random.default_rng(seed)
                self.W = jnp.asarray(k.normal(size=(n_out, n_in)), jnp.float32)
                self.b = jnp.zeros(n_out)

            def __call__(self, x):
                return x @ self.W.reshape(3, 2) + self.b

        layer = Linear(3, 2)
        batch = jnp.asarray(rng.normal(size=(5, 3)), jnp.float32)
        out = layer(batch)
        """,
    ),
    case(
        "vmapped-per-example-projection", "dot-general-contracting-mismatch", setup="""
        import numpy as np
        import jax
        from jax import numpy as jnp
        rng = np.random.default_rng(1)
        proj = jnp.asarray(rng.normal(size=(2, 6)), jnp.float32)   # (out, in)
        feats = jnp.asarray(rng.normal(size=(7, 6)), jnp.float32)
        """,
        cell="""
        def embed(f):
            z = f @ proj
            return z / jnp.linalg.norm(z)

        emb = jax.vmap(embed)(feats)
        """,
        check="""
        z = np.asarray(feats) @ np.asarray(proj).T
        ref = z / np.linalg.norm(z, axis=1, keepdims=True)
        np.testing.assert_allclose(np.asarray(emb), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        def embed(f):
            z = f @ proj.reshape(6, 2)
            return z / jnp.linalg.norm(z)

        emb = jax.vmap(embed)(feats)
        """,
    ),
    case(
        "jnp-dot-regression-weights", "dot-general-contracting-mismatch", setup="""
        import numpy as np
        import jax
        rng = np.random.default_rng(2)
        X = jax.numpy.asarray(rng.normal(size=(10, 4)), jax.numpy.float32)
        """,
        cell="""
        W_true = jax.numpy.asarray(np.arange(12).reshape(3, 4) / 10.0, jax.numpy.float32)  # (targets, features)
        Y = jax.numpy.dot(X, W_true)
        """,
        check="""
        ref = np.asarray(X) @ (np.arange(12).reshape(3, 4) / 10.0).T
        assert Y.shape == (10, 3)
        np.testing.assert_allclose(np.asarray(Y), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        W_true = jax.numpy.asarray(np.arange(12).reshape(4, 3) / 10.0, jax.numpy.float32)
        Y = jax.numpy.dot(X, W_true)
        """,
    ),
    case(
        "layer-stack-loop", "dot-general-contracting-mismatch", setup=_s(SETUP, RNG, """
        sizes = [3, 8, 8, 2]
        weights = [jnp.asarray(rng.normal(size=(o, i)) / np.sqrt(i), jnp.float32) for i, o in zip(sizes[:-1], sizes[1:])]
        """),
        cell="""
        # forward pass through the stack (weights are (out, in), like the paper)
        h = jnp.ones((4, 3))
        for W in weights:
            h = jax.nn.relu(jnp.matmul(h, W))
        """,
        check="""
        ref = np.ones((4, 3))
        for w in weights:
            ref = np.maximum(ref @ np.asarray(w).T, 0)
        np.testing.assert_allclose(np.asarray(h), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        h = jnp.ones((4, 3))
        for W in weights:
            h = jax.nn.relu(jnp.matmul(h, W.reshape(W.shape[1], W.shape[0])))
        """,
    ),
    case(
        "attention-scores-ambiguous", "dot-general-contracting-mismatch", setup=_s(SETUP, RNG, """
        q = jnp.asarray(rng.normal(size=(2, 5, 3)), jnp.float32)
        k = jnp.asarray(rng.normal(size=(2, 5, 3)), jnp.float32)
        """),
        cell="""
        # both q and k are (batch, time, dim): which one to transpose is not a shape question
        scores = jax.nn.softmax(q @ k / jnp.sqrt(3.0), axis=-1)
        """,
        check="""
        s = np.einsum("btd,bsd->bts", np.asarray(q), np.asarray(k)) / np.sqrt(3.0)
        e = np.exp(s - s.max(-1, keepdims=True))
        np.testing.assert_allclose(np.asarray(scores), e / e.sum(-1, keepdims=True), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        scores = jax.nn.softmax(jnp.swapaxes(q, -1, -2) @ k / jnp.sqrt(3.0), axis=-1)
        """,
    ),
]

BROADCAST = [
    case(
        "standardize-rows-mean", "broadcast-shapes-incompatible", setup=_s(SETUP, RNG, """
        data = rng.normal(size=(3, 5)).astype(np.float32)
        """),
        cell="""
        x = jnp.asarray(data)
        centered = x - x.mean(axis=1)   # remove each row's mean
        """,
        check="""
        np.testing.assert_allclose(np.asarray(centered), data - data.mean(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        x = jnp.asarray(data)
        centered = x - x.mean(axis=0)
        """,
    ),
    case(
        "normalize-rows-in-jit", "broadcast-shapes-incompatible", setup=_s(SETUP, RNG, """
        vecs = rng.normal(size=(4, 6)).astype(np.float32)
        """),
        cell="""
        @jax.jit
        def unit_rows(v):
            return v / jnp.linalg.norm(v, axis=1)

        u = unit_rows(vecs)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(u), vecs / np.linalg.norm(vecs, axis=1, keepdims=True), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def unit_rows(v):
            return v / jnp.linalg.norm(v)

        u = unit_rows(vecs)
        """,
    ),
    case(
        "log-softmax-by-hand", "broadcast-shapes-incompatible", setup="""
        import numpy as np
        import jax
        from jax.nn import logsumexp
        import jax.numpy as jnp
        logits = jnp.asarray(np.random.default_rng(3).normal(size=(4, 10)), jnp.float32)
        """,
        cell="""
        def log_probs(logits):
            return logits - logsumexp(logits, axis=-1)

        lp = jax.jit(log_probs)(logits)
        """,
        check="""
        z = np.asarray(logits, np.float64)
        ref = z - np.log(np.exp(z).sum(-1, keepdims=True))
        np.testing.assert_allclose(np.asarray(lp), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        def log_probs(logits):
            return logits - logsumexp(logits)

        lp = jax.jit(log_probs)(logits)
        """,
    ),
    case(
        "per-sample-weights-loss", "broadcast-shapes-incompatible", setup=_s(SETUP, RNG, """
        preds = jnp.asarray(rng.normal(size=(6, 3)), jnp.float32)
        targets = jnp.asarray(rng.normal(size=(6, 3)), jnp.float32)
        sample_w = jnp.asarray(rng.uniform(size=6), jnp.float32)
        """),
        cell="""
        def weighted_mse(preds, targets, w):
            sq = (preds - targets) ** 2          # (batch, outputs)
            return jnp.mean(w * sq)

        loss = jax.jit(weighted_mse)(preds, targets, sample_w)
        """,
        check="""
        p, t, w = (np.asarray(a, np.float64) for a in (preds, targets, sample_w))
        np.testing.assert_allclose(float(loss), np.mean(w[:, None] * (p - t) ** 2), rtol=1e-5)
        """,
        wrong_fix="""
        def weighted_mse(preds, targets, w):
            sq = (preds - targets) ** 2
            return jnp.mean(w.mean() * sq)

        loss = jax.jit(weighted_mse)(preds, targets, sample_w)
        """,
    ),
    case(
        "sequence-mask-3d", "broadcast-shapes-incompatible", setup=_s(SETUP, RNG, """
        tokens = jnp.asarray(rng.normal(size=(2, 5, 4)), jnp.float32)   # (batch, time, features)
        lengths = np.array([3, 5])
        """),
        cell="""
        mask = (jnp.arange(5)[None, :] < lengths[:, None]).astype(jnp.float32)   # (batch, time)
        pooled = (tokens * mask).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        """,
        check="""
        t = np.asarray(tokens)
        ref = np.stack([t[0, :3].mean(0), t[1, :5].mean(0)])
        np.testing.assert_allclose(np.asarray(pooled), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        mask = (jnp.arange(5)[None, :] < lengths[:, None]).astype(jnp.float32)
        pooled = (tokens * mask.mean()).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        """,
    ),
    case(
        "vmap-time-weights", "broadcast-shapes-incompatible", setup=_s(SETUP, RNG, """
        series = jnp.asarray(rng.normal(size=(3, 4, 2)), jnp.float32)   # (batch, time, channels)
        decay = jnp.asarray(0.5 ** np.arange(4), jnp.float32)          # one weight per time step
        """),
        cell="""
        def smooth(seq):
            return (seq * decay).sum(axis=0) / decay.sum()

        summary = jax.vmap(smooth)(series)
        """,
        check="""
        d = 0.5 ** np.arange(4)
        ref = (np.asarray(series) * d[None, :, None]).sum(1) / d.sum()
        np.testing.assert_allclose(np.asarray(summary), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        def smooth(seq):
            return (seq * decay.mean()).sum(axis=0) / decay.sum()

        summary = jax.vmap(smooth)(series)
        """,
    ),
    case(
        "integer-labels-times-log-probs", "broadcast-shapes-incompatible", setup=_s(SETUP, """
        logits = jnp.asarray(np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3], [0.25, 0.25, 0.5]])), jnp.float32)
        labels = jnp.array([0, 2, 1, 2])
        """),
        cell="""
        # integer labels need one-hot encoding, not a new axis: no rewrite should guess here
        log_p = jax.nn.log_softmax(logits)
        nll = -(labels * log_p).sum(axis=-1).mean()
        """,
        check="""
        p = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3], [0.25, 0.25, 0.5]])
        ref = -np.mean(np.log(p[np.arange(4), [0, 2, 1, 2]]))
        np.testing.assert_allclose(float(nll), ref, rtol=1e-5)
        """,
        wrong_fix="""
        log_p = jax.nn.log_softmax(logits)
        nll = -(labels[:, None] * log_p).sum(axis=-1).mean()
        """,
    ),
    case(
        "image-minus-transposed-template", "binary-op-incompatible-shapes", setup=_s(SETUP, """
        template = jnp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))   # loaded column-major: (W, H)
        """),
        cell="""
        img = jnp.arange(12.0).reshape(3, 4) / 2   # (H, W)
        residual = jnp.abs(img - template).sum()
        """,
        check="""
        ref = np.abs(np.arange(12.0).reshape(3, 4) / 2 - np.arange(12).reshape(4, 3).T).sum()
        np.testing.assert_allclose(float(residual), ref, rtol=1e-6)
        """,
        wrong_fix="""
        img = jnp.arange(12.0).reshape(3, 4) / 2
        residual = jnp.abs(img - template.reshape(3, 4)).sum()
        """,
    ),
    case(
        "row-bias-given-as-row-vector", "binary-op-incompatible-shapes", setup=_s(SETUP, """
        acts = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
        """),
        cell="""
        @jax.jit
        def shift(a, bias):
            return jnp.maximum(a + bias, 0.0)

        row_bias = jnp.array([[1.0, -5.0, 2.0]])     # one bias per row
        shifted = shift(acts, row_bias)
        """,
        check="""
        ref = np.maximum(np.arange(12).reshape(3, 4) + np.array([[1.0], [-5.0], [2.0]]), 0)
        np.testing.assert_allclose(np.asarray(shifted), ref)
        """,
        wrong_fix="""
        @jax.jit
        def shift(a, bias):
            return jnp.maximum(a + bias.mean(), 0.0)

        row_bias = jnp.array([[1.0, -5.0, 2.0]])
        shifted = shift(acts, row_bias)
        """,
    ),
    case(
        "vmapped-clip-transposed-bounds", "binary-op-incompatible-shapes", setup=_s(SETUP, """
        frames = jnp.asarray(np.arange(24.0).reshape(2, 3, 4) - 10.0)     # (batch, height, width)
        floor = jnp.asarray(np.tile(np.array([-2.0, 0.0, 1.0]), (4, 1)))  # built as (width, height)
        """),
        cell="""
        def rectify(frame):
            return jnp.maximum(frame, floor)

        out = jax.vmap(rectify)(frames)
        """,
        check="""
        f = np.arange(24.0).reshape(2, 3, 4) - 10.0
        ref = np.maximum(f, np.array([-2.0, 0.0, 1.0])[:, None])
        np.testing.assert_allclose(np.asarray(out), ref)
        """,
        wrong_fix="""
        def rectify(frame):
            return jnp.maximum(frame, floor.reshape(3, 4))

        out = jax.vmap(rectify)(frames)
        """,
    ),
    case(
        "different-data-lengths", "binary-op-incompatible-shapes", setup=_s(SETUP, """
        y_true = jnp.arange(5.0)
        """),
        cell="""
        y_pred = jnp.arange(4.0) * 1.1    # one prediction short: no rewrite can know which one
        mse = jnp.mean((y_pred - y_true) ** 2)
        """,
        check="""
        assert mse.shape == ()
        np.testing.assert_allclose(float(mse), np.mean((np.arange(5.0) * 1.1 - np.arange(5.0)) ** 2), rtol=1e-5)
        """,
        wrong_fix="""
        y_pred = jnp.arange(4.0) * 1.1
        mse = jnp.mean((y_pred - y_true[:4]) ** 2)
        """,
    ),
]

TREES = [
    case(
        "adam-init-on-whole-variables", "tree-map-dict-keys-mismatch", setup=_s(SETUP, """
        import optax
        variables = {"params": {"w": jnp.zeros(2), "b": jnp.zeros(())}, "batch_stats": {"m": jnp.zeros(2)}}
        X = jnp.asarray(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]))
        T = jnp.array([1.0, 2.0, 0.0])
        """),
        cell="""
        opt = optax.sgd(0.1, momentum=0.5)
        state = opt.init(variables)

        def loss(p):
            return jnp.mean((X @ p["w"] + p["b"] - T) ** 2)

        p = variables["params"]
        for _ in range(3):
            g = jax.grad(loss)(p)
            upd, state = opt.update(g, state)
            p = optax.apply_updates(p, upd)
        """,
        check="""
        Xn, Tn, w, b = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1.0, 2.0, 0.0]), np.zeros(2), 0.0
        tw, tb = np.zeros(2), 0.0
        for _ in range(3):
            r = Xn @ w + b - Tn
            tw, tb = 2 * Xn.T @ r / 3 + 0.5 * tw, 2 * r.mean() + 0.5 * tb
            w, b = w - 0.1 * tw, b - 0.1 * tb
        np.testing.assert_allclose(np.asarray(p["w"]), w, rtol=1e-5)
        np.testing.assert_allclose(float(p["b"]), b, rtol=1e-5)
        """,
        wrong_fix="""
        p = variables["params"]
        """,
    ),
    case(
        "particles-list-vs-stacked-kicks", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        particles = [jnp.full(3, float(i)) for i in range(5)]
        """),
        cell="""
        kicks = jnp.asarray(np.arange(15.0).reshape(5, 3)) * 0.1
        moved = jax.tree.map(lambda p, k: p + k, particles, kicks)
        centre = jnp.mean(jnp.stack(moved), axis=0)
        """,
        check="""
        P = np.repeat(np.arange(5.0)[:, None], 3, axis=1) + np.arange(15.0).reshape(5, 3) * 0.1
        np.testing.assert_allclose(np.asarray(centre), P.mean(0), rtol=1e-6)
        assert len(moved) == 5
        """,
        wrong_fix="""
        kicks = jnp.asarray(np.arange(15.0).reshape(5, 3)) * 0.1
        moved = jax.tree.map(lambda p: p + kicks[0], particles)
        centre = jnp.mean(jnp.stack(moved), axis=0)
        """,
    ),
    case(
        "namedtuple-state-vs-dict-grads", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        from typing import NamedTuple

        class Line(NamedTuple):
            slope: jax.Array
            offset: jax.Array

        line = Line(jnp.array(0.0), jnp.array(0.0))
        xs = jnp.linspace(0.0, 1.0, 5)
        """),
        cell="""
        def err(p):
            return jnp.mean((p["slope"] * xs + p["offset"] - (2 * xs + 1)) ** 2)

        for _ in range(3):
            g = jax.grad(err)({"slope": line.slope, "offset": line.offset})
            line = jax.tree.map(lambda p, d: p - 0.3 * d, line, g)
        """,
        check="""
        xn = np.linspace(0.0, 1.0, 5)
        a, c = 0.0, 0.0
        for _ in range(3):
            r = a * xn + c - (2 * xn + 1)
            a, c = a - 0.3 * np.mean(2 * r * xn), c - 0.3 * np.mean(2 * r)
        assert type(line).__name__ == "Line"
        np.testing.assert_allclose([float(line.slope), float(line.offset)], [a, c], rtol=1e-5)
        """,
        wrong_fix="""
        def err(p):
            return jnp.mean((p["slope"] * xs + p["offset"] - (2 * xs + 1)) ** 2)

        for _ in range(3):
            g = jax.grad(err)({"slope": line.slope, "offset": line.offset})
            line = Line(*jax.tree.map(lambda p, d: p - 0.3 * d, tuple(line), tuple(g.values())))
        """,
    ),
    case(
        "adam-moments-lists-of-lists-vs-layer-tuples", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        layers = [(jnp.ones((2, 3)), jnp.zeros(3)), (jnp.ones((3, 1)), jnp.zeros(1))]
        """),
        cell="""
        m = [[jnp.zeros_like(k), jnp.zeros_like(c)] for k, c in layers]
        g = jax.tree.map(lambda p: 0.5 * p + 1.0, layers)
        m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
        """,
        check="""
        assert jax.tree.structure(m) == jax.tree.structure(layers)
        np.testing.assert_allclose(np.asarray(m[0][0]), np.full((2, 3), 0.15))
        np.testing.assert_allclose(np.asarray(m[1][1]), np.full(1, 0.1))
        """,
        wrong_fix="""
        m = [[jnp.zeros_like(k), jnp.zeros_like(c)] for k, c in layers]
        g = jax.tree.map(lambda p: 0.5 * p + 1.0, layers)
        m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, jax.tree.leaves(m), jax.tree.leaves(g))
        """,
    ),
    case(
        "ema-against-whole-variables-dict", "tree-map-dict-keys-mismatch", setup=_s(SETUP, """
        variables = {"params": {"w": jnp.ones(3), "b": jnp.zeros(())}, "stats": {"mean": jnp.zeros(3)}}
        """),
        cell="""
        shadow = jax.tree.map(jnp.copy, variables["params"])
        for _ in range(2):
            variables = {**variables, "params": jax.tree.map(lambda p: p + 1.0, variables["params"])}
            shadow = jax.tree.map(lambda s, p: 0.5 * s + 0.5 * p, shadow, variables)
        """,
        check="""
        s_w, s_b, w, b = 1.0, 0.0, 1.0, 0.0
        for _ in range(2):
            w, b = w + 1.0, b + 1.0
            s_w, s_b = 0.5 * s_w + 0.5 * w, 0.5 * s_b + 0.5 * b
        assert set(shadow) == {"w", "b"}
        np.testing.assert_allclose(np.asarray(shadow["w"]), np.full(3, s_w))
        np.testing.assert_allclose(float(shadow["b"]), s_b)
        """,
        wrong_fix="""
        shadow = jax.tree.map(jnp.copy, variables["params"])
        for _ in range(2):
            variables = {**variables, "params": jax.tree.map(lambda p: p + 1.0, variables["params"])}
            shadow = jax.tree.map(lambda s: 0.5 * s, shadow)
        """,
    ),
    case(
        "grad-sum-state-built-from-whole-variables", "tree-map-dict-missing-key", setup=_s(SETUP, """
        variables = {"params": {"w": jnp.ones(3), "b": jnp.zeros(())}}
        X = jnp.asarray(np.arange(6.0).reshape(2, 3))
        """),
        cell="""
        class GradSum:
            def __init__(self, tree):
                self.sum = jax.tree.map(jnp.zeros_like, tree)

            def add(self, g):
                self.sum = jax.tree.map(lambda a, b: a + b, self.sum, g)

        def loss(p, x):
            return jnp.sum(x @ p["w"] + p["b"])

        acc = GradSum(variables)
        for i in range(2):
            acc.add(jax.grad(loss)(variables["params"], X[i]))
        total = acc.sum
        """,
        check="""
        np.testing.assert_allclose(np.asarray(total["w"]), np.arange(6.0).reshape(2, 3).sum(0))
        np.testing.assert_allclose(float(total["b"]), 2.0)
        """,
        wrong_fix="""
        total = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        """,
    ),
    case(
        "sgd-with-a-frozen-entry", "tree-map-dict-missing-key", setup=_s(SETUP, """
        params = {"w": jnp.array([1.0, -1.0]), "b": jnp.array(0.5), "temperature": jnp.array(2.0)}
        X = jnp.asarray(np.array([[1.0, 2.0], [0.0, 1.0]]))
        """),
        cell="""
        def loss(trainable, temperature):
            return jnp.sum((X @ trainable["w"] + trainable["b"]) / temperature)

        trainable = {"w": params["w"], "b": params["b"]}
        g = jax.grad(loss)(trainable, params["temperature"])
        params = jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
        """,
        check="""
        Xn = np.array([[1.0, 2.0], [0.0, 1.0]])
        np.testing.assert_allclose(np.asarray(params["w"]), np.array([1.0, -1.0]) - 0.1 * Xn.sum(0) / 2.0, rtol=1e-6)
        np.testing.assert_allclose(float(params["b"]), 0.5 - 0.1 * 2 / 2.0, rtol=1e-6)
        np.testing.assert_allclose(float(params["temperature"]), 2.0)
        """,
        wrong_fix="""
        def loss(trainable, temperature):
            return jnp.sum((X @ trainable["w"] + trainable["b"]) / temperature)

        trainable = {"w": params["w"], "b": params["b"]}
        g = jax.grad(loss)(trainable, params["temperature"])
        params = jax.tree.map(lambda p, d: p - 0.1 * d, trainable, g)
        """,
    ),
    case(
        "momentum-literal-missing-entry-params-from-earlier-cell", "tree-map-dict-missing-key", setup=_s(SETUP, """
        params = {"w": jnp.ones(2), "b": jnp.zeros(()), "scale": jnp.ones(())}
        """),
        cell="""
        mom = {"w": jnp.zeros(2), "b": jnp.zeros(())}

        def loss(p):
            return jnp.sum(p["scale"] * p["w"] + p["b"])

        for _ in range(2):
            grads = jax.grad(loss)(params)
            mom = jax.tree.map(lambda v, g: 0.9 * v + g, mom, grads)
            params = jax.tree.map(lambda p, v: p - 0.1 * v, params, mom)
        """,
        check="""
        w, b, s, vw, vb, vs = 1.0, 0.0, 1.0, 0.0, 0.0, 0.0
        for _ in range(2):
            gw, gb, gs = s, 1.0, 2 * w
            vw, vb, vs = 0.9 * vw + gw, 0.9 * vb + gb, 0.9 * vs + gs
            w, b, s = w - 0.1 * vw, b - 0.1 * vb, s - 0.1 * vs
        np.testing.assert_allclose(np.asarray(params["w"]), np.full(2, w), rtol=1e-6)
        np.testing.assert_allclose(float(params["scale"]), s, rtol=1e-6)
        """,
        wrong_fix="""
        mom = {"w": jnp.zeros(2), "b": jnp.zeros(())}

        def loss(p):
            return jnp.sum(p["scale"] * p["w"] + p["b"])

        for _ in range(2):
            grads = jax.grad(loss)(params)
            mom = jax.tree.map(lambda v, g: 0.9 * v + g, mom, {k: grads[k] for k in mom})
            params = {**params, **jax.tree.map(lambda p, v: p - 0.1 * v, {k: params[k] for k in mom}, mom)}
        """,
    ),
    case(
        "ema-state-renamed-keys-model-of-two-inits", "tree-map-dict-keys-mismatch", setup=SETUP,
        cell="""
        weights = {"enc": {"W": jnp.ones((2, 3)), "bias": jnp.zeros(3)},
                   "dec": {"W": jnp.ones((3, 2)), "bias": jnp.zeros(2)}}
        avg = {"enc": {"kernel": jnp.zeros((2, 3)), "b": jnp.zeros(3)},
               "dec": {"kernel": jnp.zeros((3, 2)), "b": jnp.zeros(2)}}
        for _ in range(3):
            weights = jax.tree.map(lambda w: w * 0.5, weights)
            avg = jax.tree.map(lambda a, w: 0.8 * a + 0.2 * w, avg, weights)
        """,
        check="""
        a_w, a_b, w_w, w_b = 0.0, 0.0, 1.0, 0.0
        for _ in range(3):
            w_w, w_b = w_w * 0.5, w_b * 0.5
            a_w, a_b = 0.8 * a_w + 0.2 * w_w, 0.8 * a_b + 0.2 * w_b
        assert jax.tree.structure(avg) == jax.tree.structure(weights)
        np.testing.assert_allclose(np.asarray(avg["enc"]["W"]), np.full((2, 3), a_w), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(avg["dec"]["bias"]), np.full(2, a_b), rtol=1e-6)
        """,
        wrong_fix="""
        weights = {"enc": {"W": jnp.ones((2, 3)), "bias": jnp.zeros(3)},
                   "dec": {"W": jnp.ones((3, 2)), "bias": jnp.zeros(2)}}
        avg = jax.tree.map(jnp.ones_like, weights)
        for _ in range(3):
            weights = jax.tree.map(lambda w: w * 0.5, weights)
            avg = jax.tree.map(lambda a, w: 0.8 * a + 0.2 * w, avg, weights)
        """,
    ),
    case(
        "grad-wrt-batch-dict", "tree-map-dict-keys-mismatch", setup=_s(SETUP, """
        params = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array(0.1)}
        batch = {"x": jnp.asarray(np.arange(12.0).reshape(4, 3) / 10), "y": jnp.array([1.0, 0.0, 2.0, 1.0])}
        """),
        cell="""
        def loss_fn(params, batch):
            pred = batch["x"] @ params["w"] + params["b"]
            return jnp.mean((pred - batch["y"]) ** 2)

        grads = jax.grad(loss_fn, argnums=1)(params, batch)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        """,
        check="""
        X, y = np.arange(12.0).reshape(4, 3) / 10, np.array([1.0, 0.0, 2.0, 1.0])
        w, b = np.array([0.5, -1.0, 2.0]), 0.1
        r = X @ w + b - y
        gw, gb = 2 * X.T @ r / 4, 2 * r.mean()
        np.testing.assert_allclose(np.asarray(params["w"]), w - 0.1 * gw, rtol=1e-5)
        np.testing.assert_allclose(float(params["b"]), b - 0.1 * gb, rtol=1e-5)
        """,
        wrong_fix="""
        def loss_fn(params, batch):
            pred = batch["x"] @ params["w"] + params["b"]
            return jnp.mean((pred - batch["y"]) ** 2)

        grads = jax.grad(loss_fn, argnums=1)(params, batch)
        params = jax.tree.map(lambda p: p - 0.1, params)
        """,
    ),
    case(
        "jitted-update-value-and-grad-argnums", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        params = {"w1": jnp.array([[0.5], [-0.3]]), "b1": jnp.array([0.1]), "w2": jnp.array([[1.5]])}
        xs = jnp.array([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0]])
        ys = jnp.array([[1.0], [0.0], [0.5]])
        """),
        cell="""
        def loss(params, x, y):
            h = jnp.tanh(x @ params["w1"] + params["b1"])
            return jnp.mean((h @ params["w2"] - y) ** 2)

        @jax.jit
        def update(params, x, y):
            value, grads = jax.value_and_grad(loss, argnums=2)(params, x, y)
            new = jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)
            return new, value

        params, value = update(params, xs, ys)
        """,
        check="""
        def ref_loss(w1, b1, w2):
            h = np.tanh(np.asarray(xs) @ w1 + b1)
            return np.mean((h @ w2 - np.asarray(ys)) ** 2)
        w1, b1, w2 = np.array([[0.5], [-0.3]]), np.array([0.1]), np.array([[1.5]])
        np.testing.assert_allclose(float(value), ref_loss(w1, b1, w2), rtol=1e-5)
        eps = 1e-6
        g = (ref_loss(w1, b1, w2 + eps) - ref_loss(w1, b1, w2 - eps)) / (2 * eps)
        np.testing.assert_allclose(float(params["w2"][0, 0]), 1.5 - 0.05 * g, rtol=1e-4)
        """,
        wrong_fix="""
        def loss(params, x, y):
            h = jnp.tanh(x @ params["w1"] + params["b1"])
            return jnp.mean((h @ params["w2"] - y) ** 2)

        @jax.jit
        def update(params, x, y):
            value, grads = jax.value_and_grad(loss, argnums=2)(params, x, y)
            return params, value

        params, value = update(params, xs, ys)
        """,
    ),
    case(
        "manual-grads-key-typo", "tree-map-dict-keys-mismatch", setup=_s(SETUP, """
        params = {"weight": jnp.array([1.0, 2.0]), "bias": jnp.array(0.5)}
        x = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        y = jnp.array([1.0, 1.0, 3.0])
        """),
        cell="""
        # gradients of the squared error, by hand
        resid = x @ params["weight"] + params["bias"] - y
        grads = {"weights": 2 * x.T @ resid / len(y), "bias": 2 * resid.mean()}
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
        """,
        check="""
        X, Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1.0, 1.0, 3.0])
        r = X @ np.array([1.0, 2.0]) + 0.5 - Y
        np.testing.assert_allclose(np.asarray(params["weight"]), np.array([1.0, 2.0]) - 0.1 * 2 * X.T @ r / 3, rtol=1e-5)
        np.testing.assert_allclose(float(params["bias"]), 0.5 - 0.1 * 2 * r.mean(), rtol=1e-5)
        """,
        wrong_fix="""
        resid = x @ params["weight"] + params["bias"] - y
        grads = {"weights": 2 * x.T @ resid / len(y), "bias": 2 * resid.mean()}
        params = {"weight": params["weight"], "bias": params["bias"] - 0.1 * grads["bias"]}
        """,
    ),
    case(
        "scan-training-grad-wrt-batch", "tree-map-dict-missing-key", setup="""
        import numpy as np
        import jax
        import jax.numpy as jnp
        from jax import lax
        params = {"w": jnp.array([0.3, -0.2]), "b": jnp.array(0.0), "log_sigma": jnp.array(0.0)}
        batches = {"x": jnp.asarray(np.arange(12.0).reshape(3, 2, 2) / 10), "y": jnp.asarray(np.ones((3, 2)))}
        """,
        cell="""
        def nll(params, batch):
            mu = batch["x"] @ params["w"] + params["b"]
            s = jnp.exp(params["log_sigma"])
            return jnp.mean(0.5 * ((batch["y"] - mu) / s) ** 2 + params["log_sigma"])

        def train(params, batches):
            def body(params, batch):
                grads = jax.grad(nll, argnums=1)(params, batch)
                params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
                return params, None

            params, _ = lax.scan(body, params, batches)
            return params

        params = jax.jit(train)(params, batches)
        """,
        check="""
        def ref_nll(w, b, ls, x, y):
            mu = x @ w + b
            return np.mean(0.5 * ((y - mu) / np.exp(ls)) ** 2 + ls)

        w, b, ls = np.array([0.3, -0.2]), 0.0, 0.0
        X, Y = np.arange(12.0).reshape(3, 2, 2) / 10, np.ones((3, 2))
        e = 1e-6
        for x, y in zip(X, Y):
            gw = np.array([(ref_nll(w + e * d, b, ls, x, y) - ref_nll(w - e * d, b, ls, x, y)) / (2 * e)
                           for d in np.eye(2)])
            gb = (ref_nll(w, b + e, ls, x, y) - ref_nll(w, b - e, ls, x, y)) / (2 * e)
            gl = (ref_nll(w, b, ls + e, x, y) - ref_nll(w, b, ls - e, x, y)) / (2 * e)
            w, b, ls = w - 0.1 * gw, b - 0.1 * gb, ls - 0.1 * gl
        np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(params["log_sigma"]), ls, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        def nll(params, batch):
            mu = batch["x"] @ params["w"] + params["b"]
            s = jnp.exp(params["log_sigma"])
            return jnp.mean(0.5 * ((batch["y"] - mu) / s) ** 2 + params["log_sigma"])

        def train(params, batches):
            def body(params, batch):
                grads = jax.grad(nll, argnums=1)(params, batch)
                params = jax.tree.map(lambda p: p - 0.1 * grads["y"].mean(), params)
                return params, None

            params, _ = lax.scan(body, params, batches)
            return params

        params = jax.jit(train)(params, batches)
        """,
    ),
    case(
        "nested-encoder-decoder-grads-typo", "tree-map-dict-keys-mismatch", setup=_s(SETUP, """
        params = {"encoder": {"kernel": jnp.ones((2, 2)), "bias": jnp.zeros(2)},
                  "decoder": {"kernel": jnp.ones((2, 1)), "bias": jnp.zeros(1)}}
        """),
        cell="""
        def sgd(params, grads, lr=0.5):
            return jax.tree.map(lambda p, g: p - lr * g, params, grads)

        fake_grads = {
            "encoder": {"kernel": jnp.full((2, 2), 0.2), "bias": jnp.full(2, 0.4)},
            "decoder": {"kernal": jnp.full((2, 1), 1.0), "bias": jnp.full(1, -2.0)},  # hand-made for a test
        }
        new_params = sgd(params, fake_grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(new_params["encoder"]["kernel"]), np.full((2, 2), 0.9))
        np.testing.assert_allclose(np.asarray(new_params["decoder"]["kernel"]), np.full((2, 1), 0.5))
        np.testing.assert_allclose(np.asarray(new_params["decoder"]["bias"]), np.full(1, 1.0))
        """,
        wrong_fix="""
        def sgd(params, grads, lr=0.5):
            return jax.tree.map(lambda p, g: p - lr * g, params["encoder"], grads["encoder"])

        fake_grads = {
            "encoder": {"kernel": jnp.full((2, 2), 0.2), "bias": jnp.full(2, 0.4)},
            "decoder": {"kernal": jnp.full((2, 1), 1.0), "bias": jnp.full(1, -2.0)},
        }
        new_params = {"encoder": sgd(params, fake_grads), "decoder": params["decoder"]}
        """,
    ),
    case(
        "checkpoint-with-fewer-layers", "tree-map-list-length-mismatch", setup=_s(SETUP, """
        model = [jnp.ones((2, 2)), jnp.ones((2, 2)), jnp.ones((2, 1))]
        restored = [jnp.full((2, 2), 3.0), jnp.full((2, 1), 5.0)]   # saved before a layer was added
        """),
        cell="""
        # blend the restored weights into the model (EMA-style)
        model = jax.tree.map(lambda cur, old: 0.5 * cur + 0.5 * old, model, restored)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(model[0]), np.full((2, 2), 2.0))
        np.testing.assert_allclose(np.asarray(model[2]), np.full((2, 1), 3.0))
        """,
        wrong_fix="""
        model = jax.tree.map(lambda cur, old: 0.5 * cur + 0.5 * old, model[:2], [restored[0], restored[0]]) + model[2:]
        """,
    ),
    case(
        "momentum-state-missing-layer", "tree-map-dict-missing-key", setup=_s(SETUP, """
        params = {"dense1": jnp.ones((2, 3)), "dense2": jnp.ones((3,)), "head": jnp.ones((3, 1))}
        grads = {"dense1": jnp.full((2, 3), 0.5), "dense2": jnp.full((3,), -1.0), "head": jnp.full((3, 1), 2.0)}
        """),
        cell="""
        velocity = {"dense1": jnp.zeros_like(params["dense1"]), "dense2": jnp.zeros_like(params["dense2"])}
        for step in range(2):
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - 0.1 * v, params, velocity)
        """,
        check="""
        for k, g in (("dense1", 0.5), ("dense2", -1.0), ("head", 2.0)):
            v1 = g; v2 = 0.9 * v1 + g
            np.testing.assert_allclose(np.asarray(params[k]), 1.0 - 0.1 * (v1 + v2), rtol=1e-6)
        """,
        wrong_fix="""
        velocity = {"dense1": jnp.zeros_like(params["dense1"]), "dense2": jnp.zeros_like(params["dense2"])}
        for step in range(2):
            velocity = jax.tree.map(lambda v, g: 0.9 * v + g, velocity, {k: grads[k] for k in velocity})
            params = {**params, **jax.tree.map(lambda v: params["dense1"] * 0 + 1 - 0.1 * v, velocity)}
        """,
    ),
    case(
        "jitted-update-with-partial-state", "tree-map-dict-missing-key", setup=_s(SETUP, """
        params = {"w": jnp.array([1.0, -1.0]), "b": jnp.array(0.5), "scale": jnp.array(2.0)}
        grads = {"w": jnp.array([0.2, 0.4]), "b": jnp.array(-1.0), "scale": jnp.array(0.5)}
        """),
        cell="""
        @jax.jit
        def momentum_step(params, grads, mom):
            mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, grads)
            params = jax.tree.map(lambda p, m: p - 0.1 * m, params, mom)
            return params, mom

        mom = {"w": jnp.zeros_like(params["w"]), "b": jnp.zeros_like(params["b"])}
        params, mom = momentum_step(params, grads, mom)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(params["w"]), [0.98, -1.04], rtol=1e-6)
        np.testing.assert_allclose(float(params["b"]), 0.6, rtol=1e-6)
        np.testing.assert_allclose(float(params["scale"]), 1.95, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def momentum_step(params, grads, mom):
            grads = {k: grads[k] for k in mom}
            mom = jax.tree.map(lambda m, g: 0.9 * m + g, mom, grads)
            params = {**params, **jax.tree.map(lambda m: params["w"][:0].sum() + 0 * m, mom)}
            return params, mom

        mom = {"w": jnp.zeros_like(params["w"]), "b": jnp.zeros_like(params["b"])}
        params, mom = momentum_step(params, grads, mom)
        """,
    ),
    case(
        "adam-moments-list-short", "tree-map-list-length-mismatch", setup=_s(SETUP, """
        layers = [jnp.ones((2, 2)), jnp.ones((2,)), jnp.ones((2, 1))]
        grads = [jnp.full((2, 2), 0.2), jnp.full((2,), -0.4), jnp.full((2, 1), 1.0)]
        """),
        cell="""
        m = [jnp.zeros_like(layers[0]), jnp.zeros_like(layers[1])]   # first moment
        m = jax.tree.map(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads)
        layers = jax.tree.map(lambda p, m_: p - m_, layers, m)
        """,
        check="""
        for arr, g in zip(layers, (0.2, -0.4, 1.0)):
            np.testing.assert_allclose(np.asarray(arr), 1.0 - 0.1 * g, rtol=1e-6)
        """,
        wrong_fix="""
        m = [jnp.zeros_like(layers[0]), jnp.zeros_like(layers[1])]
        m = jax.tree.map(lambda m_, g: 0.9 * m_ + 0.1 * g, m, grads[:2])
        layers = jax.tree.map(lambda p, m_: p - m_, layers[:2], m) + layers[2:]
        """,
    ),
    case(
        "grad-wrt-data-tuple", "tree-map-list-length-mismatch", setup=_s(SETUP, """
        W = jnp.array([[1.0, -1.0], [0.5, 0.5]]); b = jnp.array([0.0, 0.1]); v = jnp.array([1.0, 2.0])
        data = (jnp.array([[1.0, 2.0], [0.0, 1.0]]), jnp.array([0.5, -0.5]))
        """),
        cell="""
        def net_loss(theta, data):
            W, b, v = theta
            x, y = data
            return jnp.mean((jnp.tanh(x @ W + b) @ v - y) ** 2)

        theta = (W, b, v)
        g = jax.grad(net_loss, argnums=1)(theta, data)
        theta = jax.tree.map(lambda t, dt: t - 0.5 * dt, theta, g)
        """,
        check="""
        x, y = np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([0.5, -0.5])
        Wn, bn, vn = np.array([[1.0, -1.0], [0.5, 0.5]]), np.array([0.0, 0.1]), np.array([1.0, 2.0])
        h = np.tanh(x @ Wn + bn)
        gv = 2 * h.T @ (h @ vn - y) / 2
        np.testing.assert_allclose(np.asarray(theta[2]), vn - 0.5 * gv, rtol=1e-5)
        assert not np.allclose(np.asarray(theta[0]), Wn)
        """,
        wrong_fix="""
        def net_loss(theta, data):
            W, b, v = theta
            x, y = data
            return jnp.mean((jnp.tanh(x @ W + b) @ v - y) ** 2)

        theta = (W, b, v)
        g = jax.grad(net_loss, argnums=1)(theta, data)
        theta = jax.tree.map(lambda t, dt: t - 0.5 * dt, theta[:2], g) + (v,)
        """,
    ),
    case(
        "argnums-tuple-grads-vs-list-params", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        x = jnp.array([0.0, 1.0, 2.0, 3.0]); y = 2.0 * x + 1.0
        """),
        cell="""
        def loss(w, b):
            return jnp.mean((w * x + b - y) ** 2)

        params = [jnp.array(0.0), jnp.array(0.0)]
        for _ in range(3):
            grads = jax.grad(loss, argnums=(0, 1))(*params)
            params = jax.tree.map(lambda p, g: p - 0.05 * g, params, grads)
        """,
        check="""
        X = np.array([0.0, 1.0, 2.0, 3.0]); Y = 2 * X + 1
        w = b = 0.0
        for _ in range(3):
            r = w * X + b - Y
            w, b = w - 0.05 * 2 * np.mean(r * X), b - 0.05 * 2 * np.mean(r)
        assert isinstance(params, list)
        np.testing.assert_allclose([float(params[0]), float(params[1])], [w, b], rtol=1e-5)
        """,
        wrong_fix="""
        def loss(w, b):
            return jnp.mean((w * x + b - y) ** 2)

        params = [jnp.array(0.0), jnp.array(0.0)]
        for _ in range(3):
            grads = jax.grad(loss, argnums=(0, 1))(*params)
            params = list(jax.tree.map(lambda p, g: p - 0.05 * g, tuple(params), grads[::-1]))
        """,
    ),
    case(
        "clipped-grads-list-vs-param-tuple", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        params = (jnp.array([1.0, 2.0]), jnp.array(3.0))
        raw_grads = (jnp.array([3.0, 4.0]), jnp.array(12.0))
        """),
        cell="""
        norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in raw_grads))
        grads = [g * jnp.minimum(1.0, 1.0 / norm) for g in raw_grads]   # clip to unit norm
        params = jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)
        """,
        check="""
        g = [np.array([3.0, 4.0]) / 13.0, 12.0 / 13.0]
        assert isinstance(params, tuple)
        np.testing.assert_allclose(np.asarray(params[0]), np.array([1.0, 2.0]) - 0.5 * g[0], rtol=1e-6)
        np.testing.assert_allclose(float(params[1]), 3.0 - 0.5 * g[1], rtol=1e-6)
        """,
        wrong_fix="""
        norm = jnp.sqrt(sum(jnp.sum(g ** 2) for g in raw_grads))
        grads = [g * jnp.minimum(1.0, 1.0 / norm) for g in raw_grads]
        params = jax.tree.map(lambda p, g: p - 0.5 * g, params, raw_grads)
        """,
    ),
    case(
        "value-and-grad-not-unpacked", "tree-map-node-type-mismatch", setup=_s(SETUP, """
        params = {"scale": jnp.array(1.0), "shift": jnp.array(0.0)}
        obs = jnp.array([1.0, 2.0, 4.0])
        """),
        cell="""
        def nll(params):
            z = (obs - params["shift"]) / params["scale"]
            return jnp.mean(0.5 * z ** 2) + jnp.log(params["scale"])

        grads = jax.value_and_grad(nll)(params)
        params = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
        """,
        check="""
        o = np.array([1.0, 2.0, 4.0])
        g_shift = -np.mean(o)            # d/dshift at scale=1, shift=0
        g_scale = -np.mean(o ** 2) + 1.0  # d/dscale
        np.testing.assert_allclose(float(params["shift"]), -0.1 * g_shift, rtol=1e-5)
        np.testing.assert_allclose(float(params["scale"]), 1.0 - 0.1 * g_scale, rtol=1e-5)
        """,
        wrong_fix="""
        def nll(params):
            z = (obs - params["shift"]) / params["scale"]
            return jnp.mean(0.5 * z ** 2) + jnp.log(params["scale"])

        grads = jax.value_and_grad(nll)(params)
        params = jax.tree.map(lambda p: p - 0.1 * grads[0], params)
        """,
    ),
    case(
        "frozen-entries-as-none", "tree-map-none-subtree", setup=_s(SETUP, """
        params = {"embed": jnp.ones((3, 2)), "proj": jnp.ones((2, 2)), "bias": jnp.zeros(2)}
        """),
        cell="""
        # the embedding is frozen: no gradient for it
        grads = {"embed": None, "proj": jnp.full((2, 2), 0.5), "bias": jnp.full(2, -1.0)}
        params = jax.tree.map(lambda g, p: p - 0.1 * g, grads, params)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(params["embed"]), np.ones((3, 2)))
        np.testing.assert_allclose(np.asarray(params["proj"]), np.full((2, 2), 0.95))
        np.testing.assert_allclose(np.asarray(params["bias"]), np.full(2, 0.1))
        """,
        wrong_fix="""
        grads = {"embed": None, "proj": jnp.full((2, 2), 0.5), "bias": jnp.full(2, -1.0)}
        params = jax.tree.map(lambda g, p: p - 0.1 * g, grads, {k: None if g is None else params[k] for k, g in grads.items()})
        """,
    ),
    case(
        "jitted-sgd-with-frozen-grads", "tree-map-none-subtree", setup=_s(SETUP, """
        params = {"backbone": [jnp.ones(2), jnp.ones(2)], "head": jnp.ones(3)}
        """),
        cell="""
        def sgd_step(params, grads, lr=0.1):
            params = jax.tree.map(lambda g, p: p - lr * g, grads, params)
            return params

        grads = {"backbone": [None, None], "head": jnp.array([1.0, 2.0, 3.0])}   # backbone frozen
        params = jax.jit(sgd_step)(params, grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(params["head"]), [0.9, 0.8, 0.7], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(params["backbone"][1]), [1.0, 1.0])
        """,
        wrong_fix="""
        def sgd_step(params, grads, lr=0.1):
            return {"backbone": params["backbone"], "head": params["head"] - lr}

        grads = {"backbone": [None, None], "head": jnp.array([1.0, 2.0, 3.0])}
        params = jax.jit(sgd_step)(params, grads)
        """,
    ),
    case(
        "tree-util-trainable-mask", "tree-map-none-subtree", setup=_s(SETUP, """
        from jax.tree_util import tree_map
        params = ({"w": jnp.ones(2), "b": jnp.ones(2)}, {"w": jnp.full(1, 2.0), "b": jnp.zeros(1)})
        grads = ({"w": jnp.full(2, 0.5), "b": jnp.full(2, 0.5)}, {"w": jnp.full(1, 1.0), "b": jnp.full(1, 1.0)})
        """),
        cell="""
        # learning rate per leaf; None = frozen (the step tree is new: keeping `g` there would be wrong)
        lrs = ({"w": None, "b": None}, {"w": 0.1, "b": 0.2})
        steps = tree_map(lambda lr, g: -lr * g, lrs, grads)
        params = tree_map(lambda p, s: p + s, params, steps)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(params[1]["w"]), [1.9])
        np.testing.assert_allclose(np.asarray(params[1]["b"]), [-0.2])
        np.testing.assert_allclose(np.asarray(params[0]["w"]), [1.0, 1.0])   # frozen
        """,
        wrong_fix="""
        lrs = ({"w": 0.0, "b": 0.0}, {"w": 0.1, "b": 0.1})
        steps = tree_map(lambda lr, g: -lr * g, lrs, grads)
        params = tree_map(lambda p, s: p + s, params, steps)
        """,
    ),
    case(
        "weight-decay-mask-with-none", "tree-map-none-subtree", setup=_s(SETUP, """
        layers = [{"w": jnp.full((2,), 2.0), "b": jnp.full((2,), 1.0)}, {"w": jnp.full((1,), 4.0), "b": jnp.full((1,), 1.0)}]
        """),
        cell="""
        decay = [{"w": 0.5, "b": None}, {"w": 0.25, "b": None}]     # no decay on biases
        layers = jax.tree.map(lambda d, p: p * (1 - d), decay, layers)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(layers[0]["w"]), [1.0, 1.0])
        np.testing.assert_allclose(np.asarray(layers[1]["w"]), [3.0])
        np.testing.assert_allclose(np.asarray(layers[0]["b"]), [1.0, 1.0])
        np.testing.assert_allclose(np.asarray(layers[1]["b"]), [1.0])
        """,
        wrong_fix="""
        decay = [{"w": 0.5, "b": 0.5}, {"w": 0.25, "b": 0.25}]
        layers = jax.tree.map(lambda d, p: p * (1 - d), decay, layers)
        """,
    ),
]

LEAKS = [
    case(
        "global-last-loss", "unexpected-tracer-leak", setup=_s(SETUP, """
        X = jnp.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]); Y = jnp.array([1.0, 2.0, 2.5])
        """),
        cell="""
        last_loss = None

        @jax.jit
        def train_step(w):
            global last_loss
            loss, g = jax.value_and_grad(lambda w: jnp.mean((X @ w - Y) ** 2))(w)
            last_loss = loss
            return w - 0.1 * g

        w = jnp.zeros(2)
        for i in range(3):
            w = train_step(w)
        final = jnp.round(last_loss, 4)
        """,
        check="""
        Xn, Yn = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), np.array([1.0, 2.0, 2.5])
        wr = np.zeros(2)
        for _ in range(3):
            r = Xn @ wr - Yn
            l = np.mean(r ** 2)
            wr = wr - 0.1 * 2 * Xn.T @ r / 3
        np.testing.assert_allclose(np.asarray(w), wr, rtol=1e-5)
        np.testing.assert_allclose(float(last_loss), l, rtol=1e-5)
        """,
        wrong_fix="""
        last_loss = None

        def train_step(w):
            global last_loss
            loss, g = jax.value_and_grad(lambda w: jnp.mean((X @ w - Y) ** 2))(w)
            last_loss = loss
            return w - 0.1 * g

        w = jnp.zeros(2)
        for i in range(3):
            w = train_step(w)
        last_loss = float(jnp.mean((X @ w - Y) ** 2))
        final = jnp.round(last_loss, 4)
        """,
    ),
    case(
        "loss-history-list", "unexpected-tracer-leak", setup=_s(SETUP, """
        target = jnp.array([3.0, -1.0])
        """),
        cell="""
        history = []

        @jax.jit
        def step(theta):
            loss = jnp.sum((theta - target) ** 2)
            history.append(loss)
            return theta - 0.25 * 2 * (theta - target)

        theta = jnp.zeros(2)
        for _ in range(4):
            theta = step(theta)
        curve = jnp.stack(history)
        """,
        check="""
        t, ref = np.zeros(2), []
        for _ in range(4):
            ref.append(np.sum((t - np.array([3.0, -1.0])) ** 2))
            t = t - 0.5 * (t - np.array([3.0, -1.0]))
        np.testing.assert_allclose(np.asarray(curve), ref, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(theta), t, rtol=1e-6)
        """,
        wrong_fix="""
        history = []

        def step(theta):
            loss = jnp.sum((theta - target) ** 2)
            history.append(loss)
            return theta - 0.25 * 2 * (theta - target)

        theta = jnp.zeros(2)
        for _ in range(4):
            theta = step(theta)
        curve = jnp.stack(history[-1:])
        """,
    ),
    case(
        "debug-activations-list", "unexpected-tracer-leak", setup=_s(SETUP, """
        W1 = jnp.array([[1.0, -1.0], [0.5, 2.0]]); W2 = jnp.array([[1.0], [1.0]])
        """),
        cell="""
        acts = []

        def forward(x):
            h = jax.nn.relu(x @ W1)
            acts.append(h.mean())
            return h @ W2

        forward_jit = jax.jit(forward)
        out = forward_jit(jnp.array([[1.0, 1.0], [2.0, -1.0]]))
        mean_act = acts[0] * 1.0
        """,
        check="""
        h = np.maximum(np.array([[1.0, 1.0], [2.0, -1.0]]) @ np.array([[1.0, -1.0], [0.5, 2.0]]), 0)
        np.testing.assert_allclose(float(mean_act), h.mean(), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(out), h @ np.ones((2, 1)), rtol=1e-6)
        """,
        wrong_fix="""
        acts = []

        def forward(x):
            h = jax.nn.relu(x @ W1)
            return h @ W2

        forward_jit = jax.jit(forward)
        out = forward_jit(jnp.array([[1.0, 1.0], [2.0, -1.0]]))
        mean_act = out.mean()
        """,
    ),
    case(
        "self-attribute-running-total", "unexpected-tracer-leak", setup=SETUP,
        cell="""
        class Meter:
            def __init__(self):
                self.total = jnp.zeros(())

            def add(self, x):
                self.total = self.total + jnp.sum(x)
                return self.total

        meter = Meter()
        jax.jit(meter.add)(jnp.ones(3))
        report = meter.total + 0.0
        """,
        check="""
        np.testing.assert_allclose(float(report), 3.0)
        """,
        wrong_fix="""
        class Meter:
            def __init__(self):
                self.total = jnp.zeros(())

            def add(self, x):
                return self.total + jnp.sum(x)

        meter = Meter()
        jax.jit(meter.add)(jnp.ones(3))
        report = meter.total + 0.0
        """,
    ),
]

DONATION = [
    case(
        "print-input-after-donation", "array-deleted", setup=SETUP_PARTIAL,
        cell="""
        @partial(jax.jit, donate_argnums=0)
        def normalize(x):
            return (x - x.mean()) / x.std()

        raw = jnp.array([1.0, 2.0, 3.0, 6.0])
        z = normalize(raw)
        print("raw mean", raw.mean(), "-> z", z)
        """,
        check="""
        r = np.array([1.0, 2.0, 3.0, 6.0])
        np.testing.assert_allclose(np.asarray(raw), r)
        np.testing.assert_allclose(np.asarray(z), (r - r.mean()) / r.std(), rtol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.jit, donate_argnums=0)
        def normalize(x):
            return (x - x.mean()) / x.std()

        raw = jnp.array([1.0, 2.0, 3.0, 6.0])
        raw = normalize(raw)
        z = raw
        print("raw mean", raw.mean(), "-> z", z)
        """,
    ),
    case(
        "training-loop-result-dropped", "donated-buffer-reused", setup=_s(SETUP_PARTIAL, """
        grad_w = jnp.array([1.0, -2.0])
        """),
        cell="""
        @partial(jax.jit, donate_argnums=(0,))
        def sgd(w, g):
            return w - 0.1 * g

        w = jnp.array([0.0, 0.0])
        for step in range(3):
            sgd(w, grad_w)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), 3 * -0.1 * np.array([1.0, -2.0]), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sgd(w, g):
            return w - 0.1 * g

        w = jnp.array([0.0, 0.0])
        for step in range(3):
            sgd(w, grad_w)
        """,
    ),
    case(
        "loop-forgets-to-carry-params", "donated-buffer-reused", setup=_s(SETUP, """
        xs = jnp.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.5]])
        """),
        cell="""
        def ema_update(avg, x):
            return 0.5 * avg + 0.5 * x

        ema_update = jax.jit(ema_update, donate_argnums=0)
        avg = jnp.zeros(2)
        for x in xs:
            new_avg = ema_update(avg, x)
        print(new_avg)
        """,
        check="""
        a = np.zeros(2)
        for x in np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 0.5]]):
            a = 0.5 * a + 0.5 * x
        np.testing.assert_allclose(np.asarray(new_avg), a, rtol=1e-6)
        """,
        wrong_fix="""
        def ema_update(avg, x):
            return 0.5 * avg + 0.5 * x

        ema_update = jax.jit(ema_update)
        avg = jnp.zeros(2)
        for x in xs:
            new_avg = ema_update(avg, x)
        print(new_avg)
        """,
    ),
    case(
        "benchmark-loop-reuses-input", "donated-buffer-reused", setup=_s(SETUP_PARTIAL, """
        import time
        """),
        cell="""
        @partial(jax.jit, donate_argnums=0)
        def activation(x):
            return jnp.tanh(x) * 2.0

        x = jnp.linspace(-1.0, 1.0, 8)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            out = activation(x).block_until_ready()
            times.append(time.perf_counter() - t0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.tanh(np.linspace(-1.0, 1.0, 8)) * 2.0, rtol=1e-6)
        assert len(times) == 3
        """,
        wrong_fix="""
        @partial(jax.jit, donate_argnums=0)
        def activation(x):
            return jnp.tanh(x) * 2.0

        x = jnp.linspace(-1.0, 1.0, 8)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            out = activation(x).block_until_ready()
            x = out
            times.append(time.perf_counter() - t0)
        """,
    ),
    case(
        "advance-from-earlier-cell-print-old", "array-deleted", setup=_s(SETUP_PARTIAL, """
        @partial(jax.jit, donate_argnums=0)
        def advance(positions, dt):
            return positions + dt * jnp.array([1.0, -1.0, 0.5])
        """),
        cell="""
        positions = jnp.zeros(3)
        moved = advance(positions, 0.1)
        print("max displacement:", jnp.abs(moved - positions).max())
        """,
        check="""
        np.testing.assert_allclose(np.asarray(moved), [0.1, -0.1, 0.05], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(positions), np.zeros(3))
        """,
        wrong_fix="""
        positions = jnp.zeros(3)
        moved = advance(positions, 0.1)
        positions = moved
        print("max displacement:", jnp.abs(moved - positions).max())
        """,
    ),
    case(
        "alias-of-donated-params", "array-deleted", setup=_s(SETUP_PARTIAL, """
        @partial(jax.jit, donate_argnums=0)
        def update(w, g):
            return w - 0.5 * g
        """),
        cell="""
        w = jnp.array([1.0, 2.0])
        w_before = w                      # an alias, not a copy: no rewrite can see which name to keep
        w = update(w, jnp.array([1.0, 1.0]))
        drift = jnp.abs(w - w_before).sum()
        """,
        check="""
        np.testing.assert_allclose(float(drift), 1.0, rtol=1e-6)
        """,
        wrong_fix="""
        w = jnp.array([1.0, 2.0])
        w = update(w, jnp.array([1.0, 1.0]))
        w_before = w
        drift = jnp.abs(w - w_before).sum()
        """,
    ),
    case(
        "compare-old-and-new-params", "array-deleted", setup=SETUP,
        cell="""
        def apply_update(params, delta):
            return jax.tree.map(lambda p, d: p + d, params, delta)

        apply_update = jax.jit(apply_update, donate_argnums=(0,))
        params = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}
        delta = {"w": jnp.array([0.1, -0.2]), "b": jnp.array(0.3)}
        new_params = apply_update(params, delta)
        change = jax.tree.map(lambda a, b: jnp.abs(a - b).max(), new_params, params)
        """,
        check="""
        np.testing.assert_allclose(float(change["w"]), 0.2, rtol=1e-6)
        np.testing.assert_allclose(float(change["b"]), 0.3, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(params["w"]), [1.0, 2.0])
        """,
        wrong_fix="""
        def apply_update(params, delta):
            return jax.tree.map(lambda p, d: p + d, params, delta)

        apply_update = jax.jit(apply_update, donate_argnums=(0,))
        params = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}
        delta = {"w": jnp.array([0.1, -0.2]), "b": jnp.array(0.3)}
        params = apply_update(params, delta)
        new_params = params
        change = jax.tree.map(lambda a, b: jnp.abs(a - b).max(), new_params, params)
        """,
    ),
    case(
        "donating-step-from-earlier-cell", "donated-buffer-reused", setup=_s(SETUP_PARTIAL, """
        @partial(jax.jit, donate_argnums=0)
        def scale_inplace(buf, k):
            return buf * k
        """),
        cell="""
        signal = jnp.linspace(0.0, 1.0, 5)
        louder = scale_inplace(signal, 2.0)
        gain = louder.sum() / signal.sum()
        """,
        check="""
        np.testing.assert_allclose(float(gain), 2.0, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(louder), 2 * np.linspace(0.0, 1.0, 5), rtol=1e-6)
        """,
        wrong_fix="""
        signal = jnp.linspace(0.0, 1.0, 5)
        louder = scale_inplace(signal, 2.0)
        gain = louder.sum() / louder.sum()
        """,
    ),
    case(
        "explicit-delete-then-use", "array-deleted", setup=SETUP,
        cell="""
        big = jnp.ones((4, 4))
        total = big.sum()
        big.delete()          # free memory early
        print(big.mean())
        """,
        check="""
        np.testing.assert_allclose(float(total), 16.0)
        """,
        wrong_fix="""
        big = jnp.ones((4, 4))
        total = big.sum() * 0
        """,
    ),
]

NEGATIVE = [
    case(
        "negative-typo-in-jitted-fn", "negative", negative=True, setup=SETUP,
        cell="""
        @jax.jit
        def predict(w, x):
            return x @ weights

        predict(jnp.ones((3, 2)), jnp.ones((4, 3)))
        """,
    ),
    case(
        "negative-python-list-plus-tuple", "negative", negative=True, setup=SETUP,
        cell="""
        shapes = [(2, 3), (3, 4)]
        all_shapes = shapes + (4, 1)
        params = [jnp.zeros(s) for s in all_shapes]
        """,
    ),
]


CONCAT = [
    case(
        "two-encoder-features", "concatenate-shape-mismatch", setup=_s(SETUP, RNG, """
        img_emb = jnp.asarray(rng.normal(size=(4, 3)), jnp.float32)
        txt_emb = jnp.asarray(rng.normal(size=(4, 5)), jnp.float32)
        """),
        cell="""
        joint = jnp.concatenate([img_emb, txt_emb])   # one row per example
        scores = joint.sum(axis=1)
        """,
        check="""
        ref = np.hstack([np.asarray(img_emb), np.asarray(txt_emb)])
        np.testing.assert_allclose(np.asarray(joint), ref)
        np.testing.assert_allclose(np.asarray(scores), ref.sum(1), rtol=1e-5)
        """,
        wrong_fix="""
        joint = jnp.concatenate([img_emb, txt_emb[:, :3]])
        scores = joint.sum(axis=1)
        """,
    ),
    case(
        "fourier-features-in-jit", "concatenate-shape-mismatch", setup=SETUP,
        cell="""
        def fourier(x, n=2):
            freqs = 2.0 ** jnp.arange(n)
            return jnp.sin(x[..., None] * freqs).reshape(x.shape[0], -1)

        @jax.jit
        def encode(x):
            return jnp.concatenate((x, fourier(x)))

        enc = encode(jnp.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]))
        """,
        check="""
        x = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
        f = np.sin(x[..., None] * np.array([1.0, 2.0])).reshape(3, -1)
        np.testing.assert_allclose(np.asarray(enc), np.concatenate([x, f], axis=1), rtol=1e-5)
        """,
        wrong_fix="""
        def fourier(x, n=2):
            freqs = 2.0 ** jnp.arange(n)
            return jnp.sin(x[..., None] * freqs).reshape(x.shape[0], -1)

        @jax.jit
        def encode(x):
            return jnp.concatenate((x, fourier(x)[:, :2]))

        enc = encode(jnp.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]))
        """,
    ),
    case(
        "sequence-features-wrong-axis", "concatenate-shape-mismatch", setup=_s(SETUP, RNG, """
        tok = jnp.asarray(rng.normal(size=(2, 3, 4)), jnp.float32)     # (batch, time, d_tok)
        pos = jnp.asarray(rng.normal(size=(2, 3, 2)), jnp.float32)     # (batch, time, d_pos)
        """),
        cell="""
        x = jnp.concatenate([tok, pos], axis=1)
        pooled = x.mean(axis=1)
        """,
        check="""
        ref = np.concatenate([np.asarray(tok), np.asarray(pos)], axis=2).mean(axis=1)
        np.testing.assert_allclose(np.asarray(pooled), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        x = jnp.concatenate([tok[..., :2], pos], axis=1)
        pooled = x.mean(axis=1)
        """,
    ),
    case(
        "vmapped-state-and-action", "concatenate-shape-mismatch", setup=_s(SETUP, """
        states = jnp.asarray(np.arange(24.0).reshape(2, 3, 4))     # (envs, agents, state)
        actions = jnp.asarray(np.ones((2, 3, 1)))                  # (envs, agents, action)
        """),
        cell="""
        def critic_input(s, a):
            return jnp.concatenate([s, a])

        inputs = jax.vmap(critic_input)(states, actions)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(inputs), np.concatenate([np.arange(24.0).reshape(2, 3, 4), np.ones((2, 3, 1))], -1))
        """,
        wrong_fix="""
        def critic_input(s, a):
            return jnp.concatenate([s, jnp.broadcast_to(a, s.shape)])[:3]

        inputs = jax.vmap(critic_input)(states, actions)
        """,
    ),
]

LEAK_CHECKER = [
    case(
        "checking-leaks-seen-list", "tracer-leak-checker", setup=SETUP,
        cell="""
        seen = []

        def double_plus_one(x):
            seen.append(x)
            return 2 * x + 1

        with jax.checking_leaks():
            y = jax.jit(double_plus_one)(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), 2 * np.arange(3.0) + 1)
        assert len(seen) == 1
        np.testing.assert_allclose(np.asarray(seen[0]), np.arange(3.0))
        """,
        wrong_fix="""
        seen = []

        def double_plus_one(x):
            return 2 * x + 1

        with jax.checking_leaks():
            y = jax.jit(double_plus_one)(jnp.arange(3.0))
        """,
    ),
    case(
        "leak-flag-in-training-loop", "tracer-leak-checker", setup=_s(SETUP, """
        jax.config.update("jax_check_tracer_leaks", True)
        data = jnp.array([1.0, 2.0, 3.0])
        """),
        cell="""
        grad_norms = []

        @jax.jit
        def step(w):
            g = jax.grad(lambda w: jnp.sum((w * data - 1.0) ** 2))(w)
            gn = jnp.linalg.norm(g)
            grad_norms.append(gn)
            return w - 0.01 * g

        w = jnp.zeros(3)
        for _ in range(2):
            w = step(w)
        """,
        check="""
        jax.config.update("jax_check_tracer_leaks", False)
        d, wr, norms = np.array([1.0, 2.0, 3.0]), np.zeros(3), []
        for _ in range(2):
            g = 2 * (wr * d - 1.0) * d
            norms.append(np.linalg.norm(g))
            wr = wr - 0.01 * g
        np.testing.assert_allclose(np.asarray(w), wr, rtol=1e-5)
        np.testing.assert_allclose([float(v) for v in grad_norms], norms, rtol=1e-5)
        """,
        wrong_fix="""
        grad_norms = []

        @jax.jit
        def step(w):
            g = jax.grad(lambda w: jnp.sum((w * data - 1.0) ** 2))(w)
            return w - 0.01 * g

        w = jnp.zeros(3)
        for _ in range(2):
            w = step(w)
        grad_norms = [jnp.zeros(())] * 2
        """,
    ),
    case(
        "checking-leaks-global-cache", "tracer-leak-checker", setup=_s(SETUP, """
        W = jnp.array([[1.0, 2.0], [3.0, 4.0]])
        """),
        cell="""
        hidden = None

        @jax.jit
        def forward(x):
            global hidden
            h = jnp.tanh(x @ W)
            hidden = h
            return h.sum(axis=-1)

        with jax.checking_leaks():
            out = forward(jnp.array([[0.1, -0.2]]))
        """,
        check="""
        h = np.tanh(np.array([[0.1, -0.2]]) @ np.array([[1.0, 2.0], [3.0, 4.0]]))
        np.testing.assert_allclose(np.asarray(hidden), h, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(out), h.sum(-1), rtol=1e-6)
        """,
        wrong_fix="""
        hidden = None

        @jax.jit
        def forward(x):
            h = jnp.tanh(x @ W)
            return h.sum(axis=-1)

        with jax.checking_leaks():
            out = forward(jnp.array([[0.1, -0.2]]))
        hidden = jnp.zeros((1, 2))
        """,
    ),
]

CASES = MATMUL + BROADCAST + TREES + LEAKS + DONATION + CONCAT + LEAK_CHECKER + NEGATIVE
