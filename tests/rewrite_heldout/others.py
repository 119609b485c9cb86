"""Other frequent errors: unhashable static arguments, boolean masks under jit, Python lists given
to ``jax.numpy`` functions."""

from rewrite_heldout import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
from functools import partial
"""

IMAGES = SETUP + """
images = jax.random.normal(jax.random.key(1), (2, 3, 4))
"""

MLP = SETUP + """
k1, k2 = jax.random.split(jax.random.key(0))
params = [jax.random.normal(k1, (3, 3)) * 0.5, jax.random.normal(k2, (3, 3)) * 0.5]
x = jnp.array([[0.1, -0.2, 0.3], [1.0, 0.5, -0.5]])
"""

MLP_REF = """
def _ref(params, x, act, residual):
    f = {"tanh": np.tanh, "relu": lambda v: np.maximum(v, 0)}[act]
    h = np.asarray(x)
    for W in params:
        out = f(h @ np.asarray(W))
        h = h + out if residual else out
    return h
np.testing.assert_allclose(np.asarray(y), _ref(params, x, "tanh", True), rtol=1e-5, atol=1e-6)
"""

KMEANS = SETUP + """
X = jnp.array([[0.0, 0.0], [0.2, 0.1], [5.0, 5.0], [5.2, 4.8], [9.0, 0.0], [8.8, 0.4], [9.2, -0.2]])
labels = jnp.array([0, 0, 1, 1, 2, 2, 2])
"""

CASES = [
    # ---------------------------------------------------------------- jit-non-hashable-static-arg
    case(
        "standardize-axes-list-static", "jit-non-hashable-static-arg", setup=IMAGES,
        source="https://github.com/genjax-community/genjax/issues/1179",
        cell="""
        @partial(jax.jit, static_argnames="axes")
        def standardize(x, axes):
            mu = x.mean(axis=axes, keepdims=True)
            sd = x.std(axis=axes, keepdims=True)
            return (x - mu) / sd

        z = standardize(images, axes=[1, 2])
        """,
        check="""
        im = np.asarray(images)
        ref = (im - im.mean(axis=(1, 2), keepdims=True)) / im.std(axis=(1, 2), keepdims=True)
        np.testing.assert_allclose(np.asarray(z), ref, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames="axes")
        def standardize(x, axes):
            mu = x.mean(axis=axes, keepdims=True)
            sd = x.std(axis=axes, keepdims=True)
            return (x - mu) / sd

        z = standardize(images, axes=1)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames="axes")
            def standardize(x, axes):
                mu = x.mean(axis=axes, keepdims=True)
                sd = x.std(axis=axes, keepdims=True)
                return (x - mu) / sd

            z = standardize(images, axes=(1, 2))
            """,
            """
            @partial(jax.jit, static_argnames="axes")
            def standardize(x, axes):
                mu = x.mean(axis=axes, keepdims=True)
                sd = x.std(axis=axes, keepdims=True)
                return (x - mu) / sd

            z = standardize(images, axes=tuple([1, 2]))
            """,
        ],
    ),
    case(
        "mlp-config-dict-static", "jit-non-hashable-static-arg", setup=MLP,
        source="https://github.com/jax-ml/jax/pull/4720",
        cell="""
        def mlp(params, x, cfg):
            act = {"tanh": jnp.tanh, "relu": jax.nn.relu}[cfg["activation"]]
            for W in params:
                out = act(x @ W)
                x = x + out if cfg["residual"] else out
            return x

        mlp_jit = jax.jit(mlp, static_argnums=2)
        cfg = {"activation": "tanh", "residual": True}
        y = mlp_jit(params, x, cfg)
        """,
        check=MLP_REF,
        wrong_fix="""
        def mlp(params, x, cfg):
            act = {"tanh": jnp.tanh, "relu": jax.nn.relu}[cfg["activation"]]
            for W in params:
                out = act(x @ W)
                x = x + out if cfg["residual"] else out
            return x

        mlp_jit = jax.jit(mlp)
        cfg = {"activation": "tanh", "residual": True}
        y = mlp_jit(params, x, cfg)
        """,
        alt_fixes=[
            """
            def mlp(params, x, cfg):
                act = {"tanh": jnp.tanh, "relu": jax.nn.relu}[cfg["activation"]]
                for W in params:
                    out = act(x @ W)
                    x = x + out if cfg["residual"] else out
                return x

            cfg = {"activation": "tanh", "residual": True}
            mlp_jit = jax.jit(partial(mlp, cfg=cfg))
            y = mlp_jit(params, x)
            """,
            """
            def mlp(params, x, cfg):
                cfg = dict(cfg)
                act = {"tanh": jnp.tanh, "relu": jax.nn.relu}[cfg["activation"]]
                for W in params:
                    out = act(x @ W)
                    x = x + out if cfg["residual"] else out
                return x

            mlp_jit = jax.jit(mlp, static_argnums=2)
            cfg = {"activation": "tanh", "residual": True}
            y = mlp_jit(params, x, tuple(sorted(cfg.items())))
            """,
        ],
    ),
    case(
        "tile-reps-jax-array-static", "jit-non-hashable-static-arg", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/883",
        cell="""
        @partial(jax.jit, static_argnums=1)
        def tile_to(x, reps):
            return jnp.tile(x, reps)

        reps = jnp.array([2, 3])
        t = tile_to(jnp.array([[1.0, 2.0]]), reps)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(t), np.tile([[1.0, 2.0]], (2, 3)))
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=1)
        def tile_to(x, reps):
            return jnp.tile(x, reps)

        reps = jnp.array([2, 3])
        t = tile_to(jnp.array([[1.0, 2.0]]), int(reps[0]))
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=1)
            def tile_to(x, reps):
                return jnp.tile(x, reps)

            reps = (2, 3)
            t = tile_to(jnp.array([[1.0, 2.0]]), reps)
            """,
            """
            @partial(jax.jit, static_argnums=1)
            def tile_to(x, reps):
                return jnp.tile(x, reps)

            reps = jnp.array([2, 3])
            t = tile_to(jnp.array([[1.0, 2.0]]), tuple(int(r) for r in reps))
            """,
        ],
    ),
    # ---------------------------------------------------------------- non-concrete-boolean-index
    case(
        "kmeans-centroids-label-mask", "non-concrete-boolean-index", setup=KMEANS,
        source="https://github.com/secretflow/secretflow/issues/406",
        cell="""
        @jax.jit
        def update_centroids(X, labels):
            return jnp.stack([X[labels == j].mean(axis=0) for j in range(3)])

        C = update_centroids(X, labels)
        """,
        check="""
        Xn, ln = np.asarray(X), np.asarray(labels)
        ref = np.stack([Xn[ln == j].mean(axis=0) for j in range(3)])
        np.testing.assert_allclose(np.asarray(C), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def update_centroids(X, labels):
            return jnp.stack([jnp.where((labels == j)[:, None], X, 0.0).mean(axis=0) for j in range(3)])

        C = update_centroids(X, labels)
        """,
        alt_fixes=[
            """
            @jax.jit
            def update_centroids(X, labels):
                out = []
                for j in range(3):
                    m = (labels == j)[:, None]
                    out.append(jnp.where(m, X, 0.0).sum(axis=0) / m.sum())
                return jnp.stack(out)

            C = update_centroids(X, labels)
            """,
            """
            @jax.jit
            def update_centroids(X, labels):
                onehot = jax.nn.one_hot(labels, 3)
                return (onehot.T @ X) / onehot.sum(axis=0)[:, None]

            C = update_centroids(X, labels)
            """,
        ],
    ),
    case(
        "winsorize-two-mask-sets", "non-concrete-boolean-index", setup=SETUP,
        source="https://github.com/probml/probml-notebooks/pull/70",
        cell="""
        @jax.jit
        def winsorize(x, lo, hi):
            x = x.at[x < lo].set(lo)
            x = x.at[x > hi].set(hi)
            return x

        w = winsorize(jnp.array([-5.0, -0.5, 0.0, 0.7, 9.0]), -1.0, 1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), np.clip([-5.0, -0.5, 0.0, 0.7, 9.0], -1.0, 1.0))
        """,
        wrong_fix="""
        @jax.jit
        def winsorize(x, lo, hi):
            x = jnp.where(x < lo, lo, x)
            return x

        w = winsorize(jnp.array([-5.0, -0.5, 0.0, 0.7, 9.0]), -1.0, 1.0)
        """,
        alt_fixes=[
            """
            @jax.jit
            def winsorize(x, lo, hi):
                x = jnp.where(x < lo, lo, x)
                x = jnp.where(x > hi, hi, x)
                return x

            w = winsorize(jnp.array([-5.0, -0.5, 0.0, 0.7, 9.0]), -1.0, 1.0)
            """,
            """
            @jax.jit
            def winsorize(x, lo, hi):
                return jnp.clip(x, lo, hi)

            w = winsorize(jnp.array([-5.0, -0.5, 0.0, 0.7, 9.0]), -1.0, 1.0)
            """,
        ],
    ),
    # ---------------------------------------------------------------- jnp-list-argument
    case(
        "best-epoch-argmin-min-of-list", "jnp-list-argument", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/365",
        cell="""
        target = jnp.array([1.0, -1.0])
        w_hist = [jnp.array([0.0, 0.0]), jnp.array([0.8, -0.5]), jnp.array([1.1, -0.9]), jnp.array([1.5, -1.2])]
        val_losses = []
        for w in w_hist:
            val_losses.append(jnp.mean((w - target) ** 2))
        best_epoch = jnp.argmin(val_losses)
        best_loss = jnp.min(val_losses)
        """,
        check="""
        ref = [np.mean((np.array(w) - [1.0, -1.0]) ** 2) for w in [[0, 0], [0.8, -0.5], [1.1, -0.9], [1.5, -1.2]]]
        assert int(best_epoch) == int(np.argmin(ref))
        np.testing.assert_allclose(float(best_loss), min(ref), rtol=1e-6)
        """,
        wrong_fix="""
        target = jnp.array([1.0, -1.0])
        w_hist = [jnp.array([0.0, 0.0]), jnp.array([0.8, -0.5]), jnp.array([1.1, -0.9]), jnp.array([1.5, -1.2])]
        val_losses = []
        for w in w_hist:
            val_losses.append(jnp.mean((w - target) ** 2))
        best_epoch = jnp.argmin(jnp.array(val_losses))
        best_loss = jnp.min(val_losses)
        """,
        alt_fixes=[
            """
            target = jnp.array([1.0, -1.0])
            w_hist = [jnp.array([0.0, 0.0]), jnp.array([0.8, -0.5]), jnp.array([1.1, -0.9]), jnp.array([1.5, -1.2])]
            val_losses = []
            for w in w_hist:
                val_losses.append(jnp.mean((w - target) ** 2))
            best_epoch = jnp.argmin(jnp.array(val_losses))
            best_loss = jnp.min(jnp.array(val_losses))
            """,
            """
            target = jnp.array([1.0, -1.0])
            w_hist = [jnp.array([0.0, 0.0]), jnp.array([0.8, -0.5]), jnp.array([1.1, -0.9]), jnp.array([1.5, -1.2])]
            val_losses = []
            for w in w_hist:
                val_losses.append(jnp.mean((w - target) ** 2))
            val_losses = jnp.stack(val_losses)
            best_epoch = jnp.argmin(val_losses)
            best_loss = jnp.min(val_losses)
            """,
        ],
    ),
    case(
        "nerf-deltas-broadcast-list", "jnp-list-argument", setup=SETUP,
        source="https://github.com/naruya/VaxNeRF/issues/6",
        cell="""
        z_vals = jnp.tile(jnp.linspace(2.0, 6.0, 5), (2, 1))
        dists = jnp.concatenate(
            [z_vals[..., 1:] - z_vals[..., :-1], jnp.broadcast_to([1e10], z_vals[..., :1].shape)], axis=-1)
        alpha = 1.0 - jnp.exp(-0.5 * dists)
        """,
        check="""
        z = np.tile(np.linspace(2.0, 6.0, 5), (2, 1))
        d = np.concatenate([np.diff(z, axis=-1), np.full((2, 1), 1e10)], axis=-1)
        np.testing.assert_allclose(np.asarray(dists), d, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(alpha), 1.0 - np.exp(-0.5 * d), rtol=1e-6)
        """,
        wrong_fix="""
        z_vals = jnp.tile(jnp.linspace(2.0, 6.0, 5), (2, 1))
        dists = jnp.concatenate(
            [z_vals[..., 1:] - z_vals[..., :-1], jnp.zeros_like(z_vals[..., :1])], axis=-1)
        alpha = 1.0 - jnp.exp(-0.5 * dists)
        """,
        alt_fixes=[
            """
            z_vals = jnp.tile(jnp.linspace(2.0, 6.0, 5), (2, 1))
            dists = jnp.concatenate(
                [z_vals[..., 1:] - z_vals[..., :-1], jnp.broadcast_to(1e10, z_vals[..., :1].shape)], axis=-1)
            alpha = 1.0 - jnp.exp(-0.5 * dists)
            """,
            """
            z_vals = jnp.tile(jnp.linspace(2.0, 6.0, 5), (2, 1))
            dists = jnp.concatenate(
                [z_vals[..., 1:] - z_vals[..., :-1], jnp.broadcast_to(jnp.array([1e10]), z_vals[..., :1].shape)], axis=-1)
            alpha = 1.0 - jnp.exp(-0.5 * dists)
            """,
        ],
    ),
]
