"""A traced argument used as a shape or a count under ``jit``: several shape arguments, ``partial``
and ``f = jax.jit(g)`` forms, aliases (``from jax import numpy as np``, ``import jax.lax as L``)."""

import textwrap

from rewrite_heldout import case

SETUP = """
import numpy as onp
import jax
import jax.numpy as jnp
from functools import partial
"""


def _s(extra: str) -> str:
    return textwrap.dedent(SETUP).strip("\n") + "\n" + textwrap.dedent(extra).strip("\n") + "\n"


PE_REF = """
def _pe_ref(L, D):
    pos = onp.arange(L)[:, None]
    i = onp.arange(0, D, 2)[None, :]
    ang = pos / (10000 ** (i / D))
    out = onp.zeros((L, D)); out[:, 0::2] = onp.sin(ang); out[:, 1::2] = onp.cos(ang)
    return out
onp.testing.assert_allclose(onp.asarray(pe), _pe_ref(6, 8), rtol=1e-5, atol=1e-5)
onp.testing.assert_allclose(onp.asarray(pe_long), _pe_ref(10, 4), rtol=1e-5, atol=1e-5)
"""

PE_BODY = """
def sinusoidal_positions(seq_len, d_model):
    pos = jnp.arange(seq_len)[:, None]
    i = jnp.arange(0, d_model, 2)[None, :]
    angle = pos / (10000 ** (i / d_model))
    pe = jnp.zeros((seq_len, d_model))
    pe = pe.at[:, 0::2].set(jnp.sin(angle))
    pe = pe.at[:, 1::2].set(jnp.cos(angle))
    return pe

pe = sinusoidal_positions(6, 8)
pe_long = sinusoidal_positions(10, 4)
"""

