"""Blind tuning cells (helper d): tree-map key/type mismatches, raw ints as PRNG keys, scan carry mismatches.

Written from public threads without reading the rewriter; wholly on the tuning side (see ``__init__``).
"""

from . import case

_I = " " * 12
# indented like the case strings so that dedent of SETUP + extra works
SETUP = _I + "import numpy as np\n" + _I + "import jax\n" + _I + "import jax.numpy as jnp\n"

CASES = [
    # ------------------------------------------------------------------ tree-map-dict-missing-key
    case(
        id="td-dict-frozen-scale-sgd",
        kind="tree-map-dict-missing-key",
        setup=SETUP + """
            rng = np.random.default_rng(0)
            X = jnp.asarray(rng.normal(size=(32, 3)), dtype=jnp.float32)
            y = jnp.asarray(rng.normal(size=(32,)), dtype=jnp.float32)
            params = {"w": jnp.zeros(3), "b": jnp.zeros(()), "scale": jnp.full((), 2.0)}
        """,
        cell="""
            def loss_fn(trainable, scale, X, y):
                pred = scale * (X @ trainable["w"] + trainable["b"])
                return jnp.mean((pred - y) ** 2)

            lr = 0.1
            # "scale" is frozen: only w and b get gradients
            trainable = {"w": params["w"], "b": params["b"]}
            grads = jax.grad(loss_fn)(trainable, params["scale"], X, y)
            new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        """,
        check="""
            Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
            s = 2.0
            r = s * (Xn @ np.zeros(3) + 0.0) - yn
            gw = 2 * s * Xn.T @ r / len(yn)
            gb = 2 * s * r.mean()
            np.testing.assert_allclose(np.asarray(new_params["w"]), -0.1 * gw, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(float(new_params["b"]), -0.1 * gb, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(float(new_params["scale"]), 2.0)
            assert set(new_params) == {"w", "b", "scale"}
        """,
        wrong_fix="""
            def loss_fn(trainable, scale, X, y):
                pred = scale * (X @ trainable["w"] + trainable["b"])
                return jnp.mean((pred - y) ** 2)

            lr = 0.1
            trainable = {"w": params["w"], "b": params["b"]}
            grads = jax.grad(loss_fn)(trainable, params["scale"], X, y)
            new_params = jax.tree.map(lambda p, g: p - lr * g, trainable, grads)
        """,
        alt_fixes=[
            """
            def loss_fn(trainable, scale, X, y):
                pred = scale * (X @ trainable["w"] + trainable["b"])
                return jnp.mean((pred - y) ** 2)

            lr = 0.1
            trainable = {"w": params["w"], "b": params["b"]}
            grads = jax.grad(loss_fn)(trainable, params["scale"], X, y)
            new_params = {**params, **jax.tree.map(lambda p, g: p - lr * g, trainable, grads)}
            """,
            """
            def loss_fn(trainable, scale, X, y):
                pred = scale * (X @ trainable["w"] + trainable["b"])
                return jnp.mean((pred - y) ** 2)

            lr = 0.1
            trainable = {"w": params["w"], "b": params["b"]}
            grads = jax.grad(loss_fn)(trainable, params["scale"], X, y)
            grads = {**grads, "scale": jnp.zeros_like(params["scale"])}
            new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/12738",
    ),
    case(
        id="td-dict-ema-whole-variables",
        kind="tree-map-dict-missing-key",
        setup=SETUP + """
            import optax
            variables = {
                "params": {"Dense_0": {"kernel": jnp.ones((4, 8)), "bias": jnp.zeros(8)},
                           "Dense_1": {"kernel": jnp.ones((8, 2)), "bias": jnp.zeros(2)},
                           "Dense_2": {"kernel": jnp.ones((2, 1)), "bias": jnp.zeros(1)}},
                "batch_stats": {"BatchNorm_0": {"mean": jnp.zeros(8), "var": jnp.ones(8)}},
            }
        """,
        cell="""
            decay = 0.9
            ema_params = jax.tree.map(jnp.copy, variables["params"])

            def fake_train_step(variables):
                new_params = jax.tree.map(lambda p: p + 1.0, variables["params"])
                return {**variables, "params": new_params}

            for step in range(3):
                variables = fake_train_step(variables)
                ema_params = jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema_params, variables)
        """,
        check="""
            off_e = 0.0
            for k in range(1, 4):
                off_e = 0.9 * off_e + 0.1 * k
            np.testing.assert_allclose(np.asarray(ema_params["Dense_0"]["kernel"]), np.full((4, 8), 1.0 + off_e), rtol=1e-5)
            np.testing.assert_allclose(np.asarray(ema_params["Dense_1"]["bias"]), np.full(2, off_e), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(variables["params"]["Dense_1"]["kernel"]), np.full((8, 2), 4.0))
            assert "batch_stats" not in ema_params
        """,
        wrong_fix="""
            decay = 0.9
            ema_params = jax.tree.map(jnp.copy, variables)

            def fake_train_step(variables):
                new_params = jax.tree.map(lambda p: p + 1.0, variables["params"])
                return {**variables, "params": new_params}

            for step in range(3):
                variables = fake_train_step(variables)
                ema_params = jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema_params, variables)
        """,
        alt_fixes=[
            """
            decay = 0.9
            ema_params = jax.tree.map(jnp.copy, variables["params"])

            def fake_train_step(variables):
                new_params = jax.tree.map(lambda p: p + 1.0, variables["params"])
                return {**variables, "params": new_params}

            for step in range(3):
                variables = fake_train_step(variables)
                ema_params = jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, ema_params, variables["params"])
            """,
            """
            decay = 0.9
            ema_params = jax.tree.map(jnp.copy, variables["params"])

            def fake_train_step(variables):
                new_params = jax.tree.map(lambda p: p + 1.0, variables["params"])
                return {**variables, "params": new_params}

            for step in range(3):
                variables = fake_train_step(variables)
                ema_params = optax.incremental_update(variables["params"], ema_params, step_size=1 - decay)
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/19044",
    ),
    case(
        id="td-dict-momentum-stale-keys-jit",
        kind="tree-map-dict-missing-key",
        setup=SETUP + """
            import functools
            params = {"W1": jnp.full((2, 16), 0.5), "b1": jnp.zeros(16),
                      "W2": jnp.full((16, 1), -0.25), "b2": jnp.ones(1)}
            teacher = {"W1": jnp.zeros((2, 16)), "b1": jnp.full(16, 0.1),
                       "W2": jnp.zeros((16, 1)), "b2": jnp.zeros(1)}

            def distill_loss(params):
                # pull the student towards the teacher's weights
                return sum(0.5 * jnp.sum((params[k] - teacher[k]) ** 2) for k in params)
        """,
        cell="""
            # velocity written before the output bias was added to the model
            velocity = {"W1": jnp.zeros((2, 16)), "b1": jnp.zeros(16), "W2": jnp.zeros((16, 1))}

            @functools.partial(jax.jit, static_argnames=("lr", "mu"))
            def momentum_step(params, velocity, grads, lr=0.1, mu=0.9):
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            for _ in range(3):
                grads = jax.grad(distill_loss)(params)
                params, velocity = momentum_step(params, velocity, grads)
        """,
        check="""
            init = {"W1": np.full((2, 16), 0.5), "b1": np.zeros(16), "W2": np.full((16, 1), -0.25), "b2": np.ones(1)}
            tgt = {"W1": np.zeros((2, 16)), "b1": np.full(16, 0.1), "W2": np.zeros((16, 1)), "b2": np.zeros(1)}
            for k in init:
                p, v = init[k].copy(), np.zeros_like(init[k])
                for _ in range(3):
                    g = p - tgt[k]
                    v = 0.9 * v + g
                    p = p - 0.1 * v
                np.testing.assert_allclose(np.asarray(params[k]), p, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
            velocity = {"W1": jnp.zeros((2, 16)), "b1": jnp.zeros(16), "W2": jnp.zeros((16, 1))}

            @functools.partial(jax.jit, static_argnames=("lr", "mu"))
            def momentum_step(params, velocity, grads, lr=0.1, mu=0.9):
                velocity = grads
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            for _ in range(3):
                grads = jax.grad(distill_loss)(params)
                params, velocity = momentum_step(params, velocity, grads)
        """,
        alt_fixes=[
            """
            velocity = jax.tree.map(jnp.zeros_like, params)

            @functools.partial(jax.jit, static_argnames=("lr", "mu"))
            def momentum_step(params, velocity, grads, lr=0.1, mu=0.9):
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            for _ in range(3):
                grads = jax.grad(distill_loss)(params)
                params, velocity = momentum_step(params, velocity, grads)
            """,
            """
            velocity = {"W1": jnp.zeros((2, 16)), "b1": jnp.zeros(16), "W2": jnp.zeros((16, 1)), "b2": jnp.zeros(1)}

            @functools.partial(jax.jit, static_argnames=("lr", "mu"))
            def momentum_step(params, velocity, grads, lr=0.1, mu=0.9):
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
                return params, velocity

            for _ in range(3):
                grads = jax.grad(distill_loss)(params)
                params, velocity = momentum_step(params, velocity, grads)
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/23771",
    ),
    case(
        id="td-dict-normalize-batch-alias",
        kind="tree-map-dict-missing-key",
        setup="""
            import numpy as onp
            import jax
            import jax.numpy as np
            r = onp.random.default_rng(1)
            batch = {"image": np.asarray(r.uniform(0, 255, size=(8, 4, 4)), dtype=np.float32),
                     "depth": np.asarray(r.uniform(0, 10, size=(8, 4, 4)), dtype=np.float32),
                     "label": np.arange(8) % 3}
        """,
        cell="""
            means = {"image": 127.5, "depth": 5.0}
            stds = {"image": 64.0, "depth": 2.5}

            @jax.jit
            def preprocess(batch):
                # standardize every feature with its dataset statistics
                return jax.tree_util.tree_map(lambda x, m, s: (x - m) / s, batch, means, stds)

            normed = preprocess(batch)
        """,
        check="""
            img = onp.asarray(batch["image"], onp.float64)
            dep = onp.asarray(batch["depth"], onp.float64)
            onp.testing.assert_allclose(onp.asarray(normed["image"]), (img - 127.5) / 64.0, rtol=1e-5, atol=1e-5)
            onp.testing.assert_allclose(onp.asarray(normed["depth"]), (dep - 5.0) / 2.5, rtol=1e-5, atol=1e-5)
            onp.testing.assert_array_equal(onp.asarray(normed["label"]), onp.arange(8) % 3)
        """,
        wrong_fix="""
            means = {"image": 127.5, "depth": 5.0}
            stds = {"image": 64.0, "depth": 2.5}

            @jax.jit
            def preprocess(batch):
                feats = {k: batch[k] for k in means}
                return jax.tree_util.tree_map(lambda x, m, s: (x - m) / s, feats, means, stds)

            normed = preprocess(batch)
        """,
        alt_fixes=[
            """
            means = {"image": 127.5, "depth": 5.0}
            stds = {"image": 64.0, "depth": 2.5}

            @jax.jit
            def preprocess(batch):
                feats = {k: batch[k] for k in means}
                out = jax.tree_util.tree_map(lambda x, m, s: (x - m) / s, feats, means, stds)
                return {**batch, **out}

            normed = preprocess(batch)
            """,
            """
            means = {"image": 127.5, "depth": 5.0}
            stds = {"image": 64.0, "depth": 2.5}

            @jax.jit
            def preprocess(batch):
                return {k: (v - means[k]) / stds[k] if k in means else v for k, v in batch.items()}

            normed = preprocess(batch)
            """,
        ],
        source="https://github.com/metaopt/optree/pull/42",
    ),
    case(
        id="td-dict-grad-accum-class",
        kind="tree-map-dict-missing-key",
        setup=SETUP + """
            rng = np.random.default_rng(2)
            X = jnp.asarray(rng.normal(size=(12, 3)), dtype=jnp.float32)
            y = jnp.asarray(rng.normal(size=(12,)), dtype=jnp.float32)
            variables = {"params": {"enc": jnp.full(3, 0.2), "dec": jnp.full((), -0.1)}}

            def loss_fn(params, xb, yb):
                return jnp.mean((xb @ params["enc"] + params["dec"] - yb) ** 2)
        """,
        earlier="""
            class GradAccumulator:
                def __init__(self, variables):
                    self.total = jax.tree.map(jnp.zeros_like, variables)
                    self.count = 0

                def add(self, grads):
                    self.total = jax.tree.map(jnp.add, self.total, grads)
                    self.count += 1

                def mean(self):
                    return jax.tree.map(lambda g: g / self.count, self.total)
        """,
        cell="""
            acc = GradAccumulator(variables)
            for i in range(3):
                xb, yb = X[4 * i:4 * i + 4], y[4 * i:4 * i + 4]
                acc.add(jax.grad(loss_fn)(variables["params"], xb, yb))
            avg_grads = acc.mean()
        """,
        check="""
            Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
            w, b = np.full(3, 0.2), -0.1
            gws, gbs = [], []
            for i in range(3):
                xb, yb = Xn[4 * i:4 * i + 4], yn[4 * i:4 * i + 4]
                r = xb @ w + b - yb
                gws.append(2 * xb.T @ r / 4)
                gbs.append(2 * r.mean())
            np.testing.assert_allclose(np.asarray(avg_grads["enc"]), np.mean(gws, axis=0), rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(float(avg_grads["dec"]), np.mean(gbs), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
            class GradAccumulator:
                def __init__(self, variables):
                    self.total = jax.tree.map(jnp.zeros_like, variables["params"])
                    self.count = 0

                def add(self, grads):
                    self.total = jax.tree.map(jnp.add, self.total, grads)
                    self.count += 1

                def mean(self):
                    return self.total
        """,
        alt_fixes=[
            """
            class GradAccumulator:
                def __init__(self, variables):
                    self.total = jax.tree.map(jnp.zeros_like, variables["params"])
                    self.count = 0

                def add(self, grads):
                    self.total = jax.tree.map(jnp.add, self.total, grads)
                    self.count += 1

                def mean(self):
                    return jax.tree.map(lambda g: g / self.count, self.total)
            """,
            """
            class GradAccumulator:
                def __init__(self, variables):
                    self.total = None
                    self.count = 0

                def add(self, grads):
                    if self.total is None:
                        self.total = grads
                    else:
                        self.total = jax.tree.map(lambda a, g: a + g, self.total, grads)
                    self.count += 1

                def mean(self):
                    return jax.tree.map(lambda g: g / self.count, self.total)
            """,
        ],
        source="https://github.com/erfanzar/EasyDeL/pull/279",
    ),
]
