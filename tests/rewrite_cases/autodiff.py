"""Autodiff and custom derivatives: grad of non-scalars, integer inputs, has_aux, loops under grad, custom rules."""

import textwrap

from rewrite_cases import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

REGRESSION = SETUP + """
rng = np.random.default_rng(0)
X = jnp.asarray(rng.normal(size=(6, 3)), dtype=jnp.float32)
y = jnp.asarray(rng.normal(size=6), dtype=jnp.float32)
"""

JAX_ONLY = """
import numpy as np
import jax
"""


def _more(base: str, extra: str) -> str:
    """Setup = a base setup plus a few lines (written indented in the case)."""
    return base + textwrap.dedent(extra)

NON_SCALAR = [
    case(
        "mse-loss-missing-mean", "grad-non-scalar-output", setup=REGRESSION,
        cell="""
        def mse_loss(w, X, y):
            residual = X @ w - y
            return residual ** 2          # squared error per sample

        w = jnp.zeros(3)
        for _ in range(3):
            g = jax.grad(mse_loss)(w, X, y)
            w = w - 0.1 * g
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        ref = np.zeros(3)
        for _ in range(3):
            ref = ref - 0.1 * (2.0 / len(yn)) * Xn.T @ (Xn @ ref - yn)
        np.testing.assert_allclose(np.asarray(w), ref, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        def mse_loss(w, X, y):
            residual = X @ w - y
            return jnp.sum(residual ** 2)

        w = jnp.zeros(3)
        for _ in range(3):
            g = jax.grad(mse_loss)(w, X, y)
            w = w - 0.1 * g
        """,
    ),
    case(
        "logistic-loss-with-aux-per-example", "grad-non-scalar-output", setup=REGRESSION,
        cell="""
        params = {"w": jnp.array([0.5, -0.25, 0.1]), "b": jnp.array(0.2)}
        labels = jnp.sign(y)

        def loss_fn(params, x, labels):
            logits = x @ params["w"] + params["b"]
            per_example = jnp.logaddexp(0.0, -labels * logits)   # logistic loss
            return per_example, logits

        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, X, labels)
        """,
        check="""
        Xn, t = np.asarray(X, np.float64), np.sign(np.asarray(y, np.float64))
        z = Xn @ np.array([0.5, -0.25, 0.1]) + 0.2
        sig = 1 / (1 + np.exp(t * z))
        np.testing.assert_allclose(float(loss), np.mean(np.logaddexp(0, -t * z)), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(grads["w"]), Xn.T @ (-t * sig) / len(t), rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(logits), z, rtol=1e-5)
        """,
        wrong_fix="""
        params = {"w": jnp.array([0.5, -0.25, 0.1]), "b": jnp.array(0.2)}
        labels = jnp.sign(y)

        def loss_fn(params, x, labels):
            logits = x @ params["w"] + params["b"]
            per_example = jnp.logaddexp(0.0, -labels * logits)
            return per_example.sum(), logits

        (loss, logits), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, X, labels)
        """,
    ),
    case(
        "jitted-train-step-nested-loss", "grad-non-scalar-output",
        setup=_more(SETUP, """
        xs = jnp.array([[1.0, 0.5], [0.2, -1.0], [-0.3, 0.8], [1.5, 0.1]])
        ys = jnp.array([0.5, -0.5, 0.2, 0.9])
        """),
        cell="""
        from jax import grad, jit

        @jit
        def train_step(w, x, y, lr=0.05):
            def loss(w):
                pred = jnp.tanh(x @ w)
                return (pred - y) ** 2
            return w - lr * grad(loss)(w)

        w1 = train_step(jnp.ones(2), xs, ys)
        """,
        check="""
        xn, yn = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
        p = np.tanh(xn @ np.ones(2))
        g = (2 * (p - yn) * (1 - p ** 2)) @ xn / len(yn)
        np.testing.assert_allclose(np.asarray(w1), np.ones(2) - 0.05 * g, rtol=1e-5)
        """,
        wrong_fix="""
        from jax import grad, jit

        @jit
        def train_step(w, x, y, lr=0.05):
            def loss(w):
                pred = jnp.tanh(x @ w)
                return jnp.sum((pred - y) ** 2)
            return w - lr * grad(loss)(w)

        w1 = train_step(jnp.ones(2), xs, ys)
        """,
    ),
    case(
        "class-method-loss", "grad-non-scalar-output", setup=REGRESSION,
        cell="""
        class LinearModel:
            def __init__(self, w):
                self.w = w

            def loss(self, w, X, y):
                return jnp.abs(X @ w - y)        # absolute error per row

            def gradient(self, X, y):
                return jax.grad(self.loss)(self.w, X, y)

        model = LinearModel(jnp.array([1.0, -1.0, 0.5]))
        g = model.gradient(X, y)
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        r = Xn @ np.array([1.0, -1.0, 0.5]) - yn
        np.testing.assert_allclose(np.asarray(g), Xn.T @ np.sign(r) / len(yn), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        class LinearModel:
            def __init__(self, w):
                self.w = w

            def loss(self, w, X, y):
                return jnp.max(jnp.abs(X @ w - y))

            def gradient(self, X, y):
                return jax.grad(self.loss)(self.w, X, y)

        model = LinearModel(jnp.array([1.0, -1.0, 0.5]))
        g = model.gradient(X, y)
        """,
    ),
    case(
        "tanh-derivative-on-grid", "grad-non-scalar-output", setup=SETUP,
        cell="""
        xs = jnp.linspace(-2.0, 2.0, 9)
        dtanh = jax.grad(jnp.tanh)(xs)
        """,
        check="""
        grid = np.linspace(-2.0, 2.0, 9)
        np.testing.assert_allclose(np.asarray(dtanh), 1 - np.tanh(grid) ** 2, rtol=1e-5, atol=1e-7)
        """,
        wrong_fix="""
        xs = jnp.linspace(-2.0, 2.0, 9)
        dtanh = jax.grad(lambda x: jnp.tanh(x).mean())(xs)
        """,
    ),
    case(
        "softplus-slope-user-function", "grad-non-scalar-output",
        setup=JAX_ONLY,
        cell="""
        from jax import grad
        import jax.numpy as jnp

        def softplus(x):
            return jnp.log1p(jnp.exp(x))

        grid = jnp.linspace(-3.0, 3.0, 7)
        slope = grad(softplus)(grid)
        """,
        check="""
        g = np.linspace(-3.0, 3.0, 7)
        np.testing.assert_allclose(np.asarray(slope), 1 / (1 + np.exp(-g)), rtol=1e-5)
        assert np.asarray(slope).shape == (7,)
        """,
        wrong_fix="""
        from jax import grad
        import jax.numpy as jnp

        def softplus(x):
            return jnp.log1p(jnp.exp(x))

        grid = jnp.linspace(-3.0, 3.0, 7)
        slope = grad(lambda x: softplus(x).mean())(grid)
        """,
    ),
    case(
        "decay-lambda-with-scalar-constant", "grad-non-scalar-output", setup=SETUP,
        cell="""
        half_life = 2.0
        times = jnp.array([0.0, 1.0, 2.0, 4.0])
        rate_of_change = jax.grad(lambda t: jnp.exp(-t / half_life))(times)
        """,
        check="""
        t = np.array([0.0, 1.0, 2.0, 4.0])
        np.testing.assert_allclose(np.asarray(rate_of_change), -np.exp(-t / 2.0) / 2.0, rtol=1e-5)
        """,
        wrong_fix="""
        half_life = 2.0
        times = jnp.array([0.0, 1.0, 2.0, 4.0])
        rate_of_change = jax.grad(lambda t: jnp.exp(-t / half_life).mean())(times)
        """,
    ),
    case(
        "polar-map-jacobian", "grad-non-scalar-output", setup=SETUP,
        cell="""
        def polar_to_cartesian(p):
            r, theta = p[0], p[1]
            return jnp.stack([r * jnp.cos(theta), r * jnp.sin(theta)])

        J = jax.grad(polar_to_cartesian)(jnp.array([2.0, 0.5]))
        """,
        check="""
        r, th = 2.0, 0.5
        ref = np.array([[np.cos(th), -r * np.sin(th)], [np.sin(th), r * np.cos(th)]])
        np.testing.assert_allclose(np.asarray(J), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def polar_to_cartesian(p):
            r, theta = p[0], p[1]
            return jnp.stack([r * jnp.cos(theta), r * jnp.sin(theta)])

        J = jax.grad(lambda p: polar_to_cartesian(p).sum())(jnp.array([2.0, 0.5]))
        """,
    ),
    case(
        "quadratic-energy-shape-one", "grad-non-scalar-output",
        setup=_more(SETUP, """
        K = jnp.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
        """),
        cell="""
        def energy(q):
            return q @ K @ q[:, None] / 2     # spring energy

        q0 = jnp.array([0.1, -0.2, 0.3])
        force = -jax.grad(energy)(q0)
        """,
        check="""
        Kn = np.array([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]])
        assert np.asarray(force).shape == (3,)
        np.testing.assert_allclose(np.asarray(force), -Kn @ np.array([0.1, -0.2, 0.3]), rtol=1e-5)
        """,
        wrong_fix="""
        def energy(q):
            return q @ K @ q[:, None] / 2

        q0 = jnp.array([0.1, -0.2, 0.3])
        force = -jax.jacrev(energy)(q0)
        """,
    ),
]

