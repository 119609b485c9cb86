"""Cells written with Equinox, Optax and Flax, fixed in the library's own terms."""

from rewrite_cases import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

EQX = SETUP + """
import equinox as eqx
"""

OPTAX = SETUP + """
import optax
"""

LINEN = SETUP + """
import flax.linen as nn
"""

NNX = SETUP + """
import optax
from flax import nnx
"""

CASES = [
    # ------------------------------------------------------------------ Equinox: jax.jit over a module
    case(
        "eqx-jit-decorated-forward", "equinox-jit-non-array-field", setup=EQX,
        cell="""
        model = eqx.nn.MLP(3, 2, 8, 2, key=jax.random.key(0))

        @jax.jit
        def forward(model, x):
            return model(x)

        y = forward(model, jnp.ones(3))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.asarray(model(jnp.ones(3))), rtol=1e-5)
        """,
        wrong_fix="""
        model = eqx.nn.MLP(3, 2, 8, 2, key=jax.random.key(0))
        y = jnp.zeros(2)
        """,
    ),
    case(
        "eqx-jit-wrapped-loss", "equinox-jit-non-array-field", setup=EQX,
        cell="""
        model = eqx.nn.MLP(4, 1, 6, 1, activation=jax.nn.tanh, key=jax.random.key(1))
        x = jnp.arange(8.0).reshape(2, 4)
        y = jnp.array([[1.0], [2.0]])

        def loss(model, x, y):
            pred = jax.vmap(model)(x)
            return jnp.mean((pred - y) ** 2)

        fast_loss = jax.jit(loss)
        value = fast_loss(model, x, y)
        """,
        check="""
        (l1, l2) = model.layers
        h = np.tanh(np.arange(8.0).reshape(2, 4) @ np.asarray(l1.weight).T + np.asarray(l1.bias))
        pred = h @ np.asarray(l2.weight).T + np.asarray(l2.bias)
        np.testing.assert_allclose(float(value), np.mean((pred - np.array([[1.0], [2.0]])) ** 2), rtol=1e-5)
        """,
        wrong_fix="""
        model = eqx.nn.MLP(4, 1, 6, 1, activation=jax.nn.tanh, key=jax.random.key(1))
        value = 0.0
        """,
    ),
    case(
        "eqx-jit-train-step-with-activation", "equinox-jit-non-array-field", setup=EQX,
        cell="""
        class Net(eqx.Module):
            layer: eqx.nn.Linear
            act: callable

            def __call__(self, x):
                return self.act(self.layer(x))

        net = Net(eqx.nn.Linear(2, 2, key=jax.random.key(2)), jax.nn.relu)

        @jax.jit
        def predict(net, x):
            return net(x)

        out = predict(net, jnp.array([1.0, -1.0]))
        """,
        check="""
        w, b = np.asarray(net.layer.weight), np.asarray(net.layer.bias)
        np.testing.assert_allclose(np.asarray(out), np.maximum(w @ np.array([1.0, -1.0]) + b, 0), rtol=1e-5)
        """,
        wrong_fix="""
        class Net(eqx.Module):
            layer: eqx.nn.Linear
            def __call__(self, x):
                return self.layer(x)
        net = Net(eqx.nn.Linear(2, 2, key=jax.random.key(2)))
        act = jax.nn.relu
        out = net(jnp.array([1.0, -1.0]))
        """,
    ),
    # ------------------------------------------------------------------ Optax: weight decay without params
    case(
        "optax-adamw-step-without-params", "optax-update-needs-params", setup=OPTAX,
        cell="""
        params = {"w": jnp.array([1.0, -2.0])}
        opt = optax.adamw(0.1, weight_decay=0.5)
        opt_state = opt.init(params)
        grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
        updates, opt_state = opt.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        """,
        check="""
        p0 = {"w": jnp.array([1.0, -2.0])}
        tx = optax.adamw(0.1, weight_decay=0.5)
        g = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(p0)
        u, _ = tx.update(g, tx.init(p0), p0)
        np.testing.assert_allclose(np.asarray(params["w"]), np.asarray(p0["w"] + u["w"]), rtol=1e-6)
        """,
        wrong_fix="""
        params = {"w": jnp.array([1.0, -2.0])}
        opt = optax.adam(0.1)
        opt_state = opt.init(params)
        grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2))(params)
        updates, opt_state = opt.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
        """,
    ),
    case(
        "optax-chain-decay-in-jitted-step", "optax-update-needs-params", setup=OPTAX,
        cell="""
        tx = optax.chain(optax.add_decayed_weights(0.1), optax.sgd(0.5))

        @jax.jit
        def step(params, state):
            grads = jax.grad(lambda p: jnp.sum(p ** 2))(params)
            updates, state = tx.update(grads, state)
            return optax.apply_updates(params, updates), state

        params = jnp.array([1.0, 2.0])
        state = tx.init(params)
        params, state = step(params, state)
        """,
        check="""
        p = np.array([1.0, 2.0])
        np.testing.assert_allclose(np.asarray(params), p - 0.5 * (2 * p + 0.1 * p), rtol=1e-6)
        """,
        wrong_fix="""
        tx = optax.sgd(0.5)
        params = jnp.array([1.0, 2.0])
        state = tx.init(params)
        params = params - 0.5 * 2 * params
        """,
    ),
    # ------------------------------------------------------------------ Flax Linen: variables dicts
    case(
        "linen-apply-bare-params", "flax-linen-apply-variables-not-collections", setup=LINEN,
        cell="""
        model = nn.Dense(2)
        params = model.init(jax.random.key(0), jnp.ones((1, 3)))["params"]
        y = model.apply(params, jnp.ones((1, 3)))
        """,
        check="""
        k, b = np.asarray(params["kernel"]), np.asarray(params["bias"])
        np.testing.assert_allclose(np.asarray(y), np.ones((1, 3)) @ k + b, rtol=1e-6)
        """,
        wrong_fix="""
        model = nn.Dense(2)
        params = model.init(jax.random.key(0), jnp.ones((1, 3)))["params"]
        y = jnp.ones((1, 2))
        """,
    ),
    case(
        "linen-apply-params-in-loss", "flax-linen-apply-variables-not-collections", setup=LINEN,
        cell="""
        model = nn.Dense(1)
        variables = model.init(jax.random.key(1), jnp.ones((4, 2)))
        x, target = jnp.ones((4, 2)), jnp.zeros((4, 1))

        def loss(params):
            pred = model.apply(params, x)
            return jnp.mean((pred - target) ** 2)

        value = loss(variables["params"])
        """,
        check="""
        p = variables["params"]
        ref = np.mean((np.ones((4, 2)) @ np.asarray(p["kernel"]) + np.asarray(p["bias"])) ** 2)
        np.testing.assert_allclose(float(value), ref, rtol=1e-6)
        """,
        wrong_fix="""
        model = nn.Dense(1)
        variables = model.init(jax.random.key(1), jnp.ones((4, 2)))
        value = 0.0
        """,
    ),
    case(
        "linen-apply-wrapped-twice", "flax-linen-apply-extra-params-layer", setup=LINEN,
        cell="""
        model = nn.Dense(3)
        variables = model.init(jax.random.key(2), jnp.ones((1, 2)))
        y = model.apply({"params": variables}, jnp.ones((1, 2)))
        """,
        check="""
        p = variables["params"]
        np.testing.assert_allclose(np.asarray(y), np.ones((1, 2)) @ np.asarray(p["kernel"]) + np.asarray(p["bias"]),
                                   rtol=1e-6)
        """,
        wrong_fix="""
        model = nn.Dense(3)
        variables = model.init(jax.random.key(2), jnp.ones((1, 2)))
        y = jnp.zeros((1, 3))
        """,
    ),
    # ------------------------------------------------------------------ Flax NNX: Optimizer
    case(
        "nnx-optimizer-update-grads-only", "flax-nnx-optimizer-update-needs-model", setup=NNX,
        cell="""
        model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
        optimizer = nnx.Optimizer(model, optax.sgd(0.1), wrt=nnx.Param)
        w0 = np.asarray(model.kernel[...]).copy()
        grads = nnx.grad(lambda m: jnp.sum(m(jnp.ones((1, 2)))))(model)
        optimizer.update(grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(model.kernel[...]), w0 - 0.1, rtol=1e-6)
        """,
        wrong_fix="""
        model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
        w0 = np.asarray(model.kernel[...]).copy()
        """,
    ),
    case(
        "nnx-optimizer-update-in-train-step", "flax-nnx-optimizer-update-needs-model", setup=NNX,
        cell="""
        model = nnx.Linear(3, 1, rngs=nnx.Rngs(1))
        optimizer = nnx.Optimizer(model, optax.sgd(0.5), wrt=nnx.Param)
        b0 = np.asarray(model.bias[...]).copy()

        def train_step(model, optimizer, x):
            grads = nnx.grad(lambda m: jnp.mean(m(x)))(model)
            optimizer.update(grads)

        train_step(model, optimizer, jnp.ones((2, 3)))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(model.bias[...]), b0 - 0.5, rtol=1e-6)
        """,
        wrong_fix="""
        model = nnx.Linear(3, 1, rngs=nnx.Rngs(1))
        b0 = np.asarray(model.bias[...]).copy()
        """,
    ),
    case(
        "nnx-optimizer-without-wrt", "flax-nnx-optimizer-needs-wrt", setup=NNX,
        cell="""
        model = nnx.Linear(2, 2, rngs=nnx.Rngs(3))
        optimizer = nnx.Optimizer(model, optax.sgd(1.0))
        k0 = np.asarray(model.kernel[...]).copy()
        grads = nnx.grad(lambda m: jnp.sum(m(jnp.ones((1, 2)))))(model)
        optimizer.update(model, grads)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(model.kernel[...]), k0 - 1.0, rtol=1e-6)
        """,
        wrong_fix="""
        model = nnx.Linear(2, 2, rngs=nnx.Rngs(3))
        k0 = np.asarray(model.kernel[...]).copy()
        """,
    ),
    case(
        "nnx-two-optimizers-without-wrt", "flax-nnx-optimizer-needs-wrt", setup=NNX,
        cell="""
        encoder = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
        decoder = nnx.Linear(2, 3, rngs=nnx.Rngs(1))
        enc_opt = nnx.Optimizer(encoder, optax.sgd(0.5))
        dec_opt = nnx.Optimizer(decoder, optax.sgd(0.5))
        x = jnp.ones((4, 3))
        d0 = np.asarray(decoder.kernel[...]).copy()
        grads = nnx.grad(lambda d: jnp.mean((d(encoder(x)) - x) ** 2))(decoder)
        dec_opt.update(decoder, grads)
        """,
        check="""
        g = np.asarray(grads["kernel"][...])
        np.testing.assert_allclose(np.asarray(decoder.kernel[...]), d0 - 0.5 * g, rtol=1e-5, atol=1e-7)
        assert int(enc_opt.step[...]) == 0 and int(dec_opt.step[...]) == 1
        """,
        wrong_fix="""
        encoder = nnx.Linear(3, 2, rngs=nnx.Rngs(0))
        decoder = nnx.Linear(2, 3, rngs=nnx.Rngs(1))
        enc_opt = nnx.Optimizer(encoder, optax.sgd(0.5), wrt=nnx.Param)
        dec_opt = nnx.Optimizer(decoder, optax.sgd(0.5))
        """,
    ),
    # ------------------------------------------------------------------ Equinox: a Python-number field traced by jax.jit
    case(
        "eqx-int-field-shape-taps", "shape-not-concrete", setup=EQX,
        cell="""
        class MovingAverage(eqx.Module):
            scale: jax.Array
            taps: int = 3

            def __call__(self, x):
                k = jnp.ones(self.taps) / self.taps
                offsets = jnp.arange(self.taps)
                return self.scale * jnp.convolve(x, k, mode="valid") + 0 * offsets.sum()

        @jax.jit
        def smooth(model, x):
            return model(x)

        avg = MovingAverage(jnp.array(2.0), taps=4)
        y = smooth(avg, jnp.arange(10.0))
        """,
        check="""
        x = np.arange(10.0)
        np.testing.assert_allclose(np.asarray(y), 2.0 * np.convolve(x, np.ones(4) / 4, mode="valid"), rtol=1e-5)
        """,
        wrong_fix="""
        class MovingAverage(eqx.Module):
            scale: jax.Array
            taps: int = 3

            def __call__(self, x):
                k = jnp.ones(3) / 3
                return self.scale * jnp.convolve(x, k, mode="valid")

        @jax.jit
        def smooth(model, x):
            return model(x)

        avg = MovingAverage(jnp.array(2.0), taps=4)
        y = smooth(avg, jnp.arange(10.0))
        """,
    ),
    case(
        "eqx-bool-field-if-under-jit", "tracer-bool-conversion", setup=EQX,
        cell="""
        class Scale(eqx.Module):
            weight: jax.Array
            use_bias: bool = False

            def __call__(self, x):
                y = self.weight * x
                if self.use_bias:
                    y = y + 1.0
                return y

        @jax.jit
        def apply(model, x):
            return model(x)

        out = apply(Scale(jnp.array(3.0), use_bias=True), jnp.arange(4.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), 3.0 * np.arange(4.0) + 1.0, rtol=1e-6)
        """,
        wrong_fix="""
        class Scale(eqx.Module):
            weight: jax.Array
            use_bias: bool = False

            def __call__(self, x):
                return self.weight * x

        @jax.jit
        def apply(model, x):
            return model(x)

        out = apply(Scale(jnp.array(3.0), use_bias=True), jnp.arange(4.0))
        """,
    ),
    # ------------------------------------------------------------------ strict promotion inside a library layer
    case(
        "eqx-strict-bf16-linear-input", "dtype-promotion-strict", setup=EQX,
        cell="""
        with jax.numpy_dtype_promotion("strict"):
            lin = eqx.nn.Linear(4, 2, dtype=jnp.bfloat16, key=jax.random.key(0))
            x = jnp.linspace(-1.0, 1.0, 4)
            y = lin(x)
        """,
        check="""
        assert y.dtype == jnp.bfloat16, y.dtype
        ref = np.asarray(lin.weight, np.float32) @ np.linspace(-1.0, 1.0, 4) + np.asarray(lin.bias, np.float32)
        np.testing.assert_allclose(np.asarray(y, np.float32), ref, rtol=3e-2, atol=3e-2)
        """,
        wrong_fix="""
        lin = eqx.nn.Linear(4, 2, dtype=jnp.bfloat16, key=jax.random.key(0))
        x = jnp.linspace(-1.0, 1.0, 4)
        y = jnp.zeros(2, jnp.bfloat16)
        """,
    ),
]