CASES = [
    case(
        "sinusoidal-positions-two-shape-args", "concretization-arange", setup=SETUP,
        source="https://github.com/chromatix-team/chromatix/pull/150",
        cell="@jax.jit\n" + PE_BODY,
        check=PE_REF,
        wrong_fix="@partial(jax.jit, static_argnums=(0,))\n" + PE_BODY,
        alt_fixes=[
            "@partial(jax.jit, static_argnums=(0, 1))\n" + PE_BODY,
            "@partial(jax.jit, static_argnames=('seq_len', 'd_model'))\n" + PE_BODY,
        ],
    ),
    case(
        "checkerboard-second-dim-not-static", "shape-not-concrete", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/4531",
        cell="""
        @partial(jax.jit, static_argnames="rows")
        def checkerboard(rows, cols):
            board = jnp.zeros((rows, cols), dtype=jnp.int32)
            r = jnp.arange(rows)[:, None]
            c = jnp.arange(cols)[None, :]
            return board + (r + c) % 2

        b = checkerboard(3, 4)
        """,
        check="""
        onp.testing.assert_array_equal(onp.asarray(b), (onp.arange(3)[:, None] + onp.arange(4)) % 2)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames="rows")
        def checkerboard(rows, cols):
            board = jnp.zeros((rows, rows), dtype=jnp.int32)
            r = jnp.arange(rows)[:, None]
            c = jnp.arange(rows)[None, :]
            return board + (r + c) % 2

        b = checkerboard(3, 4)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnames=("rows", "cols"))
            def checkerboard(rows, cols):
                board = jnp.zeros((rows, cols), dtype=jnp.int32)
                r = jnp.arange(rows)[:, None]
                c = jnp.arange(cols)[None, :]
                return board + (r + c) % 2

            b = checkerboard(3, 4)
            """,
            """
            @partial(jax.jit, static_argnums=(0, 1))
            def checkerboard(rows, cols):
                board = jnp.zeros((rows, cols), dtype=jnp.int32)
                r = jnp.arange(rows)[:, None]
                c = jnp.arange(cols)[None, :]
                return board + (r + c) % 2

            b = checkerboard(3, 4)
            """,
        ],
    ),
    case(
        "moving-average-jit-wrapper-two-windows", "shape-not-concrete",
        setup=_s("signal = jnp.array([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0])"),
        source="https://crackedaicode.com/problems/jax-static-argnames-in-jit",
        cell="""
        def moving_average(x, window):
            kernel = jnp.ones(window) / window
            return jnp.convolve(x, kernel, mode="valid")

        ma = jax.jit(moving_average)
        ma3 = ma(signal, 3)
        ma5 = ma(signal, 5)
        """,
        check="""
        s = onp.array([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0])
        onp.testing.assert_allclose(onp.asarray(ma3), onp.convolve(s, onp.ones(3) / 3, mode="valid"), rtol=1e-6)
        onp.testing.assert_allclose(onp.asarray(ma5), onp.convolve(s, onp.ones(5) / 5, mode="valid"), rtol=1e-6)
        """,
        wrong_fix="""
        def moving_average(x, window):
            kernel = jnp.ones(3) / window
            return jnp.convolve(x, kernel, mode="valid")

        ma = jax.jit(moving_average)
        ma3 = ma(signal, 3)
        ma5 = ma(signal, 5)
        """,
        alt_fixes=[
            """
            def moving_average(x, window):
                kernel = jnp.ones(window) / window
                return jnp.convolve(x, kernel, mode="valid")

            ma = jax.jit(moving_average, static_argnums=1)
            ma3 = ma(signal, 3)
            ma5 = ma(signal, 5)
            """,
            """
            def moving_average(x, window):
                kernel = jnp.ones(window) / window
                return jnp.convolve(x, kernel, mode="valid")

            ma = jax.jit(moving_average, static_argnames="window")
            ma3 = ma(signal, 3)
            ma5 = ma(signal, 5)
            """,
        ],
    ),
    case(
        "dft-matrix-np-alias-jit-call", "concretization-arange",
        setup="""
        import numpy as onp
        from jax import jit
        from jax import numpy as np
        """,
        source="https://github.com/jax-ml/jax/issues/5186",
        cell="""
        def dft_matrix(n):
            k = np.arange(0, n, 1)
            return np.exp(-2j * np.pi * np.outer(k, k) / n)

        dft = jit(dft_matrix)
        F4 = dft(4)
        F6 = dft(6)
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(F4), onp.fft.fft(onp.eye(4)), atol=1e-5)
        onp.testing.assert_allclose(onp.asarray(F6), onp.fft.fft(onp.eye(6)), atol=1e-5)
        """,
        wrong_fix="""
        def dft_matrix(n):
            k = np.arange(0, 4, 1)
            return np.exp(-2j * np.pi * np.outer(k, k) / n)

        dft = jit(dft_matrix)
        F4 = dft(4)
        F6 = dft(6)
        """,
        alt_fixes=[
            """
            def dft_matrix(n):
                k = np.arange(0, n, 1)
                return np.exp(-2j * np.pi * np.outer(k, k) / n)

            dft = jit(dft_matrix, static_argnums=0)
            F4 = dft(4)
            F6 = dft(6)
            """,
            """
            def dft_matrix(n):
                k = np.arange(0, n, 1)
                return np.exp(-2j * np.pi * np.outer(k, k) / n)

            dft = jit(dft_matrix, static_argnames="n")
            F4 = dft(4)
            F6 = dft(6)
            """,
        ],
    ),
    case(
        "centering-matrix-np-alias-eye", "shape-not-concrete",
        setup="""
        import numpy as onp
        import jax
        from jax import numpy as np
        from functools import partial
        """,
        source="https://github.com/jax-ml/jax/issues/101",
        cell="""
        @jax.jit
        def center(X, n):
            H = np.eye(n) - np.ones((n, n)) / n
            return H @ X

        Xc = center(np.arange(12.0).reshape(4, 3), 4)
        """,
        check="""
        X = onp.arange(12.0).reshape(4, 3)
        onp.testing.assert_allclose(onp.asarray(Xc), X - X.mean(axis=0), atol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def center(X, n):
            H = np.eye(X.shape[1]) - np.ones((X.shape[1], X.shape[1])) / n
            return X @ H

        Xc = center(np.arange(12.0).reshape(4, 3), 4)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=1)
            def center(X, n):
                H = np.eye(n) - np.ones((n, n)) / n
                return H @ X

            Xc = center(np.arange(12.0).reshape(4, 3), 4)
            """,
            """
            @jax.jit
            def center(X, n):
                m = X.shape[0]
                H = np.eye(m) - np.ones((m, m)) / m
                return H @ X

            Xc = center(np.arange(12.0).reshape(4, 3), 4)
            """,
        ],
    ),
    case(
        "lax-alias-banded-causal-mask", "shape-not-concrete",
        setup=_s("import jax.lax as L"),
        source="https://github.com/jax-ml/jax/issues/204",
        cell="""
        @jax.jit
        def banded_causal_mask(T, window):
            i = L.broadcasted_iota(jnp.int32, (T, T), 0)
            j = L.broadcasted_iota(jnp.int32, (T, T), 1)
            return (j <= i) & (i - j < window)

        m = banded_causal_mask(5, 2)
        """,
        check="""
        i, j = onp.indices((5, 5))
        onp.testing.assert_array_equal(onp.asarray(m), (j <= i) & (i - j < 2))
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=1)
        def banded_causal_mask(T, window):
            i = L.broadcasted_iota(jnp.int32, (T, T), 0)
            j = L.broadcasted_iota(jnp.int32, (T, T), 1)
            return (j <= i) & (i - j < window)

        m = banded_causal_mask(5, 2)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=0)
            def banded_causal_mask(T, window):
                i = L.broadcasted_iota(jnp.int32, (T, T), 0)
                j = L.broadcasted_iota(jnp.int32, (T, T), 1)
                return (j <= i) & (i - j < window)

            m = banded_causal_mask(5, 2)
            """,
            """
            @partial(jax.jit, static_argnames=("T",))
            def banded_causal_mask(T, window):
                i = L.broadcasted_iota(jnp.int32, (T, T), 0)
                j = L.broadcasted_iota(jnp.int32, (T, T), 1)
                return (j <= i) & (i - j < window)

            m = banded_causal_mask(5, 2)
            """,
        ],
    ),
    case(
        "random-features-two-dims", "shape-not-concrete", setup=SETUP,
        source="https://github.com/jax-ml/jax/pull/689",
        cell="""
        @jax.jit
        def random_features(key, n_features, dim, sigma=1.0):
            k1, k2 = jax.random.split(key)
            W = jax.random.normal(k1, (n_features, dim)) / sigma
            b = 2 * jnp.pi * jax.random.uniform(k2, (n_features,))
            return W, b

        W, b = random_features(jax.random.key(0), 16, 3)
        """,
        check="""
        k1, k2 = jax.random.split(jax.random.key(0))
        assert W.shape == (16, 3) and b.shape == (16,)
        onp.testing.assert_allclose(onp.asarray(W), onp.asarray(jax.random.normal(k1, (16, 3))), rtol=1e-6)
        onp.testing.assert_allclose(onp.asarray(b), 2 * onp.pi * onp.asarray(jax.random.uniform(k2, (16,))), rtol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=(1,))
        def random_features(key, n_features, dim, sigma=1.0):
            k1, k2 = jax.random.split(key)
            W = jax.random.normal(k1, (n_features, dim)) / sigma
            b = 2 * jnp.pi * jax.random.uniform(k2, (n_features,))
            return W, b

        W, b = random_features(jax.random.key(0), 16, 3)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=(1, 2))
            def random_features(key, n_features, dim, sigma=1.0):
                k1, k2 = jax.random.split(key)
                W = jax.random.normal(k1, (n_features, dim)) / sigma
                b = 2 * jnp.pi * jax.random.uniform(k2, (n_features,))
                return W, b

            W, b = random_features(jax.random.key(0), 16, 3)
            """,
            """
            @partial(jax.jit, static_argnames=("n_features", "dim"))
            def random_features(key, n_features, dim, sigma=1.0):
                k1, k2 = jax.random.split(key)
                W = jax.random.normal(k1, (n_features, dim)) / sigma
                b = 2 * jnp.pi * jax.random.uniform(k2, (n_features,))
                return W, b

            W, b = random_features(jax.random.key(0), 16, 3)
            """,
        ],
    ),
    case(
        "pad-helper-from-earlier-cell", "shape-not-concrete",
        setup=_s("""
        def pad_to(x, length):
            return jnp.zeros(length).at[: x.shape[0]].set(x)
        """),
        source="written for the shape: the function comes from an earlier cell, this cell jits it and calls it",
        cell="""
        pad_jit = jax.jit(pad_to)
        batch = jnp.stack([pad_jit(jnp.array([1.0, 2.0, 3.0]), 5), pad_jit(jnp.array([4.0]), 5)])
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(batch), [[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]])
        """,
        wrong_fix="""
        pad_jit = jax.jit(pad_to, static_argnums=0)
        batch = jnp.stack([pad_jit(jnp.array([1.0, 2.0, 3.0]), 5), pad_jit(jnp.array([4.0]), 5)])
        """,
        alt_fixes=[
            """
            pad_jit = jax.jit(pad_to, static_argnums=1)
            batch = jnp.stack([pad_jit(jnp.array([1.0, 2.0, 3.0]), 5), pad_jit(jnp.array([4.0]), 5)])
            """,
            """
            pad_jit = jax.jit(pad_to, static_argnames="length")
            batch = jnp.stack([pad_jit(jnp.array([1.0, 2.0, 3.0]), 5), pad_jit(jnp.array([4.0]), 5)])
            """,
        ],
    ),
    case(
        "size-plus-one-through-jnp-add", "shape-not-concrete", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/4449",
        cell="""
        @jax.jit
        def with_sentinel(arr):
            count = jnp.add(arr.size, 1)
            out = jnp.full((count,), -1.0)
            return out.at[: arr.size].set(arr)

        y = with_sentinel(jnp.arange(3.0))
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(y), [0.0, 1.0, 2.0, -1.0])
        """,
        wrong_fix="""
        @jax.jit
        def with_sentinel(arr):
            out = jnp.full((arr.size,), -1.0)
            return out.at[: arr.size].set(arr)

        y = with_sentinel(jnp.arange(3.0))
        """,
        alt_fixes=[
            """
            @jax.jit
            def with_sentinel(arr):
                count = arr.size + 1
                out = jnp.full((count,), -1.0)
                return out.at[: arr.size].set(arr)

            y = with_sentinel(jnp.arange(3.0))
            """,
            """
            @jax.jit
            def with_sentinel(arr):
                return jnp.append(arr, -1.0)

            y = with_sentinel(jnp.arange(3.0))
            """,
        ],
    ),
    case(
        "reshape-only-height-static", "shape-not-concrete", setup=SETUP,
        source="https://theneuralbase.com/jax/learn/beginner/jit-with-static-argnums/",
        cell="""
        def to_image(flat, height, width):
            return jnp.reshape(flat, (height, width)).T

        to_image_jit = jax.jit(to_image, static_argnums=(1,))
        img = to_image_jit(jnp.arange(6.0), 2, 3)
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(img), onp.arange(6.0).reshape(2, 3).T)
        """,
        wrong_fix="""
        def to_image(flat, height, width):
            return jnp.reshape(flat, (height, width)).T

        to_image_jit = jax.jit(to_image, static_argnums=(2,))
        img = to_image_jit(jnp.arange(6.0), 2, 3)
        """,
        alt_fixes=[
            """
            def to_image(flat, height, width):
                return jnp.reshape(flat, (height, width)).T

            to_image_jit = jax.jit(to_image, static_argnums=(1, 2))
            img = to_image_jit(jnp.arange(6.0), 2, 3)
            """,
            """
            def to_image(flat, height, width):
                return jnp.reshape(flat, (height, -1)).T

            to_image_jit = jax.jit(to_image, static_argnums=(1,))
            img = to_image_jit(jnp.arange(6.0), 2, 3)
            """,
        ],
    ),
    case(
        "chebyshev-nodes-linspace-num", "concretization-linspace-num", setup=SETUP,
        source="https://github.com/ayushgabani/learn-jax",
        cell="""
        @jax.jit
        def chebyshev_nodes(a, b, n):
            k = jnp.linspace(0, n - 1, n)
            return 0.5 * (a + b) + 0.5 * (b - a) * jnp.cos((2 * k + 1) * jnp.pi / (2 * n))

        nodes5 = chebyshev_nodes(-1.0, 1.0, 5)
        nodes7 = chebyshev_nodes(0.0, 2.0, 7)
        """,
        check="""
        def ref(a, b, n):
            k = onp.arange(n)
            return 0.5 * (a + b) + 0.5 * (b - a) * onp.cos((2 * k + 1) * onp.pi / (2 * n))
        onp.testing.assert_allclose(onp.asarray(nodes5), ref(-1.0, 1.0, 5), atol=1e-6)
        onp.testing.assert_allclose(onp.asarray(nodes7), ref(0.0, 2.0, 7), atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def chebyshev_nodes(a, b, n):
            k = jnp.linspace(0, 4, 5)
            return 0.5 * (a + b) + 0.5 * (b - a) * jnp.cos((2 * k + 1) * jnp.pi / (2 * n))

        nodes5 = chebyshev_nodes(-1.0, 1.0, 5)
        nodes7 = chebyshev_nodes(0.0, 2.0, 7)
        """,
        alt_fixes=[
            """
            @partial(jax.jit, static_argnums=2)
            def chebyshev_nodes(a, b, n):
                k = jnp.linspace(0, n - 1, n)
                return 0.5 * (a + b) + 0.5 * (b - a) * jnp.cos((2 * k + 1) * jnp.pi / (2 * n))

            nodes5 = chebyshev_nodes(-1.0, 1.0, 5)
            nodes7 = chebyshev_nodes(0.0, 2.0, 7)
            """,
            """
            @partial(jax.jit, static_argnames="n")
            def chebyshev_nodes(a, b, n):
                k = jnp.arange(n)
                return 0.5 * (a + b) + 0.5 * (b - a) * jnp.cos((2 * k + 1) * jnp.pi / (2 * n))

            nodes5 = chebyshev_nodes(-1.0, 1.0, 5)
            nodes7 = chebyshev_nodes(0.0, 2.0, 7)
            """,
        ],
    ),
    case(
        "smoothing-passes-range-in-method", "tracer-integer-conversion", setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/25186",
        cell="""
        class Smoother:
            def __init__(self, alpha):
                self.alpha = alpha

            @partial(jax.jit, static_argnums=0)
            def run(self, x, n_passes):
                for _ in range(n_passes):
                    x = self.alpha * x + (1 - self.alpha) * jnp.roll(x, 1)
                return x

        sm = Smoother(0.5)
        out2 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 2)
        out3 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 3)
        """,
        check="""
        def ref(x, n):
            x = onp.array(x)
            for _ in range(n):
                x = 0.5 * x + 0.5 * onp.roll(x, 1)
            return x
        onp.testing.assert_allclose(onp.asarray(out2), ref([0, 4, 0, 0], 2), rtol=1e-6)
        onp.testing.assert_allclose(onp.asarray(out3), ref([0, 4, 0, 0], 3), rtol=1e-6)
        """,
        wrong_fix="""
        class Smoother:
            def __init__(self, alpha):
                self.alpha = alpha

            @partial(jax.jit, static_argnums=0)
            def run(self, x, n_passes):
                for _ in range(2):
                    x = self.alpha * x + (1 - self.alpha) * jnp.roll(x, 1)
                return x

        sm = Smoother(0.5)
        out2 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 2)
        out3 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 3)
        """,
        alt_fixes=[
            """
            class Smoother:
                def __init__(self, alpha):
                    self.alpha = alpha

                @partial(jax.jit, static_argnums=(0, 2))
                def run(self, x, n_passes):
                    for _ in range(n_passes):
                        x = self.alpha * x + (1 - self.alpha) * jnp.roll(x, 1)
                    return x

            sm = Smoother(0.5)
            out2 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 2)
            out3 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 3)
            """,
            """
            class Smoother:
                def __init__(self, alpha):
                    self.alpha = alpha

                @partial(jax.jit, static_argnums=0)
                def run(self, x, n_passes):
                    body = lambda _, x: self.alpha * x + (1 - self.alpha) * jnp.roll(x, 1)
                    return jax.lax.fori_loop(0, n_passes, body, x)

            sm = Smoother(0.5)
            out2 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 2)
            out3 = sm.run(jnp.array([0.0, 4.0, 0.0, 0.0]), 3)
            """,
        ],
    ),
    case(
        "window-start-stop-keywords", "concretization-arange", setup=SETUP,
        source="https://github.com/jax-ml/jax/pull/8658",
        cell="""
        def window(x, start, stop):
            idx = jnp.arange(start, stop)
            return x[idx] * jnp.hanning(stop - start)

        window_jit = jax.jit(window)
        w = window_jit(jnp.arange(10.0), start=2, stop=7)
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(w), onp.arange(2.0, 7.0) * onp.hanning(5), atol=1e-6)
        """,
        wrong_fix="""
        def window(x, start, stop):
            idx = jnp.arange(start, stop)
            return x[idx] * jnp.hanning(stop - start)

        window_jit = jax.jit(window, static_argnames=("stop",))
        w = window_jit(jnp.arange(10.0), start=2, stop=7)
        """,
        alt_fixes=[
            """
            def window(x, start, stop):
                idx = jnp.arange(start, stop)
                return x[idx] * jnp.hanning(stop - start)

            window_jit = jax.jit(window, static_argnames=("start", "stop"))
            w = window_jit(jnp.arange(10.0), start=2, stop=7)
            """,
            """
            def window(x, start, stop):
                idx = jnp.arange(start, stop)
                return x[idx] * jnp.hanning(stop - start)

            window_jit = jax.jit(window, static_argnums=(1, 2))
            w = window_jit(jnp.arange(10.0), start=2, stop=7)
            """,
        ],
    ),
]