NON_SCALAR.append(case(
    "unnamed-objective-in-update", "grad-non-scalar-output", setup=REGRESSION,
    cell="""
    def f(w):
        return (X @ w - y) ** 2

    w = jnp.zeros(3)
    w = w - 0.1 * jax.grad(f)(w)
    """,
    check="""
    Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
    np.testing.assert_allclose(np.asarray(w), 0.1 * 2 * Xn.T @ yn / 6, rtol=1e-4, atol=1e-6)
    """,
    wrong_fix="""
    def f(w):
        return (X @ w - y) ** 2

    w = jnp.zeros(3)
    w = w - 0.1 * jax.jacrev(f)(w).sum(axis=0)
    """,
))

INTEGER_INPUT = [
    case(
        "grad-at-int-literal", "grad-integer-input", setup=SETUP,
        cell="""
        def potential(x):
            return 0.5 * x ** 2 - 2.0 * x

        slope_at_3 = jax.grad(potential)(3)
        """,
        check="""
        assert abs(float(slope_at_3) - 1.0) < 1e-6
        """,
        wrong_fix="""
        def potential(x):
            return 0.5 * x ** 2 - 2.0 * x

        slope_at_3 = jax.grad(potential)(3.5)
        """,
    ),
    case(
        "vmap-grad-over-arange", "grad-integer-input", setup=JAX_ONLY,
        cell="""
        from jax import grad, vmap
        import jax.numpy as jnp

        def f(x):
            return jnp.sin(x) * x

        df = vmap(grad(f))(jnp.arange(6))
        """,
        check="""
        x = np.arange(6.0)
        np.testing.assert_allclose(np.asarray(df), np.cos(x) * x + np.sin(x), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        from jax import grad, vmap
        import jax.numpy as jnp

        def f(x):
            return jnp.sin(x) * x

        df = vmap(grad(f))(jnp.arange(6) / 6)
        """,
    ),
    case(
        "cubic-sum-int-array", "grad-integer-input", setup=SETUP,
        cell="""
        cube_sum = lambda x: jnp.sum(x ** 3)
        g = jax.grad(cube_sum)(jnp.array([1, 2, 3]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), 3 * np.array([1.0, 2.0, 3.0]) ** 2, rtol=1e-6)
        """,
        wrong_fix="""
        cube_sum = lambda x: jnp.sum(x ** 3)
        g = jax.grad(cube_sum)(jnp.array([1, 2, 3]) / 3)
        """,
    ),
    case(
        "poisson-nll-int-rates", "grad-integer-input", setup=SETUP,
        cell="""
        counts = jnp.array([3, 0, 5, 2])        # observed events per bin

        def poisson_nll(rate):
            return jnp.sum(rate - counts * jnp.log(rate))

        rate0 = jnp.array([2, 1, 4, 2])
        g = jax.grad(poisson_nll)(rate0)
        print(rate0.dtype)
        """,
        check="""
        ref = 1 - np.array([3, 0, 5, 2]) / np.array([2.0, 1.0, 4.0, 2.0])
        np.testing.assert_allclose(np.asarray(g), ref, rtol=1e-6)
        """,
        wrong_fix="""
        counts = jnp.array([3, 0, 5, 2])

        def poisson_nll(rate):
            return jnp.sum(rate - counts * jnp.log(rate))

        rate0 = jnp.array([2, 1, 4, 2])
        g = jax.grad(poisson_nll)(rate0 + 0.5)
        """,
    ),
    case(
        "value-and-grad-int-in-function", "grad-integer-input", setup=SETUP,
        cell="""
        def report(order):
            value, slope = jax.value_and_grad(lambda x: x ** order)(2)
            return float(value), float(slope)

        v, s = report(3)
        """,
        check="""
        assert abs(v - 8.0) < 1e-6 and abs(s - 12.0) < 1e-5
        """,
        wrong_fix="""
        def report(order):
            value, slope = jax.value_and_grad(lambda x: x ** order, allow_int=True)(2)
            return float(value), float(slope)

        v, s = report(3)
        """,
    ),
    case(
        "token-ids-first-argument", "grad-integer-input",
        setup=_more(SETUP, """
        tokens = jnp.array([0, 2, 1, 2])
        params = {"emb": jnp.array([[1.0, 0.0], [0.5, -0.5], [0.0, 2.0]]), "out": jnp.array([0.3, -0.7])}
        """),
        cell="""
        def loss(tokens, params):
            emb = params["emb"][tokens]            # (T, d)
            return jnp.mean((emb @ params["out"]) ** 2)

        grads = jax.grad(loss)(tokens, params)
        """,
        check="""
        E = np.array([[1.0, 0.0], [0.5, -0.5], [0.0, 2.0]])[[0, 2, 1, 2]]
        o = np.array([0.3, -0.7])
        np.testing.assert_allclose(np.asarray(grads["out"]), (2 * (E @ o)) @ E / 4, rtol=1e-5)
        """,
        wrong_fix="""
        def loss(tokens, params):
            emb = params["emb"][tokens]
            return jnp.mean((emb @ params["out"]) ** 2)

        grads = jax.grad(loss, allow_int=True)(tokens, params)
        """,
    ),
]

INTEGER_INPUT.append(case(
    "dropout-key-first-argument", "grad-integer-input", setup=SETUP,
    cell="""
    def loss(key, params, x):
        keep = jax.random.bernoulli(key, 0.5, x.shape)       # dropout mask
        h = jnp.where(keep, x, 0.0) / 0.5
        return jnp.sum((h @ params["w"]) ** 2)

    key = jax.random.PRNGKey(0)
    params = {"w": jnp.array([1.0, -1.0, 2.0])}
    x = jnp.arange(6.0).reshape(2, 3)
    grads = jax.grad(loss)(key, params, x)
    """,
    check="""
    mask = np.asarray(jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (2, 3)))
    h = np.where(mask, np.arange(6.0).reshape(2, 3), 0.0) / 0.5
    np.testing.assert_allclose(np.asarray(grads["w"]), 2 * h.T @ (h @ np.array([1.0, -1.0, 2.0])), rtol=1e-5)
    """,
    wrong_fix="""
    def loss(key, params, x):
        keep = jax.random.bernoulli(key, 0.5, x.shape)
        h = jnp.where(keep, x, 0.0) / 0.5
        return jnp.sum((h @ params["w"]) ** 2)

    key = jax.random.PRNGKey(0)
    params = {"w": jnp.array([1.0, -1.0, 2.0])}
    x = jnp.arange(6.0).reshape(2, 3)
    grads = jax.grad(loss, allow_int=True)(key, params, x)
    """,
))

