"""Python control flow and Python scalars on traced values: ``if``/``while``/``and``, ``range(n)``,
``float()``/``int()``, ``.item()``, ``.tolist()`` inside ``jit``/``vmap``/``grad``/``scan``."""

from rewrite_cases import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

SETUP_NP = """
import numpy as np
"""

CASES = [
    # ------------------------------------------------------------------ tracer-bool-conversion
    case(
        "huber-if-else-vmap", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def huber(err, delta=1.0):
            # quadratic near zero, linear in the tails
            if jnp.abs(err) < delta:
                return 0.5 * err ** 2
            else:
                return delta * (jnp.abs(err) - 0.5 * delta)

        errors = jnp.array([-3.0, -0.5, 0.2, 2.0])
        losses = jax.vmap(huber)(errors)
        """,
        check="""
        e = np.array([-3.0, -0.5, 0.2, 2.0])
        ref = np.where(np.abs(e) < 1.0, 0.5 * e ** 2, np.abs(e) - 0.5)
        np.testing.assert_allclose(np.asarray(losses), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def huber(err, delta=1.0):
            return 0.5 * err ** 2

        errors = jnp.array([-3.0, -0.5, 0.2, 2.0])
        losses = jax.vmap(huber)(errors)
        """,
    ),
    case(
        "clip-norm-early-return-calljit", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def clip_by_norm(g, max_norm):
            norm = jnp.sqrt(jnp.sum(g ** 2))
            if norm > max_norm:
                return g * (max_norm / norm)
            return g

        clip = jax.jit(clip_by_norm)
        big = clip(jnp.array([3.0, 4.0]), 1.0)
        small = clip(jnp.array([0.3, 0.4]), 1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(big), [0.6, 0.8], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(small), [0.3, 0.4], rtol=1e-6)
        """,
        wrong_fix="""
        def clip_by_norm(g, max_norm):
            norm = jnp.sqrt(jnp.sum(g ** 2))
            return g * (max_norm / norm)

        clip = jax.jit(clip_by_norm)
        big = clip(jnp.array([3.0, 4.0]), 1.0)
        small = clip(jnp.array([0.3, 0.4]), 1.0)
        """,
    ),
    case(
        "warmup-lr-assign-import-jax-only", "tracer-bool-conversion", setup=SETUP_NP,
        cell="""
        import jax

        @jax.jit
        def sgd_step(w, grad, step):
            warmup = 100
            if step < warmup:
                lr = 0.1 * (step + 1) / warmup   # linear warm-up
            else:
                lr = 0.1
            return w - lr * grad

        w = jax.numpy.ones(3)
        w_early = sgd_step(w, jax.numpy.full(3, 2.0), 9)
        w_late = sgd_step(w, jax.numpy.full(3, 2.0), 500)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w_early), 1.0 - 0.1 * 10 / 100 * 2.0, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(w_late), 1.0 - 0.1 * 2.0, rtol=1e-6)
        """,
        wrong_fix="""
        import jax

        @jax.jit
        def sgd_step(w, grad, step):
            lr = 0.1
            return w - lr * grad

        w = jax.numpy.ones(3)
        w_early = sgd_step(w, jax.numpy.full(3, 2.0), 9)
        w_late = sgd_step(w, jax.numpy.full(3, 2.0), 500)
        """,
    ),
    case(
        "normalize-if-no-else-jitted-method", "tracer-bool-conversion", setup=SETUP + "from functools import partial\n",
        cell="""
        class Gate:
            def __init__(self, threshold):
                self.threshold = threshold

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                y = x * 2.0
                if y.sum() > self.threshold:
                    y = y / y.sum()   # renormalise only large activations
                return y

        gate = Gate(10.0)
        large = gate(jnp.array([3.0, 4.0]))
        tiny = gate(jnp.array([0.5, 1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(large), np.array([6.0, 8.0]) / 14.0, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(tiny), [1.0, 2.0], rtol=1e-6)
        """,
        wrong_fix="""
        class Gate:
            def __init__(self, threshold):
                self.threshold = threshold

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x):
                y = x * 2.0
                y = y / y.sum()
                return y

        gate = Gate(10.0)
        large = gate(jnp.array([3.0, 4.0]))
        tiny = gate(jnp.array([0.5, 1.0]))
        """,
    ),
    case(
        "ternary-in-scan-body", "tracer-bool-conversion", setup=SETUP,
        cell="""
        from jax import lax

        def follow(level, target):
            step = 0.5 if target > level else -0.5   # move towards the target
            level = level + step
            return level, level

        final, path = lax.scan(follow, 0.0, jnp.array([1.0, 2.0, -1.0, 0.0]))
        """,
        check="""
        level, ref = 0.0, []
        for t in [1.0, 2.0, -1.0, 0.0]:
            level += 0.5 if t > level else -0.5
            ref.append(level)
        np.testing.assert_allclose(np.asarray(path), ref)
        assert float(final) == ref[-1]
        """,
        wrong_fix="""
        from jax import lax

        def follow(level, target):
            level = level + 0.5
            return level, level

        final, path = lax.scan(follow, 0.0, jnp.array([1.0, 2.0, -1.0, 0.0]))
        """,
    ),
    case(
        "and-in-vmapped-predicate", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def in_band(v, lo=0.2, hi=0.8):
            return (v > lo) and (v < hi)

        samples = jnp.linspace(0.0, 1.0, 11)
        n_inside = jax.vmap(in_band)(samples).sum()
        """,
        check="""
        s = np.linspace(0.0, 1.0, 11)
        assert int(n_inside) == int(((s > 0.2) & (s < 0.8)).sum())
        """,
        wrong_fix="""
        def in_band(v, lo=0.2, hi=0.8):
            return v > lo

        samples = jnp.linspace(0.0, 1.0, 11)
        n_inside = jax.vmap(in_band)(samples).sum()
        """,
    ),
    case(
        "while-newton-sqrt", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def newton_sqrt(a):
            x = a
            err = jnp.abs(x * x - a)
            while err > 1e-4:
                x = 0.5 * (x + a / x)
                err = jnp.abs(x * x - a)
            return x

        root2 = newton_sqrt(2.0)
        root9 = newton_sqrt(9.0)
        """,
        check="""
        assert abs(float(root2) - 2 ** 0.5) < 1e-4
        assert abs(float(root9) - 3.0) < 1e-4
        """,
        wrong_fix="""
        @jax.jit
        def newton_sqrt(a):
            x = a
            x = 0.5 * (x + a / x)
            return x

        root2 = newton_sqrt(2.0)
        root9 = newton_sqrt(9.0)
        """,
    ),
    case(
        "flag-argument-made-static", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def dense(x, w, use_relu):
            h = x @ w
            if use_relu:
                h = jnp.maximum(h, 0.0)
            return h

        x = jnp.array([[1.0, -2.0]])
        w = jnp.array([[1.0, 0.5], [1.0, 1.0]])
        with_relu = dense(x, w, True)
        linear = dense(x, w, False)
        """,
        check="""
        h = np.array([[1.0, -2.0]]) @ np.array([[1.0, 0.5], [1.0, 1.0]])
        np.testing.assert_allclose(np.asarray(with_relu), np.maximum(h, 0.0))
        np.testing.assert_allclose(np.asarray(linear), h)
        """,
        wrong_fix="""
        @jax.jit
        def dense(x, w, use_relu):
            h = x @ w
            h = jnp.maximum(h, 0.0)
            return h

        x = jnp.array([[1.0, -2.0]])
        w = jnp.array([[1.0, 0.5], [1.0, 1.0]])
        with_relu = dense(x, w, True)
        linear = dense(x, w, False)
        """,
    ),
    case(
        "piecewise-elif-chain", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def ease(t):
            if t < 0.0:
                return 0.0
            elif t < 1.0:
                return t ** 2
            else:
                return 2.0 * t - 1.0

        ts = jnp.array([-1.0, 0.5, 2.0])
        eased = jax.vmap(ease)(ts)
        """,
        check="""
        t = np.array([-1.0, 0.5, 2.0])
        np.testing.assert_allclose(np.asarray(eased), np.where(t < 0, 0.0, np.where(t < 1, t ** 2, 2 * t - 1)))
        """,
        wrong_fix="""
        @jax.jit
        def ease(t):
            return t ** 2

        ts = jnp.array([-1.0, 0.5, 2.0])
        eased = jax.vmap(ease)(ts)
        """,
    ),
    case(
        "per-example-grad-piecewise-loss", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def hinge_like(w, x):
            pred = w * x
            if pred > 1.0:
                return pred - 0.5
            return 0.5 * pred ** 2

        xs = jnp.array([0.5, 1.0, 2.0, 4.0])
        per_example = jax.vmap(jax.grad(hinge_like), in_axes=(None, 0))(0.8, xs)
        """,
        check="""
        x = np.array([0.5, 1.0, 2.0, 4.0]); pred = 0.8 * x
        ref = np.where(pred > 1.0, x, pred * x)
        np.testing.assert_allclose(np.asarray(per_example), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def hinge_like(w, x):
            pred = w * x
            return 0.5 * pred ** 2

        xs = jnp.array([0.5, 1.0, 2.0, 4.0])
        per_example = jax.vmap(jax.grad(hinge_like), in_axes=(None, 0))(0.8, xs)
        """,
    ),
    case(
        "keep-best-multi-statement-cond", "tracer-bool-conversion", setup=SETUP,
        cell="""
        from jax import lax

        @jax.jit
        def track_best(params, best_params, loss, best_loss):
            if loss < best_loss:
                best_params = params
                best_loss = loss
                improved = 1
            else:
                improved = 0
            return best_params, best_loss, improved

        p = jnp.array([1.0, 2.0]); bp = jnp.array([0.0, 0.0])
        got_better = track_best(p, bp, 0.5, 1.0)
        got_worse = track_best(p, bp, 2.0, 1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(got_better[0]), [1.0, 2.0])
        assert float(got_better[1]) == 0.5 and int(got_better[2]) == 1
        np.testing.assert_allclose(np.asarray(got_worse[0]), [0.0, 0.0])
        assert float(got_worse[1]) == 1.0 and int(got_worse[2]) == 0
        """,
        wrong_fix="""
        from jax import lax

        @jax.jit
        def track_best(params, best_params, loss, best_loss):
            return params, loss, 1

        p = jnp.array([1.0, 2.0]); bp = jnp.array([0.0, 0.0])
        got_better = track_best(p, bp, 0.5, 1.0)
        got_worse = track_best(p, bp, 2.0, 1.0)
        """,
    ),
    case(
        "python-min-on-traced-reward", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def clipped_reward(r, cap=1.0):
            return max(min(r, cap), -cap)

        rewards = jnp.array([-3.0, 0.25, 0.9, 5.0])
        clipped = jax.vmap(clipped_reward)(rewards)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(clipped), np.clip([-3.0, 0.25, 0.9, 5.0], -1.0, 1.0))
        """,
        wrong_fix="""
        def clipped_reward(r, cap=1.0):
            return jnp.minimum(r, cap)

        rewards = jnp.array([-3.0, 0.25, 0.9, 5.0])
        clipped = jax.vmap(clipped_reward)(rewards)
        """,
    ),
    case(
        "skip-step-not-or-early-return", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def guarded_update(w, g, max_norm=10.0):
            gnorm = jnp.linalg.norm(g)
            finite = jnp.isfinite(gnorm)
            if not finite or gnorm > max_norm:
                return w   # skip a bad step
            return w - 0.1 * g

        w = jnp.array([1.0, 1.0])
        ok = guarded_update(w, jnp.array([1.0, 2.0]))
        skipped_nan = guarded_update(w, jnp.array([jnp.nan, 1.0]))
        skipped_big = guarded_update(w, jnp.array([30.0, 40.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ok), [0.9, 0.8], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(skipped_nan), [1.0, 1.0])
        np.testing.assert_allclose(np.asarray(skipped_big), [1.0, 1.0])
        """,
        wrong_fix="""
        @jax.jit
        def guarded_update(w, g, max_norm=10.0):
            gnorm = jnp.linalg.norm(g)
            if gnorm > max_norm:
                return w
            return w - 0.1 * g

        w = jnp.array([1.0, 1.0])
        ok = guarded_update(w, jnp.array([1.0, 2.0]))
        skipped_nan = guarded_update(w, jnp.array([jnp.nan, 1.0]))
        skipped_big = guarded_update(w, jnp.array([30.0, 40.0]))
        """,
    ),
    case(
        "collatz-while-counter-vmap", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def collatz_steps(n):
            steps = 0
            while n != 1:
                n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
                steps += 1
            return steps

        counts = jax.vmap(collatz_steps)(jnp.array([1, 6, 7, 12]))
        """,
        check="""
        def ref(n):
            s = 0
            while n != 1:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                s += 1
            return s
        assert [int(c) for c in counts] == [ref(n) for n in (1, 6, 7, 12)]
        """,
        wrong_fix="""
        def collatz_steps(n):
            return jnp.where(n > 1, n // 2, 0)

        counts = jax.vmap(collatz_steps)(jnp.array([1, 6, 7, 12]))
        """,
    ),
    case(
        "static-if-kept-traced-if-fixed", "tracer-bool-conversion", setup=SETUP,
        cell="""
        HALVE_INPUTS = True   # a Python setting, fixed while tracing

        @jax.jit
        def preprocess(x):
            if HALVE_INPUTS:
                x = x * 0.5
            if x.sum() > 1.0:
                x = x / x.sum()
            return x

        big = preprocess(jnp.array([2.0, 6.0]))
        small = preprocess(jnp.array([0.2, 0.4]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(big), [0.25, 0.75], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(small), [0.1, 0.2], rtol=1e-6)
        """,
        wrong_fix="""
        HALVE_INPUTS = True

        @jax.jit
        def preprocess(x):
            x = x * 0.5
            x = x / x.sum()
            return x

        big = preprocess(jnp.array([2.0, 6.0]))
        small = preprocess(jnp.array([0.2, 0.4]))
        """,
    ),
    case(
        "lr-decay-dependent-statements-cond", "tracer-bool-conversion", setup=SETUP + "from jax import lax\n",
        cell="""
        @jax.jit
        def adapt_lr(lr, loss, prev_loss):
            if loss > prev_loss:
                factor = 0.5          # loss went up: halve
                lr = lr * factor
            else:
                lr = lr * 1.05        # slowly grow
            return lr

        lr_down = adapt_lr(0.1, 2.0, 1.0)
        lr_up = adapt_lr(0.1, 1.0, 2.0)
        """,
        check="""
        assert abs(float(lr_down) - 0.05) < 1e-7 and abs(float(lr_up) - 0.105) < 1e-7
        """,
        wrong_fix="""
        @jax.jit
        def adapt_lr(lr, loss, prev_loss):
            lr = lr * 0.5
            return lr

        lr_down = adapt_lr(0.1, 2.0, 1.0)
        lr_up = adapt_lr(0.1, 1.0, 2.0)
        """,
    ),
    case(
        "safe-normalize-early-return-cond", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def safe_normalize(v):
            n = jnp.linalg.norm(v)
            if n > 1e-8:
                unit = v / n
                return unit
            fallback = jnp.zeros_like(v)
            return fallback

        units = jax.vmap(safe_normalize)(jnp.array([[3.0, 4.0], [0.0, 0.0]]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(units), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
        """,
        wrong_fix="""
        def safe_normalize(v):
            n = jnp.linalg.norm(v)
            return v / (n + 1.0)

        units = jax.vmap(safe_normalize)(jnp.array([[3.0, 4.0], [0.0, 0.0]]))
        """,
    ),
    # ------------------------------------------------------------------ truth-value-ambiguous
    case(
        "and-on-eager-arrays", "truth-value-ambiguous", setup=SETUP,
        cell="""
        temps = jnp.array([12.0, 25.0, 31.0, 18.0])
        comfortable = (temps > 15.0) and (temps < 28.0)
        n_ok = int(comfortable.sum())
        """,
        check="""
        t = np.array([12.0, 25.0, 31.0, 18.0])
        np.testing.assert_array_equal(np.asarray(comfortable), (t > 15) & (t < 28))
        assert n_ok == 2
        """,
        wrong_fix="""
        temps = jnp.array([12.0, 25.0, 31.0, 18.0])
        comfortable = temps < 28.0
        n_ok = int(comfortable.sum())
        """,
    ),
    case(
        "leaky-relu-if-on-vector-jit", "truth-value-ambiguous", setup=SETUP_NP,
        cell="""
        import jax.numpy as jnp
        from jax import jit

        @jit
        def leaky_relu(x, slope=0.01):
            if x > 0:
                return x
            else:
                return slope * x

        acts = leaky_relu(jnp.array([-2.0, 0.5, 3.0]))
        """,
        check="""
        x = np.array([-2.0, 0.5, 3.0])
        np.testing.assert_allclose(np.asarray(acts), np.where(x > 0, x, 0.01 * x), rtol=1e-6)
        """,
        wrong_fix="""
        import jax.numpy as jnp
        from jax import jit

        @jit
        def leaky_relu(x, slope=0.01):
            return x

        acts = leaky_relu(jnp.array([-2.0, 0.5, 3.0]))
        """,
    ),
    case(
        "or-nan-inf-cleaning", "truth-value-ambiguous", setup=SETUP,
        cell="""
        @jax.jit
        def clean(x):
            bad = jnp.isnan(x) or jnp.isinf(x)
            return jnp.where(bad, 0.0, x)

        cleaned = clean(jnp.array([1.0, jnp.nan, jnp.inf, -2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(cleaned), [1.0, 0.0, 0.0, -2.0])
        """,
        wrong_fix="""
        @jax.jit
        def clean(x):
            bad = jnp.isnan(x)
            return jnp.where(bad, 0.0, x)

        cleaned = clean(jnp.array([1.0, jnp.nan, jnp.inf, -2.0]))
        """,
    ),
    case(
        "sign-ternary-on-vector", "truth-value-ambiguous", setup=SETUP,
        cell="""
        @jax.jit
        def sign_step(params, grads, lr=0.1):
            direction = 1.0 if grads > 0 else -1.0   # signSGD
            return params - lr * direction

        new_params = sign_step(jnp.zeros(3), jnp.array([0.3, -2.0, 1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(new_params), [-0.1, 0.1, -0.1], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sign_step(params, grads, lr=0.1):
            direction = 1.0
            return params - lr * direction

        new_params = sign_step(jnp.zeros(3), jnp.array([0.3, -2.0, 1.0]))
        """,
    ),
    case(
        "python-max-on-eager-vector", "truth-value-ambiguous", setup=SETUP,
        cell="""
        scores = jnp.array([-1.5, 0.0, 2.5])
        positive_part = max(scores, 0.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(positive_part), [0.0, 0.0, 2.5])
        """,
        wrong_fix="""
        scores = jnp.array([-1.5, 0.0, 2.5])
        positive_part = scores
        """,
    ),
    case(
        "chained-comparison-mask", "truth-value-ambiguous", setup=SETUP,
        cell="""
        def window_mask(t, start, stop):
            inside = start <= t < stop
            return inside.astype(jnp.float32)

        times = jnp.arange(6.0)
        mask = jax.jit(window_mask)(times, 1.0, 4.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(mask), [0, 1, 1, 1, 0, 0])
        """,
        wrong_fix="""
        def window_mask(t, start, stop):
            inside = start <= t
            return inside.astype(jnp.float32)

        times = jnp.arange(6.0)
        mask = jax.jit(window_mask)(times, 1.0, 4.0)
        """,
    ),
    case(
        "assert-on-vector-no-rewrite", "truth-value-ambiguous", setup=SETUP,
        cell="""
        def normalize_probs(p):
            assert p >= 0, "probabilities must be non-negative"   # meant: all of them
            return p / p.sum()

        probs = normalize_probs(jnp.array([1.0, 3.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(probs), [0.25, 0.75])
        """,
        wrong_fix="""
        def normalize_probs(p):
            return p

        probs = normalize_probs(jnp.array([1.0, 3.0]))
        """,
    ),
    # ------------------------------------------------------------------ concretization-python-scalar-conversion
    case(
        "math-functions-in-jitted-physics", "concretization-python-scalar-conversion", setup=SETUP,
        # math.* converts its argument with float(): every math call on traced values becomes jnp's
        cell="""
        import math

        @jax.jit
        def pendulum_period(length, amplitude):
            small = 2 * math.pi * math.sqrt(length / 9.81)
            return small * (1 + amplitude ** 2 / 16 + 11 * amplitude ** 4 / 3072) + 0 * math.cos(amplitude)

        T = pendulum_period(2.0, 0.3)
        """,
        check="""
        import math as _m
        want = 2 * _m.pi * _m.sqrt(2.0 / 9.81) * (1 + 0.3 ** 2 / 16 + 11 * 0.3 ** 4 / 3072)
        np.testing.assert_allclose(float(T), want, rtol=1e-5)
        """,
        wrong_fix="""
        import math

        def pendulum_period(length, amplitude):
            return 2 * math.pi * math.sqrt(length / 9.81)

        T = pendulum_period(2.0, 0.3)
        """,
    ),
    case(
        "int-factor-truncates", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def repeat_scale(x, factor):
            return x * int(factor)   # whole repetitions only

        scaled = repeat_scale(jnp.ones(3), 2.7)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(scaled), [2.0, 2.0, 2.0])
        """,
        wrong_fix="""
        @jax.jit
        def repeat_scale(x, factor):
            return x * factor

        scaled = repeat_scale(jnp.ones(3), 2.7)
        """,
    ),
    case(
        "float-loss-returned-from-step", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        X = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        y = jnp.array([1.0, 2.0, 3.0])

        @jax.jit
        def train_step(w):
            def loss_fn(w):
                return jnp.mean((X @ w - y) ** 2)
            loss, g = jax.value_and_grad(loss_fn)(w)
            return w - 0.01 * g, float(loss)

        w1, loss0 = train_step(jnp.zeros(2))
        """,
        check="""
        Xn, yn = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([1.0, 2.0, 3.0])
        assert abs(float(loss0) - np.mean(yn ** 2)) < 1e-5
        g = 2 * Xn.T @ (Xn @ np.zeros(2) - yn) / 3
        np.testing.assert_allclose(np.asarray(w1), -0.01 * g, rtol=1e-5)
        """,
        wrong_fix="""
        X = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        y = jnp.array([1.0, 2.0, 3.0])

        @jax.jit
        def train_step(w):
            def loss_fn(w):
                return jnp.mean((X @ w - y) ** 2)
            loss, g = jax.value_and_grad(loss_fn)(w)
            return w - 0.01 * g, 0.0

        w1, loss0 = train_step(jnp.zeros(2))
        """,
    ),
    case(
        "float-count-fraction-vmap", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        def positive_fraction(row):
            count = jnp.sum(row > 0)
            frac = float(count) / row.shape[0]
            return frac

        batch = jnp.array([[1.0, -1.0, 2.0, 3.0], [-1.0, -2.0, 0.5, -3.0]])
        fractions = jax.vmap(positive_fraction)(batch)
        """,
        check="""
        b = np.array([[1.0, -1.0, 2.0, 3.0], [-1.0, -2.0, 0.5, -3.0]])
        np.testing.assert_allclose(np.asarray(fractions), (b > 0).mean(axis=1))
        """,
        wrong_fix="""
        def positive_fraction(row):
            count = jnp.sum(row > 0)
            frac = count // row.shape[0]
            return frac

        batch = jnp.array([[1.0, -1.0, 2.0, 3.0], [-1.0, -2.0, 0.5, -3.0]])
        fractions = jax.vmap(positive_fraction)(batch)
        """,
    ),
    case(
        "int-index-into-lookup-table", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        table = jnp.linspace(0.0, 1.0, 11) ** 2

        @jax.jit
        def lookup(t):
            i = int(t * 10)   # nearest lower grid point
            return table[i]

        vals = [lookup(0.25), lookup(0.99)]
        """,
        check="""
        tab = np.linspace(0.0, 1.0, 11) ** 2
        np.testing.assert_allclose([float(v) for v in vals], [tab[2], tab[9]], rtol=1e-6)
        """,
        wrong_fix="""
        table = jnp.linspace(0.0, 1.0, 11) ** 2

        @jax.jit
        def lookup(t):
            i = jnp.round(t * 10).astype(int)
            return table[i]

        vals = [lookup(0.25), lookup(0.99)]
        """,
    ),
    case(
        "float-norm-under-grad", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        def potential(pos):
            r = float(jnp.linalg.norm(pos))
            return 1.0 / r

        force = -jax.grad(potential)(jnp.array([1.0, 2.0, 2.0]))
        """,
        check="""
        p = np.array([1.0, 2.0, 2.0])
        np.testing.assert_allclose(np.asarray(force), p / np.linalg.norm(p) ** 3, rtol=1e-5)
        """,
        wrong_fix="""
        def potential(pos):
            r = jax.lax.stop_gradient(jnp.linalg.norm(pos))
            return 1.0 / r

        force = -jax.grad(potential)(jnp.array([1.0, 2.0, 2.0]))
        """,
    ),
    case(
        "int-steps-count-arg", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def euler(y0, dt, n_steps):
            y = y0
            for _ in range(int(n_steps)):
                y = y + dt * (-y)   # dy/dt = -y
            return y

        y_end = euler(1.0, 0.1, 10)
        """,
        check="""
        assert abs(float(y_end) - 0.9 ** 10) < 1e-6
        """,
        wrong_fix="""
        @jax.jit
        def euler(y0, dt, n_steps):
            y = y0
            y = y + dt * (-y)
            return y

        y_end = euler(1.0, 0.1, 10)
        """,
    ),
    # ------------------------------------------------------------------ tracer-integer-conversion
    case(
        "range-num-iters-decorator", "tracer-integer-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def power_iteration(A, num_iters):
            v = jnp.ones(A.shape[0])
            for _ in range(num_iters):
                v = A @ v
                v = v / jnp.linalg.norm(v)
            return v

        A = jnp.array([[2.0, 1.0], [1.0, 3.0]])
        v = power_iteration(A, 50)
        """,
        check="""
        w, V = np.linalg.eigh(np.array([[2.0, 1.0], [1.0, 3.0]]))
        top = V[:, -1] * np.sign(V[0, -1])
        np.testing.assert_allclose(np.asarray(v), top, atol=1e-4)
        """,
        wrong_fix="""
        @jax.jit
        def power_iteration(A, num_iters):
            v = jnp.ones(A.shape[0])
            v = A @ v
            v = v / jnp.linalg.norm(v)
            return v

        A = jnp.array([[2.0, 1.0], [1.0, 3.0]])
        v = power_iteration(A, 50)
        """,
    ),
    case(
        "range-steps-jit-at-call", "tracer-integer-conversion", setup=SETUP,
        cell="""
        def simulate(pos, vel, n_steps, dt=0.1):
            for _ in range(n_steps):
                vel = vel - dt * pos   # spring force
                pos = pos + dt * vel
            return pos, vel

        rollout = jax.jit(simulate)
        pos, vel = rollout(jnp.array(1.0), jnp.array(0.0), 20)
        """,
        check="""
        p, v = 1.0, 0.0
        for _ in range(20):
            v = v - 0.1 * p
            p = p + 0.1 * v
        assert abs(float(pos) - p) < 1e-5 and abs(float(vel) - v) < 1e-5
        """,
        wrong_fix="""
        def simulate(pos, vel, n_steps, dt=0.1):
            vel = vel - dt * pos
            pos = pos + dt * vel
            return pos, vel

        rollout = jax.jit(simulate)
        pos, vel = rollout(jnp.array(1.0), jnp.array(0.0), 20)
        """,
    ),
    case(
        "list-of-scales-traced-index", "tracer-integer-conversion", setup=SETUP,
        cell="""
        scales = [0.5, 1.0, 2.0]

        @jax.jit
        def rescale(level, x):
            return scales[level] * x

        out = jnp.stack([rescale(i, jnp.ones(2)) for i in range(3)])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.array([[0.5, 0.5], [1.0, 1.0], [2.0, 2.0]]))
        """,
        wrong_fix="""
        scales = [0.5, 1.0, 2.0]

        @jax.jit
        def rescale(level, x):
            return scales[0] * x

        out = jnp.stack([rescale(i, jnp.ones(2)) for i in range(3)])
        """,
    ),
    case(
        "harmonic-range-under-vmap", "tracer-integer-conversion", setup=SETUP,
        cell="""
        def harmonic(n):
            total = 0.0
            for k in range(n):
                total = total + 1.0 / (k + 1)
            return total

        H = jax.vmap(harmonic)(jnp.arange(1, 6))
        """,
        check="""
        ref = [sum(1.0 / (k + 1) for k in range(n)) for n in range(1, 6)]
        np.testing.assert_allclose(np.asarray(H), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def harmonic(n):
            total = 0.0
            for k in range(5):
                total = total + 1.0 / (k + 1)
            return total

        H = jax.vmap(harmonic)(jnp.arange(1, 6))
        """,
    ),
    case(
        "activation-by-index-switch", "tracer-integer-conversion", setup=SETUP,
        cell="""
        activations = [jax.nn.relu, jnp.tanh, jax.nn.sigmoid]

        @jax.jit
        def apply_act(kind, x):
            return activations[kind](x)

        x = jnp.array([-1.0, 0.0, 2.0])
        outs = [apply_act(k, x) for k in range(3)]
        """,
        check="""
        x = np.array([-1.0, 0.0, 2.0])
        np.testing.assert_allclose(np.asarray(outs[0]), np.maximum(x, 0))
        np.testing.assert_allclose(np.asarray(outs[1]), np.tanh(x), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(outs[2]), 1 / (1 + np.exp(-x)), rtol=1e-6)
        """,
        wrong_fix="""
        activations = [jax.nn.relu, jnp.tanh, jax.nn.sigmoid]

        @jax.jit
        def apply_act(kind, x):
            return activations[0](x)

        x = jnp.array([-1.0, 0.0, 2.0])
        outs = [apply_act(k, x) for k in range(3)]
        """,
    ),
    case(
        "layer-weights-list-in-scan", "tracer-integer-conversion", setup=SETUP,
        cell="""
        from jax import lax

        weights = [jnp.eye(2) * 2.0, jnp.eye(2) * 0.5, jnp.array([[0.0, 1.0], [1.0, 0.0]])]

        def apply_layer(h, i):
            h = weights[i] @ h
            return h, h.sum()

        h_final, sums = lax.scan(apply_layer, jnp.array([1.0, 3.0]), jnp.arange(3))
        """,
        check="""
        h = np.array([1.0, 3.0]); ref = []
        for W in [np.eye(2) * 2.0, np.eye(2) * 0.5, np.array([[0.0, 1.0], [1.0, 0.0]])]:
            h = W @ h; ref.append(h.sum())
        np.testing.assert_allclose(np.asarray(h_final), h)
        np.testing.assert_allclose(np.asarray(sums), ref)
        """,
        wrong_fix="""
        from jax import lax

        weights = [jnp.eye(2) * 2.0, jnp.eye(2) * 0.5, jnp.array([[0.0, 1.0], [1.0, 0.0]])]

        def apply_layer(h, i):
            h = weights[0] @ h
            return h, h.sum()

        h_final, sums = lax.scan(apply_layer, jnp.array([1.0, 3.0]), jnp.arange(3))
        """,
    ),
    case(
        "tuple-of-centers-in-method-vmap", "tracer-integer-conversion", setup=SETUP,
        cell="""
        class Mixture:
            def __init__(self):
                self.centers = (jnp.array([0.0, 0.0]), jnp.array([1.0, 1.0]), jnp.array([2.0, 0.0]))

            def energy(self, x, k):
                return jnp.sum((x - self.centers[k]) ** 2)

        mix = Mixture()
        energies = jax.vmap(mix.energy, in_axes=(None, 0))(jnp.array([0.5, 2.0]), jnp.array([0, 2, 1]))
        """,
        check="""
        c = np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 1.0]])
        np.testing.assert_allclose(np.asarray(energies), ((np.array([0.5, 2.0]) - c) ** 2).sum(axis=1))
        """,
        wrong_fix="""
        class Mixture:
            def __init__(self):
                self.centers = (jnp.array([0.0, 0.0]), jnp.array([1.0, 1.0]), jnp.array([2.0, 0.0]))

            def energy(self, x, k):
                return jnp.sum((x - self.centers[0]) ** 2)

        mix = Mixture()
        energies = jax.vmap(mix.energy, in_axes=(None, 0))(jnp.array([0.5, 2.0]), jnp.array([0, 2, 1]))
        """,
    ),
    case(
        "diag-offset-keyword-static", "tracer-integer-conversion", setup=SETUP,
        cell="""
        import jax

        def band(m, offset):
            return jax.numpy.diag(m, k=offset).sum()

        band_jit = jax.jit(band)
        M = jax.numpy.arange(16.0).reshape(4, 4)
        upper = band_jit(M, 1)
        lower = band_jit(M, -2)
        """,
        check="""
        Mn = np.arange(16.0).reshape(4, 4)
        assert float(upper) == np.diag(Mn, k=1).sum() and float(lower) == np.diag(Mn, k=-2).sum()
        """,
        wrong_fix="""
        import jax

        def band(m, offset):
            return jax.numpy.diag(m).sum()

        band_jit = jax.jit(band)
        M = jax.numpy.arange(16.0).reshape(4, 4)
        upper = band_jit(M, 1)
        lower = band_jit(M, -2)
        """,
    ),
    case(
        "range-count-passed-as-array-fori", "tracer-integer-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def discounted_return(rewards, horizon, gamma=0.9):
            total = 0.0
            for t in range(horizon):
                total = total + gamma ** t * rewards[t]
            return total

        rewards = jnp.array([1.0, 2.0, 3.0, 4.0])
        horizons = jnp.array([2, 4])   # an array of counts, one per query
        ret2 = discounted_return(rewards, horizons[0])
        ret4 = discounted_return(rewards, horizons[1])
        """,
        check="""
        r = [1.0, 2.0, 3.0, 4.0]
        assert abs(float(ret2) - sum(0.9 ** t * r[t] for t in range(2))) < 1e-5
        assert abs(float(ret4) - sum(0.9 ** t * r[t] for t in range(4))) < 1e-5
        """,
        wrong_fix="""
        @jax.jit
        def discounted_return(rewards, horizon, gamma=0.9):
            total = 0.0
            for t in range(4):
                total = total + gamma ** t * rewards[t]
            return total

        rewards = jnp.array([1.0, 2.0, 3.0, 4.0])
        horizons = jnp.array([2, 4])
        ret2 = discounted_return(rewards, horizons[0])
        ret4 = discounted_return(rewards, horizons[1])
        """,
    ),
    # ------------------------------------------------------------------ concretization-item-method
    case(
        "item-returned-from-eval", "concretization-item-method", setup=SETUP,
        cell="""
        @jax.jit
        def accuracy(logits, labels):
            preds = jnp.argmax(logits, axis=-1)
            return (preds == labels).mean().item()

        acc = accuracy(jnp.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]), jnp.array([1, 1, 1]))
        """,
        check="""
        assert abs(float(acc) - 2 / 3) < 1e-6
        """,
        wrong_fix="""
        @jax.jit
        def accuracy(logits, labels):
            preds = jnp.argmax(logits, axis=-1)
            return (preds == labels).sum()

        acc = accuracy(jnp.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]]), jnp.array([1, 1, 1]))
        """,
    ),
    case(
        "item-then-arithmetic", "concretization-item-method", setup=SETUP,
        cell="""
        @jax.jit
        def normalized_energy(x):
            total = jnp.sum(x ** 2).item()
            return x / total

        out = normalized_energy(jnp.array([1.0, 2.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.array([1.0, 2.0, 2.0]) / 9.0, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def normalized_energy(x):
            total = jnp.sum(x ** 2)
            return x / jnp.sqrt(total)

        out = normalized_energy(jnp.array([1.0, 2.0, 2.0]))
        """,
    ),
    case(
        "item-running-loss-in-scan", "concretization-item-method", setup=SETUP,
        cell="""
        from jax import lax

        def accumulate(running, batch):
            loss = jnp.mean(batch ** 2)
            running += loss.item()   # PyTorch habit
            return running, loss

        total, per_batch = lax.scan(accumulate, 0.0, jnp.arange(6.0).reshape(3, 2))
        """,
        check="""
        b = np.arange(6.0).reshape(3, 2)
        np.testing.assert_allclose(float(total), (b ** 2).mean(axis=1).sum(), rtol=1e-6)
        """,
        wrong_fix="""
        from jax import lax

        def accumulate(running, batch):
            loss = jnp.mean(batch ** 2)
            return running, loss

        total, per_batch = lax.scan(accumulate, 0.0, jnp.arange(6.0).reshape(3, 2))
        """,
    ),
    case(
        "item-in-grad-loss", "concretization-item-method", setup=SETUP,
        cell="""
        def loss(w, x, y):
            err = jnp.dot(x, w) - y
            return (err ** 2).mean().item()

        g = jax.jit(jax.grad(loss))(jnp.array([1.0, -1.0]), jnp.array([[1.0, 2.0], [3.0, 1.0]]), jnp.array([0.0, 1.0]))
        """,
        check="""
        X, Y, W = np.array([[1.0, 2.0], [3.0, 1.0]]), np.array([0.0, 1.0]), np.array([1.0, -1.0])
        np.testing.assert_allclose(np.asarray(g), 2 * X.T @ (X @ W - Y) / 2, rtol=1e-6)
        """,
        wrong_fix="""
        def loss(w, x, y):
            err = jnp.dot(x, w) - y
            return (err ** 2).sum()

        g = jax.jit(jax.grad(loss))(jnp.array([1.0, -1.0]), jnp.array([[1.0, 2.0], [3.0, 1.0]]), jnp.array([0.0, 1.0]))
        """,
    ),
    case(
        "item-metrics-dict-vmap", "concretization-item-method", setup=SETUP,
        cell="""
        def stats(row):
            m = row.mean().item()
            return {"mean": m, "spread": row.max() - m}

        res = jax.vmap(stats)(jnp.array([[1.0, 3.0], [2.0, 8.0]]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(res["mean"]), [2.0, 5.0])
        np.testing.assert_allclose(np.asarray(res["spread"]), [1.0, 3.0])
        """,
        wrong_fix="""
        def stats(row):
            m = row.mean()
            return {"mean": m, "spread": row.max()}

        res = jax.vmap(stats)(jnp.array([[1.0, 3.0], [2.0, 8.0]]))
        """,
    ),
    case(
        "item-in-fstring-print-no-rewrite", "concretization-item-method", setup=SETUP,
        cell="""
        @jax.jit
        def step(w, g):
            w = w - 0.1 * g
            print(f"update norm {jnp.linalg.norm(0.1 * g).item():.3f}")
            return w

        w1 = step(jnp.ones(2), jnp.array([3.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w1), [0.7, 0.6], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def step(w, g):
            return w

        w1 = step(jnp.ones(2), jnp.array([3.0, 4.0]))
        """,
    ),
    # ------------------------------------------------------------------ concretization-tolist
    case(
        "sum-of-tolist", "concretization-tolist", setup=SETUP,
        cell="""
        @jax.jit
        def total_mass(masses):
            return sum(masses.tolist())

        m = total_mass(jnp.array([1.5, 2.0, 0.5]))
        """,
        check="""
        assert abs(float(m) - 4.0) < 1e-6
        """,
        wrong_fix="""
        @jax.jit
        def total_mass(masses):
            return masses.max()

        m = total_mass(jnp.array([1.5, 2.0, 0.5]))
        """,
    ),
    case(
        "loop-over-tolist", "concretization-tolist", setup=SETUP,
        cell="""
        @jax.jit
        def sum_of_squares(v):
            acc = 0.0
            for x in v.tolist():
                acc = acc + x * x
            return acc

        s = sum_of_squares(jnp.array([1.0, 2.0, 3.0]))
        """,
        check="""
        assert abs(float(s) - 14.0) < 1e-6
        """,
        wrong_fix="""
        @jax.jit
        def sum_of_squares(v):
            return v.sum()

        s = sum_of_squares(jnp.array([1.0, 2.0, 3.0]))
        """,
    ),
    case(
        "return-tolist-from-vmapped", "concretization-tolist", setup=SETUP,
        cell="""
        def top2(scores):
            best = jnp.sort(scores)[-2:]
            return best.tolist()

        tops = jax.vmap(top2)(jnp.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(tops), [[2.0, 3.0], [4.0, 5.0]])
        """,
        wrong_fix="""
        def top2(scores):
            return scores[:2]

        tops = jax.vmap(top2)(jnp.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]))
        """,
    ),
    case(
        "named-params-zip-tolist", "concretization-tolist", setup=SETUP,
        cell="""
        NAMES = ["slope", "intercept"]

        @jax.jit
        def fit_line(x, y):
            A = jnp.stack([x, jnp.ones_like(x)], axis=1)
            coef = jnp.linalg.lstsq(A, y)[0]
            return dict(zip(NAMES, coef.tolist()))

        fit = fit_line(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]))
        """,
        check="""
        assert abs(float(fit["slope"]) - 2.0) < 1e-4 and abs(float(fit["intercept"]) - 1.0) < 1e-4
        """,
        wrong_fix="""
        NAMES = ["slope", "intercept"]

        @jax.jit
        def fit_line(x, y):
            return dict(zip(NAMES, [y.mean(), x.mean()]))

        fit = fit_line(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]))
        """,
    ),
    # ------------------------------------------------------------------ concretization-abstract-tracer
    case(
        "split-chunks-extend-static-argnames", "concretization-abstract-tracer",
        setup=SETUP + "from functools import partial\n",
        cell="""
        @partial(jax.jit, static_argnames=("axis",))
        def chunk_sums(x, n_chunks, axis=0):
            return jnp.stack([c.sum(axis=axis) for c in jnp.split(x, n_chunks, axis=axis)])

        sums = chunk_sums(jnp.arange(12.0).reshape(6, 2), 3)
        """,
        check="""
        ref = np.stack([c.sum(axis=0) for c in np.split(np.arange(12.0).reshape(6, 2), 3)])
        np.testing.assert_allclose(np.asarray(sums), ref)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("axis",))
        def chunk_sums(x, n_chunks, axis=0):
            return jnp.stack([c.sum(axis=axis) for c in jnp.split(x, 2, axis=axis)])

        sums = chunk_sums(jnp.arange(12.0).reshape(6, 2), 3)
        """,
    ),
    case(
        "pad-width-jit-at-call", "concretization-abstract-tracer", setup=SETUP,
        cell="""
        def pad_signal(sig, width):
            return jnp.pad(sig, width, mode="edge")

        padded = jax.jit(pad_signal)(jnp.array([1.0, 2.0, 3.0]), 2)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(padded), np.pad([1.0, 2.0, 3.0], 2, mode="edge"))
        """,
        wrong_fix="""
        def pad_signal(sig, width):
            return jnp.pad(sig, 2)

        padded = jax.jit(pad_signal)(jnp.array([1.0, 2.0, 3.0]), 2)
        """,
    ),
    case(
        "array-split-jitted-method", "concretization-abstract-tracer", setup=SETUP + "from functools import partial\n",
        cell="""
        class Chunker:
            def __init__(self, scale):
                self.scale = scale

            @partial(jax.jit, static_argnums=0)
            def chunk_means(self, x, n_chunks):
                return jnp.stack([self.scale * c.mean() for c in jnp.array_split(x, n_chunks)])

        means = Chunker(2.0).chunk_means(jnp.arange(6.0), 3)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(means), [1.0, 5.0, 9.0])
        """,
        wrong_fix="""
        class Chunker:
            def __init__(self, scale):
                self.scale = scale

            @partial(jax.jit, static_argnums=0)
            def chunk_means(self, x, n_chunks):
                return jnp.stack([self.scale * c.mean() for c in jnp.array_split(x, 2)])

        means = Chunker(2.0).chunk_means(jnp.arange(6.0), 3)
        """,
    ),
    case(
        "split-count-from-data-no-rewrite", "concretization-abstract-tracer", setup=SETUP,
        cell="""
        @jax.jit
        def split_positive(x):
            n_pos = jnp.sum(x > 0)
            return jnp.split(x, n_pos)

        parts = split_positive(jnp.array([1.0, 2.0, -1.0, 3.0]))
        """,
        check="""
        assert len(parts) == 3
        """,
        wrong_fix="""
        @jax.jit
        def split_positive(x):
            return jnp.split(x, 2)

        parts = split_positive(jnp.array([1.0, 2.0, -1.0, 3.0]))
        """,
    ),
    # ------------------------------------------------------------------ negatives
    case(
        "negative-nameerror-in-jitted-if", "negative", setup=SETUP, negative=True,
        cell="""
        @jax.jit
        def relu(x):
            if x > threshold_value:
                return x
            return 0.0

        relu(1.0)
        """,
    ),
    case(
        "negative-list-compare-typeerror", "negative", setup=SETUP, negative=True,
        cell="""
        thresholds = [0.1, 0.5]
        if thresholds > 0.2:
            picked = jnp.array(thresholds)
        """,
    ),
    case(
        "while-counter-then-if-on-counter", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def bisect_root(lo, hi):
            steps = 0
            while hi - lo > 1e-4 and steps < 60:
                mid = 0.5 * (lo + hi)
                lo = jnp.where(mid * mid < 2.0, mid, lo)
                hi = jnp.where(mid * mid < 2.0, hi, mid)
                steps += 1
            if steps >= 60:
                lo = jnp.nan
            return lo

        root = bisect_root(1.0, 2.0)
        """,
        check="""
        np.testing.assert_allclose(float(root), np.sqrt(2.0), atol=2e-4)
        """,
        wrong_fix="""
        @jax.jit
        def bisect_root(lo, hi):
            return jnp.nan

        root = bisect_root(1.0, 2.0)
        """,
    ),
    # ------------------------------------------------------------------ assert on a traced value
    case(
        "assert-positive-weights-under-vmap", "tracer-bool-conversion", setup=SETUP,
        cell="""
        def weighted_mean(x, w):
            assert jnp.all(w >= 0), "weights must be non-negative"
            return jnp.sum(w * x) / jnp.sum(w)

        xs = jnp.arange(12.0).reshape(4, 3)
        ws = jnp.ones((4, 3)).at[:, 0].set(2.0)
        means = jax.vmap(weighted_mean)(xs, ws)
        """,
        check="""
        X, W = np.arange(12.0).reshape(4, 3), np.ones((4, 3)); W[:, 0] = 2.0
        np.testing.assert_allclose(np.asarray(means), (W * X).sum(1) / W.sum(1), rtol=1e-6)
        try:  # the check is still made on the values
            jax.block_until_ready(jax.vmap(weighted_mean)(xs, -ws))
        except Exception as e:  # noqa: BLE001
            assert "weights must be non-negative" in str(e), e
        else:
            raise AssertionError("negative weights passed")
        """,
        wrong_fix="""
        def weighted_mean(x, w):
            return jnp.sum(w * x) / jnp.sum(w)

        xs = jnp.arange(12.0).reshape(4, 3)
        ws = jnp.ones((4, 3)).at[:, 0].set(2.0)
        means = jax.vmap(weighted_mean)(xs, ws)
        """,
    ),
    case(
        "assert-two-checks-in-jitted-step", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def normalize(v):
            norm = jnp.linalg.norm(v)
            assert norm > 0
            out = v / norm
            assert jnp.isfinite(out).all(), "non-finite output"
            return out

        unit = normalize(jnp.array([3.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(unit), [0.6, 0.8], rtol=1e-6)
        try:
            jax.block_until_ready(normalize(jnp.zeros(2)))
        except Exception as e:  # noqa: BLE001
            assert "AssertionError" in f"{type(e).__name__}: {e}", e
        else:
            raise AssertionError("a zero vector passed")
        """,
        wrong_fix="""
        @jax.jit
        def normalize(v):
            norm = jnp.linalg.norm(v)
            out = v / norm
            return out

        unit = normalize(jnp.array([3.0, 4.0]))
        """,
    ),
    case(
        "assert-message-formats-traced-value", "tracer-bool-conversion", setup=SETUP, offer="none",
        # the message would be formatted from a tracer inside the callback: nothing is offered
        cell="""
        @jax.jit
        def safe_log(x):
            assert jnp.all(x > 0), f"got {x.min()}"
            return jnp.log(x)

        y = safe_log(jnp.array([1.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.log([1.0, 2.0]), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def safe_log(x):
            return jnp.log(x) * 0
        y = safe_log(jnp.array([1.0, 2.0]))
        """,
    ),
]
