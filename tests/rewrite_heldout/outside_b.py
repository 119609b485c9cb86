"""Held-out "fix my cell" cases for errors users hit often where a fixer has the hardest job:
data-dependent output sizes (``jnp.nonzero`` / one-argument ``jnp.where`` / ``jnp.unique`` /
``jnp.argwhere`` without ``size=``, ``jnp.bincount`` without ``length=``); non-array arguments of a
jitted function (string options, ``self`` of a jitted method, an Equinox field, a loss function);
removed JAX modules and names (``jax.config``, ``jax.experimental.maps`` / ``optimizers`` / ``stax``,
``jax.tree_map``, ``jax.random.KeyArray``, ``jax.device_put_replicated``); pytree structure
mismatches (momentum trees, EMA dicts, Optax / Flax train steps); leaked tracers (globals, ``self``,
lists appended inside ``scan`` / ``jit``, an NNX attribute); reused donated buffers; tracers
formatted in f-strings, ``%`` or ``str.format`` inside ``jit`` / ``fori_loop`` / ``scan``.

Written on 2026-12-02 blind to the rewriter (nothing under ``src/`` nor any other test file was read),
modelled on public threads (each case's ``source``).

The cases whose cells print (``ob-fmt-*``) capture stdout in their ``setup`` with a tee
(``sys.stdout.buf``) so that ``check`` can assert what was printed, not only what was returned.
"""

from textwrap import dedent

from rewrite_heldout import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
from functools import partial
"""

SETUP_OPTAX = SETUP + """
import optax
_rng = np.random.default_rng(0)
X = jnp.asarray(_rng.normal(size=(32, 3)), dtype=jnp.float32)
Y = X @ jnp.array([1.5, -2.0, 0.5]) + 0.3
def mse(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)
"""

SETUP_4DEV = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
""" + SETUP

SETUP_PRINT = """
import io
import re
import sys
class _Tee:
    def __init__(self, stream):
        self.stream, self.buf = stream, io.StringIO()
    def write(self, text):
        self.buf.write(text)
        return self.stream.write(text)
    def flush(self):
        self.stream.flush()
sys.stdout = _Tee(sys.stdout)
""" + SETUP_OPTAX