INTEGER_INPUT.append(case(
    "index-first-argument", "grad-integer-input", setup=SETUP,
    cell="""
    table = jnp.array([0.5, 1.0, 1.5, 2.0])

    def pick_sq(i, table):
        return table[i] ** 2

    g = jax.grad(pick_sq)(2, table)
    """,
    check="""
    np.testing.assert_allclose(np.asarray(g), [0.0, 0.0, 3.0, 0.0])
    """,
    wrong_fix="""
    table = jnp.array([0.5, 1.0, 1.5, 2.0])

    def pick_sq(i, table):
        return table[i] ** 2

    g = jax.grad(pick_sq, allow_int=True)(2, table)
    """,
))

HAS_AUX = [
    case(
        "grad-loss-and-predictions", "grad-output-tuple-needs-has-aux", setup=REGRESSION,
        cell="""
        def loss_fn(w, x):
            pred = x @ w
            return jnp.mean(pred ** 2), pred

        g = jax.grad(loss_fn)(jnp.ones(3), X)
        """,
        check="""
        Xn = np.asarray(X, np.float64)
        np.testing.assert_allclose(np.asarray(g), 2 * Xn.T @ (Xn @ np.ones(3)) / 6, rtol=1e-4)
        """,
        wrong_fix="""
        def loss_fn(w, x):
            pred = x @ w
            return jnp.mean(pred ** 2), pred

        g = jax.grad(lambda w, x: loss_fn(w, x)[1].sum())(jnp.ones(3), X)
        """,
    ),
    case(
        "jitted-step-value-and-grad-metrics", "grad-output-tuple-needs-has-aux", setup=REGRESSION,
        cell="""
        @jax.jit
        def train_step(params, batch):
            def loss_fn(p):
                pred = batch["x"] @ p["w"] + p["b"]
                loss = jnp.mean((pred - batch["y"]) ** 2)
                return loss, {"mae": jnp.mean(jnp.abs(pred - batch["y"]))}

            loss, grads = jax.value_and_grad(loss_fn)(params)
            new = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            return new, loss

        params = {"w": jnp.zeros(3), "b": jnp.array(0.0)}
        params, loss = train_step(params, {"x": X, "y": y})
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        r = -yn
        np.testing.assert_allclose(float(loss), np.mean(r ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(params["w"]), -0.1 * 2 * Xn.T @ r / 6, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(params["b"]), -0.1 * 2 * r.mean(), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def train_step(params, batch):
            def loss_fn(p):
                pred = batch["x"] @ p["w"] + p["b"]
                return jnp.mean(jnp.abs(pred - batch["y"]))

            loss, grads = jax.value_and_grad(loss_fn)(params)
            new = jax.tree.map(lambda p, g: p - 0.1 * g, params, grads)
            return new, loss

        params = {"w": jnp.zeros(3), "b": jnp.array(0.0)}
        params, loss = train_step(params, {"x": X, "y": y})
        """,
    ),
    case(
        "named-value-and-grad-function", "grad-output-tuple-needs-has-aux", setup=_more(JAX_ONLY, """
        A = np.array([[1.0, 2.0], [0.0, 1.0], [1.0, -1.0]], dtype=np.float32)
        """),
        cell="""
        import jax.numpy as jnp
        from jax import value_and_grad

        def objective(theta, data):
            resid = data @ theta - 1.0
            return jnp.sum(resid ** 2), resid

        obj_and_grad = value_and_grad(objective)
        theta0 = jnp.array([0.5, 0.5])
        value, grad_theta = obj_and_grad(theta0, A)
        """,
        check="""
        r = A.astype(np.float64) @ np.array([0.5, 0.5]) - 1.0
        np.testing.assert_allclose(float(value), np.sum(r ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(grad_theta), 2 * A.T.astype(np.float64) @ r, rtol=1e-5)
        """,
        wrong_fix="""
        import jax.numpy as jnp
        from jax import value_and_grad

        def objective(theta, data):
            resid = data @ theta - 1.0
            return jnp.sum(resid ** 2)

        obj_and_grad = value_and_grad(objective)
        theta0 = jnp.array([0.5, 0.5])
        value, grad_theta = obj_and_grad(theta0, A.T @ A)
        """,
    ),
    case(
        "inline-update-with-aux", "grad-output-tuple-needs-has-aux", setup=SETUP,
        cell="""
        target = jnp.array([1.0, -2.0])

        def loss(w):
            err = w - target
            return jnp.dot(err, err), err

        w = jnp.zeros(2)
        for step in range(5):
            w = w - 0.25 * jax.grad(loss)(w)
        """,
        check="""
        ref = np.zeros(2)
        for _ in range(5):
            ref = ref - 0.25 * 2 * (ref - np.array([1.0, -2.0]))
        np.testing.assert_allclose(np.asarray(w), ref, rtol=1e-6)
        """,
        wrong_fix="""
        target = jnp.array([1.0, -2.0])

        def loss(w):
            err = w - target
            return jnp.dot(err, err)

        w = jnp.zeros(2)
        for step in range(5):
            w = w - 0.5 * jax.grad(loss)(w)
        """,
    ),
    case(
        "argnums-pair-with-aux", "grad-output-tuple-needs-has-aux", setup=REGRESSION,
        cell="""
        def loss(w, b, x, y):
            pred = x @ w + b
            return jnp.mean((pred - y) ** 2), pred

        gw, gb = jax.grad(loss, argnums=(0, 1))(jnp.zeros(3), 0.5, X, y)
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        r = 0.5 - yn
        np.testing.assert_allclose(np.asarray(gw), 2 * Xn.T @ r / 6, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(gb), 2 * r.mean(), rtol=1e-5)
        """,
        wrong_fix="""
        def loss(w, b, x, y):
            pred = x @ w + b
            return jnp.mean((pred - y) ** 2), pred

        gw, gb = jax.grad(lambda w, b, x, y: loss(w, b, x, y)[1].mean(), argnums=(0, 1))(jnp.zeros(3), 0.5, X, y)
        """,
    ),
]

