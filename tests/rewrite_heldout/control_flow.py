"""Python ``if`` / ``while`` / ``and`` / ternaries on traced values (jit, vmap), several branches
in one function, a method."""

from rewrite_heldout import case

K = "tracer-bool-conversion"

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
from functools import partial
"""

CASES = [
    case(
        "clamp-two-separate-ifs-vmap", K, setup=SETUP,
        source="https://mint.westdri.ca/ai/jx_jit",
        cell="""
        def clamp(x, lo, hi):
            if x < lo:
                x = lo
            if x > hi:
                x = hi
            return x

        xs = jnp.array([-2.0, 0.25, 0.5, 3.0])
        out = jax.vmap(clamp, in_axes=(0, None, None))(xs, 0.0, 1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.clip([-2.0, 0.25, 0.5, 3.0], 0.0, 1.0))
        """,
        wrong_fix="""
        def clamp(x, lo, hi):
            x = jnp.where(x < lo, lo, x)
            return x

        xs = jnp.array([-2.0, 0.25, 0.5, 3.0])
        out = jax.vmap(clamp, in_axes=(0, None, None))(xs, 0.0, 1.0)
        """,
        alt_fixes=[
            """
            def clamp(x, lo, hi):
                x = jnp.where(x < lo, lo, x)
                x = jnp.where(x > hi, hi, x)
                return x

            xs = jnp.array([-2.0, 0.25, 0.5, 3.0])
            out = jax.vmap(clamp, in_axes=(0, None, None))(xs, 0.0, 1.0)
            """,
            """
            def clamp(x, lo, hi):
                return jnp.clip(x, lo, hi)

            xs = jnp.array([-2.0, 0.25, 0.5, 3.0])
            out = jax.vmap(clamp, in_axes=(0, None, None))(xs, 0.0, 1.0)
            """,
        ],
    ),
    case(
        "thermostat-method-deadband", K, setup=SETUP,
        source="written for the shape: if/elif/return in a method, jitted through the bound method",
        cell="""
        class Thermostat:
            def __init__(self, target, band):
                self.target, self.band = target, band

            def action(self, temp):
                if temp > self.target + self.band:
                    return -1.0     # cool
                elif temp < self.target - self.band:
                    return 1.0      # heat
                return 0.0

        ctrl = Thermostat(20.0, 1.0)
        act = jax.jit(ctrl.action)
        actions = jnp.array([act(t) for t in [18.0, 20.5, 23.0, 19.5]])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(actions), [1.0, 0.0, -1.0, 0.0])
        """,
        wrong_fix="""
        class Thermostat:
            def __init__(self, target, band):
                self.target, self.band = target, band

            def action(self, temp):
                return jnp.where(temp > self.target + self.band, -1.0, 1.0)

        ctrl = Thermostat(20.0, 1.0)
        act = jax.jit(ctrl.action)
        actions = jnp.array([act(t) for t in [18.0, 20.5, 23.0, 19.5]])
        """,
        alt_fixes=[
            """
            class Thermostat:
                def __init__(self, target, band):
                    self.target, self.band = target, band

                def action(self, temp):
                    return jnp.where(temp > self.target + self.band, -1.0,
                                     jnp.where(temp < self.target - self.band, 1.0, 0.0))

            ctrl = Thermostat(20.0, 1.0)
            act = jax.jit(ctrl.action)
            actions = jnp.array([act(t) for t in [18.0, 20.5, 23.0, 19.5]])
            """,
            """
            class Thermostat:
                def __init__(self, target, band):
                    self.target, self.band = target, band

                def action(self, temp):
                    return jnp.select([temp > self.target + self.band, temp < self.target - self.band],
                                      [-1.0, 1.0], default=0.0)

            ctrl = Thermostat(20.0, 1.0)
            act = jax.jit(ctrl.action)
            actions = jnp.array([act(t) for t in [18.0, 20.5, 23.0, 19.5]])
            """,
        ],
    ),
    case(
        "bisection-while-and-if", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/2708",
        cell="""
        @jax.jit
        def bisect_sqrt(a, tol=1e-5):
            lo, hi = 0.0, jnp.maximum(a, 1.0)
            while hi - lo > tol:
                mid = 0.5 * (lo + hi)
                if mid * mid > a:
                    hi = mid
                else:
                    lo = mid
            return 0.5 * (lo + hi)

        r2 = bisect_sqrt(2.0)
        r9 = bisect_sqrt(9.0)
        """,
        check="""
        np.testing.assert_allclose(float(r2), np.sqrt(2.0), atol=1e-4)
        np.testing.assert_allclose(float(r9), 3.0, atol=1e-4)
        """,
        wrong_fix="""
        @jax.jit
        def bisect_sqrt(a, tol=1e-5):
            lo, hi = 0.0, jnp.maximum(a, 1.0)
            for _ in range(5):
                mid = 0.5 * (lo + hi)
                hi = jnp.where(mid * mid > a, mid, hi)
                lo = jnp.where(mid * mid > a, lo, mid)
            return 0.5 * (lo + hi)

        r2 = bisect_sqrt(2.0)
        r9 = bisect_sqrt(9.0)
        """,
        alt_fixes=[
            """
            @jax.jit
            def bisect_sqrt(a, tol=1e-5):
                def cond(state):
                    lo, hi = state
                    return hi - lo > tol
                def body(state):
                    lo, hi = state
                    mid = 0.5 * (lo + hi)
                    return jnp.where(mid * mid > a, lo, mid), jnp.where(mid * mid > a, mid, hi)
                lo, hi = jax.lax.while_loop(cond, body, (jnp.float32(0.0), jnp.maximum(a, 1.0)))
                return 0.5 * (lo + hi)

            r2 = bisect_sqrt(2.0)
            r9 = bisect_sqrt(9.0)
            """,
            """
            @jax.jit
            def bisect_sqrt(a, tol=1e-5):
                def body(_, state):
                    lo, hi = state
                    mid = 0.5 * (lo + hi)
                    return jax.lax.cond(mid * mid > a, lambda: (lo, mid), lambda: (mid, hi))
                lo, hi = jax.lax.fori_loop(0, 40, body, (jnp.float32(0.0), jnp.maximum(a, 1.0)))
                return 0.5 * (lo + hi)

            r2 = bisect_sqrt(2.0)
            r9 = bisect_sqrt(9.0)
            """,
        ],
    ),
    case(
        "quadrant-and-elif-chain", K, setup=SETUP,
        source="https://github.com/k-karna/learning_jax",
        cell="""
        @jax.jit
        def quadrant(x, y):
            if x >= 0 and y >= 0:
                return 1
            elif x < 0 and y >= 0:
                return 2
            elif x < 0 and y < 0:
                return 3
            else:
                return 4

        qs = [int(quadrant(*p)) for p in [(1.0, 2.0), (-1.0, 2.0), (-1.0, -2.0), (1.0, -2.0)]]
        """,
        check="""
        assert qs == [1, 2, 3, 4], qs
        """,
        wrong_fix="""
        @jax.jit
        def quadrant(x, y):
            return jnp.where(x >= 0, jnp.where(y >= 0, 1, 4), 2)

        qs = [int(quadrant(*p)) for p in [(1.0, 2.0), (-1.0, 2.0), (-1.0, -2.0), (1.0, -2.0)]]
        """,
        alt_fixes=[
            """
            @jax.jit
            def quadrant(x, y):
                return jnp.select([(x >= 0) & (y >= 0), (x < 0) & (y >= 0), (x < 0) & (y < 0)], [1, 2, 3], default=4)

            qs = [int(quadrant(*p)) for p in [(1.0, 2.0), (-1.0, 2.0), (-1.0, -2.0), (1.0, -2.0)]]
            """,
            """
            @jax.jit
            def quadrant(x, y):
                return jnp.where(x >= 0, jnp.where(y >= 0, 1, 4), jnp.where(y >= 0, 2, 3))

            qs = [int(quadrant(*p)) for p in [(1.0, 2.0), (-1.0, 2.0), (-1.0, -2.0), (1.0, -2.0)]]
            """,
        ],
    ),
    case(
        "adapt-proposal-scale-if-else", K, setup=SETUP,
        source="https://github.com/mlysy/pfjax/issues/3",
        cell="""
        @jax.jit
        def adapt_scale(rw_sd, accept_rate, targ_acc=0.44, delta=0.1):
            if accept_rate < targ_acc:
                rw_sd = rw_sd * jnp.exp(-delta)   # too many rejections: smaller steps
            else:
                rw_sd = rw_sd * jnp.exp(delta)
            return rw_sd

        scales = jnp.array([adapt_scale(1.0, a) for a in [0.2, 0.44, 0.9]])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(scales), [np.exp(-0.1), np.exp(0.1), np.exp(0.1)], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def adapt_scale(rw_sd, accept_rate, targ_acc=0.44, delta=0.1):
            return jnp.where(accept_rate < targ_acc, rw_sd * jnp.exp(-delta), rw_sd)

        scales = jnp.array([adapt_scale(1.0, a) for a in [0.2, 0.44, 0.9]])
        """,
        alt_fixes=[
            """
            @jax.jit
            def adapt_scale(rw_sd, accept_rate, targ_acc=0.44, delta=0.1):
                return jnp.where(accept_rate < targ_acc, rw_sd * jnp.exp(-delta), rw_sd * jnp.exp(delta))

            scales = jnp.array([adapt_scale(1.0, a) for a in [0.2, 0.44, 0.9]])
            """,
            """
            @jax.jit
            def adapt_scale(rw_sd, accept_rate, targ_acc=0.44, delta=0.1):
                return jax.lax.cond(accept_rate < targ_acc,
                                    lambda s: s * jnp.exp(-delta), lambda s: s * jnp.exp(delta), rw_sd)

            scales = jnp.array([adapt_scale(1.0, a) for a in [0.2, 0.44, 0.9]])
            """,
        ],
    ),
    case(
        "loss-flag-argument-traced", K,
        setup=SETUP + """