CASES = [
    # ------------------------------------------------------------------ data-dependent sizes
    case(
        "ob-nonzero-log-prod-earlier", "concretization-nonzero-size", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/5280",
        earlier="""
        @jax.jit
        def log_abs_prod_nonzero(a):
            # log |product of the nonzero entries|, summed in log space so it cannot overflow
            nz = jnp.nonzero(a)
            return jnp.sum(jnp.log(jnp.abs(a[nz])))
        """,
        cell="""
        rows = jnp.array([[0., 2., -3., 0.], [1.5, 0., 0., 4.], [0., 0., 5., 0.5]])
        scores = jnp.stack([log_abs_prod_nonzero(r) for r in rows])
        """,
        check="""
        R = np.array([[0., 2., -3., 0.], [1.5, 0., 0., 4.], [0., 0., 5., 0.5]])
        ref = [np.log(np.abs(r[r != 0])).sum() for r in R]
        np.testing.assert_allclose(np.asarray(scores), ref, rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def log_abs_prod_nonzero(a):
            nz = jnp.nonzero(a, size=a.shape[0])
            return jnp.sum(jnp.log(jnp.abs(a[nz])))
        """,
        alt_fixes=[
            """
            @jax.jit
            def log_abs_prod_nonzero(a):
                safe = jnp.where(a != 0, a, 1.0)
                return jnp.sum(jnp.log(jnp.abs(safe)))
            """,
            """
            @jax.jit
            def log_abs_prod_nonzero(a):
                idx, = jnp.nonzero(a, size=a.shape[0], fill_value=a.shape[0])
                vals = jnp.take(a, idx, mode="fill", fill_value=1.0)
                return jnp.sum(jnp.log(jnp.abs(vals)))
            """,
        ],
    ),
    case(
        "ob-where-kmeans-centroids-and-sizes", "concretization-nonzero-size",
        setup=SETUP + dedent("""
        _rng = np.random.default_rng(0)
        _centers = np.array([[0., 0.], [5., 5.], [0., 6.]])
        X = jnp.asarray(np.concatenate([c + 0.5 * _rng.normal(size=(10, 2)) for c in _centers]),
                        dtype=jnp.float32)
        """),
        source="https://github.com/secretflow/secretflow/issues/406",
        cell="""
        @jax.jit
        def kmeans_step(X, centroids):
            d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(-1)
            labels = jnp.argmin(d2, axis=1)
            k = centroids.shape[0]
            new_centroids = jnp.stack([X[jnp.where(labels == j)].mean(axis=0) for j in range(k)])
            sizes = jnp.array([jnp.where(labels == j)[0].size for j in range(k)])
            return new_centroids, sizes

        centroids = X[jnp.array([0, 10, 20])]
        for _ in range(5):
            centroids, sizes = kmeans_step(X, centroids)
        """,
        check="""
        Xn = np.asarray(X, dtype=np.float64)
        c = Xn[[0, 10, 20]]
        for _ in range(5):
            lab = ((Xn[:, None] - c[None]) ** 2).sum(-1).argmin(1)
            sz = np.array([(lab == j).sum() for j in range(3)])
            c = np.stack([Xn[lab == j].mean(0) for j in range(3)])
        np.testing.assert_allclose(np.asarray(centroids), c, rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(np.asarray(sizes), sz)
        """,
        wrong_fix="""
        @jax.jit
        def kmeans_step(X, centroids):
            d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(-1)
            labels = jnp.argmin(d2, axis=1)
            k = centroids.shape[0]
            onehot = jax.nn.one_hot(labels, k)
            new_centroids = (onehot.T @ X) / onehot.sum(0)[:, None]
            sizes = jnp.array([jnp.where(labels == j)[0].size for j in range(k)])
            return new_centroids, sizes

        centroids = X[jnp.array([0, 10, 20])]
        for _ in range(5):
            centroids, sizes = kmeans_step(X, centroids)
        """,
        alt_fixes=[
            """
            @jax.jit
            def kmeans_step(X, centroids):
                d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(-1)
                labels = jnp.argmin(d2, axis=1)
                k = centroids.shape[0]
                onehot = jax.nn.one_hot(labels, k)
                sizes = onehot.sum(0)
                new_centroids = (onehot.T @ X) / sizes[:, None]
                return new_centroids, sizes

            centroids = X[jnp.array([0, 10, 20])]
            for _ in range(5):
                centroids, sizes = kmeans_step(X, centroids)
            """,
            """
            @jax.jit
            def kmeans_step(X, centroids):
                d2 = ((X[:, None, :] - centroids[None, :, :]) ** 2).sum(-1)
                labels = jnp.argmin(d2, axis=1)
                k = centroids.shape[0]
                masks = [labels == j for j in range(k)]
                new_centroids = jnp.stack([jnp.where(m[:, None], X, 0.0).sum(0) / m.sum() for m in masks])
                sizes = jnp.stack([m.sum() for m in masks])
                return new_centroids, sizes

            centroids = X[jnp.array([0, 10, 20])]
            for _ in range(5):
                centroids, sizes = kmeans_step(X, centroids)
            """,
        ],
    ),
    case(
        "ob-unique-token-diversity-alias", "concretization-unique-size", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/10231",
        cell="""
        import jax.numpy as xp

        @jax.jit
        def distinct_ratio(tokens):
            # "distinct-n" diversity of generated samples: fraction of token ids that are unique
            return xp.unique(tokens).size / tokens.size

        samples = xp.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
        ratios = [distinct_ratio(s) for s in samples]
        overall = distinct_ratio(samples)
        """,
        check="""
        S = np.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
        np.testing.assert_allclose([float(r) for r in ratios], [len(set(r)) / 4 for r in S.tolist()])
        np.testing.assert_allclose(float(overall), len(set(S.ravel().tolist())) / S.size)
        """,
        wrong_fix="""
        import jax.numpy as xp

        @jax.jit
        def distinct_ratio(tokens):
            return xp.unique(tokens, size=tokens.size).size / tokens.size

        samples = xp.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
        ratios = [distinct_ratio(s) for s in samples]
        overall = distinct_ratio(samples)
        """,
        alt_fixes=[
            """
            import jax.numpy as xp

            @jax.jit
            def distinct_ratio(tokens):
                s = xp.sort(tokens.ravel())
                return (1 + xp.sum(s[1:] != s[:-1])) / tokens.size

            samples = xp.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
            ratios = [distinct_ratio(s) for s in samples]
            overall = distinct_ratio(samples)
            """,
            """
            import jax.numpy as xp

            @jax.jit
            def distinct_ratio(tokens):
                u = xp.unique(tokens, size=tokens.size, fill_value=-1)
                return xp.sum(u != -1) / tokens.size

            samples = xp.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
            ratios = [distinct_ratio(s) for s in samples]
            overall = distinct_ratio(samples)
            """,
            """
            import jax.numpy as xp
            VOCAB = 16

            @jax.jit
            def distinct_ratio(tokens):
                return xp.sum(xp.bincount(tokens.ravel(), length=VOCAB) > 0) / tokens.size

            samples = xp.array([[5, 3, 5, 9], [3, 3, 1, 0], [9, 9, 9, 2]])
            ratios = [distinct_ratio(s) for s in samples]
            overall = distinct_ratio(samples)
            """,
        ],
    ),
    case(
        "ob-argwhere-eqx-spike-detector", "concretization-nonzero-size",
        setup=SETUP + "import equinox as eqx\n",
        source="https://github.com/jax-ml/jax/pull/6915",
        cell="""
        class SpikeDetector(eqx.Module):
            threshold: float

            @eqx.filter_jit
            def __call__(self, v):
                idx = jnp.argwhere(v > self.threshold)[:, 0]
                n_spikes = idx.shape[0]
                return n_spikes, v[idx].mean()

        t = jnp.linspace(0.0, 6.0, 60)
        trace = jnp.sin(3 * t) * jnp.exp(-0.2 * t)
        n_spikes, mean_amp = SpikeDetector(threshold=0.5)(trace)
        """,
        check="""
        tn = np.asarray(trace)
        sel = tn[tn > 0.5]
        assert int(n_spikes) == sel.size, (n_spikes, sel.size)
        np.testing.assert_allclose(float(mean_amp), sel.mean(), rtol=1e-5)
        """,
        wrong_fix="""
        class SpikeDetector(eqx.Module):
            threshold: float

            @eqx.filter_jit
            def __call__(self, v):
                idx = jnp.argwhere(v > self.threshold, size=v.shape[0])[:, 0]
                n_spikes = idx.shape[0]
                return n_spikes, v[idx].mean()

        t = jnp.linspace(0.0, 6.0, 60)
        trace = jnp.sin(3 * t) * jnp.exp(-0.2 * t)
        n_spikes, mean_amp = SpikeDetector(threshold=0.5)(trace)
        """,
        alt_fixes=[
            """
            class SpikeDetector(eqx.Module):
                threshold: float

                @eqx.filter_jit
                def __call__(self, v):
                    above = v > self.threshold
                    n_spikes = above.sum()
                    return n_spikes, jnp.where(above, v, 0.0).sum() / n_spikes

            t = jnp.linspace(0.0, 6.0, 60)
            trace = jnp.sin(3 * t) * jnp.exp(-0.2 * t)
            n_spikes, mean_amp = SpikeDetector(threshold=0.5)(trace)
            """,
            """
            class SpikeDetector(eqx.Module):
                threshold: float

                @eqx.filter_jit
                def __call__(self, v):
                    idx = jnp.argwhere(v > self.threshold, size=v.shape[0], fill_value=-1)[:, 0]
                    valid = idx >= 0
                    n_spikes = valid.sum()
                    return n_spikes, jnp.where(valid, v[idx], 0.0).sum() / n_spikes

            t = jnp.linspace(0.0, 6.0, 60)
            trace = jnp.sin(3 * t) * jnp.exp(-0.2 * t)
            n_spikes, mean_amp = SpikeDetector(threshold=0.5)(trace)
            """,
        ],
    ),
    case(
        "ob-bincount-balanced-xent-optax", "concretization-abstract-tracer",
        setup=SETUP + dedent("""
        import optax
        _rng = np.random.default_rng(1)
        Xc = jnp.asarray(_rng.normal(size=(24, 4)), dtype=jnp.float32)
        yc = jnp.asarray(np.r_[np.zeros(14), np.ones(7), 2 * np.ones(3)].astype(np.int32))
        """),
        source="written for the shape: sklearn-style 'balanced' class weights n/(n_classes*bincount(y)) computed inside a jitted Optax step",
        cell="""
        tx = optax.sgd(0.5)

        @jax.jit
        def train_step(W, opt_state, x, y):
            def loss_fn(W):
                counts = jnp.bincount(y)
                class_w = y.shape[0] / (counts.size * counts)
                logp = jax.nn.log_softmax(x @ W)
                nll = -jnp.take_along_axis(logp, y[:, None], axis=1)[:, 0]
                return jnp.mean(class_w[y] * nll)
            loss, g = jax.value_and_grad(loss_fn)(W)
            updates, opt_state = tx.update(g, opt_state)
            return optax.apply_updates(W, updates), opt_state, loss

        W = jnp.zeros((4, 3))
        opt_state = tx.init(W)
        for _ in range(10):
            W, opt_state, loss = train_step(W, opt_state, Xc, yc)
        """,
        check="""
        yn = np.asarray(yc)
        cw = len(yn) / (3 * np.bincount(yn))
        def ref_loss(W):
            logp = jax.nn.log_softmax(Xc @ W)
            return jnp.mean(jnp.asarray(cw, jnp.float32)[yn] * -logp[np.arange(len(yn)), yn])
        Wr = jnp.zeros((4, 3))
        for _ in range(10):
            lr_, g = jax.value_and_grad(ref_loss)(Wr)
            Wr = Wr - 0.5 * g
        np.testing.assert_allclose(np.asarray(W), np.asarray(Wr), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(loss), float(lr_), rtol=1e-4)
        """,
        wrong_fix="""
        tx = optax.sgd(0.5)

        @jax.jit
        def train_step(W, opt_state, x, y):
            def loss_fn(W):
                counts = jnp.bincount(y, length=y.shape[0])
                class_w = y.shape[0] / (counts.size * counts)
                logp = jax.nn.log_softmax(x @ W)
                nll = -jnp.take_along_axis(logp, y[:, None], axis=1)[:, 0]
                return jnp.mean(class_w[y] * nll)
            loss, g = jax.value_and_grad(loss_fn)(W)
            updates, opt_state = tx.update(g, opt_state)
            return optax.apply_updates(W, updates), opt_state, loss

        W = jnp.zeros((4, 3))
        opt_state = tx.init(W)
        for _ in range(10):
            W, opt_state, loss = train_step(W, opt_state, Xc, yc)
        """,
        alt_fixes=[
            """
            tx = optax.sgd(0.5)

            @jax.jit
            def train_step(W, opt_state, x, y):
                def loss_fn(W):
                    counts = jnp.bincount(y, length=W.shape[1])
                    class_w = y.shape[0] / (counts.size * counts)
                    logp = jax.nn.log_softmax(x @ W)
                    nll = -jnp.take_along_axis(logp, y[:, None], axis=1)[:, 0]
                    return jnp.mean(class_w[y] * nll)
                loss, g = jax.value_and_grad(loss_fn)(W)
                updates, opt_state = tx.update(g, opt_state)
                return optax.apply_updates(W, updates), opt_state, loss

            W = jnp.zeros((4, 3))
            opt_state = tx.init(W)
            for _ in range(10):
                W, opt_state, loss = train_step(W, opt_state, Xc, yc)
            """,
            """
            tx = optax.sgd(0.5)

            @jax.jit
            def train_step(W, opt_state, x, y):
                def loss_fn(W):
                    n_classes = W.shape[1]
                    counts = jax.nn.one_hot(y, n_classes).sum(0)
                    class_w = y.shape[0] / (n_classes * counts)
                    logp = jax.nn.log_softmax(x @ W)
                    nll = -jnp.take_along_axis(logp, y[:, None], axis=1)[:, 0]
                    return jnp.mean(class_w[y] * nll)
                loss, g = jax.value_and_grad(loss_fn)(W)
                updates, opt_state = tx.update(g, opt_state)
                return optax.apply_updates(W, updates), opt_state, loss

            W = jnp.zeros((4, 3))
            opt_state = tx.init(W)
            for _ in range(10):
                W, opt_state, loss = train_step(W, opt_state, Xc, yc)
            """,
        ],
    ),
    case(
        "ob-where-first-crossing-vmap", "concretization-nonzero-size", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/9578",
        cell="""
        from jax import vmap

        def first_crossing(trace, level):
            # index of the first sample at or above `level`
            return jnp.where(trace >= level)[0][0]

        traces = jnp.cumsum(jax.random.uniform(jax.random.key(0), (6, 50)), axis=1)
        hit_times = vmap(first_crossing, in_axes=(0, None))(traces, 10.0)
        """,
        check="""
        T = np.asarray(traces)
        ref = [int(np.nonzero(r >= 10.0)[0][0]) for r in T]
        np.testing.assert_array_equal(np.asarray(hit_times), ref)
        """,
        wrong_fix="""
        from jax import vmap

        def first_crossing(trace, level):
            return jnp.argmin(jnp.abs(trace - level))

        traces = jnp.cumsum(jax.random.uniform(jax.random.key(0), (6, 50)), axis=1)
        hit_times = vmap(first_crossing, in_axes=(0, None))(traces, 10.0)
        """,
        alt_fixes=[
            """
            from jax import vmap

            def first_crossing(trace, level):
                return jnp.argmax(trace >= level)

            traces = jnp.cumsum(jax.random.uniform(jax.random.key(0), (6, 50)), axis=1)
            hit_times = vmap(first_crossing, in_axes=(0, None))(traces, 10.0)
            """,
            """
            from jax import vmap

            def first_crossing(trace, level):
                return jnp.where(trace >= level, size=1)[0][0]

            traces = jnp.cumsum(jax.random.uniform(jax.random.key(0), (6, 50)), axis=1)
            hit_times = vmap(first_crossing, in_axes=(0, None))(traces, 10.0)
            """,
            """
            from jax import vmap

            def first_crossing(trace, level):
                return jnp.searchsorted(trace, level)   # the traces are increasing

            traces = jnp.cumsum(jax.random.uniform(jax.random.key(0), (6, 50)), axis=1)
            hit_times = vmap(first_crossing, in_axes=(0, None))(traces, 10.0)
            """,
        ],
    ),
    # ------------------------------------------------------------------ non-array arguments
    case(
        "ob-jit-str-activation-and-norm", "jit-non-array-argument",
        setup=SETUP + dedent("""
        _rng = np.random.default_rng(2)
        _sizes = [5, 8, 8, 2]
        params = [(jnp.asarray(_rng.normal(size=(m, n)) / np.sqrt(m), dtype=jnp.float32), jnp.full((n,), 0.1))
                  for m, n in zip(_sizes[:-1], _sizes[1:])]
        x = jnp.asarray(_rng.normal(size=(4, 5)), dtype=jnp.float32)
        """),
        source="https://github.com/jax-ml/jax/issues/3045",
        cell="""
        @jax.jit
        def mlp_forward(params, x, activation="relu", norm="none"):
            act = {"relu": jax.nn.relu, "tanh": jnp.tanh, "gelu": jax.nn.gelu}[activation]
            for W, b in params[:-1]:
                x = act(x @ W + b)
                if norm == "layer":
                    x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
            W, b = params[-1]
            return x @ W + b

        out_relu = mlp_forward(params, x)
        out_tanh = mlp_forward(params, x, activation="tanh", norm="layer")
        """,
        check="""
        def ref(act, layer):
            h = np.asarray(x, np.float64)
            for W, b in params[:-1]:
                h = act(h @ np.asarray(W) + np.asarray(b))
                if layer:
                    h = (h - h.mean(-1, keepdims=True)) / np.sqrt(h.var(-1, keepdims=True) + 1e-5)
            W, b = params[-1]
            return h @ np.asarray(W) + np.asarray(b)
        np.testing.assert_allclose(np.asarray(out_relu), ref(lambda z: np.maximum(z, 0), False), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(out_tanh), ref(np.tanh, True), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("activation",))
        def mlp_forward(params, x, activation="relu", norm="none"):
            act = {"relu": jax.nn.relu, "tanh": jnp.tanh, "gelu": jax.nn.gelu}[activation]
            for W, b in params[:-1]:
                x = act(x @ W + b)
                if norm == "layer":
                    x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
            W, b = params[-1]
            return x @ W + b

        out_relu = mlp_forward(params, x)
        out_tanh = mlp_forward(params, x, activation="tanh", norm="layer")
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames=("activation", "norm"))
            def mlp_forward(params, x, activation="relu", norm="none"):
                act = {"relu": jax.nn.relu, "tanh": jnp.tanh, "gelu": jax.nn.gelu}[activation]
                for W, b in params[:-1]:
                    x = act(x @ W + b)
                    if norm == "layer":
                        x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
                W, b = params[-1]
                return x @ W + b

            out_relu = mlp_forward(params, x)
            out_tanh = mlp_forward(params, x, activation="tanh", norm="layer")
            """,
            """
            @partial(jax.jit, static_argnums=(2, 3))
            def mlp_forward(params, x, activation="relu", norm="none"):
                act = {"relu": jax.nn.relu, "tanh": jnp.tanh, "gelu": jax.nn.gelu}[activation]
                for W, b in params[:-1]:
                    x = act(x @ W + b)
                    if norm == "layer":
                        x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
                W, b = params[-1]
                return x @ W + b

            out_relu = mlp_forward(params, x)
            out_tanh = mlp_forward(params, x, activation="tanh", norm="layer")
            """,
            """
            def make_forward(activation="relu", norm="none"):
                act = {"relu": jax.nn.relu, "tanh": jnp.tanh, "gelu": jax.nn.gelu}[activation]
                @jax.jit
                def forward(params, x):
                    for W, b in params[:-1]:
                        x = act(x @ W + b)
                        if norm == "layer":
                            x = (x - x.mean(-1, keepdims=True)) / jnp.sqrt(x.var(-1, keepdims=True) + 1e-5)
                    W, b = params[-1]
                    return x @ W + b
                return forward

            out_relu = make_forward()(params, x)
            out_tanh = make_forward("tanh", "layer")(params, x)
            """,
        ],
    ),
    case(
        "ob-jit-method-self-pendulum", "jit-method-self-argument", setup=SETUP,
        source="https://openillumi.com/en/en-jax-jit-class-method-stale-cache-fix",
        cell="""
        class Pendulum:
            def __init__(self, g=9.81, length=1.0, dt=0.01):
                self.g, self.length, self.dt = g, length, dt

            @jax.jit
            def step(self, state):
                theta, omega = state
                omega = omega - self.g / self.length * jnp.sin(theta) * self.dt
                return jnp.stack([theta + omega * self.dt, omega])

        pend = Pendulum()
        s = jnp.array([0.3, 0.0])
        for _ in range(100):
            s = pend.step(s)
        pend.length = 2.0          # a longer pendulum from here on
        for _ in range(100):
            s = pend.step(s)
        """,
        check="""
        th, om = 0.3, 0.0
        for i in range(200):
            L = 1.0 if i < 100 else 2.0
            om = om - 9.81 / L * np.sin(th) * 0.01
            th = th + om * 0.01
        np.testing.assert_allclose(np.asarray(s), [th, om], rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Pendulum:
            def __init__(self, g=9.81, length=1.0, dt=0.01):
                self.g, self.length, self.dt = g, length, dt

            @partial(jax.jit, static_argnums=0)
            def step(self, state):
                theta, omega = state
                omega = omega - self.g / self.length * jnp.sin(theta) * self.dt
                return jnp.stack([theta + omega * self.dt, omega])

        pend = Pendulum()
        s = jnp.array([0.3, 0.0])
        for _ in range(100):
            s = pend.step(s)
        pend.length = 2.0
        for _ in range(100):
            s = pend.step(s)
        """,
        alt_fixes=[
            """
            @jax.jit
            def _pendulum_step(state, g, length, dt):
                theta, omega = state
                omega = omega - g / length * jnp.sin(theta) * dt
                return jnp.stack([theta + omega * dt, omega])

            class Pendulum:
                def __init__(self, g=9.81, length=1.0, dt=0.01):
                    self.g, self.length, self.dt = g, length, dt

                def step(self, state):
                    return _pendulum_step(state, self.g, self.length, self.dt)

            pend = Pendulum()
            s = jnp.array([0.3, 0.0])
            for _ in range(100):
                s = pend.step(s)
            pend.length = 2.0
            for _ in range(100):
                s = pend.step(s)
            """,
            """
            @jax.tree_util.register_pytree_node_class
            class Pendulum:
                def __init__(self, g=9.81, length=1.0, dt=0.01):
                    self.g, self.length, self.dt = g, length, dt

                def tree_flatten(self):
                    return (self.g, self.length, self.dt), None

                @classmethod
                def tree_unflatten(cls, aux, children):
                    return cls(*children)

                @jax.jit
                def step(self, state):
                    theta, omega = state
                    omega = omega - self.g / self.length * jnp.sin(theta) * self.dt
                    return jnp.stack([theta + omega * self.dt, omega])

            pend = Pendulum()
            s = jnp.array([0.3, 0.0])
            for _ in range(100):
                s = pend.step(s)
            pend.length = 2.0
            for _ in range(100):
                s = pend.step(s)
            """,
            """
            class Pendulum:
                def __init__(self, g=9.81, length=1.0, dt=0.01):
                    self.g, self.length, self.dt = g, length, dt

                @staticmethod
                @partial(jax.jit, static_argnames=("g", "length", "dt"))
                def _step(state, g, length, dt):
                    theta, omega = state
                    omega = omega - g / length * jnp.sin(theta) * dt
                    return jnp.stack([theta + omega * dt, omega])

                def step(self, state):
                    return self._step(state, g=self.g, length=self.length, dt=self.dt)

            pend = Pendulum()
            s = jnp.array([0.3, 0.0])
            for _ in range(100):
                s = pend.step(s)
            pend.length = 2.0
            for _ in range(100):
                s = pend.step(s)
            """,
        ],
    ),
    case(
        "ob-eqx-str-field-jax-jit", "jit-non-array-argument",
        setup=SETUP + "import equinox as eqx\n",
        source="https://github.com/f0uriest/interpax/pull/77",
        cell="""
        class Interp1D(eqx.Module):
            xp: jax.Array
            fp: jax.Array
            method: str = "linear"

            def __call__(self, x):
                if self.method == "nearest":
                    idx = jnp.argmin(jnp.abs(x[:, None] - self.xp[None, :]), axis=1)
                    return self.fp[idx]
                return jnp.interp(x, self.xp, self.fp)

        @jax.jit
        def evaluate(interp, x):
            return interp(x)

        grid = jnp.linspace(0.0, 1.0, 11)
        f_lin = Interp1D(grid, jnp.sin(grid))
        f_near = Interp1D(grid, jnp.sin(grid), method="nearest")
        xq = jnp.array([0.04, 0.26, 0.51, 0.97])
        y_lin, y_near = evaluate(f_lin, xq), evaluate(f_near, xq)
        """,
        check="""
        g = np.linspace(0.0, 1.0, 11)
        q = np.array([0.04, 0.26, 0.51, 0.97])
        np.testing.assert_allclose(np.asarray(y_lin), np.interp(q, g, np.sin(g)), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(y_near), np.sin(g[np.abs(q[:, None] - g).argmin(1)]), rtol=1e-5)
        """,
        wrong_fix="""
        class Interp1D(eqx.Module):
            xp: jax.Array
            fp: jax.Array
            method: str = "linear"

            def __call__(self, x):
                if self.method == "nearest":
                    idx = jnp.argmin(jnp.abs(x[:, None] - self.xp[None, :]), axis=1)
                    return self.fp[idx]
                return jnp.interp(x, self.xp, self.fp)

        @partial(jax.jit, static_argnums=0)
        def evaluate(interp, x):
            return interp(x)

        grid = jnp.linspace(0.0, 1.0, 11)
        f_lin = Interp1D(grid, jnp.sin(grid))
        f_near = Interp1D(grid, jnp.sin(grid), method="nearest")
        xq = jnp.array([0.04, 0.26, 0.51, 0.97])
        y_lin, y_near = evaluate(f_lin, xq), evaluate(f_near, xq)
        """,
        alt_fixes=[
            """
            class Interp1D(eqx.Module):
                xp: jax.Array
                fp: jax.Array
                method: str = "linear"

                def __call__(self, x):
                    if self.method == "nearest":
                        idx = jnp.argmin(jnp.abs(x[:, None] - self.xp[None, :]), axis=1)
                        return self.fp[idx]
                    return jnp.interp(x, self.xp, self.fp)

            @eqx.filter_jit
            def evaluate(interp, x):
                return interp(x)

            grid = jnp.linspace(0.0, 1.0, 11)
            f_lin = Interp1D(grid, jnp.sin(grid))
            f_near = Interp1D(grid, jnp.sin(grid), method="nearest")
            xq = jnp.array([0.04, 0.26, 0.51, 0.97])
            y_lin, y_near = evaluate(f_lin, xq), evaluate(f_near, xq)
            """,
            """
            class Interp1D(eqx.Module):
                xp: jax.Array
                fp: jax.Array
                method: str = eqx.field(static=True, default="linear")

                def __call__(self, x):
                    if self.method == "nearest":
                        idx = jnp.argmin(jnp.abs(x[:, None] - self.xp[None, :]), axis=1)
                        return self.fp[idx]
                    return jnp.interp(x, self.xp, self.fp)

            @jax.jit
            def evaluate(interp, x):
                return interp(x)

            grid = jnp.linspace(0.0, 1.0, 11)
            f_lin = Interp1D(grid, jnp.sin(grid))
            f_near = Interp1D(grid, jnp.sin(grid), method="nearest")
            xq = jnp.array([0.04, 0.26, 0.51, 0.97])
            y_lin, y_near = evaluate(f_lin, xq), evaluate(f_near, xq)
            """,
        ],
    ),
    case(
        "ob-nnx-train-step-loss-type", "jit-non-array-argument",
        setup=SETUP + dedent("""
        import optax
        from flax import nnx
        _rng = np.random.default_rng(3)
        Xr = jnp.asarray(_rng.normal(size=(16, 4)), dtype=jnp.float32)
        Yr = Xr @ jnp.array([[1.0], [-1.0], [0.5], [2.0]]) + 0.2
        """),
        source="https://github.com/google/flax/issues/4695",
        cell="""
        class Regressor(nnx.Module):
            def __init__(self, rngs):
                self.linear = nnx.Linear(4, 1, rngs=rngs)

            def __call__(self, x):
                return self.linear(x)

        model = Regressor(nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)

        @nnx.jit
        def train_step(model, optimizer, x, y, loss_type):
            def loss_fn(model):
                err = model(x) - y
                return jnp.mean(jnp.abs(err)) if loss_type == "l1" else jnp.mean(err ** 2)
            loss, grads = nnx.value_and_grad(loss_fn)(model)
            optimizer.update(model, grads)
            return loss

        for loss_type in ["l1"] * 10 + ["l2"] * 10:
            loss = train_step(model, optimizer, Xr, Yr, loss_type)
        """,
        check="""
        init = Regressor(nnx.Rngs(0))
        W = np.asarray(init.linear.kernel[...], np.float64)
        b = np.asarray(init.linear.bias[...], np.float64)
        x, y = np.asarray(Xr, np.float64), np.asarray(Yr, np.float64)
        for lt in ["l1"] * 10 + ["l2"] * 10:
            r = x @ W + b - y
            g = np.sign(r) / r.size if lt == "l1" else 2 * r / r.size
            W, b = W - 0.05 * x.T @ g, b - 0.05 * g.sum(0)
        np.testing.assert_allclose(np.asarray(model.linear.kernel[...]), W, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(model.linear.bias[...]), b, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Regressor(nnx.Module):
            def __init__(self, rngs):
                self.linear = nnx.Linear(4, 1, rngs=rngs)

            def __call__(self, x):
                return self.linear(x)

        model = Regressor(nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)

        @partial(nnx.jit, static_argnums=3)
        def train_step(model, optimizer, x, y, loss_type):
            def loss_fn(model):
                err = model(x) - y
                return jnp.mean(jnp.abs(err)) if loss_type == "l1" else jnp.mean(err ** 2)
            loss, grads = nnx.value_and_grad(loss_fn)(model)
            optimizer.update(model, grads)
            return loss

        for loss_type in ["l1"] * 10 + ["l2"] * 10:
            loss = train_step(model, optimizer, Xr, Yr, loss_type)
        """,
        alt_fixes=[
            """
            class Regressor(nnx.Module):
                def __init__(self, rngs):
                    self.linear = nnx.Linear(4, 1, rngs=rngs)

                def __call__(self, x):
                    return self.linear(x)

            model = Regressor(nnx.Rngs(0))
            optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)

            @partial(nnx.jit, static_argnames="loss_type")
            def train_step(model, optimizer, x, y, loss_type):
                def loss_fn(model):
                    err = model(x) - y
                    return jnp.mean(jnp.abs(err)) if loss_type == "l1" else jnp.mean(err ** 2)
                loss, grads = nnx.value_and_grad(loss_fn)(model)
                optimizer.update(model, grads)
                return loss

            for loss_type in ["l1"] * 10 + ["l2"] * 10:
                loss = train_step(model, optimizer, Xr, Yr, loss_type)
            """,
            """
            class Regressor(nnx.Module):
                def __init__(self, rngs):
                    self.linear = nnx.Linear(4, 1, rngs=rngs)

                def __call__(self, x):
                    return self.linear(x)

            model = Regressor(nnx.Rngs(0))
            optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)

            @nnx.jit(static_argnums=4)
            def train_step(model, optimizer, x, y, loss_type):
                def loss_fn(model):
                    err = model(x) - y
                    return jnp.mean(jnp.abs(err)) if loss_type == "l1" else jnp.mean(err ** 2)
                loss, grads = nnx.value_and_grad(loss_fn)(model)
                optimizer.update(model, grads)
                return loss

            for loss_type in ["l1"] * 10 + ["l2"] * 10:
                loss = train_step(model, optimizer, Xr, Yr, loss_type)
            """,
            """
            class Regressor(nnx.Module):
                def __init__(self, rngs):
                    self.linear = nnx.Linear(4, 1, rngs=rngs)

                def __call__(self, x):
                    return self.linear(x)

            model = Regressor(nnx.Rngs(0))
            optimizer = nnx.Optimizer(model, optax.sgd(0.05), wrt=nnx.Param)

            @nnx.jit
            def train_step(model, optimizer, x, y, use_l1):
                def loss_fn(model):
                    err = model(x) - y
                    return jnp.where(use_l1, jnp.mean(jnp.abs(err)), jnp.mean(err ** 2))
                loss, grads = nnx.value_and_grad(loss_fn)(model)
                optimizer.update(model, grads)
                return loss

            for loss_type in ["l1"] * 10 + ["l2"] * 10:
                loss = train_step(model, optimizer, Xr, Yr, loss_type == "l1")
            """,
        ],
    ),
    case(
        "ob-optax-loss-fn-argument", "jit-non-array-argument", setup=SETUP_OPTAX,
        source="https://github.com/patrick-kidger/equinox/issues/236",
        cell="""
        tx = optax.adam(0.1)

        @jax.jit
        def train_step(params, opt_state, batch, loss_fn):
            loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        def huber(params, x, y, delta=1.0):
            r = x @ params["w"] + params["b"] - y
            return jnp.mean(jnp.where(jnp.abs(r) < delta, 0.5 * r ** 2, delta * (jnp.abs(r) - 0.5 * delta)))

        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)
        for _ in range(50):
            params, opt_state, loss = train_step(params, opt_state, (X, Y), huber)
        """,
        check="""
        ref_tx = optax.adam(0.1)
        p = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        st = ref_tx.init(p)
        for _ in range(50):
            l, g = jax.value_and_grad(huber)(p, X, Y)
            u, st = ref_tx.update(g, st, p)
            p = optax.apply_updates(p, u)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(p["w"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(params["b"]), float(p["b"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(loss), float(l), rtol=1e-4)
        """,
        wrong_fix="""
        tx = optax.adam(0.1)

        @partial(jax.jit, static_argnums=2)
        def train_step(params, opt_state, batch, loss_fn):
            loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        def huber(params, x, y, delta=1.0):
            r = x @ params["w"] + params["b"] - y
            return jnp.mean(jnp.where(jnp.abs(r) < delta, 0.5 * r ** 2, delta * (jnp.abs(r) - 0.5 * delta)))

        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)
        for _ in range(50):
            params, opt_state, loss = train_step(params, opt_state, (X, Y), huber)
        """,
        alt_fixes=[
            """
            tx = optax.adam(0.1)

            @partial(jax.jit, static_argnames="loss_fn")
            def train_step(params, opt_state, batch, loss_fn):
                loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
                updates, opt_state = tx.update(grads, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, loss

            def huber(params, x, y, delta=1.0):
                r = x @ params["w"] + params["b"] - y
                return jnp.mean(jnp.where(jnp.abs(r) < delta, 0.5 * r ** 2, delta * (jnp.abs(r) - 0.5 * delta)))

            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)
            for _ in range(50):
                params, opt_state, loss = train_step(params, opt_state, (X, Y), huber)
            """,
            """
            tx = optax.adam(0.1)

            def make_train_step(loss_fn):
                @jax.jit
                def train_step(params, opt_state, batch):
                    loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
                    updates, opt_state = tx.update(grads, opt_state, params)
                    return optax.apply_updates(params, updates), opt_state, loss
                return train_step

            def huber(params, x, y, delta=1.0):
                r = x @ params["w"] + params["b"] - y
                return jnp.mean(jnp.where(jnp.abs(r) < delta, 0.5 * r ** 2, delta * (jnp.abs(r) - 0.5 * delta)))

            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)
            step = make_train_step(huber)
            for _ in range(50):
                params, opt_state, loss = step(params, opt_state, (X, Y))
            """,
        ],
    ),
    # ------------------------------------------------------------------ removed modules and names
    case(
        "ob-jax-config-and-optimizers-imports", "removed-jax-module", setup=SETUP,
        source="https://github.com/hiddenSymmetries/simsopt/issues/447",
        cell="""
        from jax.config import config
        config.update("jax_enable_x64", True)
        from jax.experimental import optimizers

        A = jnp.asarray(np.random.default_rng(0).normal(size=(20, 3)))
        b = A @ jnp.array([1.0, -2.0, 0.5])
        loss = lambda w: jnp.mean((A @ w - b) ** 2)
        opt_init, opt_update, get_params = optimizers.adam(0.05)
        state = opt_init(jnp.zeros(3))
        update = jax.jit(lambda i, state: opt_update(i, jax.grad(loss)(get_params(state)), state))
        for i in range(800):
            state = update(i, state)
        w = get_params(state)
        """,
        check="""
        assert jax.config.jax_enable_x64
        assert w.dtype == jnp.float64, w.dtype
        np.testing.assert_allclose(np.asarray(w), [1.0, -2.0, 0.5], atol=1e-3)
        """,
        wrong_fix="""
        from jax import config
        config.update("jax_enable_x64", True)
        from jax.experimental import optimizers

        A = jnp.asarray(np.random.default_rng(0).normal(size=(20, 3)))
        b = A @ jnp.array([1.0, -2.0, 0.5])
        loss = lambda w: jnp.mean((A @ w - b) ** 2)
        opt_init, opt_update, get_params = optimizers.adam(0.05)
        state = opt_init(jnp.zeros(3))
        update = jax.jit(lambda i, state: opt_update(i, jax.grad(loss)(get_params(state)), state))
        for i in range(800):
            state = update(i, state)
        w = get_params(state)
        """,
        alt_fixes=[
            """
            from jax import config
            config.update("jax_enable_x64", True)
            from jax.example_libraries import optimizers

            A = jnp.asarray(np.random.default_rng(0).normal(size=(20, 3)))
            b = A @ jnp.array([1.0, -2.0, 0.5])
            loss = lambda w: jnp.mean((A @ w - b) ** 2)
            opt_init, opt_update, get_params = optimizers.adam(0.05)
            state = opt_init(jnp.zeros(3))
            update = jax.jit(lambda i, state: opt_update(i, jax.grad(loss)(get_params(state)), state))
            for i in range(800):
                state = update(i, state)
            w = get_params(state)
            """,
            """
            import optax
            jax.config.update("jax_enable_x64", True)

            A = jnp.asarray(np.random.default_rng(0).normal(size=(20, 3)))
            b = A @ jnp.array([1.0, -2.0, 0.5])
            loss = lambda w: jnp.mean((A @ w - b) ** 2)
            tx = optax.adam(0.05)
            w = jnp.zeros(3)
            opt_state = tx.init(w)
            @jax.jit
            def step(w, opt_state):
                updates, opt_state = tx.update(jax.grad(loss)(w), opt_state)
                return optax.apply_updates(w, updates), opt_state

            for i in range(800):
                w, opt_state = step(w, opt_state)
            """,
        ],
    ),
    case(
        "ob-maps-mesh-pjit-partitionspec", "removed-jax-module", setup=SETUP_4DEV,
        source="https://github.com/NVIDIA/JAX-Toolbox/issues/962",
        cell="""
        from jax.experimental.maps import Mesh
        from jax.experimental.pjit import pjit, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("data", "model"))
        activations = jnp.arange(32.0).reshape(8, 4) / 32
        with mesh:
            layer = pjit(lambda a: jnp.tanh(a) * 2.0,
                         in_shardings=P("data", "model"), out_shardings=P("data", "model"))
            y = layer(activations)
        """,
        check="""
        ref = np.tanh(np.arange(32.0).reshape(8, 4) / 32) * 2.0
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-6)
        assert len(y.sharding.device_set) == 4
        assert {s.data.shape for s in y.addressable_shards} == {(4, 2)}
        """,
        wrong_fix="""
        from jax.sharding import Mesh
        from jax.experimental.pjit import pjit, PartitionSpec as P

        mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("data", "model"))
        activations = jnp.arange(32.0).reshape(8, 4) / 32
        with mesh:
            layer = pjit(lambda a: jnp.tanh(a) * 2.0,
                         in_shardings=P("data", "model"), out_shardings=P("data", "model"))
            y = layer(activations)
        """,
        alt_fixes=[
            """
            from jax.sharding import Mesh, PartitionSpec as P
            from jax.experimental.pjit import pjit

            mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("data", "model"))
            activations = jnp.arange(32.0).reshape(8, 4) / 32
            with mesh:
                layer = pjit(lambda a: jnp.tanh(a) * 2.0,
                             in_shardings=P("data", "model"), out_shardings=P("data", "model"))
                y = layer(activations)
            """,
            """
            from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

            mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("data", "model"))
            sharding = NamedSharding(mesh, P("data", "model"))
            activations = jnp.arange(32.0).reshape(8, 4) / 32
            layer = jax.jit(lambda a: jnp.tanh(a) * 2.0, in_shardings=sharding, out_shardings=sharding)
            y = layer(activations)
            """,
        ],
    ),
    case(
        "ob-tree-map-leaves-sgd-earlier", "removed-jax-tree-functions", setup=SETUP,
        source="https://github.com/waymo-research/waymax/pull/77",
        earlier="""
        def sgd_update(params, grads, lr=0.1):
            return jax.tree_map(lambda p, g: p - lr * g, params, grads)

        def count_params(params):
            return sum(leaf.size for leaf in jax.tree_leaves(params))
        """,
        cell="""
        params = {"dense": {"w": jnp.ones((3, 2)) * 0.5, "b": jnp.zeros(2)}, "out": {"w": jnp.ones((2, 1))}}

        def loss(p, x):
            h = jnp.tanh(x @ p["dense"]["w"] + p["dense"]["b"])
            return jnp.sum((h @ p["out"]["w"] - 1.0) ** 2)

        x = jnp.array([[0.5, -1.0, 2.0]])
        for _ in range(3):
            params = sgd_update(params, jax.grad(loss)(params, x))
        n_params = count_params(params)
        """,
        check="""
        p = {"dense": {"w": jnp.ones((3, 2)) * 0.5, "b": jnp.zeros(2)}, "out": {"w": jnp.ones((2, 1))}}
        for _ in range(3):
            g = jax.grad(loss)(p, x)
            p = {k: {n: p[k][n] - 0.1 * g[k][n] for n in p[k]} for k in p}
        assert n_params == 10, n_params
        for k in p:
            for n in p[k]:
                np.testing.assert_allclose(np.asarray(params[k][n]), np.asarray(p[k][n]), rtol=1e-5)
        """,
        wrong_fix="""
        def sgd_update(params, grads, lr=0.1):
            return jax.tree.map(lambda p, g: p - lr * g, params, grads)

        def count_params(params):
            return sum(leaf.size for leaf in jax.tree_leaves(params))
        """,
        alt_fixes=[
            """
            def sgd_update(params, grads, lr=0.1):
                return jax.tree.map(lambda p, g: p - lr * g, params, grads)

            def count_params(params):
                return sum(leaf.size for leaf in jax.tree.leaves(params))
            """,
            """
            from jax import tree_util

            def sgd_update(params, grads, lr=0.1):
                return tree_util.tree_map(lambda p, g: p - lr * g, params, grads)

            def count_params(params):
                return sum(leaf.size for leaf in tree_util.tree_leaves(params))
            """,
        ],
    ),
    case(
        "ob-keyarray-two-annotations", "removed-jax-random-keyarray", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/22990",
        cell="""
        def init_layer(key: jax.random.KeyArray, n_in: int, n_out: int):
            wkey, _ = jax.random.split(key)
            return jax.random.normal(wkey, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)

        def dropout(key: jax.random.KeyArray, x, rate=0.5):
            keep = jax.random.bernoulli(key, 1 - rate, x.shape)
            return jnp.where(keep, x / (1 - rate), 0.0)

        k_init, k_drop = jax.random.split(jax.random.PRNGKey(42))
        W, b = init_layer(k_init, 4, 3)
        h = dropout(k_drop, jnp.ones((2, 4)) @ W + b)
        """,
        check="""
        ki, kd = jax.random.split(jax.random.PRNGKey(42))
        Wr = jax.random.normal(jax.random.split(ki)[0], (4, 3)) / 2.0
        pre = np.ones((2, 4)) @ np.asarray(Wr)
        keep = np.asarray(jax.random.bernoulli(kd, 0.5, (2, 3)))
        np.testing.assert_allclose(np.asarray(W), np.asarray(Wr), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(b), np.zeros(3))
        np.testing.assert_allclose(np.asarray(h), np.where(keep, pre / 0.5, 0.0), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        def init_layer(key: jax.Array, n_in: int, n_out: int):
            wkey, _ = jax.random.split(key)
            return jax.random.normal(wkey, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)

        def dropout(key: jax.random.KeyArray, x, rate=0.5):
            keep = jax.random.bernoulli(key, 1 - rate, x.shape)
            return jnp.where(keep, x / (1 - rate), 0.0)

        k_init, k_drop = jax.random.split(jax.random.PRNGKey(42))
        W, b = init_layer(k_init, 4, 3)
        h = dropout(k_drop, jnp.ones((2, 4)) @ W + b)
        """,
        alt_fixes=[
            """
            def init_layer(key: jax.Array, n_in: int, n_out: int):
                wkey, _ = jax.random.split(key)
                return jax.random.normal(wkey, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)

            def dropout(key: jax.Array, x, rate=0.5):
                keep = jax.random.bernoulli(key, 1 - rate, x.shape)
                return jnp.where(keep, x / (1 - rate), 0.0)

            k_init, k_drop = jax.random.split(jax.random.PRNGKey(42))
            W, b = init_layer(k_init, 4, 3)
            h = dropout(k_drop, jnp.ones((2, 4)) @ W + b)
            """,
            """
            from jax import Array as PRNGKey

            def init_layer(key: PRNGKey, n_in: int, n_out: int):
                wkey, _ = jax.random.split(key)
                return jax.random.normal(wkey, (n_in, n_out)) / jnp.sqrt(n_in), jnp.zeros(n_out)

            def dropout(key: PRNGKey, x, rate=0.5):
                keep = jax.random.bernoulli(key, 1 - rate, x.shape)
                return jnp.where(keep, x / (1 - rate), 0.0)

            k_init, k_drop = jax.random.split(jax.random.PRNGKey(42))
            W, b = init_layer(k_init, 4, 3)
            h = dropout(k_drop, jnp.ones((2, 4)) @ W + b)
            """,
        ],
    ),
    case(
        "ob-device-put-replicated-pmap", "removed-device-put-replicated-sharded",
        setup=SETUP_4DEV + dedent("""
        _rng = np.random.default_rng(4)
        Xp = jnp.asarray(_rng.normal(size=(32, 3)), dtype=jnp.float32)
        Yp = Xp @ jnp.array([2.0, -1.0, 0.5]) - 0.7
        """),
        source="https://github.com/genomicsxai/alphagenome_ft/issues/11",
        cell="""
        n_dev = jax.local_device_count()
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        replicated = jax.device_put_replicated(params, jax.local_devices())

        @partial(jax.pmap, axis_name="batch")
        def step(p, xb, yb):
            g = jax.grad(lambda p: jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2))(p)
            g = jax.lax.pmean(g, "batch")
            return jax.tree.map(lambda a, d: a - 0.1 * d, p, g)

        xs, ys = Xp.reshape(n_dev, -1, 3), Yp.reshape(n_dev, -1)
        for _ in range(20):
            replicated = step(replicated, xs, ys)
        final = jax.tree.map(lambda a: a[0], replicated)
        """,
        check="""
        x, y = np.asarray(Xp, np.float64), np.asarray(Yp, np.float64)
        w, b = np.zeros(3), 0.0
        for _ in range(20):
            r = x @ w + b - y
            w, b = w - 0.1 * 2 * x.T @ r / len(y), b - 0.1 * 2 * r.mean()
        assert replicated["w"].shape == (4, 3), replicated["w"].shape
        np.testing.assert_allclose(np.asarray(replicated["w"]), np.tile(w, (4, 1)), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(final["w"]), w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(final["b"]), b, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        n_dev = jax.local_device_count()
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        replicated = jax.device_put(params, jax.local_devices()[0])

        @partial(jax.pmap, axis_name="batch")
        def step(p, xb, yb):
            g = jax.grad(lambda p: jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2))(p)
            g = jax.lax.pmean(g, "batch")
            return jax.tree.map(lambda a, d: a - 0.1 * d, p, g)

        xs, ys = Xp.reshape(n_dev, -1, 3), Yp.reshape(n_dev, -1)
        for _ in range(20):
            replicated = step(replicated, xs, ys)
        final = jax.tree.map(lambda a: a[0], replicated)
        """,
        alt_fixes=[
            """
            n_dev = jax.local_device_count()
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            replicated = jax.tree.map(lambda a: jnp.stack([a] * n_dev), params)

            @partial(jax.pmap, axis_name="batch")
            def step(p, xb, yb):
                g = jax.grad(lambda p: jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2))(p)
                g = jax.lax.pmean(g, "batch")
                return jax.tree.map(lambda a, d: a - 0.1 * d, p, g)

            xs, ys = Xp.reshape(n_dev, -1, 3), Yp.reshape(n_dev, -1)
            for _ in range(20):
                replicated = step(replicated, xs, ys)
            final = jax.tree.map(lambda a: a[0], replicated)
            """,
            """
            from jax.sharding import Mesh, NamedSharding, PartitionSpec

            def device_put_replicated(x, devices):
                mesh = Mesh(np.array(devices), ("x",))
                sharding = NamedSharding(mesh, PartitionSpec("x"))
                return jax.tree.map(lambda y: jax.device_put(jnp.stack([y] * len(devices)), sharding), x)

            n_dev = jax.local_device_count()
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            replicated = device_put_replicated(params, jax.local_devices())

            @partial(jax.pmap, axis_name="batch")
            def step(p, xb, yb):
                g = jax.grad(lambda p: jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2))(p)
                g = jax.lax.pmean(g, "batch")
                return jax.tree.map(lambda a, d: a - 0.1 * d, p, g)

            xs, ys = Xp.reshape(n_dev, -1, 3), Yp.reshape(n_dev, -1)
            for _ in range(20):
                replicated = step(replicated, xs, ys)
            final = jax.tree.map(lambda a: a[0], replicated)
            """,
        ],
    ),
    case(
        "ob-stax-optimizers-two-imports", "removed-jax-submodule-import-name",
        setup=SETUP + dedent("""
        _rng = np.random.default_rng(5)
        Xs = jnp.asarray(_rng.normal(size=(30, 4)), dtype=jnp.float32)
        ys = jnp.asarray((np.asarray(Xs)[:, 0] > 0).astype(np.int32) + (np.asarray(Xs)[:, 1] > 1))
        """),
        source="https://github.com/jax-ml/jax/issues/12160",
        cell="""
        from jax import jit, grad, random
        from jax.experimental import stax, optimizers
        from jax.experimental.stax import Dense, Relu, LogSoftmax

        init_fun, predict = stax.serial(Dense(16), Relu, Dense(3), LogSoftmax)
        _, init_params = init_fun(random.PRNGKey(0), (-1, 4))

        def nll(params, x, y):
            return -jnp.mean(jnp.take_along_axis(predict(params, x), y[:, None], axis=1))

        opt_init, opt_update, get_params = optimizers.sgd(0.1)
        opt_state = opt_init(init_params)

        @jit
        def update(i, opt_state, x, y):
            return opt_update(i, grad(nll)(get_params(opt_state), x, y), opt_state)

        for i in range(100):
            opt_state = update(i, opt_state, Xs, ys)
        trained = get_params(opt_state)
        """,
        check="""
        from jax.example_libraries import stax as S, optimizers as O
        f_init, f_pred = S.serial(S.Dense(16), S.Relu, S.Dense(3), S.LogSoftmax)
        _, p = f_init(jax.random.PRNGKey(0), (-1, 4))
        o_init, o_upd, o_get = O.sgd(0.1)
        st = o_init(p)
        lossf = lambda p: -jnp.mean(jnp.take_along_axis(f_pred(p, Xs), ys[:, None], axis=1))
        for i in range(100):
            st = o_upd(i, jax.grad(lossf)(o_get(st)), st)
        ref = o_get(st)
        for a, r in zip(jax.tree.leaves(trained), jax.tree.leaves(ref)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        from jax import jit, grad, random
        from jax.example_libraries import stax, optimizers
        from jax.experimental.stax import Dense, Relu, LogSoftmax

        init_fun, predict = stax.serial(Dense(16), Relu, Dense(3), LogSoftmax)
        _, init_params = init_fun(random.PRNGKey(0), (-1, 4))

        def nll(params, x, y):
            return -jnp.mean(jnp.take_along_axis(predict(params, x), y[:, None], axis=1))

        opt_init, opt_update, get_params = optimizers.sgd(0.1)
        opt_state = opt_init(init_params)

        @jit
        def update(i, opt_state, x, y):
            return opt_update(i, grad(nll)(get_params(opt_state), x, y), opt_state)

        for i in range(100):
            opt_state = update(i, opt_state, Xs, ys)
        trained = get_params(opt_state)
        """,
        alt_fixes=[
            """
            from jax import jit, grad, random
            from jax.example_libraries import stax, optimizers
            from jax.example_libraries.stax import Dense, Relu, LogSoftmax

            init_fun, predict = stax.serial(Dense(16), Relu, Dense(3), LogSoftmax)
            _, init_params = init_fun(random.PRNGKey(0), (-1, 4))

            def nll(params, x, y):
                return -jnp.mean(jnp.take_along_axis(predict(params, x), y[:, None], axis=1))

            opt_init, opt_update, get_params = optimizers.sgd(0.1)
            opt_state = opt_init(init_params)

            @jit
            def update(i, opt_state, x, y):
                return opt_update(i, grad(nll)(get_params(opt_state), x, y), opt_state)

            for i in range(100):
                opt_state = update(i, opt_state, Xs, ys)
            trained = get_params(opt_state)
            """,
            """
            import optax
            from jax import jit, grad, random
            import jax.example_libraries.stax as stax

            init_fun, predict = stax.serial(stax.Dense(16), stax.Relu, stax.Dense(3), stax.LogSoftmax)
            _, trained = init_fun(random.PRNGKey(0), (-1, 4))

            def nll(params, x, y):
                return -jnp.mean(jnp.take_along_axis(predict(params, x), y[:, None], axis=1))

            tx = optax.sgd(0.1)
            opt_state = tx.init(trained)

            @jit
            def update(params, opt_state, x, y):
                updates, opt_state = tx.update(grad(nll)(params, x, y), opt_state)
                return optax.apply_updates(params, updates), opt_state

            for i in range(100):
                trained, opt_state = update(trained, opt_state, Xs, ys)
            """,
        ],
    ),
    # ------------------------------------------------------------------ pytree structure mismatches
    case(
        "ob-momentum-velocity-lists-vs-tuples", "tree-map-node-type-mismatch",
        setup=SETUP + dedent("""
        _rng = np.random.default_rng(6)
        Xm = jnp.asarray(_rng.normal(size=(20, 3)), dtype=jnp.float32)
        Ym = jnp.sin(Xm[:, :1]) + 0.5 * Xm[:, 1:2]
        """),
        source="written for the shape: hand-written heavy-ball momentum whose velocity is built as lists while the params are a list of (W, b) tuples",
        cell="""
        def init_mlp(sizes, key):
            keys = jax.random.split(key, len(sizes) - 1)
            return [(jax.random.normal(k, (m, n)) * 0.3, jnp.zeros(n))
                    for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        def mlp_loss(params, x, y):
            for W, b in params[:-1]:
                x = jnp.tanh(x @ W + b)
            W, b = params[-1]
            return jnp.mean((x @ W + b - y) ** 2)

        @jax.jit
        def momentum_step(params, velocity, x, y, lr=0.05, beta=0.9):
            grads = jax.grad(mlp_loss)(params, x, y)
            velocity = jax.tree.map(lambda v, g: beta * v + g, velocity, grads)
            params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
            return params, velocity

        params = init_mlp([3, 8, 1], jax.random.PRNGKey(0))
        velocity = [[jnp.zeros_like(W), jnp.zeros_like(b)] for W, b in params]
        for _ in range(30):
            params, velocity = momentum_step(params, velocity, Xm, Ym)
        """,
        check="""
        p = init_mlp([3, 8, 1], jax.random.PRNGKey(0))
        v = [[np.zeros(W.shape), np.zeros(b.shape)] for W, b in p]
        p = [[np.asarray(W, np.float64), np.asarray(b, np.float64)] for W, b in p]
        for _ in range(30):
            g = jax.grad(mlp_loss)([tuple(jnp.asarray(a, jnp.float32) for a in layer) for layer in p], Xm, Ym)
            for i, layer in enumerate(g):
                for j, gij in enumerate(layer):
                    v[i][j] = 0.9 * v[i][j] + np.asarray(gij)
                    p[i][j] = p[i][j] - 0.05 * v[i][j]
        for (W, b), (Wr, br) in zip(params, p):
            np.testing.assert_allclose(np.asarray(W), Wr, rtol=1e-3, atol=1e-4)
            np.testing.assert_allclose(np.asarray(b), br, rtol=1e-3, atol=1e-4)
        """,
        wrong_fix="""
        def init_mlp(sizes, key):
            keys = jax.random.split(key, len(sizes) - 1)
            return [(jax.random.normal(k, (m, n)) * 0.3, jnp.zeros(n))
                    for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        def mlp_loss(params, x, y):
            for W, b in params[:-1]:
                x = jnp.tanh(x @ W + b)
            W, b = params[-1]
            return jnp.mean((x @ W + b - y) ** 2)

        @jax.jit
        def momentum_step(params, velocity, x, y, lr=0.05, beta=0.9):
            grads = jax.grad(mlp_loss)(params, x, y)
            params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
            return params, velocity

        params = init_mlp([3, 8, 1], jax.random.PRNGKey(0))
        velocity = [[jnp.zeros_like(W), jnp.zeros_like(b)] for W, b in params]
        for _ in range(30):
            params, velocity = momentum_step(params, velocity, Xm, Ym)
        """,
        alt_fixes=[
            """
            def init_mlp(sizes, key):
                keys = jax.random.split(key, len(sizes) - 1)
                return [(jax.random.normal(k, (m, n)) * 0.3, jnp.zeros(n))
                        for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

            def mlp_loss(params, x, y):
                for W, b in params[:-1]:
                    x = jnp.tanh(x @ W + b)
                W, b = params[-1]
                return jnp.mean((x @ W + b - y) ** 2)

            @jax.jit
            def momentum_step(params, velocity, x, y, lr=0.05, beta=0.9):
                grads = jax.grad(mlp_loss)(params, x, y)
                velocity = jax.tree.map(lambda v, g: beta * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            params = init_mlp([3, 8, 1], jax.random.PRNGKey(0))
            velocity = jax.tree.map(jnp.zeros_like, params)
            for _ in range(30):
                params, velocity = momentum_step(params, velocity, Xm, Ym)
            """,
            """
            def init_mlp(sizes, key):
                keys = jax.random.split(key, len(sizes) - 1)
                return [(jax.random.normal(k, (m, n)) * 0.3, jnp.zeros(n))
                        for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

            def mlp_loss(params, x, y):
                for W, b in params[:-1]:
                    x = jnp.tanh(x @ W + b)
                W, b = params[-1]
                return jnp.mean((x @ W + b - y) ** 2)

            @jax.jit
            def momentum_step(params, velocity, x, y, lr=0.05, beta=0.9):
                grads = jax.grad(mlp_loss)(params, x, y)
                velocity = jax.tree.map(lambda v, g: beta * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            params = init_mlp([3, 8, 1], jax.random.PRNGKey(0))
            velocity = [(jnp.zeros_like(W), jnp.zeros_like(b)) for W, b in params]
            for _ in range(30):
                params, velocity = momentum_step(params, velocity, Xm, Ym)
            """,
        ],
    ),
    case(
        "ob-ema-haiku-keys-vs-flax-keys", "tree-map-dict-keys-mismatch", setup=SETUP,
        source="written for the shape: EMA of Flax params (kernel/bias) initialised by hand with Haiku-style keys (w/b) while porting",
        cell="""
        params = {"Dense_0": {"kernel": jnp.ones((3, 4)), "bias": jnp.zeros(4)},
                  "Dense_1": {"kernel": jnp.ones((4, 1)), "bias": jnp.zeros(1)}}
        ema = {"Dense_0": {"w": jnp.zeros((3, 4)), "b": jnp.zeros(4)},
               "Dense_1": {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}}

        def ema_update(ema, params, decay=0.9):
            return jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema, params)

        for step in range(5):
            params = jax.tree.map(lambda p: p + 0.1, params)     # stand-in for an optimizer step
            ema = ema_update(ema, params)
        """,
        check="""
        e_k, e_b, k, bb = 0.0, 0.0, 1.0, 0.0
        for _ in range(5):
            k, bb = k + 0.1, bb + 0.1
            e_k, e_b = 0.9 * e_k + 0.1 * k, 0.9 * e_b + 0.1 * bb
        assert set(ema) == {"Dense_0", "Dense_1"}, ema.keys()
        np.testing.assert_allclose(np.asarray(ema["Dense_0"]["kernel"]), np.full((3, 4), e_k), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(ema["Dense_1"]["kernel"]), np.full((4, 1), e_k), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(ema["Dense_0"]["bias"]), np.full(4, e_b), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(ema["Dense_1"]["bias"]), np.full(1, e_b), rtol=1e-5)
        """,
        wrong_fix="""
        params = {"Dense_0": {"kernel": jnp.ones((3, 4)), "bias": jnp.zeros(4)},
                  "Dense_1": {"kernel": jnp.ones((4, 1)), "bias": jnp.zeros(1)}}
        ema = {"Dense_0": {"w": jnp.zeros((3, 4)), "b": jnp.zeros(4)},
               "Dense_1": {"w": jnp.zeros((4, 1)), "b": jnp.zeros(1)}}

        def ema_update(ema, params, decay=0.9):
            return jax.tree.map(lambda e, p: decay * e + (1 - decay) * p,
                                jax.tree.leaves(ema), jax.tree.leaves(params))

        for step in range(5):
            params = jax.tree.map(lambda p: p + 0.1, params)
            ema = ema_update(ema, params)
        """,
        alt_fixes=[
            """
            params = {"Dense_0": {"kernel": jnp.ones((3, 4)), "bias": jnp.zeros(4)},
                      "Dense_1": {"kernel": jnp.ones((4, 1)), "bias": jnp.zeros(1)}}
            ema = jax.tree.map(jnp.zeros_like, params)

            def ema_update(ema, params, decay=0.9):
                return jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema, params)

            for step in range(5):
                params = jax.tree.map(lambda p: p + 0.1, params)
                ema = ema_update(ema, params)
            """,
            """
            params = {"Dense_0": {"kernel": jnp.ones((3, 4)), "bias": jnp.zeros(4)},
                      "Dense_1": {"kernel": jnp.ones((4, 1)), "bias": jnp.zeros(1)}}
            ema = {"Dense_0": {"kernel": jnp.zeros((3, 4)), "bias": jnp.zeros(4)},
                   "Dense_1": {"kernel": jnp.zeros((4, 1)), "bias": jnp.zeros(1)}}

            def ema_update(ema, params, decay=0.9):
                return jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema, params)

            for step in range(5):
                params = jax.tree.map(lambda p: p + 0.1, params)
                ema = ema_update(ema, params)
            """,
        ],
    ),
    case(
        "ob-optax-grads-argnums-tuple-vs-dict", "tree-map-node-type-mismatch", setup=SETUP_OPTAX,
        source="https://github.com/google-deepmind/optax/issues/808",
        cell="""
        def loss(w, b, x, y):
            return jnp.mean((x @ w + b - y) ** 2)

        tx = optax.adam(0.1)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @jax.jit
        def step(params, opt_state, x, y):
            l, grads = jax.value_and_grad(loss, argnums=(0, 1))(params["w"], params["b"], x, y)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, l

        for _ in range(100):
            params, opt_state, l = step(params, opt_state, X, Y)
        """,
        check="""
        ref_tx = optax.adam(0.1)
        p = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        st = ref_tx.init(p)
        for _ in range(100):
            g = jax.grad(lambda p: loss(p["w"], p["b"], X, Y))(p)
            u, st = ref_tx.update(g, st, p)
            p = optax.apply_updates(p, u)
        assert params["b"].shape == () and params["w"].shape == (3,)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(p["w"]), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(params["b"]), float(p["b"]), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        def loss(w, b, x, y):
            return jnp.mean((x @ w + b - y) ** 2)

        tx = optax.adam(0.1)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @jax.jit
        def step(params, opt_state, x, y):
            l, grads = jax.value_and_grad(loss, argnums=(0, 1))(params["w"], params["b"], x, y)
            grads = dict(zip(params, grads))
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, l

        for _ in range(100):
            params, opt_state, l = step(params, opt_state, X, Y)
        """,
        alt_fixes=[
            """
            def loss(w, b, x, y):
                return jnp.mean((x @ w + b - y) ** 2)

            tx = optax.adam(0.1)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @jax.jit
            def step(params, opt_state, x, y):
                l, (gw, gb) = jax.value_and_grad(loss, argnums=(0, 1))(params["w"], params["b"], x, y)
                updates, opt_state = tx.update({"w": gw, "b": gb}, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, l

            for _ in range(100):
                params, opt_state, l = step(params, opt_state, X, Y)
            """,
            """
            def loss(w, b, x, y):
                return jnp.mean((x @ w + b - y) ** 2)

            tx = optax.adam(0.1)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @jax.jit
            def step(params, opt_state, x, y):
                l, grads = jax.value_and_grad(lambda p: loss(p["w"], p["b"], x, y))(params)
                updates, opt_state = tx.update(grads, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, l

            for _ in range(100):
                params, opt_state, l = step(params, opt_state, X, Y)
            """,
        ],
    ),
    case(
        "ob-linen-opt-init-on-variables", "tree-map-dict-missing-key",
        setup=SETUP_OPTAX + "import flax.linen as nn\n",
        source="https://github.com/google/flax/pull/1011",
        cell="""
        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(1)(nn.relu(nn.Dense(8)(x)))

        model = MLP()
        variables = model.init(jax.random.PRNGKey(0), X[:1])
        tx = optax.adam(1e-2)
        opt_state = tx.init(variables)

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss_fn = lambda p: jnp.mean((model.apply({"params": p}, x)[:, 0] - y) ** 2)
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        params = variables["params"]
        for _ in range(50):
            params, opt_state, loss = train_step(params, opt_state, X, Y)
        """,
        check="""
        p = model.init(jax.random.PRNGKey(0), X[:1])["params"]
        ref_tx = optax.adam(1e-2)
        st = ref_tx.init(p)
        for _ in range(50):
            l, g = jax.value_and_grad(lambda p: jnp.mean((model.apply({"params": p}, X)[:, 0] - Y) ** 2))(p)
            u, st = ref_tx.update(g, st)
            p = optax.apply_updates(p, u)
        trained = params["params"] if "params" in params else params
        for a, r in zip(jax.tree.leaves(trained), jax.tree.leaves(p)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(loss), float(l), rtol=1e-4)
        """,
        wrong_fix="""
        class MLP(nn.Module):
            @nn.compact
            def __call__(self, x):
                return nn.Dense(1)(nn.relu(nn.Dense(8)(x)))

        model = MLP()
        variables = model.init(jax.random.PRNGKey(0), X[:1])
        tx = optax.sgd(1e-2)
        opt_state = tx.init(variables)

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss_fn = lambda p: jnp.mean((model.apply({"params": p}, x)[:, 0] - y) ** 2)
            loss, grads = jax.value_and_grad(loss_fn)(params)
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        params = variables["params"]
        for _ in range(50):
            params, opt_state, loss = train_step(params, opt_state, X, Y)
        """,
        alt_fixes=[
            """
            class MLP(nn.Module):
                @nn.compact
                def __call__(self, x):
                    return nn.Dense(1)(nn.relu(nn.Dense(8)(x)))

            model = MLP()
            variables = model.init(jax.random.PRNGKey(0), X[:1])
            tx = optax.adam(1e-2)
            opt_state = tx.init(variables["params"])

            @jax.jit
            def train_step(params, opt_state, x, y):
                loss_fn = lambda p: jnp.mean((model.apply({"params": p}, x)[:, 0] - y) ** 2)
                loss, grads = jax.value_and_grad(loss_fn)(params)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            params = variables["params"]
            for _ in range(50):
                params, opt_state, loss = train_step(params, opt_state, X, Y)
            """,
            """
            class MLP(nn.Module):
                @nn.compact
                def __call__(self, x):
                    return nn.Dense(1)(nn.relu(nn.Dense(8)(x)))

            model = MLP()
            variables = model.init(jax.random.PRNGKey(0), X[:1])
            tx = optax.adam(1e-2)
            opt_state = tx.init(variables)

            @jax.jit
            def train_step(variables, opt_state, x, y):
                loss_fn = lambda v: jnp.mean((model.apply(v, x)[:, 0] - y) ** 2)
                loss, grads = jax.value_and_grad(loss_fn)(variables)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(variables, updates), opt_state, loss

            params = variables
            for _ in range(50):
                params, opt_state, loss = train_step(params, opt_state, X, Y)
            """,
        ],
    ),
    case(
        "ob-trainstate-grads-include-batch-stats", "tree-map-dict-missing-key",
        setup=SETUP_OPTAX + "import flax.linen as nn\nfrom flax.training import train_state\n",
        source="https://github.com/google/flax/issues/2419",
        cell="""
        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, train: bool):
                x = nn.Dense(16)(x)
                x = nn.BatchNorm(use_running_average=not train)(x)
                return nn.Dense(1)(nn.relu(x))[:, 0]

        class TrainState(train_state.TrainState):
            batch_stats: dict

        net = Net()
        variables = net.init(jax.random.PRNGKey(0), X, train=False)
        state = TrainState.create(apply_fn=net.apply, params=variables["params"],
                                  batch_stats=variables["batch_stats"], tx=optax.sgd(0.1))

        @jax.jit
        def train_step(state, x, y):
            def loss_fn(variables):
                pred, updates = state.apply_fn(variables, x, train=True, mutable=["batch_stats"])
                return jnp.mean((pred - y) ** 2), updates
            variables = {"params": state.params, "batch_stats": state.batch_stats}
            (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(variables)
            state = state.apply_gradients(grads=grads, batch_stats=updates["batch_stats"])
            return state, loss

        for _ in range(20):
            state, loss = train_step(state, X, Y)
        """,
        check="""
        v = net.init(jax.random.PRNGKey(0), X, train=False)
        p, bs = v["params"], v["batch_stats"]
        for _ in range(20):
            def lf(p):
                pred, upd = net.apply({"params": p, "batch_stats": bs}, X, train=True, mutable=["batch_stats"])
                return jnp.mean((pred - Y) ** 2), upd
            (l, upd), g = jax.value_and_grad(lf, has_aux=True)(p)
            p = jax.tree.map(lambda a, d: a - 0.1 * d, p, g)
            bs = upd["batch_stats"]
        for a, r in zip(jax.tree.leaves(state.params), jax.tree.leaves(p)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-4, atol=1e-5)
        for a, r in zip(jax.tree.leaves(state.batch_stats), jax.tree.leaves(bs)):
            np.testing.assert_allclose(np.asarray(a), np.asarray(r), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class Net(nn.Module):
            @nn.compact
            def __call__(self, x, train: bool):
                x = nn.Dense(16)(x)
                x = nn.BatchNorm(use_running_average=not train)(x)
                return nn.Dense(1)(nn.relu(x))[:, 0]

        class TrainState(train_state.TrainState):
            batch_stats: dict

        net = Net()
        variables = net.init(jax.random.PRNGKey(0), X, train=False)
        state = TrainState.create(apply_fn=net.apply, params=variables["params"],
                                  batch_stats=variables["batch_stats"], tx=optax.sgd(0.1))

        @jax.jit
        def train_step(state, x, y):
            def loss_fn(variables):
                pred, updates = state.apply_fn(variables, x, train=True, mutable=["batch_stats"])
                return jnp.mean((pred - y) ** 2), updates
            variables = {"params": state.params, "batch_stats": state.batch_stats}
            (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(variables)
            state = state.apply_gradients(grads=grads["params"])
            return state, loss

        for _ in range(20):
            state, loss = train_step(state, X, Y)
        """,
        alt_fixes=[
            """
            class Net(nn.Module):
                @nn.compact
                def __call__(self, x, train: bool):
                    x = nn.Dense(16)(x)
                    x = nn.BatchNorm(use_running_average=not train)(x)
                    return nn.Dense(1)(nn.relu(x))[:, 0]

            class TrainState(train_state.TrainState):
                batch_stats: dict

            net = Net()
            variables = net.init(jax.random.PRNGKey(0), X, train=False)
            state = TrainState.create(apply_fn=net.apply, params=variables["params"],
                                      batch_stats=variables["batch_stats"], tx=optax.sgd(0.1))

            @jax.jit
            def train_step(state, x, y):
                def loss_fn(variables):
                    pred, updates = state.apply_fn(variables, x, train=True, mutable=["batch_stats"])
                    return jnp.mean((pred - y) ** 2), updates
                variables = {"params": state.params, "batch_stats": state.batch_stats}
                (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(variables)
                state = state.apply_gradients(grads=grads["params"], batch_stats=updates["batch_stats"])
                return state, loss

            for _ in range(20):
                state, loss = train_step(state, X, Y)
            """,
            """
            class Net(nn.Module):
                @nn.compact
                def __call__(self, x, train: bool):
                    x = nn.Dense(16)(x)
                    x = nn.BatchNorm(use_running_average=not train)(x)
                    return nn.Dense(1)(nn.relu(x))[:, 0]

            class TrainState(train_state.TrainState):
                batch_stats: dict

            net = Net()
            variables = net.init(jax.random.PRNGKey(0), X, train=False)
            state = TrainState.create(apply_fn=net.apply, params=variables["params"],
                                      batch_stats=variables["batch_stats"], tx=optax.sgd(0.1))

            @jax.jit
            def train_step(state, x, y):
                def loss_fn(params):
                    pred, updates = state.apply_fn({"params": params, "batch_stats": state.batch_stats},
                                                   x, train=True, mutable=["batch_stats"])
                    return jnp.mean((pred - y) ** 2), updates
                (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
                state = state.apply_gradients(grads=grads, batch_stats=updates["batch_stats"])
                return state, loss

            for _ in range(20):
                state, loss = train_step(state, X, Y)
            """,
        ],
    ),
    # ------------------------------------------------------------------ leaked tracers
    case(
        "ob-leak-global-feature-cache", "unexpected-tracer-leak",
        setup=SETUP + "table = jnp.asarray(np.random.default_rng(7).normal(size=(6, 3)), dtype=jnp.float32)\n",
        source="https://github.com/jax-ml/jax/pull/4312",
        cell="""
        _feature_cache = {}

        @jax.jit
        def embed(tokens, table):
            h = table[tokens].mean(axis=0)
            _feature_cache["last"] = h        # kept for the nearest-neighbour lookup below
            return jnp.tanh(h)

        out = embed(jnp.array([1, 4, 2]), table)
        sims = table @ _feature_cache["last"]
        nearest = int(jnp.argmax(sims))
        """,
        check="""
        T = np.asarray(table, np.float64)
        h = T[[1, 4, 2]].mean(0)
        np.testing.assert_allclose(np.asarray(out), np.tanh(h), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(sims), T @ h, rtol=1e-4, atol=1e-5)
        assert nearest == int(np.argmax(T @ h))
        """,
        wrong_fix="""
        _feature_cache = {}

        @jax.jit
        def embed(tokens, table):
            h = table[tokens].mean(axis=0)
            _feature_cache["last"] = jax.lax.stop_gradient(h)
            return jnp.tanh(h)

        out = embed(jnp.array([1, 4, 2]), table)
        sims = table @ _feature_cache["last"]
        nearest = int(jnp.argmax(sims))
        """,
        alt_fixes=[
            """
            _feature_cache = {}

            @jax.jit
            def embed(tokens, table):
                h = table[tokens].mean(axis=0)
                return jnp.tanh(h), h

            out, _feature_cache["last"] = embed(jnp.array([1, 4, 2]), table)
            sims = table @ _feature_cache["last"]
            nearest = int(jnp.argmax(sims))
            """,
            """
            @jax.jit
            def pooled(tokens, table):
                return table[tokens].mean(axis=0)

            h = pooled(jnp.array([1, 4, 2]), table)
            out = jnp.tanh(h)
            sims = table @ h
            nearest = int(jnp.argmax(sims))
            """,
        ],
    ),
    case(
        "ob-leak-self-hidden-rnn-earlier", "unexpected-tracer-leak", setup=SETUP,
        source="https://github.com/google/flax/issues/4695",
        earlier="""
        class RNNCell:
            def __init__(self, key, n_in, n_hidden):
                k1, k2, k3 = jax.random.split(key, 3)
                self.Wx = jax.random.normal(k1, (n_in, n_hidden)) * 0.5
                self.Wh = jax.random.normal(k2, (n_hidden, n_hidden)) * 0.5
                self.readout = jax.random.normal(k3, (n_hidden,))
                self.h = jnp.zeros(n_hidden)
                self._step = jax.jit(self._step_impl)

            def _step_impl(self, x):
                self.h = jnp.tanh(x @ self.Wx + self.h @ self.Wh)
                return self.h

            def __call__(self, x):
                return self._step(x)
        """,
        cell="""
        rnn = RNNCell(jax.random.PRNGKey(0), 2, 4)
        xs = jnp.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5], [1.0, 1.0]])
        outs = jnp.stack([rnn(x) for x in xs])
        score = rnn.h @ rnn.readout
        """,
        check="""
        Wx, Wh, r = (np.asarray(a, np.float64) for a in (rnn.Wx, rnn.Wh, rnn.readout))
        h = np.zeros(4)
        ref = []
        for x in np.asarray(xs, np.float64):
            h = np.tanh(x @ Wx + h @ Wh)
            ref.append(h)
        np.testing.assert_allclose(np.asarray(outs), np.stack(ref), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(score), h @ r, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        class RNNCell:
            def __init__(self, key, n_in, n_hidden):
                k1, k2, k3 = jax.random.split(key, 3)
                self.Wx = jax.random.normal(k1, (n_in, n_hidden)) * 0.5
                self.Wh = jax.random.normal(k2, (n_hidden, n_hidden)) * 0.5
                self.readout = jax.random.normal(k3, (n_hidden,))
                self.h = jnp.zeros(n_hidden)
                self._step = jax.jit(self._step_impl)

            def _step_impl(self, x):
                return jnp.tanh(x @ self.Wx + self.h @ self.Wh)

            def __call__(self, x):
                self.h = self._step(x)
                return self.h
        """,
        alt_fixes=[
            """
            class RNNCell:
                def __init__(self, key, n_in, n_hidden):
                    k1, k2, k3 = jax.random.split(key, 3)
                    self.Wx = jax.random.normal(k1, (n_in, n_hidden)) * 0.5
                    self.Wh = jax.random.normal(k2, (n_hidden, n_hidden)) * 0.5
                    self.readout = jax.random.normal(k3, (n_hidden,))
                    self.h = jnp.zeros(n_hidden)
                    self._step = jax.jit(self._step_impl)

                @staticmethod
                def _step_impl(Wx, Wh, h, x):
                    return jnp.tanh(x @ Wx + h @ Wh)

                def __call__(self, x):
                    self.h = self._step(self.Wx, self.Wh, self.h, x)
                    return self.h
            """,
            """
            @jax.jit
            def _rnn_step(Wx, Wh, h, x):
                return jnp.tanh(x @ Wx + h @ Wh)

            class RNNCell:
                def __init__(self, key, n_in, n_hidden):
                    k1, k2, k3 = jax.random.split(key, 3)
                    self.Wx = jax.random.normal(k1, (n_in, n_hidden)) * 0.5
                    self.Wh = jax.random.normal(k2, (n_hidden, n_hidden)) * 0.5
                    self.readout = jax.random.normal(k3, (n_hidden,))
                    self.h = jnp.zeros(n_hidden)

                def __call__(self, x):
                    self.h = _rnn_step(self.Wx, self.Wh, self.h, x)
                    return self.h
            """,
        ],
    ),
    case(
        "ob-leak-scan-two-lists", "unexpected-tracer-leak", setup=SETUP,
        source="https://github.com/google-deepmind/dm-haiku/issues/214",
        cell="""
        dt = 0.1
        positions, energies = [], []

        def leapfrog(state, _):
            q, p = state
            p = p - 0.5 * dt * q
            q = q + dt * p
            p = p - 0.5 * dt * q
            positions.append(q)
            energies.append(0.5 * (p ** 2 + q ** 2))
            return (q, p), None

        (q_T, p_T), _ = jax.lax.scan(leapfrog, (jnp.float32(1.0), jnp.float32(0.0)), None, length=100)
        trajectory = jnp.stack(positions)
        energy = jnp.stack(energies)
        """,
        check="""
        q, p = 1.0, 0.0
        Q, E = [], []
        for _ in range(100):
            p -= 0.05 * q
            q += 0.1 * p
            p -= 0.05 * q
            Q.append(q)
            E.append(0.5 * (p * p + q * q))
        np.testing.assert_allclose(np.asarray(trajectory), Q, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.asarray(energy), E, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        dt = 0.1
        positions, energies = [], []

        def leapfrog(state, _):
            q, p = state
            p = p - 0.5 * dt * q
            q = q + dt * p
            p = p - 0.5 * dt * q
            energies.append(0.5 * (p ** 2 + q ** 2))
            return (q, p), q

        (q_T, p_T), trajectory = jax.lax.scan(leapfrog, (jnp.float32(1.0), jnp.float32(0.0)), None, length=100)
        energy = jnp.stack(energies)
        """,
        alt_fixes=[
            """
            dt = 0.1

            def leapfrog(state, _):
                q, p = state
                p = p - 0.5 * dt * q
                q = q + dt * p
                p = p - 0.5 * dt * q
                return (q, p), (q, 0.5 * (p ** 2 + q ** 2))

            (q_T, p_T), (trajectory, energy) = jax.lax.scan(
                leapfrog, (jnp.float32(1.0), jnp.float32(0.0)), None, length=100)
            """,
            """
            dt = 0.1
            positions, energies = [], []

            @jax.jit
            def leapfrog(q, p):
                p = p - 0.5 * dt * q
                q = q + dt * p
                p = p - 0.5 * dt * q
                return q, p

            q, p = jnp.float32(1.0), jnp.float32(0.0)
            for _ in range(100):
                q, p = leapfrog(q, p)
                positions.append(q)
                energies.append(0.5 * (p ** 2 + q ** 2))
            trajectory = jnp.stack(positions)
            energy = jnp.stack(energies)
            """,
        ],
    ),
    case(
        "ob-leak-losses-append-optax-step", "unexpected-tracer-leak", setup=SETUP_OPTAX,
        source="https://github.com/felafax/felafax/issues/55",
        cell="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)
        losses = []

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            losses.append(loss)
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state

        for epoch in range(30):
            params, opt_state = train_step(params, opt_state, X, Y)
        loss_curve = jnp.stack(losses)
        """,
        check="""
        x, y = np.asarray(X, np.float64), np.asarray(Y, np.float64)
        w, b, ref = np.zeros(3), 0.0, []
        for _ in range(30):
            r = x @ w + b - y
            ref.append(np.mean(r ** 2))
            w, b = w - 0.05 * 2 * x.T @ r / len(y), b - 0.05 * 2 * r.mean()
        assert loss_curve.shape == (30,), loss_curve.shape
        np.testing.assert_allclose(np.asarray(loss_curve), ref, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)
        losses = []

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            losses.append(float(loss))
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state

        for epoch in range(30):
            params, opt_state = train_step(params, opt_state, X, Y)
        loss_curve = jnp.stack(losses)
        """,
        alt_fixes=[
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)
            losses = []

            @jax.jit
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            for epoch in range(30):
                params, opt_state, loss = train_step(params, opt_state, X, Y)
                losses.append(loss)
            loss_curve = jnp.stack(losses)
            """,
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @jax.jit
            def train(params, opt_state, x, y):
                def epoch(carry, _):
                    params, opt_state = carry
                    loss, grads = jax.value_and_grad(mse)(params, x, y)
                    updates, opt_state = tx.update(grads, opt_state)
                    return (optax.apply_updates(params, updates), opt_state), loss
                return jax.lax.scan(epoch, (params, opt_state), None, length=30)

            (params, opt_state), loss_curve = train(params, opt_state, X, Y)
            """,
        ],
    ),
    case(
        "ob-leak-nnx-module-features-attr", "unexpected-tracer-leak",
        setup=SETUP + dedent("""
        from flax import nnx
        Xe = jnp.asarray(np.random.default_rng(8).normal(size=(5, 4)), dtype=jnp.float32)
        """),
        source="https://github.com/google/flax/issues/5116",
        cell="""
        class Encoder(nnx.Module):
            def __init__(self, rngs):
                self.fc1 = nnx.Linear(4, 8, rngs=rngs)
                self.fc2 = nnx.Linear(8, 2, rngs=rngs)
                self.features = None

            def __call__(self, x):
                h = nnx.relu(self.fc1(x))
                self.features = h          # kept for the sparsity probe below
                return self.fc2(h)

        model = Encoder(nnx.Rngs(0))
        forward = nnx.jit(lambda m, x: m(x))
        z = forward(model, Xe)
        sparsity = jnp.mean(model.features == 0)
        """,
        check="""
        W1, b1 = np.asarray(model.fc1.kernel[...]), np.asarray(model.fc1.bias[...])
        W2, b2 = np.asarray(model.fc2.kernel[...]), np.asarray(model.fc2.bias[...])
        h = np.maximum(np.asarray(Xe) @ W1 + b1, 0)
        np.testing.assert_allclose(np.asarray(z), h @ W2 + b2, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(float(sparsity), np.mean(h == 0), rtol=1e-6)
        """,
        wrong_fix="""
        class Encoder(nnx.Module):
            def __init__(self, rngs):
                self.fc1 = nnx.Linear(4, 8, rngs=rngs)
                self.fc2 = nnx.Linear(8, 2, rngs=rngs)
                self.features = None

            def __call__(self, x):
                h = nnx.relu(self.fc1(x))
                self.features = jax.lax.stop_gradient(h)
                return self.fc2(h)

        model = Encoder(nnx.Rngs(0))
        forward = nnx.jit(lambda m, x: m(x))
        z = forward(model, Xe)
        sparsity = jnp.mean(model.features == 0)
        """,
        alt_fixes=[
            """
            class Encoder(nnx.Module):
                def __init__(self, rngs):
                    self.fc1 = nnx.Linear(4, 8, rngs=rngs)
                    self.fc2 = nnx.Linear(8, 2, rngs=rngs)

                def __call__(self, x):
                    h = nnx.relu(self.fc1(x))
                    self.sow(nnx.Intermediate, "features", h)
                    return self.fc2(h)

            model = Encoder(nnx.Rngs(0))
            forward = nnx.jit(lambda m, x: m(x))
            z = forward(model, Xe)
            features = nnx.pop(model, nnx.Intermediate)["features"].get_value()[0]
            sparsity = jnp.mean(features == 0)
            """,
            """
            class Encoder(nnx.Module):
                def __init__(self, rngs):
                    self.fc1 = nnx.Linear(4, 8, rngs=rngs)
                    self.fc2 = nnx.Linear(8, 2, rngs=rngs)

                def __call__(self, x):
                    h = nnx.relu(self.fc1(x))
                    return self.fc2(h), h

            model = Encoder(nnx.Rngs(0))
            forward = nnx.jit(lambda m, x: m(x))
            z, features = forward(model, Xe)
            sparsity = jnp.mean(features == 0)
            """,
        ],
    ),
    # ------------------------------------------------------------------ donated buffers
    case(
        "ob-donate-params-step-size-optax", "array-deleted", setup=SETUP_OPTAX,
        source="https://github.com/google-deepmind/optax/pull/1059",
        cell="""
        tx = optax.adam(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        step_sizes = []
        for step in range(5):
            new_params, opt_state, loss = train_step(params, opt_state, X, Y)
            diff = jax.tree.map(lambda a, b: jnp.sum((a - b) ** 2), new_params, params)
            step_sizes.append(float(jnp.sqrt(sum(jax.tree.leaves(diff)))))
            params = new_params
        """,
        check="""
        ref_tx = optax.adam(0.05)
        p = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        st = ref_tx.init(p)
        ref = []
        for _ in range(5):
            g = jax.grad(mse)(p, X, Y)
            u, st = ref_tx.update(g, st, p)
            ref.append(float(optax.global_norm(u)))
            p = optax.apply_updates(p, u)
        np.testing.assert_allclose(step_sizes, ref, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(p["w"]), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        tx = optax.adam(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            updates, opt_state = tx.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state, loss

        step_sizes = []
        for step in range(5):
            new_params, opt_state, loss = train_step(params, opt_state, X, Y)
            params = new_params
            diff = jax.tree.map(lambda a, b: jnp.sum((a - b) ** 2), new_params, params)
            step_sizes.append(float(jnp.sqrt(sum(jax.tree.leaves(diff)))))
        """,
        alt_fixes=[
            """
            tx = optax.adam(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @partial(jax.jit, donate_argnums=(0, 1))
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, loss

            step_sizes = []
            for step in range(5):
                old_params = jax.tree.map(jnp.copy, params)
                new_params, opt_state, loss = train_step(params, opt_state, X, Y)
                diff = jax.tree.map(lambda a, b: jnp.sum((a - b) ** 2), new_params, old_params)
                step_sizes.append(float(jnp.sqrt(sum(jax.tree.leaves(diff)))))
                params = new_params
            """,
            """
            tx = optax.adam(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @partial(jax.jit, donate_argnums=(0, 1))
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, loss, optax.global_norm(updates)

            step_sizes = []
            for step in range(5):
                params, opt_state, loss, size = train_step(params, opt_state, X, Y)
                step_sizes.append(float(size))
            """,
            """
            tx = optax.adam(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @partial(jax.jit, donate_argnums=(1,))
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state, params)
                return optax.apply_updates(params, updates), opt_state, loss

            step_sizes = []
            for step in range(5):
                new_params, opt_state, loss = train_step(params, opt_state, X, Y)
                diff = jax.tree.map(lambda a, b: jnp.sum((a - b) ** 2), new_params, params)
                step_sizes.append(float(jnp.sqrt(sum(jax.tree.leaves(diff)))))
                params = new_params
            """,
        ],
    ),
    case(
        "ob-donate-diffusion-reuse-u0", "donated-buffer-reused", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/9675",
        cell="""
        from jax import jit

        @partial(jit, donate_argnums=0)
        def diffuse(u, alpha):
            return u + alpha * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1))

        u0 = jnp.exp(-((jnp.arange(64.0) - 32.0) / 4.0) ** 2)
        profiles = {}
        for alpha in (0.05, 0.1, 0.2):
            u = diffuse(u0, alpha)
            for _ in range(19):
                u = diffuse(u, alpha)
            profiles[alpha] = u
        """,
        check="""
        base = np.exp(-((np.arange(64.0) - 32.0) / 4.0) ** 2)
        for alpha in (0.05, 0.1, 0.2):
            u = base.copy()
            for _ in range(20):
                u = u + alpha * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
            np.testing.assert_allclose(np.asarray(profiles[alpha]), u, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        from jax import jit

        @partial(jit, donate_argnums=0)
        def diffuse(u, alpha):
            return u + alpha * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1))

        u0 = jnp.exp(-((jnp.arange(64.0) - 32.0) / 4.0) ** 2)
        profiles = {}
        for alpha in (0.05, 0.1, 0.2):
            u = diffuse(u0, alpha)
            for _ in range(19):
                u = diffuse(u, alpha)
            profiles[alpha] = u
            u0 = u                      # u0 was donated: carry on from the last profile
        """,
        alt_fixes=[
            """
            from jax import jit

            @partial(jit, donate_argnums=0)
            def diffuse(u, alpha):
                return u + alpha * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1))

            u0 = jnp.exp(-((jnp.arange(64.0) - 32.0) / 4.0) ** 2)
            profiles = {}
            for alpha in (0.05, 0.1, 0.2):
                u = diffuse(jnp.copy(u0), alpha)
                for _ in range(19):
                    u = diffuse(u, alpha)
                profiles[alpha] = u
            """,
            """
            from jax import jit

            @jit
            def diffuse(u, alpha):
                return u + alpha * (jnp.roll(u, 1) - 2 * u + jnp.roll(u, -1))

            u0 = jnp.exp(-((jnp.arange(64.0) - 32.0) / 4.0) ** 2)
            profiles = {}
            for alpha in (0.05, 0.1, 0.2):
                u = diffuse(u0, alpha)
                for _ in range(19):
                    u = diffuse(u, alpha)
                profiles[alpha] = u
            """,
        ],
    ),
    case(
        "ob-donate-leapfrog-energy-earlier", "donated-buffer-reused", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/9237",
        earlier="""
        @partial(jax.jit, donate_argnums=(0,))
        def leapfrog_step(state, dt):
            q, p = state["q"], state["p"]
            p = p - 0.5 * dt * q
            q = q + dt * p
            p = p - 0.5 * dt * q
            return {"q": q, "p": p}
        """,
        cell="""
        state0 = {"q": jnp.array([1.0, 0.0, -0.5]), "p": jnp.array([0.0, 1.0, 0.3])}
        state = leapfrog_step(state0, 0.05)
        for _ in range(199):
            state = leapfrog_step(state, 0.05)

        energy = lambda s: 0.5 * jnp.sum(s["q"] ** 2 + s["p"] ** 2)
        drift = energy(state) - energy(state0)
        """,
        check="""
        q, p = np.array([1.0, 0.0, -0.5]), np.array([0.0, 1.0, 0.3])
        e0 = 0.5 * np.sum(q ** 2 + p ** 2)
        for _ in range(200):
            p = p - 0.025 * q
            q = q + 0.05 * p
            p = p - 0.025 * q
        np.testing.assert_allclose(np.asarray(state["q"]), q, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(drift), 0.5 * np.sum(q ** 2 + p ** 2) - e0, atol=1e-5)
        np.testing.assert_allclose(np.asarray(state0["q"]), [1.0, 0.0, -0.5])
        """,
        wrong_fix="""
        @partial(jax.jit, donate_argnames="state")
        def leapfrog_step(state, dt):
            q, p = state["q"], state["p"]
            p = p - 0.5 * dt * q
            q = q + dt * p
            p = p - 0.5 * dt * q
            return {"q": q, "p": p}
        """,
        alt_fixes=[
            """
            @jax.jit
            def leapfrog_step(state, dt):
                q, p = state["q"], state["p"]
                p = p - 0.5 * dt * q
                q = q + dt * p
                p = p - 0.5 * dt * q
                return {"q": q, "p": p}
            """,
            """
            @partial(jax.jit, donate_argnums=(0,))
            def _leapfrog_step(state, dt):
                q, p = state["q"], state["p"]
                p = p - 0.5 * dt * q
                q = q + dt * p
                p = p - 0.5 * dt * q
                return {"q": q, "p": p}

            def leapfrog_step(state, dt):
                return _leapfrog_step(jax.tree.map(jnp.copy, state), dt)
            """,
        ],
    ),
    case(
        "ob-donate-checkpoints-list-eval", "array-deleted", setup=SETUP_OPTAX,
        source="https://github.com/liesel-devs/liesel/pull/272",
        cell="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(params, opt_state, x, y):
            grads = jax.grad(mse)(params, x, y)
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state

        eval_loss = jax.jit(mse)
        checkpoints = []
        for step in range(20):
            if step % 5 == 0:
                checkpoints.append(params)
            params, opt_state = train_step(params, opt_state, X, Y)
        curve = [float(eval_loss(p, X, Y)) for p in checkpoints]
        """,
        check="""
        x, y = np.asarray(X, np.float64), np.asarray(Y, np.float64)
        w, b, ref = np.zeros(3), 0.0, []
        for step in range(20):
            r = x @ w + b - y
            if step % 5 == 0:
                ref.append(np.mean(r ** 2))
            w, b = w - 0.05 * 2 * x.T @ r / len(y), b - 0.05 * 2 * r.mean()
        np.testing.assert_allclose(curve, ref, rtol=1e-4)
        np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @partial(jax.jit, donate_argnums=(0, 1))
        def train_step(params, opt_state, x, y):
            grads = jax.grad(mse)(params, x, y)
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state

        eval_loss = jax.jit(mse)
        checkpoints = []
        for step in range(20):
            if step % 5 == 0:
                checkpoints.append(dict(params))
            params, opt_state = train_step(params, opt_state, X, Y)
        curve = [float(eval_loss(p, X, Y)) for p in checkpoints]
        """,
        alt_fixes=[
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @partial(jax.jit, donate_argnums=(0, 1))
            def train_step(params, opt_state, x, y):
                grads = jax.grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state

            eval_loss = jax.jit(mse)
            checkpoints = []
            for step in range(20):
                if step % 5 == 0:
                    checkpoints.append(jax.tree.map(jnp.copy, params))
                params, opt_state = train_step(params, opt_state, X, Y)
            curve = [float(eval_loss(p, X, Y)) for p in checkpoints]
            """,
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @partial(jax.jit, donate_argnums=(0, 1))
            def train_step(params, opt_state, x, y):
                grads = jax.grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state

            eval_loss = jax.jit(mse)
            checkpoints = []
            for step in range(20):
                if step % 5 == 0:
                    checkpoints.append(jax.device_get(params))
                params, opt_state = train_step(params, opt_state, X, Y)
            curve = [float(eval_loss(p, X, Y)) for p in checkpoints]
            """,
        ],
    ),
    # ------------------------------------------------------------------ tracers in format strings
    case(
        "ob-fmt-fstring-loss-optax-step", "tracer-format-string", setup=SETUP_PRINT,
        source="https://github.com/jax-ml/jax/issues/23475",
        cell="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            print(f"loss = {loss:.4f}")
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        for step in range(3):
            params, opt_state, loss = train_step(params, opt_state, X, Y)
        """,
        check="""
        jax.effects_barrier()
        printed = [float(v) for v in re.findall(r"loss = (-?\\d+\\.\\d{4})\\b", sys.stdout.buf.getvalue())]
        x, y = np.asarray(X, np.float64), np.asarray(Y, np.float64)
        w, b, ref = np.zeros(3), 0.0, []
        for _ in range(3):
            r = x @ w + b - y
            ref.append(np.mean(r ** 2))
            w, b = w - 0.05 * 2 * x.T @ r / len(y), b - 0.05 * 2 * r.mean()
        assert len(printed) == 3, sys.stdout.buf.getvalue()
        np.testing.assert_allclose(printed, ref, atol=2e-4)
        np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        tx = optax.sgd(0.05)
        params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
        opt_state = tx.init(params)

        @jax.jit
        def train_step(params, opt_state, x, y):
            loss, grads = jax.value_and_grad(mse)(params, x, y)
            print(f"loss = {loss}")
            updates, opt_state = tx.update(grads, opt_state)
            return optax.apply_updates(params, updates), opt_state, loss

        for step in range(3):
            params, opt_state, loss = train_step(params, opt_state, X, Y)
        """,
        alt_fixes=[
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @jax.jit
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                jax.debug.print("loss = {:.4f}", loss)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            for step in range(3):
                params, opt_state, loss = train_step(params, opt_state, X, Y)
            """,
            """
            tx = optax.sgd(0.05)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = tx.init(params)

            @jax.jit
            def train_step(params, opt_state, x, y):
                loss, grads = jax.value_and_grad(mse)(params, x, y)
                updates, opt_state = tx.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss

            for step in range(3):
                params, opt_state, loss = train_step(params, opt_state, X, Y)
                print(f"loss = {loss:.4f}")
            """,
        ],
    ),
    case(
        "ob-fmt-two-fstrings-fori-newton", "tracer-format-string", setup=SETUP_PRINT,
        source="https://github.com/jax-ml/jax/issues/26296",
        cell="""
        import jax.lax as L

        def newton_sqrt(a, iters=6):
            def body(i, x):
                x_new = 0.5 * (x + a / x)
                print(f"iter {i}: x = {x_new:.6f}")
                print(f"  residual {abs(x_new ** 2 - a):.2e}")
                return x_new
            return L.fori_loop(0, iters, body, a)

        root = newton_sqrt(jnp.float32(2.0))
        """,
        check="""
        jax.effects_barrier()
        out = sys.stdout.buf.getvalue()
        xs = [float(v) for v in re.findall(r"x = (\\d+\\.\\d{6})\\b", out)]
        res = [float(v) for v in re.findall(r"residual (\\d\\.\\d\\de[-+]\\d+)", out)]
        x, ref_x, ref_r = 2.0, [], []
        for _ in range(6):
            x = 0.5 * (x + 2.0 / x)
            ref_x.append(x)
            ref_r.append(abs(x * x - 2.0))
        assert len(xs) == 6 and len(res) == 6, out
        np.testing.assert_allclose(xs, ref_x, atol=2e-6)
        np.testing.assert_allclose(res[:3], ref_r[:3], rtol=1e-2)
        assert all(r < 1e-5 for r in res[4:]), res
        np.testing.assert_allclose(float(root), np.sqrt(2.0), rtol=1e-6)
        """,
        wrong_fix="""
        import jax.lax as L

        def newton_sqrt(a, iters=6):
            def body(i, x):
                x_new = 0.5 * (x + a / x)
                jax.debug.print("iter {}: x = {:.6f}", i, x_new)
                print(f"  residual {abs(x_new ** 2 - a):.2e}")
                return x_new
            return L.fori_loop(0, iters, body, a)

        root = newton_sqrt(jnp.float32(2.0))
        """,
        alt_fixes=[
            """
            import jax.lax as L

            def newton_sqrt(a, iters=6):
                def body(i, x):
                    x_new = 0.5 * (x + a / x)
                    jax.debug.print("iter {}: x = {:.6f}", i, x_new)
                    jax.debug.print("  residual {:.2e}", abs(x_new ** 2 - a))
                    return x_new
                return L.fori_loop(0, iters, body, a)

            root = newton_sqrt(jnp.float32(2.0))
            """,
            """
            import jax.lax as L

            def newton_sqrt(a, iters=6):
                def report(i, x_new):
                    print(f"iter {i}: x = {x_new:.6f}")
                    print(f"  residual {abs(x_new ** 2 - a):.2e}")
                def body(i, x):
                    x_new = 0.5 * (x + a / x)
                    jax.debug.callback(report, i, x_new, ordered=True)
                    return x_new
                return L.fori_loop(0, iters, body, a)

            root = newton_sqrt(jnp.float32(2.0))
            """,
            """
            def newton_sqrt(a, iters=6):
                x = a
                for i in range(iters):
                    x = 0.5 * (x + a / x)
                    print(f"iter {i}: x = {x:.6f}")
                    print(f"  residual {abs(x ** 2 - a):.2e}")
                return x

            root = newton_sqrt(jnp.float32(2.0))
            """,
        ],
    ),
    case(
        "ob-fmt-percent-scan-ou-process", "concretization-python-scalar-conversion", setup=SETUP_PRINT,
        source="https://github.com/jax-ml/jax/pull/14503",
        cell="""
        def ou_step(x, noise):
            x = x - 0.5 * x * 0.1 + 0.3 * noise
            print("x_t = %.3f" % x)
            return x, x

        noise = jax.random.normal(jax.random.PRNGKey(1), (8,))
        x_final, path = jax.lax.scan(ou_step, jnp.float32(1.0), noise)
        """,
        check="""
        jax.effects_barrier()
        printed = [float(v) for v in re.findall(r"x_t = (-?\\d+\\.\\d{3})\\b", sys.stdout.buf.getvalue())]
        x, ref = 1.0, []
        for n in np.asarray(noise, np.float64):
            x = x - 0.05 * x + 0.3 * n
            ref.append(x)
        assert len(printed) == 8, sys.stdout.buf.getvalue()
        np.testing.assert_allclose(printed, ref, atol=2e-3)
        np.testing.assert_allclose(np.asarray(path), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        def ou_step(x, noise):
            x = x - 0.5 * x * 0.1 + 0.3 * noise
            print("x_t = %s" % x)
            return x, x

        noise = jax.random.normal(jax.random.PRNGKey(1), (8,))
        x_final, path = jax.lax.scan(ou_step, jnp.float32(1.0), noise)
        """,
        alt_fixes=[
            """
            def ou_step(x, noise):
                x = x - 0.5 * x * 0.1 + 0.3 * noise
                jax.debug.print("x_t = {:.3f}", x)
                return x, x

            noise = jax.random.normal(jax.random.PRNGKey(1), (8,))
            x_final, path = jax.lax.scan(ou_step, jnp.float32(1.0), noise)
            """,
            """
            def ou_step(x, noise):
                x = x - 0.5 * x * 0.1 + 0.3 * noise
                return x, x

            noise = jax.random.normal(jax.random.PRNGKey(1), (8,))
            x_final, path = jax.lax.scan(ou_step, jnp.float32(1.0), noise)
            for x_t in path:
                print("x_t = %.3f" % x_t)
            """,
            """
            def ou_step(x, noise):
                x = x - 0.5 * x * 0.1 + 0.3 * noise
                jax.debug.callback(lambda v: print("x_t = %.3f" % v), x, ordered=True)
                return x, x

            noise = jax.random.normal(jax.random.PRNGKey(1), (8,))
            x_final, path = jax.lax.scan(ou_step, jnp.float32(1.0), noise)
            """,
        ],
    ),
    case(
        "ob-fmt-str-format-eqx-method", "tracer-format-string",
        setup=SETUP_PRINT + dedent("""
        import equinox as eqx
        _rng2 = np.random.default_rng(9)
        Xq = jnp.asarray(_rng2.normal(size=(40, 3)), dtype=jnp.float32)
        labels = jnp.asarray((np.asarray(Xq)[:, 0] + 0.3 * _rng2.normal(size=40) > 0).astype(np.int32))
        W0 = jnp.array([[-1.0, 1.0], [0.2, -0.1], [0.0, 0.3]])
        """),
        source="https://taourl.com/read-2676532.html",
        cell="""
        class Classifier(eqx.Module):
            W: jax.Array
            b: jax.Array

            @eqx.filter_jit
            def evaluate(self, x, y):
                logits = x @ self.W + self.b
                acc = jnp.mean(jnp.argmax(logits, axis=-1) == y)
                print("accuracy: {:.2f}%".format(100 * acc))
                return acc

        clf = Classifier(W0, jnp.zeros(2))
        acc_train = clf.evaluate(Xq, labels)
        acc_half = clf.evaluate(Xq[:20], labels[:20])
        """,
        check="""
        jax.effects_barrier()
        printed = [float(v) for v in re.findall(r"accuracy: (\\d+\\.\\d{2})%", sys.stdout.buf.getvalue())]
        pred = (np.asarray(Xq) @ np.asarray(W0)).argmax(-1)
        ref = [100 * np.mean(pred == np.asarray(labels)), 100 * np.mean(pred[:20] == np.asarray(labels)[:20])]
        assert len(printed) == 2, sys.stdout.buf.getvalue()
        np.testing.assert_allclose(printed, ref, atol=0.01)
        np.testing.assert_allclose([float(acc_train), float(acc_half)], np.array(ref) / 100, rtol=1e-6)
        """,
        wrong_fix="""
        class Classifier(eqx.Module):
            W: jax.Array
            b: jax.Array

            @eqx.filter_jit
            def evaluate(self, x, y):
                logits = x @ self.W + self.b
                acc = jnp.mean(jnp.argmax(logits, axis=-1) == y)
                print("accuracy: {}%".format(100 * acc))
                return acc

        clf = Classifier(W0, jnp.zeros(2))
        acc_train = clf.evaluate(Xq, labels)
        acc_half = clf.evaluate(Xq[:20], labels[:20])
        """,
        alt_fixes=[
            """
            class Classifier(eqx.Module):
                W: jax.Array
                b: jax.Array

                @eqx.filter_jit
                def evaluate(self, x, y):
                    logits = x @ self.W + self.b
                    acc = jnp.mean(jnp.argmax(logits, axis=-1) == y)
                    jax.debug.print("accuracy: {:.2f}%", 100 * acc)
                    return acc

            clf = Classifier(W0, jnp.zeros(2))
            acc_train = clf.evaluate(Xq, labels)
            acc_half = clf.evaluate(Xq[:20], labels[:20])
            """,
            """
            class Classifier(eqx.Module):
                W: jax.Array
                b: jax.Array

                @eqx.filter_jit
                def evaluate(self, x, y):
                    logits = x @ self.W + self.b
                    return jnp.mean(jnp.argmax(logits, axis=-1) == y)

            clf = Classifier(W0, jnp.zeros(2))
            acc_train = clf.evaluate(Xq, labels)
            print("accuracy: {:.2f}%".format(100 * acc_train))
            acc_half = clf.evaluate(Xq[:20], labels[:20])
            print("accuracy: {:.2f}%".format(100 * acc_half))
            """,
        ],
    ),
    case(
        "ob-fmt-fstring-percent-spec-earlier", "tracer-format-string",
        setup=SETUP_PRINT + dedent("""
        _rng3 = np.random.default_rng(10)
        Xv = jnp.asarray(_rng3.normal(size=(50, 2)), dtype=jnp.float32)
        Yv = jnp.asarray(np.asarray(Xv)[:, 0] - np.asarray(Xv)[:, 1] > 0.2)
        snapshots = [{"w": jnp.array([1.0, 0.0]), "b": jnp.array(0.0)},
                     {"w": jnp.array([1.0, -0.5]), "b": jnp.array(-0.1)},
                     {"w": jnp.array([1.0, -1.0]), "b": jnp.array(-0.2)}]
        """),
        source="https://github.com/jax-ml/jax/issues/23475",
        earlier="""
        @jax.jit
        def evaluate(params, x, y):
            pred = (x @ params["w"] + params["b"]) > 0
            acc = jnp.mean(pred == y)
            print(f"val acc {acc:.1%}")
            return acc
        """,
        cell="""
        accs = [evaluate(p, Xv, Yv) for p in snapshots]
        best = int(jnp.argmax(jnp.stack(accs)))
        """,
        check="""
        jax.effects_barrier()
        printed = [float(v) for v in re.findall(r"val acc (\\d+\\.\\d)%", sys.stdout.buf.getvalue())]
        x, y = np.asarray(Xv, np.float64), np.asarray(Yv)
        ref = [np.mean(((x @ np.asarray(p["w"]) + float(p["b"])) > 0) == y) for p in snapshots]
        assert len(printed) == 3, sys.stdout.buf.getvalue()
        np.testing.assert_allclose(printed, [100 * r for r in ref], atol=0.051)
        np.testing.assert_allclose([float(a) for a in accs], ref, rtol=1e-6)
        assert best == int(np.argmax(ref))
        """,
        wrong_fix="""
        @jax.jit
        def evaluate(params, x, y):
            pred = (x @ params["w"] + params["b"]) > 0
            acc = jnp.mean(pred == y)
            print("val acc", acc)
            return acc
        """,
        alt_fixes=[
            """
            @jax.jit
            def evaluate(params, x, y):
                pred = (x @ params["w"] + params["b"]) > 0
                acc = jnp.mean(pred == y)
                jax.debug.print("val acc {:.1%}", acc)
                return acc
            """,
            """
            @jax.jit
            def evaluate(params, x, y):
                pred = (x @ params["w"] + params["b"]) > 0
                acc = jnp.mean(pred == y)
                jax.debug.callback(lambda a: print(f"val acc {a:.1%}"), acc)
                return acc
            """,
        ],
    ),
]
