"""Removed/renamed APIs, lists and ints where arrays and keys belong, NumPy on tracers, dtypes."""

import textwrap

from rewrite_cases import case

_d = textwrap.dedent

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

PARAMS = SETUP + _d("""
params = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}
grads = {"w": jnp.array([0.1, -0.2]), "b": jnp.array(1.0)}
""")

KEYS = SETUP + _d("""
def key_bits(k):
    # raw uint32 data of a key, typed or not, to compare keys made in different ways
    return np.asarray(jax.random.key_data(k) if jnp.issubdtype(k.dtype, jax.dtypes.prng_key) else k)
""")

CASES = [
    # ------------------------------------------------------------------ removed jax.tree_* functions
    case(
        "tree-map-sgd-step", "removed-jax-tree-functions", setup=PARAMS,
        cell="""
        lr = 0.1
        # plain SGD over every leaf
        new_params = jax.tree_map(lambda p, g: p - lr * g, params, grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(new_params["w"]), [0.99, 2.02], rtol=1e-6)
        np.testing.assert_allclose(float(new_params["b"]), 0.4, rtol=1e-6)
        """,
        wrong_fix="""
        lr = 0.1
        new_params = jax.tree.map(lambda p: p - lr, params)
        """,
    ),
    case(
        "tree-leaves-param-count", "removed-jax-tree-functions", setup=SETUP + _d("""
        model = {"dense": {"kernel": jnp.ones((3, 4)), "bias": jnp.zeros(4)}, "out": jnp.ones((4, 2))}
        """),
        cell="""
        def count_params(tree):
            \"\"\"Total number of scalars in a parameter tree.\"\"\"
            return sum(x.size for x in jax.tree_leaves(tree))

        n_params = count_params(model)
        print(f"{n_params:,} parameters")
        """,
        check="""
        assert n_params == 3 * 4 + 4 + 4 * 2, n_params
        """,
        wrong_fix="""
        def count_params(tree):
            return len(jax.tree.leaves(tree))

        n_params = count_params(model)
        """,
    ),
    case(
        "tree-flatten-unflatten-roundtrip", "removed-jax-tree-functions", setup=SETUP + _d("""
        state = (jnp.arange(3.0), {"m": jnp.ones(2)})
        """),
        cell="""
        leaves, treedef = jax.tree_flatten(state)
        leaves = [leaf * 2 for leaf in leaves]
        doubled = jax.tree_unflatten(treedef, leaves)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(doubled[0]), [0.0, 2.0, 4.0])
        np.testing.assert_allclose(np.asarray(doubled[1]["m"]), [2.0, 2.0])
        """,
        wrong_fix="""
        leaves, treedef = jax.tree.flatten(state)
        doubled = jax.tree.unflatten(treedef, leaves)
        """,
    ),
    case(
        "tree-reduce-global-norm-jit", "removed-jax-tree-functions", setup=PARAMS,
        cell="""
        @jax.jit
        def global_norm(tree):
            squares = jax.tree_map(lambda g: jnp.sum(g ** 2), tree)
            return jnp.sqrt(jax.tree_reduce(lambda a, b: a + b, squares))

        gn = global_norm(grads)
        """,
        check="""
        ref = np.sqrt(0.1 ** 2 + 0.2 ** 2 + 1.0 ** 2)
        np.testing.assert_allclose(float(gn), ref, rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def global_norm(tree):
            return jnp.sqrt(jnp.sum(tree["w"] ** 2))

        gn = global_norm(grads)
        """,
    ),
    case(
        "tree-structure-checkpoint-method", "removed-jax-tree-functions", setup=PARAMS,
        cell="""
        class Checkpoint:
            def __init__(self, tree):
                self.tree = tree

            def compatible(self, other) -> bool:
                # same nesting and same leaf count
                return jax.tree_structure(self.tree) == jax.tree_structure(other)

        ok = Checkpoint(params).compatible({"w": jnp.zeros(2), "b": jnp.zeros(())})
        bad = Checkpoint(params).compatible([jnp.zeros(2)])
        """,
        check="""
        assert ok is True and bad is False, (ok, bad)
        """,
        wrong_fix="""
        class Checkpoint:
            def __init__(self, tree):
                self.tree = tree

            def compatible(self, other) -> bool:
                return True

        ok = Checkpoint(params).compatible({"w": jnp.zeros(2), "b": jnp.zeros(())})
        bad = Checkpoint(params).compatible([jnp.zeros(2)])
        """,
    ),
    case(
        "jx-alias-tree-map-clip-jit", "removed-jax-tree-functions", setup="""
        import numpy as np
        import jax as jx
        import jax.numpy as jnp
        grads = {"w": jnp.array([3.0, -4.0]), "b": jnp.array(0.5)}
        """,
        cell="""
        @jx.jit
        def clip_grads(g, limit=1.0):
            # elementwise clipping of every gradient leaf
            return jx.tree_map(lambda x: jnp.clip(x, -limit, limit), g)

        clipped = clip_grads(grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(clipped["w"]), [1.0, -1.0])
        np.testing.assert_allclose(float(clipped["b"]), 0.5)
        """,
        wrong_fix="""
        @jx.jit
        def clip_grads(g, limit=1.0):
            return jx.tree.map(lambda x: x / limit, g)

        clipped = clip_grads(grads)
        """,
    ),
    # ------------------------------------------------------------------ tree_multimap
    case(
        "tree-multimap-ema", "removed-tree-multimap", setup=PARAMS + _d("""
        ema = {"w": jnp.zeros(2), "b": jnp.array(0.0)}
        """),
        cell="""
        decay = 0.9
        ema = jax.tree_multimap(lambda e, p: decay * e + (1 - decay) * p, ema, params)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ema["w"]), [0.1, 0.2], rtol=1e-5)
        np.testing.assert_allclose(float(ema["b"]), 0.05, rtol=1e-5)
        """,
        wrong_fix="""
        decay = 0.9
        ema = jax.tree.map(lambda p: decay * p, params)
        """,
    ),
    case(
        "tree-util-multimap-adam-moments", "removed-tree-multimap", setup="""
        import numpy as np
        import jax.numpy as jnp
        from jax import tree_util
        grads = [jnp.array([1.0, -2.0]), jnp.array(3.0)]
        m = [jnp.zeros(2), jnp.array(0.0)]
        v = [jnp.zeros(2), jnp.array(0.0)]
        """,
        cell="""
        def adam_moments(m, v, grads, b1=0.9, b2=0.999):
            m = tree_util.tree_multimap(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
            v = tree_util.tree_multimap(lambda v_, g: b2 * v_ + (1 - b2) * g ** 2, v, grads)
            return m, v

        m, v = adam_moments(m, v, grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(m[0]), [0.1, -0.2], rtol=1e-5)
        np.testing.assert_allclose(float(v[1]), 0.001 * 9.0, rtol=1e-4)
        """,
        wrong_fix="""
        def adam_moments(m, v, grads, b1=0.9, b2=0.999):
            m = tree_util.tree_map(lambda m_, g: b1 * m_ + (1 - b1) * g, m, grads)
            return m, v

        m, v = adam_moments(m, v, grads)
        """,
    ),
    case(
        "tree-multimap-alias-elementwise-max", "removed-tree-multimap", setup=SETUP,
        cell="""
        from jax import tree_util as tu

        run_a = {"loss": jnp.array([0.5, 0.9]), "acc": jnp.array(0.7)}
        run_b = {"loss": jnp.array([0.6, 0.2]), "acc": jnp.array(0.8)}
        best = tu.tree_multimap(jnp.maximum, run_a, run_b)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(best["loss"]), [0.6, 0.9])
        np.testing.assert_allclose(float(best["acc"]), 0.8)
        """,
        wrong_fix="""
        from jax import tree_util as tu

        run_a = {"loss": jnp.array([0.5, 0.9]), "acc": jnp.array(0.7)}
        run_b = {"loss": jnp.array([0.6, 0.2]), "acc": jnp.array(0.8)}
        best = tu.tree_map(jnp.maximum, run_a, run_a)
        """,
    ),
    case(
        "tree-util-multimap-full-path-jit", "removed-tree-multimap", setup=PARAMS,
        cell="""
        @jax.jit
        def sgd_momentum(params, grads, velocity, lr=0.1, mu=0.9):
            velocity = jax.tree_util.tree_multimap(lambda v, g: mu * v + g, velocity, grads)
            params = jax.tree_util.tree_multimap(lambda p, v: p - lr * v, params, velocity)
            return params, velocity

        velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
        params, velocity = sgd_momentum(params, grads, velocity)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(params["w"]), [0.99, 2.02], rtol=1e-5)
        np.testing.assert_allclose(np.asarray(velocity["w"]), [0.1, -0.2], rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def sgd_momentum(params, grads, velocity, lr=0.1, mu=0.9):
            params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
            return params, velocity

        velocity = jax.tree_util.tree_map(jnp.zeros_like, params)
        params, velocity = sgd_momentum(params, grads, velocity)
        """,
    ),
    # ------------------------------------------------------------------ jax.random.KeyArray
    case(
        "keyarray-annotation-sampler", "removed-jax-random-keyarray", setup=SETUP,
        cell="""
        def sample_noise(key: jax.random.KeyArray, n: int) -> jax.Array:
            return jax.random.normal(key, (n,))

        noise = sample_noise(jax.random.key(0), 4)
        """,
        check="""
        assert noise.shape == (4,)
        np.testing.assert_allclose(np.asarray(noise), np.asarray(jax.random.normal(jax.random.key(0), (4,))))
        """,
        wrong_fix="""
        def sample_noise(key, n):
            return jax.random.normal(jax.random.key(1), (n,))

        noise = sample_noise(jax.random.key(0), 4)
        """,
    ),
    case(
        "keyarray-dataclass-field", "removed-jax-random-keyarray", setup=KEYS,
        cell="""
        from dataclasses import dataclass

        @dataclass
        class TrainState:
            step: int
            rng: jax.random.KeyArray

            def next_key(self):
                self.rng, sub = jax.random.split(self.rng)
                return sub

        state = TrainState(step=0, rng=jax.random.PRNGKey(42))
        k = state.next_key()
        """,
        check="""
        np.testing.assert_array_equal(key_bits(k), key_bits(jax.random.split(jax.random.PRNGKey(42))[1]))
        """,
        wrong_fix="""
        from dataclasses import dataclass

        @dataclass
        class TrainState:
            step: int
            rng: jax.Array

            def next_key(self):
                return self.rng

        state = TrainState(step=0, rng=jax.random.PRNGKey(42))
        k = state.next_key()
        """,
    ),
    case(
        "keyarray-isinstance-helper", "removed-jax-random-keyarray", setup=KEYS,
        cell="""
        def as_key(k):
            \"\"\"Accept a key or an int seed.\"\"\"
            if isinstance(k, jax.random.KeyArray):
                return k
            return jax.random.key(k)

        keys = [as_key(jax.random.key(3)), as_key(5)]
        """,
        check="""
        np.testing.assert_array_equal(key_bits(keys[0]), key_bits(jax.random.key(3)))
        np.testing.assert_array_equal(key_bits(keys[1]), key_bits(jax.random.key(5)))
        """,
        wrong_fix="""
        def as_key(k):
            return jax.random.key(0)

        keys = [as_key(jax.random.key(3)), as_key(5)]
        """,
    ),
    case(
        "keyarray-from-random-split-many", "removed-jax-random-keyarray", setup=KEYS + _d("""
        from jax import random
        """),
        cell="""
        def split_many(key: random.KeyArray, n: int) -> list[random.KeyArray]:
            return list(random.split(key, n))

        keys = split_many(random.key(0), 3)
        """,
        check="""
        ref = jax.random.split(jax.random.key(0), 3)
        assert len(keys) == 3
        for a, b in zip(keys, ref):
            np.testing.assert_array_equal(key_bits(a), key_bits(b))
        """,
        wrong_fix="""
        def split_many(key, n):
            return [key] * n

        keys = split_many(random.key(0), 3)
        """,
    ),
    # ------------------------------------------------------------------ removed jax.numpy aliases
    case(
        "jnp-product-geometric-mean", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        def geometric_mean(x):
            return jnp.product(x) ** (1.0 / x.size)

        g = geometric_mean(jnp.array([1.0, 2.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(float(g), 2.0, rtol=1e-6)
        """,
        wrong_fix="""
        def geometric_mean(x):
            return jnp.sum(x) ** (1.0 / x.size)

        g = geometric_mean(jnp.array([1.0, 2.0, 4.0]))
        """,
    ),
    case(
        "jnp-round-underscore-quantize-jit", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        @jax.jit
        def quantize(x):
            # keep two decimals, as the export format expects
            return jnp.round_(x, 2)

        q = quantize(jnp.array([0.123, 1.987, -2.555]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(q), np.round(np.array([0.123, 1.987, -2.555], np.float32), 2), atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def quantize(x):
            return jnp.round(x)

        q = quantize(jnp.array([0.123, 1.987, -2.555]))
        """,
    ),
    case(
        "jnp-alltrue-sometrue-validation", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        batch = jnp.array([[1.0, 2.0], [jnp.nan, 0.0]])
        all_finite = bool(jnp.alltrue(jnp.isfinite(batch)))
        any_nan = bool(jnp.sometrue(jnp.isnan(batch)))
        """,
        check="""
        assert all_finite is False and any_nan is True, (all_finite, any_nan)
        """,
        wrong_fix="""
        batch = jnp.array([[1.0, 2.0], [jnp.nan, 0.0]])
        all_finite = bool(jnp.any(jnp.isfinite(batch)))
        any_nan = bool(jnp.any(jnp.isnan(batch)))
        """,
    ),
    case(
        "jnp-devicearray-annotations", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        def standardize(x: jnp.DeviceArray) -> jnp.DeviceArray:
            return (x - x.mean()) / x.std()

        z = standardize(jnp.array([1.0, 2.0, 3.0]))
        """,
        check="""
        ref = np.array([1.0, 2.0, 3.0]); ref = (ref - ref.mean()) / ref.std()
        np.testing.assert_allclose(np.asarray(z), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def standardize(x):
            return x - x.mean()

        z = standardize(jnp.array([1.0, 2.0, 3.0]))
        """,
    ),
    case(
        "jnp-ninf-masked-max", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        scores = jnp.array([0.2, 3.0, -1.0, 5.0])
        valid = jnp.array([True, True, True, False])
        best = jnp.where(valid, scores, jnp.NINF).max()
        """,
        check="""
        assert float(best) == 3.0, best
        """,
        wrong_fix="""
        scores = jnp.array([0.2, 3.0, -1.0, 5.0])
        valid = jnp.array([True, True, True, False])
        best = jnp.where(valid, scores, 0.0).max() + scores.max()
        """,
    ),
    case(
        "jnp-trapz-integral", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        t = jnp.linspace(0.0, 1.0, 101)
        area = jnp.trapz(t ** 2, t)
        """,
        check="""
        np.testing.assert_allclose(float(area), 1 / 3, atol=1e-4)
        """,
        wrong_fix="""
        t = jnp.linspace(0.0, 1.0, 101)
        area = jnp.sum(t ** 2)
        """,
    ),
    case(
        "jnp-typo-not-a-removed-alias", "removed-jnp-numpy-alias", setup=SETUP,
        cell="""
        def act(x):
            return jnp.tanhh(x)

        y = act(jnp.array([0.5, -0.5]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.tanh([0.5, -0.5]), rtol=1e-6)
        """,
        wrong_fix="""
        def act(x):
            return jnp.sin(x)

        y = act(jnp.array([0.5, -0.5]))
        """,
    ),
    # ------------------------------------------------------------------ removed top-level names
    case(
        "abstract-arrays-eval-shape", "removed-jax-top-level-name", setup=SETUP,
        cell="""
        spec = jax.abstract_arrays.ShapedArray((8, 3), jnp.float32)
        out = jax.eval_shape(lambda x: x @ jnp.ones((3, 2)), spec)
        """,
        check="""
        assert out.shape == (8, 2) and out.dtype == np.float32, out
        """,
        wrong_fix="""
        out = jax.eval_shape(lambda x: x @ jnp.ones((3, 2)), jnp.ones((3, 3)))
        """,
    ),
    case(
        "abstract-arrays-isinstance-aval", "removed-jax-top-level-name", setup=SETUP,
        cell="""
        def is_shaped(x):
            return isinstance(jax.typeof(x), jax.abstract_arrays.ShapedArray)

        flags = [is_shaped(jnp.ones(3)), is_shaped(1.0)]
        """,
        check="""
        assert flags == [True, True], flags
        """,
        wrong_fix="""
        def is_shaped(x):
            return hasattr(x, "shape")

        flags = [is_shaped(jnp.ones(3)), is_shaped(1.0)]
        """,
    ),
    case(
        "xla-computation-hlo-text", "removed-jax-top-level-name", setup=SETUP,
        cell="""
        def f(x):
            return jnp.sin(x) * 2

        hlo = jax.xla_computation(f)(jnp.ones(3)).as_hlo_text()
        """,
        check="""
        assert "sine" in hlo, hlo[:200]
        """,
        wrong_fix="""
        def f(x):
            return jnp.sin(x) * 2

        hlo = str(jax.make_jaxpr(f)(jnp.ones(3)))
        """,
    ),
    # ------------------------------------------------------------------ device_put_replicated / sharded
    case(
        "device-put-replicated-params-pmap", "removed-device-put-replicated-sharded", setup=PARAMS,
        cell="""
        devices = jax.local_devices()
        replicated = jax.device_put_replicated(params, devices)

        @jax.pmap
        def predict(p):
            return p["w"] * 2 + p["b"]

        out = predict(replicated)
        """,
        check="""
        n = jax.local_device_count()
        np.testing.assert_allclose(np.asarray(out), np.tile([2.5, 4.5], (n, 1)))
        """,
        wrong_fix="""
        replicated = jax.tree.map(lambda x: jnp.stack([x] * 2), params)

        @jax.pmap
        def predict(p):
            return p["w"] * 2 + p["b"]

        out = predict(replicated)
        """,
    ),
    case(
        "device-put-replicated-array-two-devices", "removed-device-put-replicated-sharded", setup=SETUP,
        cell="""
        weights = jnp.arange(3.0)
        copies = jax.device_put_replicated(weights, jax.devices()[:2])
        """,
        check="""
        assert copies.shape == (2, 3), copies.shape
        np.testing.assert_allclose(np.asarray(copies), [[0.0, 1.0, 2.0]] * 2)
        assert len(copies.sharding.device_set) == 2
        """,
        wrong_fix="""
        weights = jnp.arange(3.0)
        copies = jax.device_put(weights, jax.devices()[0])
        """,
    ),
    case(
        "device-put-sharded-batches", "removed-device-put-replicated-sharded", setup=SETUP,
        cell="""
        devices = jax.local_devices()
        shards = [jnp.full((2,), float(i)) for i in range(len(devices))]
        batch = jax.device_put_sharded(shards, devices)
        totals = jax.pmap(jnp.sum)(batch)
        """,
        check="""
        n = jax.local_device_count()
        np.testing.assert_allclose(np.asarray(totals), [2.0 * i for i in range(n)])
        """,
        wrong_fix="""
        devices = jax.local_devices()
        shards = [jnp.full((2,), float(i)) for i in range(len(devices))]
        batch = jnp.concatenate(shards).reshape(len(devices), 2)[::-1]
        totals = jax.pmap(jnp.sum)(batch)
        """,
    ),
    case(
        "device-put-sharded-pytree-shards", "removed-device-put-replicated-sharded", setup=SETUP,
        cell="""
        devs = jax.devices()
        per_device = [{"x": jnp.ones(3) * i, "y": jnp.array(i)} for i in range(len(devs))]
        stacked = jax.device_put_sharded(per_device, devs)
        """,
        check="""
        n = jax.device_count()
        assert stacked["x"].shape == (n, 3) and stacked["y"].shape == (n,)
        np.testing.assert_allclose(np.asarray(stacked["y"]), np.arange(n))
        np.testing.assert_allclose(np.asarray(stacked["x"])[:, 0], np.arange(n))
        """,
        wrong_fix="""
        devs = jax.devices()
        per_device = [{"x": jnp.ones(3) * i, "y": jnp.array(i)} for i in range(len(devs))]
        stacked = jax.tree.map(lambda *xs: jnp.concatenate(xs), *per_device)
        """,
    ),
    # ------------------------------------------------------------------ jax.core names removed with a message
    case(
        "core-get-aval-describe", "removed-jax-core-name", setup=SETUP + _d("""
        batch = {"tokens": jnp.zeros((4, 16), jnp.int32), "mask": jnp.ones((4, 16), bool)}
        """),
        cell="""
        def describe(tree):
            return {name: (jax.core.get_aval(v).shape, str(jax.core.get_aval(v).dtype)) for name, v in tree.items()}

        info = describe(batch)
        """,
        check="""
        assert info == {"tokens": ((4, 16), "int32"), "mask": ((4, 16), "bool")}, info
        """,
        wrong_fix="""
        def describe(tree):
            return {name: (v.shape, "float32") for name, v in tree.items()}

        info = describe(batch)
        """,
    ),
    case(
        "core-get-aval-in-jit", "removed-jax-core-name", setup=SETUP,
        cell="""
        @jax.jit
        def center_rows(x):
            n_cols = jax.core.get_aval(x).shape[1]
            return x - x.sum(axis=1, keepdims=True) / n_cols

        out = center_rows(jnp.array([[1.0, 3.0], [2.0, 6.0]]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [[-1.0, 1.0], [-2.0, 2.0]])
        """,
        wrong_fix="""
        @jax.jit
        def center_rows(x):
            return x - x.sum(axis=1, keepdims=True)

        out = center_rows(jnp.array([[1.0, 3.0], [2.0, 6.0]]))
        """,
    ),
    case(
        "core-subjaxprs-count", "removed-jax-core-name", setup=SETUP + _d("""
        from jax import lax
        """),
        cell="""
        def f(x):
            return lax.cond(x > 0, jnp.sin, jnp.cos, x)

        closed = jax.make_jaxpr(f)(1.0)
        n_branches = len(list(jax.core.subjaxprs(closed.jaxpr)))
        """,
        check="""
        assert n_branches == 2, n_branches
        """,
        wrong_fix="""
        def f(x):
            return lax.cond(x > 0, jnp.sin, jnp.cos, x)

        closed = jax.make_jaxpr(f)(1.0)
        n_branches = len(closed.jaxpr.eqns)
        """,
    ),
    # ------------------------------------------------------------------ jax.core internals moved to jax.extend.core
    case(
        "core-primitive-custom-op", "removed-jax-core-attribute", setup=SETUP,
        cell="""
        double_p = jax.core.Primitive("double")
        double_p.def_impl(lambda x: 2 * x)
        double_p.def_abstract_eval(lambda aval: aval)

        def double(x):
            return double_p.bind(x)

        y = double(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), [0.0, 2.0, 4.0])
        """,
        wrong_fix="""
        from jax.extend.core import Primitive
        double_p = Primitive("double")
        double_p.def_impl(lambda x: x)
        double_p.def_abstract_eval(lambda aval: aval)

        def double(x):
            return double_p.bind(x)

        y = double(jnp.arange(3.0))
        """,
    ),
    case(
        "core-literal-count-jaxpr", "removed-jax-core-attribute", setup=SETUP,
        cell="""
        def count_literals(closed):
            assert isinstance(closed, jax.core.ClosedJaxpr)
            n = 0
            for eqn in closed.jaxpr.eqns:
                n += sum(isinstance(v, jax.core.Literal) for v in eqn.invars)
            return n

        n_lit = count_literals(jax.make_jaxpr(lambda x: x * 2.0 + x + 1.0)(1.0))
        """,
        check="""
        assert n_lit == 2, n_lit
        """,
        wrong_fix="""
        def count_literals(closed):
            return len(closed.jaxpr.eqns)

        n_lit = count_literals(jax.make_jaxpr(lambda x: x * 2.0 + x + 1.0)(1.0))
        """,
    ),
    case(
        "core-jaxpr-as-fun-replay", "removed-jax-core-attribute", setup=SETUP,
        cell="""
        closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 3)(1.0)
        replay = jax.core.jaxpr_as_fun(closed)
        y = replay(jnp.float32(0.5))[0]
        """,
        check="""
        np.testing.assert_allclose(float(y), np.sin(0.5) * 3, rtol=1e-6)
        """,
        wrong_fix="""
        closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 3)(1.0)
        y = jnp.sin(0.5)
        """,
    ),
    # ------------------------------------------------------------------ Python lists into jax.numpy
    case(
        "list-of-losses-mean", "jnp-list-argument", setup=SETUP + _d("""
        batches = [jnp.array([1.0, 2.0]), jnp.array([0.0, 4.0]), jnp.array([3.0, 1.0])]
        """),
        cell="""
        losses = []
        for batch in batches:
            losses.append(jnp.mean((batch - 1.0) ** 2))
        mean_loss = jnp.mean(losses)
        """,
        check="""
        ref = np.mean([np.mean((np.asarray(b) - 1.0) ** 2) for b in batches])
        np.testing.assert_allclose(float(mean_loss), ref, rtol=1e-6)
        """,
        wrong_fix="""
        losses = []
        for batch in batches:
            losses.append(jnp.mean((batch - 1.0) ** 2))
        mean_loss = losses[-1]
        """,
    ),
    case(
        "maximum-with-list-floor", "jnp-list-argument", setup=SETUP,
        cell="""
        scores = jnp.array([0.2, 0.1, 3.0])
        floored = jnp.maximum(scores, [0.0, 0.5, 1.0])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(floored), np.maximum([0.2, 0.1, 3.0], [0.0, 0.5, 1.0]), rtol=1e-6)
        """,
        wrong_fix="""
        scores = jnp.array([0.2, 0.1, 3.0])
        floored = jnp.maximum(scores, 0.0)
        """,
    ),
    case(
        "linalg-norm-of-list-in-function", "jnp-list-argument", setup=SETUP,
        cell="""
        def distance(p, q):
            dx = q[0] - p[0]
            dy = q[1] - p[1]
            return jnp.linalg.norm([dx, dy])

        d = distance(jnp.array([0.0, 0.0]), jnp.array([3.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(float(d), 5.0, rtol=1e-6)
        """,
        wrong_fix="""
        def distance(p, q):
            dx = q[0] - p[0]
            dy = q[1] - p[1]
            return jnp.abs(dx) + jnp.abs(dy)

        d = distance(jnp.array([0.0, 0.0]), jnp.array([3.0, 4.0]))
        """,
    ),
    case(
        "where-with-python-mask-jit", "jnp-list-argument", setup=SETUP,
        cell="""
        keep = [True, False, True, True]

        @jax.jit
        def mask_out(x):
            return jnp.where(keep, x, 0.0)

        masked = mask_out(jnp.arange(1.0, 5.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(masked), [1.0, 0.0, 3.0, 4.0])
        """,
        wrong_fix="""
        @jax.jit
        def mask_out(x):
            return x

        masked = mask_out(jnp.arange(1.0, 5.0))
        """,
    ),
    case(
        "clip-with-list-bounds", "jnp-list-argument", setup=SETUP,
        cell="""
        logits = jnp.array([-5.0, -0.3, 9.0])
        clipped = jnp.clip(logits, [-1.0, 0.0, 0.0], 2.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(clipped), np.clip([-5.0, -0.3, 9.0], [-1.0, 0.0, 0.0], 2.0), rtol=1e-6)
        """,
        wrong_fix="""
        logits = jnp.array([-5.0, -0.3, 9.0])
        clipped = jnp.clip(logits, -1.0, 2.0)
        """,
    ),
    case(
        "std-of-tuple-of-metrics", "jnp-list-argument", setup="""
        import numpy as np
        from jax import numpy as jnp
        """,
        cell="""
        acc_run1, acc_run2, acc_run3 = 0.81, 0.79, 0.84
        spread = jnp.std((acc_run1, acc_run2, acc_run3))
        """,
        check="""
        np.testing.assert_allclose(float(spread), np.std([0.81, 0.79, 0.84]), rtol=1e-5)
        """,
        wrong_fix="""
        acc_run1, acc_run2, acc_run3 = 0.81, 0.79, 0.84
        spread = jnp.std(jnp.asarray(acc_run1))
        """,
    ),
    case(
        "mean-minus-std-same-list", "jnp-list-argument", setup=SETUP,
        cell="""
        rewards = [1.0, 3.0, 2.0, 6.0]
        normalized_first = (rewards[0] - jnp.mean(rewards)) / jnp.std(rewards)
        """,
        check="""
        r = np.array([1.0, 3.0, 2.0, 6.0])
        np.testing.assert_allclose(float(normalized_first), (r[0] - r.mean()) / r.std(), rtol=1e-5)
        """,
        wrong_fix="""
        rewards = [1.0, 3.0, 2.0, 6.0]
        normalized_first = (rewards[0] - jnp.mean(jnp.asarray(rewards))) / jnp.std(jnp.asarray(rewards[:2]))
        """,
    ),
    # ------------------------------------------------------------------ int seed where a key goes
    case(
        "normal-with-int-seed", "prng-key-not-array", setup=SETUP,
        cell="""
        noise = jax.random.normal(0, (3,))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(noise), np.asarray(jax.random.normal(jax.random.key(0), (3,))))
        """,
        wrong_fix="""
        noise = jax.random.normal(jax.random.key(1), (3,))
        """,
    ),
    case(
        "two-int-seeds-two-names", "prng-key-not-array", setup=SETUP,
        # two seeds under two names: both become keys, or the cell fails again at the second draw
        cell="""
        data_seed, init_seed = 0, 1
        x = jax.random.normal(data_seed, (4,))
        w = jax.random.uniform(init_seed, (4,))
        y = x * w
        """,
        check="""
        ref = np.asarray(jax.random.normal(jax.random.key(0), (4,))) * np.asarray(
            jax.random.uniform(jax.random.key(1), (4,)))
        np.testing.assert_allclose(np.asarray(y), ref, rtol=1e-6)
        """,
        wrong_fix="""
        data_seed, init_seed = 0, 1
        x = jax.random.normal(jax.random.key(data_seed), (4,))
        w = jax.random.uniform(jax.random.key(data_seed), (4,))
        y = x * w
        """,
    ),
    case(
        "int-seed-split-in-a-loop", "prng-key-not-array", setup=SETUP,
        # the seed is split on every step: the key must be made where the seed is written, not at the split
        cell="""
        key = 0
        samples = []
        for _ in range(3):
            key, sub = jax.random.split(key)
            samples.append(jax.random.normal(sub, (2,)))
        batch = jnp.stack(samples)
        """,
        check="""
        k = jax.random.key(0)
        ref = []
        for _ in range(3):
            k, s = jax.random.split(k)
            ref.append(np.asarray(jax.random.normal(s, (2,))))
        np.testing.assert_allclose(np.asarray(batch), np.stack(ref), rtol=1e-6)
        """,
        wrong_fix="""
        samples = [jax.random.normal(jax.random.key(i), (2,)) for i in range(3)]
        batch = jnp.stack(samples)
        """,
    ),
    case(
        "split-int-from-random-import", "prng-key-not-array", setup=KEYS + _d("""
        from jax import random
        """),
        cell="""
        k_init, k_dropout = random.split(42)
        w = random.normal(k_init, (2, 2))
        """,
        check="""
        ref = jax.random.split(jax.random.key(42))
        np.testing.assert_array_equal(key_bits(k_dropout), key_bits(ref[1]))
        np.testing.assert_allclose(np.asarray(w), np.asarray(jax.random.normal(ref[0], (2, 2))))
        """,
        wrong_fix="""
        k_init, k_dropout = random.split(random.key(0))
        w = random.normal(k_init, (2, 2))
        """,
    ),
    case(
        "seed-parameter-init-layer", "prng-key-not-array", setup=SETUP,
        cell="""
        def init_layer(seed, n_in, n_out):
            w = jax.random.normal(seed, (n_in, n_out)) * 0.1
            return w

        W = init_layer(0, 3, 2)
        """,
        check="""
        ref = np.asarray(jax.random.normal(jax.random.key(0), (3, 2))) * 0.1
        np.testing.assert_allclose(np.asarray(W), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def init_layer(seed, n_in, n_out):
            return jnp.zeros((n_in, n_out))

        W = init_layer(0, 3, 2)
        """,
    ),
    case(
        "key-parameter-called-with-int", "prng-key-not-array", setup=SETUP,
        cell="""
        def init_mlp(key, sizes):
            keys = jax.random.split(key, len(sizes) - 1)
            return [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        layers = init_mlp(0, [3, 4, 2])
        """,
        check="""
        ks = jax.random.split(jax.random.key(0), 2)
        assert [w.shape for w in layers] == [(3, 4), (4, 2)]
        np.testing.assert_allclose(np.asarray(layers[1]), np.asarray(jax.random.normal(ks[1], (4, 2))))
        """,
        wrong_fix="""
        def init_mlp(key, sizes):
            keys = jax.random.split(jax.random.key(1), len(sizes) - 1)
            return [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, sizes[:-1], sizes[1:])]

        layers = init_mlp(0, [3, 4, 2])
        """,
    ),
    case(
        "bernoulli-int-with-prngkey-style", "prng-key-not-array", setup=KEYS + _d("""
        import jax.random as jr
        """),
        cell="""
        key = jr.PRNGKey(0)
        x = jr.normal(key, (4,))
        dropout_mask = jr.bernoulli(1, 0.5, (4,))
        x = jnp.where(dropout_mask, x / 0.5, 0.0)
        """,
        check="""
        m = np.asarray(jax.random.bernoulli(jax.random.key(1), 0.5, (4,)))
        x0 = np.asarray(jax.random.normal(jax.random.key(0), (4,)))
        np.testing.assert_allclose(np.asarray(x), np.where(m, x0 / 0.5, 0.0), rtol=1e-6)
        """,
        wrong_fix="""
        key = jr.PRNGKey(0)
        x = jr.normal(key, (4,))
        dropout_mask = jr.bernoulli(key, 0.5, (4,))
        x = jnp.where(dropout_mask, x / 0.5, 0.0)
        """,
    ),
    case(
        "seed-attribute-in-method", "prng-key-not-array", setup=SETUP,
        cell="""
        class NoisyLayer:
            def __init__(self, seed, scale):
                self.seed = seed
                self.scale = scale

            def __call__(self, x):
                noise = jax.random.normal(self.seed, x.shape) * self.scale
                return x + noise

        out = NoisyLayer(seed=4, scale=0.1)(jnp.ones(3))
        """,
        check="""
        ref = 1.0 + np.asarray(jax.random.normal(jax.random.key(4), (3,))) * 0.1
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)
        """,
        wrong_fix="""
        class NoisyLayer:
            def __init__(self, seed, scale):
                self.seed = seed
                self.scale = scale

            def __call__(self, x):
                return x

        out = NoisyLayer(seed=4, scale=0.1)(jnp.ones(3))
        """,
    ),
    # ------------------------------------------------------------------ float seeds
    case(
        "seed-float-variable", "prng-seed-not-integer", setup=KEYS,
        cell="""
        seed = 1e3   # from a sweep config
        key = jax.random.key(seed)
        """,
        check="""
        np.testing.assert_array_equal(key_bits(key), key_bits(jax.random.key(1000)))
        """,
        wrong_fix="""
        seed = 1e3
        key = jax.random.key(0)
        """,
    ),
    case(
        "prngkey-float-literal", "prng-seed-not-integer", setup=KEYS,
        cell="""
        rng = jax.random.PRNGKey(7.0)
        sample = jax.random.uniform(rng, (2,))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(sample), np.asarray(jax.random.uniform(jax.random.PRNGKey(7), (2,))))
        """,
        wrong_fix="""
        rng = jax.random.PRNGKey(0)
        sample = jax.random.uniform(rng, (2,))
        """,
    ),
    case(
        "seed-from-config-dict", "prng-seed-not-integer", setup=KEYS + _d("""
        import json
        cfg = json.loads('{"seed": 3.0, "lr": 0.01}')
        """),
        cell="""
        def make_rng(cfg):
            return jax.random.key(cfg["seed"])

        rng = make_rng(cfg)
        """,
        check="""
        np.testing.assert_array_equal(key_bits(rng), key_bits(jax.random.key(3)))
        """,
        wrong_fix="""
        def make_rng(cfg):
            return jax.random.key(0)

        rng = make_rng(cfg)
        """,
    ),
    # ------------------------------------------------------------------ typed and raw keys mixed
    case(
        "stack-typed-and-raw-keys", "typed-raw-key-mixing", setup=KEYS,
        cell="""
        k_new = jax.random.key(0)
        k_old = jax.random.PRNGKey(1)     # from an older checkpoint
        keys = jnp.stack([k_new, k_old])
        """,
        check="""
        np.testing.assert_array_equal(key_bits(keys[0]), key_bits(jax.random.key(0)))
        np.testing.assert_array_equal(key_bits(keys[1]), key_bits(jax.random.key(1)))
        """,
        wrong_fix="""
        k_new = jax.random.key(0)
        keys = jnp.stack([k_new, k_new])
        """,
    ),
    case(
        "concatenate-split-keys-jr", "typed-raw-key-mixing", setup=KEYS + _d("""
        import jax.random as jr
        """),
        cell="""
        k = jr.key(0)
        legacy = jr.PRNGKey(1)
        all_keys = jnp.concatenate([jr.split(k), jr.split(legacy)])
        """,
        check="""
        assert all_keys.shape == (4,)
        np.testing.assert_array_equal(key_bits(all_keys[2:]), key_bits(jax.random.split(jax.random.key(1))))
        np.testing.assert_array_equal(key_bits(all_keys[:2]), key_bits(jax.random.split(jax.random.key(0))))
        """,
        wrong_fix="""
        k = jr.key(0)
        all_keys = jnp.concatenate([jr.split(k), jr.split(k)])
        """,
    ),
    case(
        "where-select-key", "typed-raw-key-mixing", setup=KEYS,
        cell="""
        def pick_key(use_fresh, fresh, restored):
            return jnp.where(use_fresh, fresh, restored)

        fresh = jax.random.key(5)
        restored = jax.random.PRNGKey(9)
        key = pick_key(False, fresh, restored)
        """,
        check="""
        np.testing.assert_array_equal(key_bits(key), key_bits(jax.random.key(9)))
        """,
        wrong_fix="""
        def pick_key(use_fresh, fresh, restored):
            return fresh

        fresh = jax.random.key(5)
        restored = jax.random.PRNGKey(9)
        key = pick_key(False, fresh, restored)
        """,
    ),
    case(
        "array-of-key-constructors", "typed-raw-key-mixing", setup=KEYS,
        cell="""
        keys = jnp.array([jax.random.key(0), jax.random.PRNGKey(1), jax.random.key(2)])
        samples = jax.vmap(lambda k: jax.random.normal(k, ()))(keys)
        """,
        check="""
        ref = [float(jax.random.normal(jax.random.key(i), ())) for i in range(3)]
        np.testing.assert_allclose(np.asarray(samples), ref, rtol=1e-6)
        """,
        wrong_fix="""
        keys = jnp.array([jax.random.key(0), jax.random.key(0), jax.random.key(2)])
        samples = jax.vmap(lambda k: jax.random.normal(k, ()))(keys)
        """,
    ),
    # ------------------------------------------------------------------ arithmetic on typed keys
    case(
        "key-plus-step-in-loop", "typed-key-arithmetic", setup=KEYS,
        cell="""
        base = jax.random.key(0)
        draws = []
        for step in range(3):
            step_key = base + step
            draws.append(float(jax.random.uniform(step_key)))
        """,
        check="""
        ref = [float(jax.random.uniform(jax.random.fold_in(jax.random.key(0), s))) for s in range(3)]
        np.testing.assert_allclose(draws, ref, rtol=1e-6)
        """,
        wrong_fix="""
        base = jax.random.key(0)
        draws = [float(jax.random.uniform(base)) for step in range(3)]
        """,
    ),
    case(
        "key-iadd-per-epoch", "typed-key-arithmetic", setup=KEYS,
        cell="""
        rng = jax.random.key(7)
        perms = []
        for epoch in range(2):
            perms.append(np.asarray(jax.random.permutation(rng, 5)))
            rng += 1
        """,
        check="""
        k0 = jax.random.key(7)
        np.testing.assert_array_equal(perms[0], np.asarray(jax.random.permutation(k0, 5)))
        k1 = jax.random.fold_in(k0, 1)
        np.testing.assert_array_equal(perms[1], np.asarray(jax.random.permutation(k1, 5)))
        assert sorted(perms[1].tolist()) == [0, 1, 2, 3, 4]
        """,
        wrong_fix="""
        rng = jax.random.key(7)
        perms = []
        for epoch in range(2):
            perms.append(np.asarray(jax.random.permutation(rng, 5)))
        """,
    ),
    case(
        "compare-typed-with-raw-key", "typed-key-arithmetic", setup=KEYS,
        cell="""
        restored = jax.random.PRNGKey(3)
        current = jax.random.key(3)
        same = bool(jnp.all(current == restored))
        """,
        check="""
        assert same is True
        """,
        wrong_fix="""
        restored = jax.random.PRNGKey(3)
        current = jax.random.key(3)
        same = False
        """,
    ),
    # ------------------------------------------------------------------ integer dtype for a continuous sampler
    case(
        "uniform-int-dtype-indices", "random-dtype-not-float", setup=SETUP,
        cell="""
        key = jax.random.key(0)
        idx = jax.random.uniform(key, (5,), minval=0, maxval=10, dtype=jnp.int32)
        """,
        check="""
        assert idx.dtype == jnp.int32 and idx.shape == (5,)
        a = np.asarray(idx)
        assert ((0 <= a) & (a < 10)).all(), a
        np.testing.assert_array_equal(a, np.asarray(jax.random.randint(jax.random.key(0), (5,), 0, 10)))
        """,
        wrong_fix="""
        key = jax.random.key(0)
        idx = jax.random.uniform(key, (5,), minval=0, maxval=10).astype(jnp.int32) * 2
        """,
    ),
    case(
        "uniform-int-positional-batch-sampler", "random-dtype-not-float", setup=SETUP + _d("""
        data = jnp.arange(100.0) * 2
        """),
        cell="""
        def sample_batch(key, data, batch_size):
            rows = jax.random.uniform(key, (batch_size,), jnp.int32, 0, data.shape[0])
            return data[rows]

        batch = sample_batch(jax.random.key(1), data, 8)
        """,
        check="""
        rows = np.asarray(jax.random.randint(jax.random.key(1), (8,), 0, 100))
        np.testing.assert_allclose(np.asarray(batch), rows * 2.0)
        """,
        wrong_fix="""
        def sample_batch(key, data, batch_size):
            return data[:batch_size]

        batch = sample_batch(jax.random.key(1), data, 8)
        """,
    ),
    case(
        "normal-int-dtype-unclear", "random-dtype-not-float", setup=SETUP,
        cell="""
        counts = jax.random.normal(jax.random.key(0), (3,), dtype=jnp.int32)
        """,
        check="""
        assert counts.shape == (3,)
        """,
        wrong_fix="""
        counts = jnp.zeros((2,))
        """,
    ),
    # ------------------------------------------------------------------ NumPy on tracers
    case(
        "np-tanh-in-jitted-activation", "tracer-array-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def activation(x):
            return np.tanh(x)

        y = activation(jnp.array([0.0, 1.0, -2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.tanh([0.0, 1.0, -2.0]), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def activation(x):
            return jnp.sin(x)

        y = activation(jnp.array([0.0, 1.0, -2.0]))
        """,
    ),
    case(
        "np-logistic-loss-under-grad", "tracer-array-conversion", setup=SETUP + _d("""
        X = jnp.array([[1.0, 2.0], [0.5, -1.0], [-1.5, 0.3]])
        y = jnp.array([1.0, -1.0, 1.0])
        """),
        cell="""
        def logistic_loss(w, X, y):
            margins = y * (X @ w)
            return np.mean(np.log(1 + np.exp(-margins)))

        g = jax.grad(logistic_loss)(jnp.array([0.1, -0.2]), X, y)
        """,
        check="""
        Xn, yn, w = np.asarray(X, np.float64), np.asarray(y, np.float64), np.array([0.1, -0.2])
        m = yn * (Xn @ w)
        ref = (Xn * (-yn * np.exp(-m) / (1 + np.exp(-m)))[:, None]).mean(axis=0)
        np.testing.assert_allclose(np.asarray(g), ref, rtol=1e-4)
        """,
        wrong_fix="""
        def logistic_loss(w, X, y):
            margins = y * (X @ w)
            return jnp.mean(jnp.log(1 + jnp.exp(margins)))

        g = jax.grad(logistic_loss)(jnp.array([0.1, -0.2]), X, y)
        """,
    ),
    case(
        "np-dot-in-vmapped-lambda", "tracer-array-conversion", setup=SETUP + _d("""
        w = jnp.array([1.0, -1.0, 2.0])
        rows = jnp.arange(6.0).reshape(2, 3)
        """),
        cell="""
        scores = jax.vmap(lambda r: np.dot(r, w))(rows)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(scores), np.asarray(rows) @ np.asarray(w))
        """,
        wrong_fix="""
        scores = jax.vmap(lambda r: jnp.dot(r, r))(rows)
        """,
    ),
    case(
        "np-in-helper-called-from-jit", "tracer-array-conversion", setup=SETUP,
        cell="""
        def squash(v):
            return np.tanh(v) * 2

        @jax.jit
        def forward(x):
            h = x + 1
            return squash(h)

        out = forward(jnp.array([0.0, -1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.tanh([1.0, 0.0]) * 2, rtol=1e-6)
        """,
        wrong_fix="""
        def squash(v):
            return v * 2

        @jax.jit
        def forward(x):
            h = x + 1
            return squash(h)

        out = forward(jnp.array([0.0, -1.0]))
        """,
    ),
    case(
        "scipy-expit-in-jit", "tracer-array-conversion", setup=SETUP,
        cell="""
        import scipy.special

        @jax.jit
        def predict_proba(logits):
            return scipy.special.expit(logits)

        p = predict_proba(jnp.array([0.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(p), 1 / (1 + np.exp(-np.array([0.0, 2.0]))), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def predict_proba(logits):
            return jnp.exp(logits)

        p = predict_proba(jnp.array([0.0, 2.0]))
        """,
    ),
    case(
        "onp-asarray-in-jitted-method", "tracer-array-conversion", setup="""
        import numpy as onp
        import jax
        import jax.numpy as jnp
        from functools import partial
        """,
        cell="""
        class Normalizer:
            def __init__(self, mean, std):
                self.mean, self.std = mean, std

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                x = onp.asarray(x, dtype=onp.float32)
                z = (x - self.mean) / self.std
                return onp.clip(z, -3.0, 3.0)

        norm = Normalizer(1.0, 2.0)
        z = norm(jnp.array([1.0, 5.0, 100.0]))
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(z), [0.0, 2.0, 3.0])
        """,
        wrong_fix="""
        class Normalizer:
            def __init__(self, mean, std):
                self.mean, self.std = mean, std

            def __call__(self, x):
                return onp.asarray(x) - self.mean

        norm = Normalizer(1.0, 2.0)
        z = norm(jnp.array([1.0, 5.0, 100.0]))
        """,
    ),
    case(
        "np-linalg-norm-grad-clip-jit", "tracer-array-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def clip_by_norm(g, max_norm=1.0):
            norm = np.linalg.norm(g)
            scale = np.minimum(1.0, max_norm / (norm + 1e-6))
            return g * scale

        clipped = clip_by_norm(jnp.array([3.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(clipped), np.array([3.0, 4.0]) / 5.0, rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def clip_by_norm(g, max_norm=1.0):
            return jnp.clip(g, -max_norm, max_norm)

        clipped = clip_by_norm(jnp.array([3.0, 4.0]))
        """,
    ),
    case(
        "scipy-norm-pdf-from-import-vmap", "tracer-array-conversion", setup=SETUP,
        cell="""
        from scipy.stats import norm

        def log_likelihood(mu, xs):
            return jnp.sum(jnp.log(norm.pdf(xs, loc=mu)))

        ll = jax.vmap(log_likelihood, in_axes=(0, None))(jnp.array([0.0, 1.0]), jnp.array([0.5, 1.5]))
        """,
        check="""
        def ref(mu):
            xs = np.array([0.5, 1.5])
            return np.sum(-0.5 * (xs - mu) ** 2 - 0.5 * np.log(2 * np.pi))
        np.testing.assert_allclose(np.asarray(ll), [ref(0.0), ref(1.0)], rtol=1e-5)
        """,
        wrong_fix="""
        def log_likelihood(mu, xs):
            return jnp.sum(-0.5 * (xs - mu) ** 2)

        ll = jax.vmap(log_likelihood, in_axes=(0, None))(jnp.array([0.0, 1.0]), jnp.array([0.5, 1.5]))
        """,
    ),
    case(
        "np-sin-in-generator-over-tuple", "tracer-array-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def total_signal(waves):
            return sum(np.sin(w).sum() for w in waves)

        s = total_signal((jnp.array([0.0, 1.0]), jnp.array([2.0])))
        """,
        check="""
        np.testing.assert_allclose(float(s), np.sin([0.0, 1.0, 2.0]).sum(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def total_signal(waves):
            return sum(w.sum() for w in waves)

        s = total_signal((jnp.array([0.0, 1.0]), jnp.array([2.0])))
        """,
    ),
    case(
        "np-unique-in-jit-no-twin", "tracer-array-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def n_classes(labels):
            return len(np.unique(labels))

        k = n_classes(jnp.array([0, 2, 2, 1]))
        """,
        check="""
        assert int(k) == 3, k
        """,
        wrong_fix="""
        def n_classes(labels):
            return labels.shape[0]

        k = n_classes(jnp.array([0, 2, 2, 1]))
        """,
    ),
    # ------------------------------------------------------------------ lax ops need equal dtypes
    case(
        "lax-add-int-and-float", "lax-same-dtypes", setup="""
        import numpy as np
        import jax.numpy as jnp
        from jax import lax
        """,
        cell="""
        x = jnp.arange(3)          # int32 positions
        y = jnp.ones(3) * 0.5
        z = lax.add(x, y)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(z), np.arange(3) + 0.5)
        assert z.dtype == jnp.float32
        """,
        wrong_fix="""
        x = jnp.arange(3)
        y = jnp.ones(3) * 0.5
        z = lax.add(x, y.astype(x.dtype))
        """,
    ),
    case(
        "lax-add-int-literal-in-jit", "lax-same-dtypes", setup=SETUP + _d("""
        from jax import lax
        """),
        cell="""
        @jax.jit
        def shift(x):
            return lax.add(x, 1)

        out = shift(jnp.array([0.5, 1.5]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.5, 2.5])
        """,
        wrong_fix="""
        @jax.jit
        def shift(x):
            return lax.add(x.astype(jnp.int32), 1)

        out = shift(jnp.array([0.5, 1.5]))
        """,
    ),
    case(
        "lax-add-bf16-activation-f32-bias", "lax-same-dtypes", setup=SETUP + _d("""
        h = jnp.array([1.0, 2.5, -3.0], dtype=jnp.bfloat16)
        bias = jnp.array([0.1, 0.2, 0.3], dtype=jnp.float32)
        """),
        cell="""
        def dense_out(h, bias):
            return jax.lax.add(h, bias)

        out = dense_out(h, bias)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out, np.float32), np.array([1.1, 2.7, -2.7], np.float32), rtol=1e-6)
        """,
        wrong_fix="""
        def dense_out(h, bias):
            return jax.lax.add(h, bias.astype(h.dtype))

        out = dense_out(h, bias)
        """,
    ),
    case(
        "lax-mul-int-counts-by-float", "lax-same-dtypes", setup=SETUP + _d("""
        from jax import lax
        """),
        cell="""
        counts = jnp.array([3, 4, 5])
        halves = lax.mul(counts, 0.5)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(halves), [1.5, 2.0, 2.5])
        """,
        wrong_fix="""
        counts = jnp.array([3, 4, 5])
        halves = lax.mul(counts, 0)
        """,
    ),
    case(
        "lax-max-relu-in-scan", "lax-same-dtypes", setup=SETUP + _d("""
        from jax import lax
        """),
        cell="""
        def step(carry, x):
            h = lax.max(carry + x, 0)
            return h, h

        _, hs = lax.scan(step, jnp.float32(0.0), jnp.array([1.0, -3.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(hs), [1.0, 0.0, 2.0])
        """,
        wrong_fix="""
        def step(carry, x):
            h = carry + x
            return h, h

        _, hs = lax.scan(step, jnp.float32(0.0), jnp.array([1.0, -3.0, 2.0]))
        """,
    ),
    case(
        "lax-div-by-python-count", "lax-same-dtypes", setup=SETUP + _d("""
        from jax import lax
        """),
        cell="""
        xs = [jnp.float32(1.0), jnp.float32(2.0), jnp.float32(6.0)]
        total = jnp.sum(jnp.stack(xs))
        n = len(xs)
        mean = lax.div(total, n)
        """,
        check="""
        np.testing.assert_allclose(float(mean), 3.0)
        """,
        wrong_fix="""
        xs = [jnp.float32(1.0), jnp.float32(2.0), jnp.float32(6.0)]
        total = jnp.sum(jnp.stack(xs))
        mean = lax.div(total, 1.0)
        """,
    ),
    # ------------------------------------------------------------------ strict dtype promotion
    case(
        "strict-int-times-float", "dtype-promotion-strict", setup=SETUP,
        cell="""
        counts = jnp.arange(3)                 # int32
        weights = jnp.array([0.5, 1.5, 2.5], jnp.float32)
        with jax.numpy_dtype_promotion('strict'):
            y = counts * weights
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.arange(3) * np.array([0.5, 1.5, 2.5]))
        """,
        wrong_fix="""
        counts = jnp.arange(3)
        weights = jnp.array([0.5, 1.5, 2.5], jnp.float32)
        with jax.numpy_dtype_promotion('strict'):
            y = counts * weights.astype(counts.dtype)
        """,
    ),
    case(
        "strict-bf16-plus-f32-in-layer", "dtype-promotion-strict", setup=SETUP,
        cell="""
        def layer(h, b):
            with jax.numpy_dtype_promotion('strict'):
                return jnp.add(h, b)

        out = layer(jnp.array([1.0, 2.0], jnp.bfloat16), jnp.array([0.25, 0.5], jnp.float32))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out, np.float32), [1.25, 2.5])
        assert out.dtype == jnp.float32
        """,
        wrong_fix="""
        def layer(h, b):
            with jax.numpy_dtype_promotion('strict'):
                return jnp.add(h, b.astype(h.dtype))

        out = layer(jnp.array([1.0, 2.0], jnp.bfloat16), jnp.array([0.25, 0.5], jnp.float32))
        """,
    ),
    case(
        "strict-matmul-int-features", "dtype-promotion-strict", setup=SETUP,
        cell="""
        one_hot = jnp.eye(3, dtype=jnp.int32)[jnp.array([2, 0])]
        table = jnp.arange(6.0).reshape(3, 2)
        with jax.numpy_dtype_promotion("strict"):
            embedded = one_hot @ table
        """,
        check="""
        np.testing.assert_allclose(np.asarray(embedded), np.arange(6.0).reshape(3, 2)[[2, 0]])
        """,
        wrong_fix="""
        one_hot = jnp.eye(3, dtype=jnp.int32)[jnp.array([2, 0])]
        table = jnp.arange(6.0).reshape(3, 2)
        with jax.numpy_dtype_promotion("strict"):
            embedded = (one_hot @ table.astype(jnp.int32)) * 0
        """,
    ),
    # ------------------------------------------------------------------ None inside jnp.array
    case(
        "none-in-literal-readings", "jnp-array-none", setup=SETUP,
        cell="""
        temps = jnp.array([20.5, None, 22.0, 21.5])
        avg = jnp.nanmean(temps)
        """,
        check="""
        np.testing.assert_allclose(float(avg), np.mean([20.5, 22.0, 21.5]), rtol=1e-6)
        """,
        wrong_fix="""
        temps = jnp.array([20.5, 0.0, 22.0, 21.5])
        avg = jnp.nanmean(temps)
        """,
    ),
    case(
        "none-in-list-built-earlier", "jnp-array-none", setup=SETUP,
        cell="""
        readings = [[1.0, 2.0], [None, 4.0]]
        grid = jnp.array(readings)
        col_max = jnp.nanmax(grid, axis=0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(col_max), [1.0, 4.0])
        """,
        wrong_fix="""
        grid = jnp.array([[1.0, 2.0], [0.0, 4.0]])
        col_max = jnp.nanmax(grid, axis=1)
        """,
    ),
    # ------------------------------------------------------------------ list used as an index
    case(
        "gather-rows-with-list", "list-as-index", setup=SETUP,
        cell="""
        x = jnp.arange(10) * 2
        rows = [0, 3, 7]
        picked = x[rows]
        """,
        check="""
        np.testing.assert_array_equal(np.asarray(picked), np.arange(10)[[0, 3, 7]] * 2)
        """,
        wrong_fix="""
        x = jnp.arange(10) * 2
        rows = [0, 3, 7]
        picked = x[tuple(rows[:1])]
        """,
    ),
    case(
        "list-literal-index-in-jit", "list-as-index", setup=SETUP,
        cell="""
        @jax.jit
        def first_and_last(v):
            return v[[0, -1]]

        ends = first_and_last(jnp.array([4.0, 5.0, 6.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ends), [4.0, 6.0])
        """,
        wrong_fix="""
        @jax.jit
        def first_and_last(v):
            return v[0]

        ends = first_and_last(jnp.array([4.0, 5.0, 6.0]))
        """,
    ),
    case(
        "at-set-with-list-index", "list-as-index", setup=SETUP,
        cell="""
        labels = jnp.zeros(6)
        positives = [1, 4]
        labels = labels.at[positives].set(1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(labels), [0, 1, 0, 0, 1, 0])
        """,
        wrong_fix="""
        labels = jnp.zeros(6)
        labels = labels.at[1].set(1.0)
        """,
    ),
    case(
        "list-of-per-axis-indices", "list-as-index", setup=SETUP,
        cell="""
        grid = jnp.arange(12).reshape(3, 4)
        idx = [slice(None), 2]      # every row, column 2
        column = grid[idx]
        """,
        check="""
        np.testing.assert_array_equal(np.asarray(column), np.arange(12).reshape(3, 4)[:, 2])
        """,
        wrong_fix="""
        grid = jnp.arange(12).reshape(3, 4)
        column = grid[2]
        """,
    ),
    # ------------------------------------------------------------------ negatives: not JAX errors
    case(
        "negative-nameerror-in-loss", "negative", negative=True, setup=SETUP,
        cell="""
        def loss(w):
            return jnp.sum((w - targets) ** 2)

        value = loss(jnp.ones(3))
        """,
    ),
    case(
        "negative-python-typeerror-layer-sizes", "negative", negative=True, setup=SETUP,
        cell="""
        n_layers = "3"   # read from argv
        sizes = [16] * n_layers
        params = [jnp.zeros((s, s)) for s in sizes]
        """,
    ),
    case(
        "list-of-scores-argmax-and-max", "jnp-list-argument", setup=SETUP,
        cell="""
        scores = []
        for w in [0.5, 1.5, 1.0]:
            scores.append(jnp.exp(-(w - 1.2) ** 2))
        best = jnp.argmax(scores)
        top = jnp.max(scores)
        """,
        check="""
        ref = np.exp(-(np.array([0.5, 1.5, 1.0]) - 1.2) ** 2)
        assert int(best) == int(np.argmax(ref))
        np.testing.assert_allclose(float(top), ref.max(), rtol=1e-6)
        """,
        wrong_fix="""
        scores = []
        for w in [0.5, 1.5, 1.0]:
            scores.append(jnp.exp(-(w - 1.2) ** 2))
        best = jnp.argmax(jnp.asarray(scores))
        """,
    ),
    # nearest-accepted-value: a misspelled option string, respelled as the accepted value nearest to it
    case(
        "pad-mode-typo-in-jitted-conv", "jnp-pad-unknown-mode", setup=SETUP,
        cell="""
        @jax.jit
        def smooth(signal):
            padded = jnp.pad(signal, 1, mode="reflekt")
            return (padded[:-2] + padded[1:-1] + padded[2:]) / 3

        out = smooth(jnp.array([1.0, 2.0, 4.0, 8.0]))
        """,
        check="""
        p = np.pad(np.array([1.0, 2.0, 4.0, 8.0]), 1, mode="reflect")
        np.testing.assert_allclose(np.asarray(out), (p[:-2] + p[1:-1] + p[2:]) / 3, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def smooth(signal):
            padded = jnp.pad(signal, 1, mode="constant")
            return (padded[:-2] + padded[1:-1] + padded[2:]) / 3

        out = smooth(jnp.array([1.0, 2.0, 4.0, 8.0]))
        """,
    ),
    case(
        "pad-mode-constant-at-the-top", "jnp-pad-unknown-mode", setup=SETUP,
        cell="""
        PAD_MODE = "symetric"  # as in the config
        image = jnp.arange(6.0).reshape(2, 3)
        padded = jnp.pad(image, ((1, 1), (2, 2)), mode=PAD_MODE)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(padded), np.pad(np.arange(6.0).reshape(2, 3), ((1, 1), (2, 2)),
                                                              mode="symmetric"))
        """,
        wrong_fix="""
        PAD_MODE = "edge"
        image = jnp.arange(6.0).reshape(2, 3)
        padded = jnp.pad(image, ((1, 1), (2, 2)), mode=PAD_MODE)
        """,
    ),
    case(
        "pad-mode-computed-string", "jnp-pad-unknown-mode", setup=SETUP, offer="none",
        cell="""
        mode = "ref" + "lekt"
        out = jnp.pad(jnp.ones(3), 1, mode=mode)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.pad(np.ones(3), 1, mode="reflect"))
        """,
        wrong_fix="""
        mode = "constant"
        out = jnp.pad(jnp.ones(3), 1, mode=mode)
        """,
    ),    # PyTorch's "replicate" looks like "reflect" but means NumPy's "edge": a translation, not a typo
    case(
        "pad-mode-pytorch-name", "jnp-pad-unknown-mode", setup=SETUP, offer="none",
        cell="""
        out = jnp.pad(jnp.array([1.0, 2.0, 4.0]), 1, mode="replicate")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 1.0, 2.0, 4.0, 4.0])
        """,
        wrong_fix="""
        out = jnp.pad(jnp.array([1.0, 2.0, 4.0]), 1, mode="reflect")
        """,
    ),
]