AUX_PAIR = [
    case(
        "three-outputs-value-and-grad", "grad-has-aux-not-pair", setup=REGRESSION,
        cell="""
        def loss_fn(w, x, y):
            pred = x @ w
            err = pred - y
            return jnp.mean(err ** 2), pred, jnp.max(jnp.abs(err))

        w = jnp.array([0.2, 0.1, -0.3])
        (loss, pred, max_err), g = jax.value_and_grad(loss_fn, has_aux=True)(w, X, y)
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        e = Xn @ np.array([0.2, 0.1, -0.3]) - yn
        np.testing.assert_allclose(float(loss), np.mean(e ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(g), 2 * Xn.T @ e / 6, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(max_err), np.max(np.abs(e)), rtol=1e-5)
        """,
        wrong_fix="""
        def loss_fn(w, x, y):
            pred = x @ w
            err = pred - y
            return jnp.mean(err ** 2), pred, jnp.max(jnp.abs(err))

        w = jnp.array([0.2, 0.1, -0.3])
        (loss, pred), g = jax.value_and_grad(lambda *a: loss_fn(*a)[:2], has_aux=True)(w, X, y)
        max_err = jnp.max(jnp.abs(pred))
        """,
    ),
    case(
        "three-outputs-grad-nested-target", "grad-has-aux-not-pair", setup=SETUP,
        cell="""
        def loss_fn(params):
            logits = params["w"] * jnp.array([1.0, 2.0, 3.0])
            loss = jnp.sum(logits ** 2)
            acc = jnp.mean(logits > 2.0)
            return loss, acc, logits

        grads, (acc, logits) = jax.grad(loss_fn, has_aux=True)({"w": jnp.array(1.5)})
        """,
        check="""
        np.testing.assert_allclose(float(grads["w"]), 2 * 1.5 * (1 + 4 + 9), rtol=1e-6)
        np.testing.assert_allclose(float(acc), 2 / 3, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(logits), [1.5, 3.0, 4.5])
        """,
        wrong_fix="""
        def loss_fn(params):
            logits = params["w"] * jnp.array([1.0, 2.0, 3.0])
            loss = jnp.sum(logits ** 2)
            acc = jnp.mean(logits > 2.0)
            return acc, (loss, logits)

        grads, (acc, logits) = jax.grad(loss_fn, has_aux=True)({"w": jnp.array(1.5)})
        """,
    ),
    case(
        "has-aux-without-aux-underscore", "grad-has-aux-not-pair", setup=SETUP,
        cell="""
        def loss(w):
            return jnp.sum(jnp.sin(w) ** 2)

        w = jnp.array([0.3, -1.2, 2.0])
        g, _ = jax.grad(loss, has_aux=True)(w)
        """,
        check="""
        x = np.array([0.3, -1.2, 2.0])
        np.testing.assert_allclose(np.asarray(g), 2 * np.sin(x) * np.cos(x), rtol=1e-5)
        """,
        wrong_fix="""
        def loss(w):
            return jnp.sum(jnp.sin(w) ** 2), None

        w = jnp.array([0.3, -1.2, 2.0])
        g, _ = jax.grad(loss, has_aux=True)(-w)
        """,
    ),
    case(
        "jitted-step-has-aux-no-aux", "grad-has-aux-not-pair", setup=REGRESSION,
        cell="""
        @jax.jit
        def update(params, x, y):
            def loss_fn(p):
                return jnp.mean((x @ p - y) ** 2)
            (loss, _), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
            return params - 0.05 * grads, loss

        w, loss = update(jnp.ones(3), X, y)
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        r = Xn @ np.ones(3) - yn
        np.testing.assert_allclose(float(loss), np.mean(r ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(w), np.ones(3) - 0.05 * 2 * Xn.T @ r / 6, rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def update(params, x, y):
            def loss_fn(p):
                return jnp.mean((x @ p - y) ** 2), p
            (loss, _), grads = jax.value_and_grad(loss_fn, has_aux=True)(params)
            return params + 0.05 * grads, loss

        w, loss = update(jnp.ones(3), X, y)
        """,
    ),
    case(
        "has-aux-but-aux-used-later", "grad-has-aux-not-pair", setup=SETUP,
        cell="""
        def loss(w):
            return jnp.sum(w ** 2)

        g, stats = jax.grad(loss, has_aux=True)(jnp.ones(2))
        print(stats["norm"])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), [2.0, 2.0])
        """,
        wrong_fix="""
        def loss(w):
            return jnp.sum(w ** 2), {"norm": 0.0}

        g, stats = jax.grad(loss, has_aux=True)(jnp.zeros(2))
        print(stats["norm"])
        """,
    ),
]