pred = jnp.array([0.5, 2.0, -1.0, 4.0])
target = jnp.array([0.0, 0.0, 0.0, 0.0])
""",
        source="https://github.com/patrick-kidger/diffrax/issues/379",
        cell="""
        @jax.jit
        def regression_loss(pred, target, use_huber, delta=1.0):
            err = pred - target
            if use_huber:
                a = jnp.abs(err)
                return jnp.mean(jnp.where(a < delta, 0.5 * err ** 2, delta * (a - 0.5 * delta)))
            return jnp.mean(err ** 2)

        l_huber = regression_loss(pred, target, True)
        l_mse = regression_loss(pred, target, False)
        """,
        check="""
        e = np.array([0.5, 2.0, -1.0, 4.0]); a = np.abs(e)
        np.testing.assert_allclose(float(l_huber), np.mean(np.where(a < 1, 0.5 * e ** 2, a - 0.5)), rtol=1e-6)
        np.testing.assert_allclose(float(l_mse), np.mean(e ** 2), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def regression_loss(pred, target, use_huber, delta=1.0):
            err = pred - target
            a = jnp.abs(err)
            return jnp.mean(jnp.where(a < delta, 0.5 * err ** 2, delta * (a - 0.5 * delta)))

        l_huber = regression_loss(pred, target, True)
        l_mse = regression_loss(pred, target, False)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames="use_huber")
            def regression_loss(pred, target, use_huber, delta=1.0):
                err = pred - target
                if use_huber:
                    a = jnp.abs(err)
                    return jnp.mean(jnp.where(a < delta, 0.5 * err ** 2, delta * (a - 0.5 * delta)))
                return jnp.mean(err ** 2)

            l_huber = regression_loss(pred, target, True)
            l_mse = regression_loss(pred, target, False)
            """,
            """
            @jax.jit
            def regression_loss(pred, target, use_huber, delta=1.0):
                err = pred - target
                a = jnp.abs(err)
                huber = jnp.mean(jnp.where(a < delta, 0.5 * err ** 2, delta * (a - 0.5 * delta)))
                return jax.lax.cond(use_huber, lambda: huber, lambda: jnp.mean(err ** 2))

            l_huber = regression_loss(pred, target, True)
            l_mse = regression_loss(pred, target, False)
            """,
        ],
    ),
    case(
        "skip-step-on-any-nan", K, setup=SETUP,
        source="written for the shape: `if jnp.any(jnp.isnan(g)): return w` guarding a whole update",
        cell="""
        @jax.jit
        def sgd_step(w, g, lr=0.1):
            if jnp.any(jnp.isnan(g)):
                return w            # skip the whole step on a bad gradient
            return w - lr * g

        w = jnp.array([1.0, 2.0])
        w1 = sgd_step(w, jnp.array([1.0, -1.0]))
        w2 = sgd_step(w1, jnp.array([jnp.nan, 1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w1), [0.9, 2.1], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(w2), [0.9, 2.1], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sgd_step(w, g, lr=0.1):
            return jnp.where(jnp.isnan(g), w, w - lr * g)

        w = jnp.array([1.0, 2.0])
        w1 = sgd_step(w, jnp.array([1.0, -1.0]))
        w2 = sgd_step(w1, jnp.array([jnp.nan, 1.0]))
        """,
        alt_fixes=[
            """
            @jax.jit
            def sgd_step(w, g, lr=0.1):
                return jnp.where(jnp.any(jnp.isnan(g)), w, w - lr * g)

            w = jnp.array([1.0, 2.0])
            w1 = sgd_step(w, jnp.array([1.0, -1.0]))
            w2 = sgd_step(w1, jnp.array([jnp.nan, 1.0]))
            """,
            """
            @jax.jit
            def sgd_step(w, g, lr=0.1):
                return jax.lax.cond(jnp.any(jnp.isnan(g)), lambda: w, lambda: w - lr * g)

            w = jnp.array([1.0, 2.0])
            w1 = sgd_step(w, jnp.array([1.0, -1.0]))
            w2 = sgd_step(w1, jnp.array([jnp.nan, 1.0]))
            """,
        ],
    ),
    case(
        "leaky-relu-ternary-lambda-vmap", K, setup=SETUP,
        source="https://jax.readthedocs.io/en/latest/errors.html",
        cell="""
        leaky = lambda x: x if x > 0 else 0.01 * x
        y = jax.vmap(leaky)(jnp.linspace(-2.0, 2.0, 5))
        """,
        check="""
        xs = np.linspace(-2.0, 2.0, 5)
        np.testing.assert_allclose(np.asarray(y), np.where(xs > 0, xs, 0.01 * xs), rtol=1e-6)
        """,
        wrong_fix="""
        leaky = lambda x: jnp.maximum(x, 0.0)
        y = jax.vmap(leaky)(jnp.linspace(-2.0, 2.0, 5))
        """,
        alt_fixes=[
            """
            leaky = lambda x: jnp.where(x > 0, x, 0.01 * x)
            y = jax.vmap(leaky)(jnp.linspace(-2.0, 2.0, 5))
            """,
            """
            leaky = lambda x: jax.nn.leaky_relu(x, negative_slope=0.01)
            y = jax.vmap(leaky)(jnp.linspace(-2.0, 2.0, 5))
            """,
        ],
    ),
]
