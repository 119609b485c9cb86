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
    # ------------------------------------------------------------------ tree-map-node-type-mismatch
    case(
        id="td-node-mlp-velocity-lists",
        kind="tree-map-node-type-mismatch",
        setup=SETUP + """
            sizes = [3, 5, 2]
            params = [(jnp.full((m, n), 0.3), jnp.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]
            x = jnp.asarray(np.linspace(-1, 1, 12).reshape(4, 3), dtype=jnp.float32)

            def loss(params, x):
                h = x
                for W, b in params:
                    h = h @ W + b
                return 0.5 * jnp.sum(h ** 2)
        """,
        cell="""
            lr, mu = 0.01, 0.9
            velocity = [[jnp.zeros_like(W), jnp.zeros_like(b)] for W, b in params]

            for step in range(2):
                grads = jax.grad(loss)(params, x)
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
        """,
        check="""
            xn = np.linspace(-1, 1, 12).reshape(4, 3)
            W1, b1, W2, b2 = np.full((3, 5), 0.3), np.zeros(5), np.full((5, 2), 0.3), np.zeros(2)
            vs = [np.zeros_like(a) for a in (W1, b1, W2, b2)]
            for _ in range(2):
                h1 = xn @ W1 + b1
                out = h1 @ W2 + b2
                gW2, gb2 = h1.T @ out, out.sum(0)
                d1 = out @ W2.T
                gW1, gb1 = xn.T @ d1, d1.sum(0)
                ps = [W1, b1, W2, b2]
                gs = [gW1, gb1, gW2, gb2]
                vs = [0.9 * v + g for v, g in zip(vs, gs)]
                W1, b1, W2, b2 = [p - 0.01 * v for p, v in zip(ps, vs)]
            got = jax.tree.leaves(params)
            for g, e in zip(got, [W1, b1, W2, b2]):
                np.testing.assert_allclose(np.asarray(g), e, rtol=1e-4, atol=1e-5)
            assert len(got) == 4
        """,
        wrong_fix="""
            lr, mu = 0.01, 0.9
            velocity = [[jnp.zeros_like(W), jnp.zeros_like(b)] for W, b in params]

            for step in range(2):
                grads = jax.grad(loss)(params, x)
                params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        """,
        alt_fixes=[
            """
            lr, mu = 0.01, 0.9
            velocity = [(jnp.zeros_like(W), jnp.zeros_like(b)) for W, b in params]

            for step in range(2):
                grads = jax.grad(loss)(params, x)
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
            """,
            """
            lr, mu = 0.01, 0.9
            velocity = jax.tree.map(jnp.zeros_like, params)

            for step in range(2):
                grads = jax.grad(loss)(params, x)
                velocity = jax.tree.map(lambda v, g: mu * v + g, velocity, grads)
                params = jax.tree.map(lambda p, v: p - lr * v, params, velocity)
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/14093",
    ),
    case(
        id="td-node-namedtuple-vs-asdict",
        kind="tree-map-node-type-mismatch",
        setup=SETUP + """
            from typing import NamedTuple

            class LinearParams(NamedTuple):
                w: jax.Array
                b: jax.Array

            xs = jnp.linspace(0.0, 1.0, 10)
            ys = 3.0 * xs - 1.0
            params = LinearParams(w=jnp.zeros(()), b=jnp.zeros(()))

            def mse(p, xs, ys):
                return jnp.mean((p["w"] * xs + p["b"] - ys) ** 2)
        """,
        cell="""
            lr = 0.5
            for epoch in range(5):
                # mse indexes by name, so hand it a dict
                grads = jax.grad(mse)(params._asdict(), xs, ys)
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
            final_loss = mse(params._asdict(), xs, ys)
        """,
        check="""
            xn = np.linspace(0.0, 1.0, 10); yn = 3.0 * xn - 1.0
            w = b = 0.0
            for _ in range(5):
                r = w * xn + b - yn
                w, b = w - 0.5 * 2 * np.mean(r * xn), b - 0.5 * 2 * np.mean(r)
            assert isinstance(params, LinearParams), type(params)
            np.testing.assert_allclose(float(params.w), w, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(float(params.b), b, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(float(final_loss), np.mean((w * xn + b - yn) ** 2), rtol=1e-4)
        """,
        wrong_fix="""
            lr = 0.5
            for epoch in range(5):
                grads = jax.grad(mse)(params._asdict(), xs, ys)
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params._asdict(), grads)
            final_loss = mse(params, xs, ys)
        """,
        alt_fixes=[
            """
            lr = 0.5
            for epoch in range(5):
                grads = jax.grad(mse)(params._asdict(), xs, ys)
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, LinearParams(**grads))
            final_loss = mse(params._asdict(), xs, ys)
            """,
            """
            lr = 0.5
            for epoch in range(5):
                grads = jax.grad(lambda p: mse(p._asdict(), xs, ys))(params)
                params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
            final_loss = mse(params._asdict(), xs, ys)
            """,
        ],
        source="https://github.com/jax-ml/jax/issues/17798",
    ),
    case(
        id="td-node-es-list-vs-stacked-noise",
        kind="tree-map-node-type-mismatch",
        setup=SETUP + """
            population = [jnp.full(6, float(i)) for i in range(4)]
            key = jax.random.key(0)
        """,
        cell="""
            sigma = 0.05
            # one perturbation per population member
            noise = jax.random.normal(key, (len(population), 6))
            perturbed = jax.tree.map(lambda theta, eps: theta + sigma * eps, population, noise)
            fitness = jnp.stack([-jnp.sum(p ** 2) for p in perturbed])
        """,
        check="""
            nz = np.asarray(jax.random.normal(jax.random.key(0), (4, 6)))
            base = np.stack([np.full(6, float(i)) for i in range(4)])
            expected = base + 0.05 * nz
            got = np.stack([np.asarray(p) for p in perturbed])
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(fitness), -np.sum(expected ** 2, axis=1), rtol=1e-5)
        """,
        wrong_fix="""
            sigma = 0.05
            noise = jax.random.normal(key, (len(population), 6))
            perturbed = jax.tree.map(lambda theta: theta + sigma * noise[0], population)
            fitness = jnp.stack([-jnp.sum(p ** 2) for p in perturbed])
        """,
        alt_fixes=[
            """
            sigma = 0.05
            noise = jax.random.normal(key, (len(population), 6))
            perturbed = jax.tree.map(lambda theta, eps: theta + sigma * eps, population, list(noise))
            fitness = jnp.stack([-jnp.sum(p ** 2) for p in perturbed])
            """,
            """
            sigma = 0.05
            noise = jax.random.normal(key, (len(population), 6))
            perturbed = jnp.stack(population) + sigma * noise
            fitness = jnp.stack([-jnp.sum(p ** 2) for p in perturbed])
            """,
        ],
        source="https://github.com/jax-ml/jax/issues/20451",
    ),
    case(
        id="td-node-eqx-module-vs-tuple-grads",
        kind="tree-map-node-type-mismatch",
        setup=SETUP + """
            import equinox as eqx

            class Affine(eqx.Module):
                weight: jax.Array
                bias: jax.Array

                def __call__(self, x):
                    return x @ self.weight + self.bias

            model = Affine(weight=jnp.ones((2, 1)), bias=jnp.zeros(1))
            X = jnp.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
            Y = jnp.array([[1.0], [0.0], [2.0]])

            def loss_arrays(weight, bias):
                return jnp.mean((X @ weight + bias - Y) ** 2)
        """,
        cell="""
            lr = 0.1
            for _ in range(3):
                grads = jax.grad(loss_arrays, argnums=(0, 1))(model.weight, model.bias)
                model = jax.tree.map(lambda p, g: p - lr * g, model, grads)
            preds = model(X)
        """,
        check="""
            Xn = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]]); Yn = np.array([[1.0], [0.0], [2.0]])
            W, b = np.ones((2, 1)), np.zeros(1)
            for _ in range(3):
                r = Xn @ W + b - Yn
                W, b = W - 0.1 * 2 * Xn.T @ r / r.size, b - 0.1 * 2 * r.sum(0) / r.size
            assert isinstance(model, Affine)
            np.testing.assert_allclose(np.asarray(model.weight), W, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(model.bias), b, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(preds), Xn @ W + b, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
            lr = 0.1
            for _ in range(3):
                grads = jax.grad(loss_arrays, argnums=(0, 1))(model.weight, model.bias)
                model = Affine(model.weight - lr * grads[0], model.bias)
            preds = model(X)
        """,
        alt_fixes=[
            """
            lr = 0.1
            for _ in range(3):
                gw, gb = jax.grad(loss_arrays, argnums=(0, 1))(model.weight, model.bias)
                grads = Affine(weight=gw, bias=gb)
                model = jax.tree.map(lambda p, g: p - lr * g, model, grads)
            preds = model(X)
            """,
            """
            lr = 0.1
            for _ in range(3):
                grads = jax.grad(lambda m: loss_arrays(m.weight, m.bias))(model)
                model = eqx.apply_updates(model, jax.tree.map(lambda g: -lr * g, grads))
            preds = model(X)
            """,
        ],
        source="https://github.com/jax-ml/jax/issues/10710",
    ),
    case(
        id="td-node-euler-state-tuple-vs-list",
        kind="tree-map-node-type-mismatch",
        setup=SETUP + """
            k_spring, mass = 4.0, 1.0
            state0 = (jnp.array([1.0, 0.0]), jnp.array([0.0, 1.0]))
        """,
        earlier="""
            def derivatives(state):
                pos, vel = state
                acc = -k_spring / mass * pos
                return [vel, acc]

            @jax.jit
            def euler_step(state, dt):
                deriv = derivatives(state)
                return jax.tree.map(lambda s, d: s + dt * d, state, deriv)
        """,
        cell="""
            state = state0
            trajectory = []
            for _ in range(50):
                state = euler_step(state, 0.01)
                trajectory.append(state[0])
            final_pos, final_vel = state
        """,
        check="""
            p, v = np.array([1.0, 0.0]), np.array([0.0, 1.0])
            for _ in range(50):
                p, v = p + 0.01 * v, v + 0.01 * (-4.0 * p)
            np.testing.assert_allclose(np.asarray(final_pos), p, rtol=1e-4, atol=1e-6)
            np.testing.assert_allclose(np.asarray(final_vel), v, rtol=1e-4, atol=1e-6)
            assert len(trajectory) == 50
        """,
        wrong_fix="""
            def derivatives(state):
                pos, vel = state
                acc = -k_spring / mass * pos
                return (vel, acc)

            @jax.jit
            def euler_step(state, dt):
                deriv = derivatives(state)
                new_pos = state[0] + dt * deriv[0]
                new_vel = state[1] + dt * (-k_spring / mass * new_pos)
                return (new_pos, new_vel)
        """,
        alt_fixes=[
            """
            def derivatives(state):
                pos, vel = state
                acc = -k_spring / mass * pos
                return (vel, acc)

            @jax.jit
            def euler_step(state, dt):
                deriv = derivatives(state)
                return jax.tree.map(lambda s, d: s + dt * d, state, deriv)
            """,
            """
            def derivatives(state):
                pos, vel = state
                acc = -k_spring / mass * pos
                return [vel, acc]

            @jax.jit
            def euler_step(state, dt):
                deriv = tuple(derivatives(state))
                return jax.tree.map(lambda s, d: s + dt * d, tuple(state), deriv)
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/23771",
    ),
    # ------------------------------------------------------------------ prng-key-not-array
    case(
        id="td-prng-init-layers-int-seeds",
        kind="prng-key-not-array",
        setup=SETUP,
        cell="""
            d_in, d_hidden = 256, 256
            scale = 1.0 / np.sqrt(d_in)
            # two hidden layers of the same width, each with its own seed
            W1 = jax.random.normal(0, (d_in, d_hidden)) * scale
            W2 = jax.random.normal(1, (d_hidden, d_hidden)) * scale
            b1 = jnp.zeros(d_hidden)
            b2 = jnp.zeros(d_hidden)
        """,
        check="""
            for W in (W1, W2):
                assert W.shape == (256, 256), W.shape
                Wn = np.asarray(W)
                assert np.all(np.isfinite(Wn))
                np.testing.assert_allclose(Wn.std(), 1.0 / 16.0, rtol=0.05)
                assert abs(Wn.mean()) < 0.01
            assert not np.allclose(np.asarray(W1), np.asarray(W2)), "both layers got the same random draw"
            assert b1.shape == b2.shape == (256,)
        """,
        wrong_fix="""
            d_in, d_hidden = 256, 256
            scale = 1.0 / np.sqrt(d_in)
            key = jax.random.PRNGKey(0)
            W1 = jax.random.normal(key, (d_in, d_hidden)) * scale
            W2 = jax.random.normal(key, (d_hidden, d_hidden)) * scale
            b1 = jnp.zeros(d_hidden)
            b2 = jnp.zeros(d_hidden)
        """,
        alt_fixes=[
            """
            d_in, d_hidden = 256, 256
            scale = 1.0 / np.sqrt(d_in)
            W1 = jax.random.normal(jax.random.key(0), (d_in, d_hidden)) * scale
            W2 = jax.random.normal(jax.random.key(1), (d_hidden, d_hidden)) * scale
            b1 = jnp.zeros(d_hidden)
            b2 = jnp.zeros(d_hidden)
            """,
            """
            d_in, d_hidden = 256, 256
            scale = 1.0 / np.sqrt(d_in)
            k1, k2 = jax.random.split(jax.random.PRNGKey(42))
            W1 = jax.random.normal(k1, (d_in, d_hidden)) * scale
            W2 = jax.random.normal(k2, (d_hidden, d_hidden)) * scale
            b1 = jnp.zeros(d_hidden)
            b2 = jnp.zeros(d_hidden)
            """,
        ],
        source="https://github.com/keras-team/keras-core/pull/651",
    ),
    case(
        id="td-prng-epoch-shuffle-loop",
        kind="prng-key-not-array",
        setup=SETUP + """
            n_examples, batch_size = 20, 5
            data = jnp.arange(n_examples) * 10
        """,
        cell="""
            epoch_orders = []
            for epoch in range(3):
                perm = jax.random.permutation(epoch, n_examples)
                batches = [data[perm[i:i + batch_size]] for i in range(0, n_examples, batch_size)]
                epoch_orders.append(jnp.concatenate(batches))
        """,
        check="""
            assert len(epoch_orders) == 3
            orders = [np.asarray(o) for o in epoch_orders]
            for o in orders:
                np.testing.assert_array_equal(np.sort(o), np.arange(20) * 10)
            assert not np.array_equal(orders[0], orders[1]) or not np.array_equal(orders[1], orders[2]), \\
                "every epoch saw the same order"
            assert not all(np.array_equal(o, np.arange(20) * 10) for o in orders), "data was never shuffled"
        """,
        wrong_fix="""
            epoch_orders = []
            for epoch in range(3):
                perm = jax.random.permutation(jax.random.key(0), n_examples)
                batches = [data[perm[i:i + batch_size]] for i in range(0, n_examples, batch_size)]
                epoch_orders.append(jnp.concatenate(batches))
        """,
        alt_fixes=[
            """
            epoch_orders = []
            for epoch in range(3):
                perm = jax.random.permutation(jax.random.key(epoch), n_examples)
                batches = [data[perm[i:i + batch_size]] for i in range(0, n_examples, batch_size)]
                epoch_orders.append(jnp.concatenate(batches))
            """,
            """
            epoch_orders = []
            key = jax.random.PRNGKey(0)
            for epoch in range(3):
                key, subkey = jax.random.split(key)
                perm = jax.random.permutation(subkey, n_examples)
                batches = [data[perm[i:i + batch_size]] for i in range(0, n_examples, batch_size)]
                epoch_orders.append(jnp.concatenate(batches))
            """,
            """
            epoch_orders = []
            base_key = jax.random.key(123)
            for epoch in range(3):
                perm = jax.random.permutation(jax.random.fold_in(base_key, epoch), n_examples)
                batches = [data[perm[i:i + batch_size]] for i in range(0, n_examples, batch_size)]
                epoch_orders.append(jnp.concatenate(batches))
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/9772",
    ),
    case(
        id="td-prng-dropout-seed-attribute",
        kind="prng-key-not-array",
        setup=SETUP + """
            x = jnp.ones((64, 128))
        """,
        earlier="""
            class Dropout:
                def __init__(self, rate, seed=0):
                    self.rate = rate
                    self.rng = seed

                def __call__(self, x):
                    keep = jax.random.bernoulli(self.rng, 1.0 - self.rate, x.shape)
                    return jnp.where(keep, x / (1.0 - self.rate), 0.0)
        """,
        cell="""
            drop = Dropout(rate=0.25, seed=0)
            h = drop(x)
            kept_fraction = float(jnp.mean(h != 0))
        """,
        check="""
            hn = np.asarray(h)
            assert hn.shape == (64, 128)
            assert np.all(np.isclose(hn, 0.0) | np.isclose(hn, 1.0 / 0.75, rtol=1e-5)), np.unique(hn)
            np.testing.assert_allclose(kept_fraction, 0.75, atol=0.02)
            np.testing.assert_allclose(hn.mean(), 1.0, atol=0.03)
        """,
        wrong_fix="""
            class Dropout:
                def __init__(self, rate, seed=0):
                    self.rate = rate
                    self.rng = jnp.asarray(seed)

                def __call__(self, x):
                    keep = jax.random.bernoulli(self.rng, 1.0 - self.rate, x.shape)
                    return jnp.where(keep, x / (1.0 - self.rate), 0.0)
        """,
        alt_fixes=[
            """
            class Dropout:
                def __init__(self, rate, seed=0):
                    self.rate = rate
                    self.rng = jax.random.key(seed)

                def __call__(self, x):
                    keep = jax.random.bernoulli(self.rng, 1.0 - self.rate, x.shape)
                    return jnp.where(keep, x / (1.0 - self.rate), 0.0)
            """,
            """
            class Dropout:
                def __init__(self, rate, seed=0):
                    self.rate = rate
                    self.rng = jax.random.PRNGKey(seed)

                def __call__(self, x):
                    self.rng, sub = jax.random.split(self.rng)
                    keep = jax.random.bernoulli(sub, 1.0 - self.rate, x.shape)
                    return jnp.where(keep, x / (1.0 - self.rate), 0.0)
            """,
        ],
        source="https://github.com/tensorflow/probability/pull/2032",
    ),
    case(
        id="td-prng-chains-loop-int-seeds",
        kind="prng-key-not-array",
        setup=SETUP + """
            n_chains, n_steps = 8, 500
        """,
        cell="""
            def random_walk(seed):
                steps = jax.random.normal(seed, (n_steps,)) * 0.1
                return jnp.cumsum(steps)

            paths = jnp.stack([random_walk(seed) for seed in range(n_chains)])
            endpoints = paths[:, -1]
        """,
        check="""
            pn = np.asarray(paths)
            assert pn.shape == (8, 500), pn.shape
            inc = np.diff(pn, axis=1)
            np.testing.assert_allclose(inc.std(), 0.1, rtol=0.08)
            assert len({round(float(e), 6) for e in np.asarray(endpoints)}) == 8, "chains are not independent"
            np.testing.assert_allclose(np.asarray(endpoints), pn[:, -1])
        """,
        wrong_fix="""
            def random_walk(seed):
                steps = jax.random.normal(jax.random.key(0), (n_steps,)) * 0.1
                return jnp.cumsum(steps)

            paths = jnp.stack([random_walk(seed) for seed in range(n_chains)])
            endpoints = paths[:, -1]
        """,
        alt_fixes=[
            """
            def random_walk(seed):
                steps = jax.random.normal(jax.random.key(seed), (n_steps,)) * 0.1
                return jnp.cumsum(steps)

            paths = jnp.stack([random_walk(seed) for seed in range(n_chains)])
            endpoints = paths[:, -1]
            """,
            """
            def random_walk(key):
                steps = jax.random.normal(key, (n_steps,)) * 0.1
                return jnp.cumsum(steps)

            keys = jax.random.split(jax.random.PRNGKey(0), n_chains)
            paths = jnp.stack([random_walk(k) for k in keys])
            endpoints = paths[:, -1]
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/9772",
    ),
    case(
        id="td-prng-jit-partial-mc-pi",
        kind="prng-key-not-array",
        setup=SETUP + """
            import functools
        """,
        cell="""
            @functools.partial(jax.jit, static_argnames=("seed", "n"))
            def estimate_pi(seed, n):
                xy = jax.random.uniform(seed, (n, 2))
                inside = jnp.sum(xy[:, 0] ** 2 + xy[:, 1] ** 2 <= 1.0)
                return 4.0 * inside / n

            pi_hat = estimate_pi(42, n=200_000)
        """,
        check="""
            assert np.ndim(pi_hat) == 0
            np.testing.assert_allclose(float(pi_hat), np.pi, atol=0.02)
        """,
        wrong_fix="""
            @functools.partial(jax.jit, static_argnames=("seed", "n"))
            def estimate_pi(seed, n):
                key = jax.random.key(seed)
                x = jax.random.uniform(key, (n,))
                y = jax.random.uniform(key, (n,))
                inside = jnp.sum(x ** 2 + y ** 2 <= 1.0)
                return 4.0 * inside / n

            pi_hat = estimate_pi(42, n=200_000)
        """,
        alt_fixes=[
            """
            @functools.partial(jax.jit, static_argnames=("seed", "n"))
            def estimate_pi(seed, n):
                xy = jax.random.uniform(jax.random.key(seed), (n, 2))
                inside = jnp.sum(xy[:, 0] ** 2 + xy[:, 1] ** 2 <= 1.0)
                return 4.0 * inside / n

            pi_hat = estimate_pi(42, n=200_000)
            """,
            """
            @functools.partial(jax.jit, static_argnames="n")
            def estimate_pi(key, n):
                xy = jax.random.uniform(key, (n, 2))
                inside = jnp.sum(xy[:, 0] ** 2 + xy[:, 1] ** 2 <= 1.0)
                return 4.0 * inside / n

            pi_hat = estimate_pi(jax.random.PRNGKey(42), n=200_000)
            """,
        ],
        source="https://github.com/keras-team/keras-core/pull/651",
    ),
    # ------------------------------------------------------------------ scan-carry-tree-mismatch
    case(
        id="td-scan-lstm-carry-returns-h",
        kind="scan-carry-tree-mismatch",
        setup=SETUP + """
            from jax import lax
            hidden, n_in, T = 4, 3, 6
            Wx = jnp.full((n_in, 4 * hidden), 0.1)
            Wh = jnp.full((hidden, 4 * hidden), -0.05)
            xs = jnp.asarray(np.linspace(-1.0, 1.0, T * n_in).reshape(T, n_in), dtype=jnp.float32)

            def lstm_cell(carry, x):
                c, h = carry
                z = x @ Wx + h @ Wh
                i, f, g, o = jnp.split(z, 4)
                c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
                h = jax.nn.sigmoid(o) * jnp.tanh(c)
                return c, h
        """,
        cell="""
            def step(carry, x):
                c, h = lstm_cell(carry, x)
                return h, h  # carry the hidden state, emit it too

            init = (jnp.zeros(hidden), jnp.zeros(hidden))
            final_carry, hs = lax.scan(step, init, xs)
            last_h = hs[-1]
        """,
        check="""
            def sig(v):
                return 1.0 / (1.0 + np.exp(-v))
            Wxn, Whn = np.full((3, 16), 0.1), np.full((4, 16), -0.05)
            xn = np.linspace(-1.0, 1.0, 18).reshape(6, 3)
            c = h = np.zeros(4)
            outs = []
            for x in xn:
                z = x @ Wxn + h @ Whn
                i, f, g, o = np.split(z, 4)
                c = sig(f) * c + sig(i) * np.tanh(g)
                h = sig(o) * np.tanh(c)
                outs.append(h)
            np.testing.assert_allclose(np.asarray(hs), np.stack(outs), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(last_h), outs[-1], rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
            def step(carry, x):
                c, h = lstm_cell(carry, x)
                return (jnp.zeros(hidden), h), h

            init = (jnp.zeros(hidden), jnp.zeros(hidden))
            final_carry, hs = lax.scan(step, init, xs)
            last_h = hs[-1]
        """,
        alt_fixes=[
            """
            def step(carry, x):
                c, h = lstm_cell(carry, x)
                return (c, h), h

            init = (jnp.zeros(hidden), jnp.zeros(hidden))
            final_carry, hs = lax.scan(step, init, xs)
            last_h = hs[-1]
            """,
            """
            def step(carry, x):
                new_carry = lstm_cell(carry, x)
                return new_carry, new_carry[1]

            init = (jnp.zeros(hidden), jnp.zeros(hidden))
            final_carry, hs = lax.scan(step, init, xs)
            last_h = final_carry[1]
            """,
        ],
        source="https://github.com/google/flax/pull/5469",
    ),
    case(
        id="td-scan-eqx-rollout-list-carry",
        kind="scan-carry-tree-mismatch",
        setup=SETUP + """
            import equinox as eqx
            from jax import lax
            drive = jnp.asarray(np.sin(np.linspace(0, 3, 40)), dtype=jnp.float32)
        """,
        earlier="""
            class LeakyNeuron(eqx.Module):
                tau: float
                gain: float

                def rollout(self, v0, inputs, dt=0.1):
                    def step(carry, u):
                        v = carry[0]
                        v = v + dt / self.tau * (-v + self.gain * u)
                        return v, v

                    _, trace = lax.scan(step, [v0], inputs)
                    return trace
        """,
        cell="""
            neuron = LeakyNeuron(tau=0.5, gain=2.0)
            trace = neuron.rollout(jnp.zeros(()), drive)
            peak = trace.max()
        """,
        check="""
            v, out = 0.0, []
            for u in np.sin(np.linspace(0, 3, 40)):
                v = v + 0.1 / 0.5 * (-v + 2.0 * u)
                out.append(v)
            np.testing.assert_allclose(np.asarray(trace).reshape(-1), np.array(out), rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(float(peak), max(out), rtol=1e-4)
        """,
        wrong_fix="""
            class LeakyNeuron(eqx.Module):
                tau: float
                gain: float

                def rollout(self, v0, inputs, dt=0.1):
                    def step(carry, u):
                        v = carry[0]
                        v = v + dt / self.tau * (-v + self.gain * u)
                        return [v], v

                    _, trace = lax.scan(step, [v0], inputs[::-1])
                    return trace
        """,
        alt_fixes=[
            """
            class LeakyNeuron(eqx.Module):
                tau: float
                gain: float

                def rollout(self, v0, inputs, dt=0.1):
                    def step(carry, u):
                        v = carry
                        v = v + dt / self.tau * (-v + self.gain * u)
                        return v, v

                    _, trace = lax.scan(step, v0, inputs)
                    return trace
            """,
            """
            class LeakyNeuron(eqx.Module):
                tau: float
                gain: float

                def rollout(self, v0, inputs, dt=0.1):
                    def step(carry, u):
                        v = carry[0]
                        v = v + dt / self.tau * (-v + self.gain * u)
                        return [v], v

                    _, trace = lax.scan(step, [v0], inputs)
                    return trace
            """,
        ],
        source="https://github.com/patrick-kidger/equinox/issues/630",
    ),
    case(
        id="td-scan-welford-extra-key-jit",
        kind="scan-carry-tree-mismatch",
        setup=SETUP + """
            import functools
            rng = np.random.default_rng(3)
            frames = jnp.asarray(rng.normal(loc=2.0, size=(30, 5)), dtype=jnp.float32)
        """,
        cell="""
            @functools.partial(jax.jit, static_argnames="n_features")
            def feature_stats(frames, n_features):
                def welford(state, x):
                    n = state["n"] + 1.0
                    delta = x - state["mean"]
                    mean = state["mean"] + delta / n
                    m2 = state["m2"] + delta * (x - mean)
                    return {"n": n, "mean": mean, "m2": m2, "var": m2 / n}, None

                init = {"n": jnp.zeros(()), "mean": jnp.zeros(n_features), "m2": jnp.zeros(n_features)}
                final, _ = jax.lax.scan(welford, init, frames)
                return final

            stats = feature_stats(frames, n_features=5)
            feat_mean, feat_var = stats["mean"], stats["var"]
        """,
        check="""
            fr = np.asarray(frames, np.float64)
            np.testing.assert_allclose(np.asarray(feat_mean), fr.mean(0), rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(feat_var), fr.var(0), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
            @functools.partial(jax.jit, static_argnames="n_features")
            def feature_stats(frames, n_features):
                def welford(state, x):
                    n = state["n"] + 1.0
                    delta = x - state["mean"]
                    mean = state["mean"] + delta / n
                    m2 = state["m2"] + delta * (x - mean)
                    return {"n": n, "mean": mean, "m2": m2}, None

                init = {"n": jnp.zeros(()), "mean": jnp.zeros(n_features), "m2": jnp.zeros(n_features)}
                final, _ = jax.lax.scan(welford, init, frames)
                return final

            stats = feature_stats(frames, n_features=5)
            feat_mean, feat_var = stats["mean"], stats["m2"]
        """,
        alt_fixes=[
            """
            @functools.partial(jax.jit, static_argnames="n_features")
            def feature_stats(frames, n_features):
                def welford(state, x):
                    n = state["n"] + 1.0
                    delta = x - state["mean"]
                    mean = state["mean"] + delta / n
                    m2 = state["m2"] + delta * (x - mean)
                    return {"n": n, "mean": mean, "m2": m2, "var": m2 / n}, None

                init = {"n": jnp.zeros(()), "mean": jnp.zeros(n_features), "m2": jnp.zeros(n_features),
                        "var": jnp.zeros(n_features)}
                final, _ = jax.lax.scan(welford, init, frames)
                return final

            stats = feature_stats(frames, n_features=5)
            feat_mean, feat_var = stats["mean"], stats["var"]
            """,
            """
            @functools.partial(jax.jit, static_argnames="n_features")
            def feature_stats(frames, n_features):
                def welford(state, x):
                    n = state["n"] + 1.0
                    delta = x - state["mean"]
                    mean = state["mean"] + delta / n
                    m2 = state["m2"] + delta * (x - mean)
                    return {"n": n, "mean": mean, "m2": m2}, m2 / n

                init = {"n": jnp.zeros(()), "mean": jnp.zeros(n_features), "m2": jnp.zeros(n_features)}
                final, var_history = jax.lax.scan(welford, init, frames)
                return {**final, "var": var_history[-1]}

            stats = feature_stats(frames, n_features=5)
            feat_mean, feat_var = stats["mean"], stats["var"]
            """,
        ],
        source="https://github.com/jax-ml/jax/pull/15178",
    ),
]