LOOPS = [
    case(
        "fori-loop-traced-steps-jit", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        from jax import lax

        @jax.jit
        def simulate(v0, n_steps):
            def body(i, state):
                x, v = state
                return x + 0.1 * v, v - 0.1 * x
            x, v = lax.fori_loop(0, n_steps, body, (0.0, v0))
            return x

        dx_dv0 = jax.grad(simulate)(1.0, 20)
        """,
        check="""
        def ref(n):
            x, v = 0.0, 1.0
            for _ in range(n):
                x, v = x + 0.1 * v, v - 0.1 * x
            return x   # x is linear in v0, so dx/dv0 = x(v0=1)
        np.testing.assert_allclose(float(dx_dv0), ref(20), rtol=1e-5)
        np.testing.assert_allclose(float(jax.grad(simulate)(1.0, 7)), ref(7), rtol=1e-5)
        """,
        wrong_fix="""
        from jax import lax

        @jax.jit
        def simulate(v0, n_steps):
            def body(i, state):
                x, v = state
                return x + 0.1 * v, v - 0.1 * x
            x, v = lax.fori_loop(0, 20, body, (0.0, v0))
            return x

        dx_dv0 = jax.grad(simulate)(1.0, 20)
        """,
    ),
    case(
        "fori-loop-jit-call-form", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        def compound(rate, years):
            return jax.lax.fori_loop(0, years, lambda i, amount: amount * (1.0 + rate), 100.0)

        compound_jit = jax.jit(compound)
        sensitivity = jax.grad(compound_jit)(0.05, 10)
        """,
        check="""
        np.testing.assert_allclose(float(sensitivity), 100.0 * 10 * 1.05 ** 9, rtol=1e-5)
        np.testing.assert_allclose(float(jax.grad(compound_jit)(0.05, 3)), 100.0 * 3 * 1.05 ** 2, rtol=1e-5)
        """,
        wrong_fix="""
        def compound(rate, years):
            return jax.lax.fori_loop(0, 10, lambda i, amount: amount * (1.0 + rate), 100.0)

        compound_jit = jax.jit(compound)
        sensitivity = jax.grad(compound_jit)(0.05, 10)
        """,
    ),
    case(
        "newton-sqrt-while-counter", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        from jax import lax

        def sqrt_newton(a, max_iter=20, tol=1e-6):
            def cond(state):
                i, x, step = state
                return (i < max_iter) & (jnp.abs(step) > tol)

            def body(state):
                i, x, _ = state
                new_x = 0.5 * (x + a / x)
                return i + 1, new_x, new_x - x

            _, x, _ = lax.while_loop(cond, body, (0, a, jnp.inf))
            return x

        dsqrt = jax.grad(sqrt_newton)(2.0)
        """,
        check="""
        np.testing.assert_allclose(float(dsqrt), 0.5 / np.sqrt(2.0), rtol=1e-4)
        np.testing.assert_allclose(float(sqrt_newton(9.0)), 3.0, rtol=1e-6)
        np.testing.assert_allclose(float(jax.grad(sqrt_newton)(9.0)), 1 / 6, rtol=1e-4)
        """,
        wrong_fix="""
        from jax import lax

        def sqrt_newton(a, max_iter=20, tol=1e-6):
            def body(i, x):
                return 0.5 * (x + a / x)
            return lax.fori_loop(0, 2, body, a)

        dsqrt = jax.grad(sqrt_newton)(2.0)
        """,
    ),
    case(
        "discounted-sum-while-lambdas", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        def discounted_return(gamma):
            state = jax.lax.while_loop(lambda s: s[0] < 50,
                                       lambda s: (s[0] + 1, s[1] + gamma ** s[0]),
                                       (0, 0.0))
            return state[1]

        dG = jax.grad(discounted_return)(0.9)
        """,
        check="""
        k = np.arange(50)
        np.testing.assert_allclose(float(dG), np.sum(k[1:] * 0.9 ** (k[1:] - 1)), rtol=1e-4)
        np.testing.assert_allclose(float(discounted_return(0.5)), np.sum(0.5 ** k), rtol=1e-5)
        """,
        wrong_fix="""
        def discounted_return(gamma):
            state = jax.lax.fori_loop(0, 10, lambda i, s: (s[0] + 1, s[1] + gamma ** s[0]), (0, 0.0))
            return state[1]

        dG = jax.grad(discounted_return)(0.9)
        """,
    ),
    case(
        "gradient-descent-dict-state", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        from jax.lax import while_loop

        def descend(lr, x0=3.0, n_iter=25):
            def keep_going(st):
                return st["step"] < n_iter

            def update(st):
                return {"step": st["step"] + 1, "x": st["x"] - lr * 2 * st["x"]}

            out = while_loop(keep_going, update, {"step": 0, "x": x0})
            return out["x"]

        sens = jax.grad(descend)(0.1)
        """,
        check="""
        np.testing.assert_allclose(float(sens), 3.0 * 25 * 0.8 ** 24 * -2, rtol=1e-4)
        np.testing.assert_allclose(float(descend(0.2)), 3.0 * 0.6 ** 25, rtol=1e-4)
        """,
        wrong_fix="""
        from jax.lax import while_loop

        def descend(lr, x0=3.0, n_iter=25):
            return jax.lax.fori_loop(0, 24, lambda i, x: x - lr * 2 * x, x0)

        sens = jax.grad(descend)(0.1)
        """,
    ),
    case(
        "grow-until-threshold-no-bound", "while-loop-reverse-mode", setup=SETUP,
        cell="""
        def grow(x):
            return jax.lax.while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)

        g = jax.grad(grow)(2.0)
        """,
        check="""
        assert abs(float(g) - 4 * 2.0 ** 3) < 1e-4   # 4 doublings reach 16
        assert abs(float(jax.grad(grow)(3.0)) - 3 * 3.0 ** 2) < 1e-4
        """,
        wrong_fix="""
        def grow(x):
            return jax.lax.fori_loop(0, 4, lambda i, c: c * x, 1.0)

        g = jax.grad(grow)(2.0)
        """,
    ),
]

LOOPS.append(case(
    "fori-loop-jit-of-grad", "while-loop-reverse-mode", setup=SETUP,
    cell="""
    def trajectory_loss(theta, horizon):
        final = jax.lax.fori_loop(0, horizon, lambda t, s: s + jnp.sin(theta * t), 0.0)
        return final ** 2

    grad_fn = jax.jit(jax.grad(trajectory_loss))
    g = grad_fn(0.3, 8)
    """,
    check="""
    def ref(theta, n):
        t = np.arange(n)
        return 2 * np.sum(np.sin(theta * t)) * np.sum(t * np.cos(theta * t))
    np.testing.assert_allclose(float(g), ref(0.3, 8), rtol=1e-4)
    np.testing.assert_allclose(float(grad_fn(0.3, 4)), ref(0.3, 4), rtol=1e-4)
    """,
    wrong_fix="""
    def trajectory_loss(theta, horizon):
        final = jax.lax.fori_loop(0, 8, lambda t, s: s + jnp.sin(theta * t), 0.0)
        return final ** 2

    grad_fn = jax.jit(jax.grad(trajectory_loss))
    g = grad_fn(0.3, 8)
    """,
))

CUSTOM_VJP = [
    case(
        "clip-gradient-bwd-bare", "custom-vjp-bwd-wrong-structure", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def clip_gradient(x):
            return x

        def clip_fwd(x):
            return x, None

        def clip_bwd(_, g):
            return jnp.clip(g, -1.0, 1.0)     # clip the incoming gradient

        clip_gradient.defvjp(clip_fwd, clip_bwd)
        g = jax.grad(lambda x: jnp.sum(clip_gradient(x) * jnp.array([5.0, 0.5, -3.0])))(jnp.ones(3))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), [1.0, 0.5, -1.0])
        """,
        wrong_fix="""
        @jax.custom_vjp
        def clip_gradient(x):
            return x

        def clip_fwd(x):
            return x, None

        def clip_bwd(_, g):
            return (g,)

        clip_gradient.defvjp(clip_fwd, clip_bwd)
        g = jax.grad(lambda x: jnp.sum(clip_gradient(x) * jnp.array([5.0, 0.5, -3.0])))(jnp.ones(3))
        """,
    ),
    case(
        "safe-log-bwd-bare-in-training", "custom-vjp-bwd-wrong-structure", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def safe_log(x):
            return jnp.log(jnp.maximum(x, 1e-6))

        def safe_log_fwd(x):
            return safe_log(x), x

        def safe_log_bwd(x, g):
            return g / jnp.maximum(x, 1e-6)

        safe_log.defvjp(safe_log_fwd, safe_log_bwd)

        @jax.jit
        def nll(p):
            return -jnp.sum(safe_log(p))

        g = jax.grad(nll)(jnp.array([0.5, 0.25, 0.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), [-2.0, -4.0, -1e6], rtol=1e-5)
        """,
        wrong_fix="""
        @jax.custom_vjp
        def safe_log(x):
            return jnp.log(jnp.maximum(x, 1e-6))

        def safe_log_fwd(x):
            return safe_log(x), x

        def safe_log_bwd(x, g):
            return (g / x,)

        safe_log.defvjp(safe_log_fwd, safe_log_bwd)

        @jax.jit
        def nll(p):
            return -jnp.sum(safe_log(p))

        g = jax.grad(nll)(jnp.array([0.5, 0.25, 0.0]))
        """,
    ),
    case(
        "power-nondiff-bwd-extra-none", "custom-vjp-bwd-wrong-structure", setup=_more(SETUP, """
        from functools import partial
        """),
        cell="""
        @partial(jax.custom_vjp, nondiff_argnums=(0,))
        def power(n, x):
            return x ** n

        def power_fwd(n, x):
            return x ** n, x

        def power_bwd(n, x, g):
            return (None, g * n * x ** (n - 1))

        power.defvjp(power_fwd, power_bwd)
        slope = jax.grad(power, argnums=1)(3, 2.0)
        """,
        check="""
        assert abs(float(slope) - 12.0) < 1e-5
        assert abs(float(jax.grad(power, argnums=1)(2, 5.0)) - 10.0) < 1e-5
        """,
        wrong_fix="""
        @partial(jax.custom_vjp, nondiff_argnums=(0,))
        def power(n, x):
            return x ** n

        def power_fwd(n, x):
            return x ** n, x

        def power_bwd(n, x, g):
            return (g * x ** (n - 1),)

        power.defvjp(power_fwd, power_bwd)
        slope = jax.grad(power, argnums=1)(3, 2.0)
        """,
    ),
    case(
        "pair-argument-bwd-not-wrapped", "custom-vjp-bwd-wrong-structure", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def bilinear(ab):
            a, b = ab
            return a * b

        def bilinear_fwd(ab):
            return bilinear(ab), ab

        def bilinear_bwd(ab, g):
            a, b = ab
            return g * b, g * a          # cotangent for the pair (a, b)

        bilinear.defvjp(bilinear_fwd, bilinear_bwd)
        ga, gb = jax.grad(bilinear)((3.0, 4.0))
        """,
        check="""
        assert abs(float(ga) - 4.0) < 1e-6 and abs(float(gb) - 3.0) < 1e-6
        """,
        wrong_fix="""
        @jax.custom_vjp
        def bilinear(ab):
            a, b = ab
            return a * b

        def bilinear_fwd(ab):
            return bilinear(ab), ab

        def bilinear_bwd(ab, g):
            a, b = ab
            return ((g * a, g * b),)

        bilinear.defvjp(bilinear_fwd, bilinear_bwd)
        ga, gb = jax.grad(bilinear)((3.0, 4.0))
        """,
    ),
    case(
        "two-args-bwd-one-cotangent", "custom-vjp-bwd-wrong-structure", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def scale(x, k):
            return x * k

        def scale_fwd(x, k):
            return scale(x, k), (x, k)

        def scale_bwd(res, g):
            x, k = res
            return g * k

        scale.defvjp(scale_fwd, scale_bwd)
        gx, gk = jax.grad(scale, argnums=(0, 1))(2.0, 3.0)
        """,
        check="""
        assert abs(float(gx) - 3.0) < 1e-6 and abs(float(gk) - 2.0) < 1e-6
        """,
        wrong_fix="""
        @jax.custom_vjp
        def scale(x, k):
            return x * k

        def scale_fwd(x, k):
            return scale(x, k), (x, k)

        def scale_bwd(res, g):
            x, k = res
            return (g * k, None)

        scale.defvjp(scale_fwd, scale_bwd)
        gx, gk = jax.grad(scale, argnums=(0, 1))(2.0, 3.0)
        """,
    ),
    case(
        "scalar-gain-cotangent-not-summed", "custom-vjp-bwd-wrong-shape", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def apply_gain(x, gain):
            return x * gain

        def apply_gain_fwd(x, gain):
            return x * gain, (x, gain)

        def apply_gain_bwd(res, g):
            x, gain = res
            return (g * gain, g * x)

        apply_gain.defvjp(apply_gain_fwd, apply_gain_bwd)
        signal = jnp.array([1.0, -2.0, 0.5])
        dgain = jax.grad(lambda k: jnp.sum(apply_gain(signal, k) ** 2))(1.5)
        """,
        check="""
        s = np.array([1.0, -2.0, 0.5])
        np.testing.assert_allclose(float(dgain), np.sum(2 * 1.5 * s * s), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.custom_vjp
        def apply_gain(x, gain):
            return x * gain

        def apply_gain_fwd(x, gain):
            return x * gain, (x, gain)

        def apply_gain_bwd(res, g):
            x, gain = res
            return (g * gain, (g * x)[0])

        apply_gain.defvjp(apply_gain_fwd, apply_gain_bwd)
        signal = jnp.array([1.0, -2.0, 0.5])
        dgain = jax.grad(lambda k: jnp.sum(apply_gain(signal, k) ** 2))(1.5)
        """,
    ),
    case(
        "bias-add-cotangent-rows", "custom-vjp-bwd-wrong-shape", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def add_bias(h, bias):
            return h + bias

        def add_bias_fwd(h, bias):
            return h + bias, None

        def add_bias_bwd(_, g):
            return g, g

        add_bias.defvjp(add_bias_fwd, add_bias_bwd)
        h = jnp.arange(12.0).reshape(4, 3)
        gbias = jax.grad(lambda b: jnp.sum(jnp.tanh(add_bias(h / 10, b))))(jnp.zeros(3))
        """,
        check="""
        hn = np.arange(12.0).reshape(4, 3) / 10
        np.testing.assert_allclose(np.asarray(gbias), (1 - np.tanh(hn) ** 2).sum(axis=0), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.custom_vjp
        def add_bias(h, bias):
            return h + bias

        def add_bias_fwd(h, bias):
            return h + bias, None

        def add_bias_bwd(_, g):
            return g, g.mean(axis=0)

        add_bias.defvjp(add_bias_fwd, add_bias_bwd)
        h = jnp.arange(12.0).reshape(4, 3)
        gbias = jax.grad(lambda b: jnp.sum(jnp.tanh(add_bias(h / 10, b))))(jnp.zeros(3))
        """,
    ),
    case(
        "sum-of-squares-bwd-wrong-math", "custom-vjp-bwd-wrong-shape", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def sumsq(x):
            return jnp.sum(x ** 2)

        def sumsq_fwd(x):
            return sumsq(x), x

        def sumsq_bwd(x, g):
            return (2 * g * x.sum(),)

        sumsq.defvjp(sumsq_fwd, sumsq_bwd)
        g = jax.grad(sumsq)(jnp.array([1.0, 2.0, 3.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), [2.0, 4.0, 6.0])
        """,
        wrong_fix="""
        @jax.custom_vjp
        def sumsq(x):
            return jnp.sum(x ** 2)

        def sumsq_fwd(x):
            return sumsq(x), x

        def sumsq_bwd(x, g):
            return (2 * g * x.sum() * jnp.ones_like(x),)

        sumsq.defvjp(sumsq_fwd, sumsq_bwd)
        g = jax.grad(sumsq)(jnp.array([1.0, 2.0, 3.0]))
        """,
    ),
]

FWD_JVP = [
    case(
        "fwd-three-values-softplus", "custom-vjp-fwd-not-pair", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def softplus(x):
            return jnp.logaddexp(x, 0.0)

        def softplus_fwd(x):
            y = jnp.logaddexp(x, 0.0)
            return y, jax.nn.sigmoid(x), x

        def softplus_bwd(res, g):
            s, x = res
            return (g * s,)

        softplus.defvjp(softplus_fwd, softplus_bwd)
        g = jax.grad(lambda v: jnp.sum(softplus(v)))(jnp.array([-1.0, 0.0, 2.0]))
        """,
        check="""
        v = np.array([-1.0, 0.0, 2.0])
        np.testing.assert_allclose(np.asarray(g), 1 / (1 + np.exp(-v)), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.custom_vjp
        def softplus(x):
            return jnp.logaddexp(x, 0.0)

        def softplus_fwd(x):
            y = jnp.logaddexp(x, 0.0)
            return y, (x, jax.nn.sigmoid(x))

        def softplus_bwd(res, g):
            s, x = res
            return (g * s,)

        softplus.defvjp(softplus_fwd, softplus_bwd)
        g = jax.grad(lambda v: jnp.sum(softplus(v)))(jnp.array([-1.0, 0.0, 2.0]))
        """,
    ),
    case(
        "fwd-returns-only-output", "custom-vjp-fwd-not-pair", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def wave(x):
            return jnp.sin(x)

        def wave_fwd(x):
            return wave(x)

        def wave_bwd(x, g):
            return (g * jnp.cos(x),)

        wave.defvjp(wave_fwd, wave_bwd)
        slope = jax.grad(wave)(0.7)
        """,
        check="""
        assert abs(float(slope) - np.cos(0.7)) < 1e-6
        """,
        wrong_fix="""
        @jax.custom_vjp
        def wave(x):
            return jnp.sin(x)

        def wave_fwd(x):
            return wave(x), wave(x)

        def wave_bwd(x, g):
            return (g * jnp.cos(x),)

        wave.defvjp(wave_fwd, wave_bwd)
        slope = jax.grad(wave)(0.7)
        """,
    ),
    case(
        "fwd-only-output-two-inputs", "custom-vjp-fwd-not-pair", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def weighted(x, w):
            return jnp.dot(x, w)

        def weighted_fwd(x, w):
            return weighted(x, w)

        def weighted_bwd(res, g):
            x, w = res
            return (g * w, g * x)

        weighted.defvjp(weighted_fwd, weighted_bwd)
        gx, gw = jax.grad(weighted, argnums=(0, 1))(jnp.array([1.0, 2.0]), jnp.array([3.0, -1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(gx), [3.0, -1.0])
        np.testing.assert_allclose(np.asarray(gw), [1.0, 2.0])
        """,
        wrong_fix="""
        @jax.custom_vjp
        def weighted(x, w):
            return jnp.dot(x, w)

        def weighted_fwd(x, w):
            return weighted(x, w), (w, x)

        def weighted_bwd(res, g):
            x, w = res
            return (g * w, g * x)

        weighted.defvjp(weighted_fwd, weighted_bwd)
        gx, gw = jax.grad(weighted, argnums=(0, 1))(jnp.array([1.0, 2.0]), jnp.array([3.0, -1.0]))
        """,
    ),
    case(
        "fwd-three-values-bwd-indexes", "custom-vjp-fwd-not-pair", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def cube(x):
            return x ** 3

        def cube_fwd(x):
            return x ** 3, x, x ** 2

        def cube_bwd(res, g):
            return (3 * g * res[1],)

        cube.defvjp(cube_fwd, cube_bwd)
        g = jax.grad(cube)(2.0)
        """,
        check="""
        assert abs(float(g) - 12.0) < 1e-5
        """,
        wrong_fix="""
        @jax.custom_vjp
        def cube(x):
            return x ** 3

        def cube_fwd(x):
            return x ** 3, (x ** 2, x)

        def cube_bwd(res, g):
            return (3 * g * res[1],)

        cube.defvjp(cube_fwd, cube_bwd)
        g = jax.grad(cube)(2.0)
        """,
    ),
    case(
        "jvp-rule-only-tangent-soft-abs", "custom-jvp-rule-not-pair", setup=SETUP,
        cell="""
        @jax.custom_jvp
        def soft_abs(x):
            return jnp.sqrt(x ** 2 + 1e-3)

        @soft_abs.defjvp
        def soft_abs_jvp(primals, tangents):
            x, = primals
            t, = tangents
            return x / jnp.sqrt(x ** 2 + 1e-3) * t

        g = jax.grad(soft_abs)(0.5)
        """,
        check="""
        assert abs(float(g) - 0.5 / np.sqrt(0.25 + 1e-3)) < 1e-5
        out, tan = jax.jvp(soft_abs, (-2.0,), (1.0,))
        assert abs(float(out) - np.sqrt(4.001)) < 1e-5 and abs(float(tan) + 2 / np.sqrt(4.001)) < 1e-5
        """,
        wrong_fix="""
        @jax.custom_jvp
        def soft_abs(x):
            return jnp.sqrt(x ** 2 + 1e-3)

        @soft_abs.defjvp
        def soft_abs_jvp(primals, tangents):
            x, = primals
            t, = tangents
            return jnp.abs(x), x / jnp.sqrt(x ** 2 + 1e-3) * t

        g = jax.grad(soft_abs)(0.5)
        """,
    ),
    case(
        "jvp-rule-two-args-helper", "custom-jvp-rule-not-pair", setup=SETUP,
        cell="""
        @jax.custom_jvp
        def logaddexp2(a, b):
            hi = jnp.maximum(a, b)
            return hi + jnp.log(jnp.exp(a - hi) + jnp.exp(b - hi))

        @logaddexp2.defjvp
        def logaddexp2_jvp(primals, tangents):
            a, b = primals
            ta, tb = tangents
            wa = jax.nn.sigmoid(a - b)
            return wa * ta + (1 - wa) * tb

        out, dout = jax.jvp(logaddexp2, (1.0, 2.0), (1.0, 0.0))
        """,
        check="""
        np.testing.assert_allclose(float(out), np.logaddexp(1.0, 2.0), rtol=1e-6)
        np.testing.assert_allclose(float(dout), 1 / (1 + np.exp(1.0)), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.custom_jvp
        def logaddexp2(a, b):
            hi = jnp.maximum(a, b)
            return hi + jnp.log(jnp.exp(a - hi) + jnp.exp(b - hi))

        @logaddexp2.defjvp
        def logaddexp2_jvp(primals, tangents):
            a, b = primals
            ta, tb = tangents
            wa = jax.nn.sigmoid(a - b)
            return jnp.maximum(a, b), wa * ta + (1 - wa) * tb

        out, dout = jax.jvp(logaddexp2, (1.0, 2.0), (1.0, 0.0))
        """,
    ),
    case(
        "jvp-defjvp-call-form-indexing", "custom-jvp-rule-not-pair", setup=SETUP,
        cell="""
        @jax.custom_jvp
        def relu6(x):
            return jnp.clip(x, 0.0, 6.0)

        def relu6_jvp(primals, tangents):
            inside = (primals[0] > 0) & (primals[0] < 6)
            return jnp.where(inside, tangents[0], 0.0)

        relu6.defjvp(relu6_jvp)
        slopes = jax.vmap(jax.grad(relu6))(jnp.array([-1.0, 3.0, 7.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(slopes), [0.0, 1.0, 0.0])
        np.testing.assert_allclose(np.asarray(jax.jvp(relu6, (7.5,), (1.0,))[0]), 6.0)
        """,
        wrong_fix="""
        @jax.custom_jvp
        def relu6(x):
            return jnp.clip(x, 0.0, 6.0)

        def relu6_jvp(primals, tangents):
            inside = (primals[0] > 0) & (primals[0] < 6)
            return primals[0], jnp.where(inside, tangents[0], 0.0)

        relu6.defjvp(relu6_jvp)
        slopes = jax.vmap(jax.grad(relu6))(jnp.array([-1.0, 3.0, 7.0]))
        """,
    ),
    case(
        "jvp-nondiff-order-argument", "custom-jvp-rule-not-pair", setup=_more(SETUP, """
        from functools import partial
        """),
        cell="""
        @partial(jax.custom_jvp, nondiff_argnums=(0,))
        def smooth_power(n, x):
            return (x ** 2 + 1.0) ** (n / 2)

        @smooth_power.defjvp
        def smooth_power_jvp(n, primals, tangents):
            (x,), (t,) = primals, tangents
            return n * x * (x ** 2 + 1.0) ** (n / 2 - 1) * t

        g = jax.grad(smooth_power, argnums=1)(3, 2.0)
        """,
        check="""
        np.testing.assert_allclose(float(g), 3 * 2.0 * 5.0 ** 0.5, rtol=1e-5)
        np.testing.assert_allclose(float(smooth_power(3, 2.0)), 5.0 ** 1.5, rtol=1e-5)
        np.testing.assert_allclose(float(jax.jvp(lambda x: smooth_power(3, x), (2.0,), (1.0,))[0]), 5.0 ** 1.5,
                                   rtol=1e-5)
        """,
        wrong_fix="""
        @partial(jax.custom_jvp, nondiff_argnums=(0,))
        def smooth_power(n, x):
            return (x ** 2 + 1.0) ** (n / 2)

        @smooth_power.defjvp
        def smooth_power_jvp(n, primals, tangents):
            (x,), (t,) = primals, tangents
            return x ** n, n * x * (x ** 2 + 1.0) ** (n / 2 - 1) * t

        g = jax.grad(smooth_power, argnums=1)(3, 2.0)
        """,
    ),
]

ARGNUMS = [
    case(
        "argnums-weight-passed-by-keyword", "grad-argnums-missing-args", setup=REGRESSION,
        cell="""
        def loss(x, w):
            return jnp.mean((x @ w - y) ** 2)

        w = jnp.array([0.1, 0.2, 0.3])
        gw = jax.grad(loss, argnums=1)(X, w=w)
        """,
        check="""
        Xn, yn = np.asarray(X, np.float64), np.asarray(y, np.float64)
        r = Xn @ np.array([0.1, 0.2, 0.3]) - yn
        np.testing.assert_allclose(np.asarray(gw), 2 * Xn.T @ r / 6, rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        def loss(x, w):
            return jnp.mean((x @ w - y) ** 2)

        w = jnp.array([0.1, 0.2, 0.3])
        gw = jax.grad(loss, argnums=0)(X, w=w)
        """,
    ),
    case(
        "argnums-two-keywords-value-and-grad", "grad-argnums-missing-args", setup=SETUP,
        cell="""
        def spring_energy(pos, k, r0):
            d = jnp.linalg.norm(pos)
            return 0.5 * k * (d - r0) ** 2

        pos = jnp.array([3.0, 4.0])
        e, (dk, dr0) = jax.value_and_grad(spring_energy, argnums=(1, 2))(pos, k=2.0, r0=4.0)
        """,
        check="""
        assert abs(float(e) - 1.0) < 1e-6
        assert abs(float(dk) - 0.5) < 1e-6 and abs(float(dr0) + 2.0) < 1e-6
        """,
        wrong_fix="""
        def spring_energy(pos, k, r0):
            d = jnp.linalg.norm(pos)
            return 0.5 * k * (d - r0) ** 2

        pos = jnp.array([3.0, 4.0])
        e, (dk, dr0) = jax.value_and_grad(spring_energy, argnums=(1, 2))(pos, 4.0, 2.0)
        """,
    ),
    case(
        "argnums-keyword-in-jitted-step", "grad-argnums-missing-args", setup=SETUP,
        cell="""
        def objective(data, params, scale=1.0):
            return scale * jnp.sum((data - params) ** 2)

        @jax.jit
        def step(data, params):
            g = jax.grad(objective, argnums=1)(data, params=params, scale=0.5)
            return params - 0.1 * g

        new_params = step(jnp.array([1.0, 2.0]), jnp.zeros(2))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(new_params), 0.1 * np.array([1.0, 2.0]), rtol=1e-6)
        """,
        wrong_fix="""
        def objective(data, params, scale=1.0):
            return scale * jnp.sum((data - params) ** 2)

        @jax.jit
        def step(data, params):
            g = jax.grad(objective, argnums=1)(data, params)
            return params - 0.1 * g

        new_params = step(jnp.array([1.0, 2.0]), jnp.zeros(2))
        """,
    ),
]

DEFVJP = [
    case(
        "forgot-defvjp-rules-defined", "custom-vjp-missing-defvjp", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def stable_sigmoid(x):
            return jax.nn.sigmoid(x)

        def stable_sigmoid_fwd(x):
            s = jax.nn.sigmoid(x)
            return s, s

        def stable_sigmoid_bwd(s, g):
            return (g * s * (1 - s),)

        dsig = jax.grad(stable_sigmoid)(0.3)
        """,
        check="""
        s = 1 / (1 + np.exp(-0.3))
        assert abs(float(dsig) - s * (1 - s)) < 1e-6
        """,
        wrong_fix="""
        @jax.custom_vjp
        def stable_sigmoid(x):
            return jax.nn.sigmoid(x)

        def stable_sigmoid_fwd(x):
            s = jax.nn.sigmoid(x)
            return s, s

        def stable_sigmoid_bwd(s, g):
            return (g * s * (1 - s),)

        stable_sigmoid.defvjp(stable_sigmoid_fwd, lambda s, g: (g * s,))
        dsig = jax.grad(stable_sigmoid)(0.3)
        """,
    ),
    case(
        "forgot-defvjp-forward-call", "custom-vjp-missing-defvjp", setup=SETUP,
        cell="""
        @jax.custom_vjp
        def straight_through_round(x):
            return jnp.round(x)

        def straight_through_round_fwd(x):
            return jnp.round(x), None

        def straight_through_round_bwd(_, g):
            return (g,)

        q = straight_through_round(jnp.array([0.2, 1.7, -0.6]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(q), [0.0, 2.0, -1.0])
        g = jax.grad(lambda v: jnp.sum(straight_through_round(v) * 3.0))(jnp.array([0.2, 1.7]))
        np.testing.assert_allclose(np.asarray(g), [3.0, 3.0])
        """,
        wrong_fix="""
        def straight_through_round(x):
            return jnp.round(x)

        q = straight_through_round(jnp.array([0.2, 1.7, -0.6]))
        """,
    ),
]

NEGATIVE = [
    case(
        "negative-typo-in-loss-name", "negative", setup=SETUP, negative=True,
        cell="""
        def loss_fn(w):
            return jnp.sum(w ** 2)

        g = jax.grad(los_fn)(jnp.ones(3))
        """,
    ),
    case(
        "negative-python-zero-division", "negative", setup=SETUP, negative=True,
        cell="""
        def loss_fn(w):
            return jnp.mean(w ** 2)

        grads = [jax.grad(loss_fn)(jnp.ones(2) * i) for i in range(3)]
        n_steps = 0
        mean_norm = sum(float(jnp.linalg.norm(g)) for g in grads) / n_steps
        """,
    ),
]

HAS_AUX += [
    case(
        "value-and-grad-already-unpacks-loss-and-metric", "grad-output-tuple-needs-has-aux", setup=SETUP,
        cell="""
        def loss_and_err(w, x, t):
            pred = x @ w
            return jnp.mean((pred - t) ** 2), jnp.max(jnp.abs(pred - t))

        x = jnp.asarray(np.arange(6.0).reshape(3, 2))
        t = jnp.array([1.0, 2.0, 3.0])
        w = jnp.zeros(2)
        for _ in range(3):
            (loss, err), g = jax.value_and_grad(loss_and_err)(w, x, t)
            w = w - 0.01 * g
        """,
        check="""
        xn, tn, wn = np.arange(6.0).reshape(3, 2), np.array([1.0, 2.0, 3.0]), np.zeros(2)
        for _ in range(3):
            r = xn @ wn - tn
            l_, e_ = np.mean(r ** 2), np.max(np.abs(r))
            wn = wn - 0.01 * (2 * xn.T @ r / 3)
        np.testing.assert_allclose(np.asarray(w), wn, rtol=1e-5)
        np.testing.assert_allclose(float(err), e_, rtol=1e-5)
        np.testing.assert_allclose(float(loss), l_, rtol=1e-5)
        """,
        wrong_fix="""
        def loss_and_err(w, x, t):
            pred = x @ w
            return jnp.mean((pred - t) ** 2), jnp.max(jnp.abs(pred - t))

        x = jnp.asarray(np.arange(6.0).reshape(3, 2))
        t = jnp.array([1.0, 2.0, 3.0])
        w = jnp.zeros(2)
        for _ in range(3):
            ((loss, err), aux), g = jax.value_and_grad(loss_and_err, has_aux=True)(w, x, t)
            w = w - 0.01 * g
        """,
    ),
]

# grad of a callable whose body is not in the cell (a module object, a function of an earlier cell) with a
# one-element output: squeezed in a wrapper that passes every argument on.
ONE_ELEMENT = [
    case(
        "grad-callable-object-one-output", "grad-non-scalar-output", setup=SETUP + textwrap.dedent("""
        class Net:
            def __init__(self, w):
                self.w = w

            def __call__(self, x):
                return jnp.tanh(self.w @ x)

        net = Net(jnp.array([[0.5, -1.0, 0.2]]))
        """),
        cell="""
        x0 = jnp.array([1.0, 2.0, 3.0])
        slope = jax.grad(net)(x0)
        """,
        check="""
        w = np.array([0.5, -1.0, 0.2])
        z = w @ np.array([1.0, 2.0, 3.0])
        np.testing.assert_allclose(np.asarray(slope), (1 - np.tanh(z) ** 2) * w, rtol=1e-5)
        """,
        wrong_fix="""
        x0 = jnp.array([1.0, 2.0, 3.0])
        slope = jax.grad(lambda x: jnp.sum(net(x)) / 3)(x0)
        """,
    ),
    case(
        "grad-earlier-function-argnums-one-output", "grad-non-scalar-output", setup=SETUP + textwrap.dedent("""
        def energy(x, k):
            return 0.5 * k * jnp.sum(x ** 2, keepdims=True)
        """),
        cell="""
        x = jnp.array([1.0, -2.0])
        dE_dk = jax.grad(energy, argnums=1)(x, 3.0)
        """,
        check="""
        np.testing.assert_allclose(float(dE_dk), 2.5, rtol=1e-6)
        """,
        wrong_fix="""
        x = jnp.array([1.0, -2.0])
        dE_dk = jax.grad(lambda x, k: jnp.squeeze(energy(x, k)))(x, 3.0)
        """,
    ),
]

CASES = NON_SCALAR + ONE_ELEMENT + INTEGER_INPUT + HAS_AUX + AUX_PAIR + LOOPS + CUSTOM_VJP + FWD_JVP + ARGNUMS + DEFVJP + NEGATIVE
