"""``x[i] = v`` / ``x[i] += v`` on JAX arrays, in the shapes users write: several assignments to one
array, loops, slices, methods, jitted functions, an alias, a swap."""

from rewrite_heldout import case

K = "jax-array-immutable-setitem"

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

CASES = [
    case(
        "markov-ring-transition-matrix", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/101",
        cell="""
        n, p = 5, 0.7
        T = jnp.zeros((n, n))
        for i in range(n):
            T[i, i] = p                 # stay
            T[i, (i + 1) % n] = 1 - p   # move to the next state
        stationary = jnp.ones(n) / n @ T
        """,
        check="""
        ref = np.zeros((5, 5))
        for i in range(5):
            ref[i, i] = 0.7
            ref[i, (i + 1) % 5] = 0.3
        np.testing.assert_allclose(np.asarray(T), ref, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(stationary), np.ones(5) / 5 @ ref, rtol=1e-6)
        """,
        wrong_fix="""
        n, p = 5, 0.7
        T = jnp.zeros((n, n))
        for i in range(n):
            T = T.at[i, i].set(p)
            T.at[i, (i + 1) % n].set(1 - p)
        stationary = jnp.ones(n) / n @ T
        """,
        alt_fixes=[
            """
            n, p = 5, 0.7
            T = jnp.zeros((n, n))
            for i in range(n):
                T = T.at[i, i].set(p)
                T = T.at[i, (i + 1) % n].set(1 - p)
            stationary = jnp.ones(n) / n @ T
            """,
            """
            n, p = 5, 0.7
            idx = jnp.arange(n)
            T = jnp.zeros((n, n)).at[idx, idx].set(p).at[idx, (idx + 1) % n].set(1 - p)
            stationary = jnp.ones(n) / n @ T
            """,
        ],
    ),
    case(
        "block-diagonal-two-slices", K, setup=SETUP,
        source="https://github.com/discopy/discopy/issues/772",
        cell="""
        A = jnp.array([[1.0, 2.0], [3.0, 4.0]])
        B = jnp.array([[5.0, 6.0, 7.0]])
        out = jnp.zeros((A.shape[0] + B.shape[0], A.shape[1] + B.shape[1]))
        out[:A.shape[0], :A.shape[1]] = A
        out[A.shape[0]:, A.shape[1]:] = B
        """,
        check="""
        ref = np.zeros((3, 5))
        ref[:2, :2] = [[1, 2], [3, 4]]
        ref[2:, 2:] = [[5, 6, 7]]
        np.testing.assert_allclose(np.asarray(out), ref)
        """,
        wrong_fix="""
        A = jnp.array([[1.0, 2.0], [3.0, 4.0]])
        B = jnp.array([[5.0, 6.0, 7.0]])
        out = jnp.zeros((A.shape[0] + B.shape[0], A.shape[1] + B.shape[1]))
        out = out.at[:A.shape[0], :A.shape[1]].set(A)
        """,
        alt_fixes=[
            """
            A = jnp.array([[1.0, 2.0], [3.0, 4.0]])
            B = jnp.array([[5.0, 6.0, 7.0]])
            out = jnp.zeros((A.shape[0] + B.shape[0], A.shape[1] + B.shape[1]))
            out = out.at[:A.shape[0], :A.shape[1]].set(A)
            out = out.at[A.shape[0]:, A.shape[1]:].set(B)
            """,
            """
            A = jnp.array([[1.0, 2.0], [3.0, 4.0]])
            B = jnp.array([[5.0, 6.0, 7.0]])
            out = jax.scipy.linalg.block_diag(A, B)
            """,
        ],
    ),
    case(
        "euler-trajectory-two-tables", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/2287",
        cell="""
        dt, N, c = 1e-2, 50, 4 * np.pi ** 2
        tab_x = jnp.zeros(N)
        tab_v = jnp.zeros(N)
        x, v = 1.5, 0.0
        for i in range(N):
            x = x + v * dt
            v = v - c * jnp.sin(x) * dt
            tab_x[i] = x
            tab_v[i] = v
        """,
        check="""
        rx, rv = np.zeros(50), np.zeros(50)
        x, v = 1.5, 0.0
        for i in range(50):
            x = x + v * 1e-2
            v = v - 4 * np.pi ** 2 * np.sin(x) * 1e-2
            rx[i], rv[i] = x, v
        np.testing.assert_allclose(np.asarray(tab_x), rx, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(np.asarray(tab_v), rv, rtol=1e-4, atol=1e-4)
        """,
        wrong_fix="""
        dt, N, c = 1e-2, 50, 4 * np.pi ** 2
        tab_x = jnp.zeros(N)
        tab_v = jnp.zeros(N)
        x, v = 1.5, 0.0
        for i in range(N):
            x = x + v * dt
            v = v - c * jnp.sin(x) * dt
            tab_x = tab_x.at[i].set(x)
            tab_v.at[i].set(v)
        """,
        alt_fixes=[
            """
            dt, N, c = 1e-2, 50, 4 * np.pi ** 2
            tab_x = jnp.zeros(N)
            tab_v = jnp.zeros(N)
            x, v = 1.5, 0.0
            for i in range(N):
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                tab_x = tab_x.at[i].set(x)
                tab_v = tab_v.at[i].set(v)
            """,
            """
            dt, N, c = 1e-2, 50, 4 * np.pi ** 2
            def step(carry, _):
                x, v = carry
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                return (x, v), (x, v)
            _, (tab_x, tab_v) = jax.lax.scan(step, (jnp.float32(1.5), jnp.float32(0.0)), None, length=N)
            """,
        ],
    ),
    case(
        "state-vector-sequential-fields", K, setup=SETUP,
        source="written for the shape: several fields of one state vector updated in order, the later ones reading the earlier",
        cell="""
        def step(state, dt=0.1, g=9.81):
            # state = [height, velocity, time]; semi-implicit Euler
            state[1] -= g * dt
            state[0] += state[1] * dt   # uses the NEW velocity
            state[2] += dt
            return state

        s = jnp.array([10.0, 0.0, 0.0])
        for _ in range(3):
            s = step(s)
        """,
        check="""
        ref = np.array([10.0, 0.0, 0.0])
        for _ in range(3):
            ref[1] -= 9.81 * 0.1
            ref[0] += ref[1] * 0.1
            ref[2] += 0.1
        np.testing.assert_allclose(np.asarray(s), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def step(state, dt=0.1, g=9.81):
            return state.at[1].add(-g * dt).at[0].add(state[1] * dt).at[2].add(dt)

        s = jnp.array([10.0, 0.0, 0.0])
        for _ in range(3):
            s = step(s)
        """,
        alt_fixes=[
            """
            def step(state, dt=0.1, g=9.81):
                state = state.at[1].add(-g * dt)
                state = state.at[0].add(state[1] * dt)
                state = state.at[2].add(dt)
                return state

            s = jnp.array([10.0, 0.0, 0.0])
            for _ in range(3):
                s = step(s)
            """,
            """
            def step(state, dt=0.1, g=9.81):
                h, v, t = state
                v = v - g * dt
                return jnp.stack([h + v * dt, v, t + dt])

            s = jnp.array([10.0, 0.0, 0.0])
            for _ in range(3):
                s = step(s)
            """,
        ],
    ),
    case(
        "jitted-zero-image-border", K, setup=SETUP,
        source="https://github.com/sandialabs/WecOptTool/issues/427",
        cell="""
        @jax.jit
        def zero_border(img):
            img[0, :] = 0.0
            img[-1, :] = 0.0
            img[:, 0] = 0.0
            img[:, -1] = 0.0
            return img

        out = zero_border(jnp.ones((4, 5)))
        """,
        check="""
        ref = np.ones((4, 5)); ref[0] = ref[-1] = 0; ref[:, 0] = ref[:, -1] = 0
        np.testing.assert_allclose(np.asarray(out), ref)
        """,
        wrong_fix="""
        @jax.jit
        def zero_border(img):
            img = img.at[0, :].set(0.0)
            img = img.at[-1, :].set(0.0)
            return img

        out = zero_border(jnp.ones((4, 5)))
        """,
        alt_fixes=[
            """
            @jax.jit
            def zero_border(img):
                img = img.at[0, :].set(0.0)
                img = img.at[-1, :].set(0.0)
                img = img.at[:, 0].set(0.0)
                img = img.at[:, -1].set(0.0)
                return img

            out = zero_border(jnp.ones((4, 5)))
            """,
            """
            @jax.jit
            def zero_border(img):
                inner = jnp.zeros_like(img).at[1:-1, 1:-1].set(1.0)
                return img * inner

            out = zero_border(jnp.ones((4, 5)))
            """,
        ],
    ),
    case(
        "ring-buffer-method", K, setup=SETUP,
        source="written for the shape: item assignment to an array attribute in a method of a class",
        cell="""
        class RingBuffer:
            def __init__(self, size):
                self.data = jnp.zeros(size)
                self.ptr = 0

            def push(self, value):
                self.data[self.ptr % self.data.shape[0]] = value
                self.ptr += 1

        buf = RingBuffer(3)
        for v in [1.0, 2.0, 3.0, 4.0]:
            buf.push(v)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(buf.data), [4.0, 2.0, 3.0])
        assert buf.ptr == 4
        """,
        wrong_fix="""
        class RingBuffer:
            def __init__(self, size):
                self.data = jnp.zeros(size)
                self.ptr = 0

            def push(self, value):
                data = self.data.at[self.ptr % self.data.shape[0]].set(value)
                self.ptr += 1

        buf = RingBuffer(3)
        for v in [1.0, 2.0, 3.0, 4.0]:
            buf.push(v)
        """,
        alt_fixes=[
            """
            class RingBuffer:
                def __init__(self, size):
                    self.data = jnp.zeros(size)
                    self.ptr = 0

                def push(self, value):
                    self.data = self.data.at[self.ptr % self.data.shape[0]].set(value)
                    self.ptr += 1

            buf = RingBuffer(3)
            for v in [1.0, 2.0, 3.0, 4.0]:
                buf.push(v)
            """,
            """
            class RingBuffer:
                def __init__(self, size):
                    self.data = jnp.zeros(size)
                    self.ptr = 0

                def push(self, value):
                    i = self.ptr % self.data.shape[0]
                    self.data = jnp.where(jnp.arange(self.data.shape[0]) == i, value, self.data)
                    self.ptr += 1

            buf = RingBuffer(3)
            for v in [1.0, 2.0, 3.0, 4.0]:
                buf.push(v)
            """,
        ],
    ),
    case(
        "alias-kept-as-previous-iterate", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/226",
        cell="""
        x = jnp.array([1.0, 4.0, 9.0])
        x_old = x
        x[0] = 0.5 * (x[0] + 2.0 / x[0])   # one Newton step for sqrt(2) on the first entry
        delta = jnp.abs(x - x_old).max()
        """,
        check="""
        np.testing.assert_allclose(np.asarray(x_old), [1.0, 4.0, 9.0])
        np.testing.assert_allclose(np.asarray(x), [1.5, 4.0, 9.0])
        np.testing.assert_allclose(float(delta), 0.5)
        """,
        wrong_fix="""
        x = jnp.array([1.0, 4.0, 9.0])
        x_old = x
        x = x.at[0].set(0.5 * (x[0] + 2.0 / x[0]))
        x_old = x   # keep NumPy's aliasing
        delta = jnp.abs(x - x_old).max()
        """,
        alt_fixes=[
            """
            x = jnp.array([1.0, 4.0, 9.0])
            x_old = x
            x = x.at[0].set(0.5 * (x[0] + 2.0 / x[0]))
            delta = jnp.abs(x - x_old).max()
            """,
            """
            x = jnp.array([1.0, 4.0, 9.0])
            x_old = x.copy()
            x = x.at[0].set(0.5 * (x_old[0] + 2.0 / x_old[0]))
            delta = jnp.abs(x - x_old).max()
            """,
        ],
    ),
    case(
        "augmented-slices-scale-and-shift", K, setup=SETUP,
        source="https://github.com/google/objax/issues/59",
        cell="""
        v = jnp.arange(10.0)
        v[2:4] += 1
        v[::3] *= -1
        v[5:] /= 2
        """,
        check="""
        ref = np.arange(10.0)
        ref[2:4] += 1; ref[::3] *= -1; ref[5:] /= 2
        np.testing.assert_allclose(np.asarray(v), ref)
        """,
        wrong_fix="""
        v = jnp.arange(10.0)
        v = v.at[2:4].add(1)
        v = v.at[::3].multiply(-1)
        v = v.at[5:].set(2)
        """,
        alt_fixes=[
            """
            v = jnp.arange(10.0)
            v = v.at[2:4].add(1)
            v = v.at[::3].multiply(-1)
            v = v.at[5:].divide(2)
            """,
            """
            v = jnp.arange(10.0)
            v = v.at[2:4].set(v[2:4] + 1)
            v = v.at[::3].set(v[::3] * -1)
            v = v.at[5:].set(v[5:] / 2)
            """,
        ],
    ),
    case(
        "occupancy-grid-duplicate-points", K, setup=SETUP,
        source="https://github.com/HajimeKawahara/exojax/issues/122",
        cell="""
        points = [(0, 1), (2, 2), (0, 1), (1, 0), (2, 2), (0, 1)]
        grid = jnp.zeros((3, 3), dtype=jnp.int32)
        for i, j in points:
            grid[i, j] += 1
        """,
        check="""
        ref = np.zeros((3, 3), dtype=int)
        for i, j in [(0, 1), (2, 2), (0, 1), (1, 0), (2, 2), (0, 1)]:
            ref[i, j] += 1
        np.testing.assert_array_equal(np.asarray(grid), ref)
        """,
        wrong_fix="""
        points = [(0, 1), (2, 2), (0, 1), (1, 0), (2, 2), (0, 1)]
        grid = jnp.zeros((3, 3), dtype=jnp.int32)
        ii, jj = jnp.array(points).T
        grid = grid.at[ii, jj].set(grid[ii, jj] + 1)
        """,
        alt_fixes=[
            """
            points = [(0, 1), (2, 2), (0, 1), (1, 0), (2, 2), (0, 1)]
            grid = jnp.zeros((3, 3), dtype=jnp.int32)
            for i, j in points:
                grid = grid.at[i, j].add(1)
            """,
            """
            points = [(0, 1), (2, 2), (0, 1), (1, 0), (2, 2), (0, 1)]
            ii, jj = jnp.array(points).T
            grid = jnp.zeros((3, 3), dtype=jnp.int32).at[ii, jj].add(1)
            """,
        ],
    ),
    case(
        "label-smoothing-row-then-cell", K, setup=SETUP,
        source="written for the shape: a row fill then one cell of that row, order matters",
        cell="""
        labels = [2, 0, 1, 2]
        k, eps = 3, 0.1
        Y = jnp.zeros((len(labels), k))
        for i, lab in enumerate(labels):
            Y[i, :] = eps / k
            Y[i, lab] = 1 - eps + eps / k
        """,
        check="""
        ref = np.full((4, 3), 0.1 / 3)
        ref[np.arange(4), [2, 0, 1, 2]] = 1 - 0.1 + 0.1 / 3
        np.testing.assert_allclose(np.asarray(Y), ref, rtol=1e-6)
        """,
        wrong_fix="""
        labels = [2, 0, 1, 2]
        k, eps = 3, 0.1
        Y = jnp.zeros((len(labels), k))
        for i, lab in enumerate(labels):
            Y = Y.at[i, lab].set(1 - eps + eps / k)
            Y = Y.at[i, :].set(eps / k)
        """,
        alt_fixes=[
            """
            labels = [2, 0, 1, 2]
            k, eps = 3, 0.1
            Y = jnp.zeros((len(labels), k))
            for i, lab in enumerate(labels):
                Y = Y.at[i, :].set(eps / k)
                Y = Y.at[i, lab].set(1 - eps + eps / k)
            """,
            """
            labels = [2, 0, 1, 2]
            k, eps = 3, 0.1
            Y = jax.nn.one_hot(jnp.array(labels), k) * (1 - eps) + eps / k
            """,
        ],
    ),
    case(
        "jitted-append-bias-column", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/204",
        cell="""
        @jax.jit
        def add_bias_column(X):
            out = jnp.ones((X.shape[0], X.shape[1] + 1))
            out[:, 1:] = X
            return out

        Xb = add_bias_column(jnp.arange(6.0).reshape(3, 2))
        """,
        check="""
        X = np.arange(6.0).reshape(3, 2)
        np.testing.assert_allclose(np.asarray(Xb), np.hstack([np.ones((3, 1)), X]))
        """,
        wrong_fix="""
        @jax.jit
        def add_bias_column(X):
            out = jnp.ones((X.shape[0], X.shape[1] + 1))
            out.at[:, 1:].set(X)
            return out

        Xb = add_bias_column(jnp.arange(6.0).reshape(3, 2))
        """,
        alt_fixes=[
            """
            @jax.jit
            def add_bias_column(X):
                out = jnp.ones((X.shape[0], X.shape[1] + 1))
                out = out.at[:, 1:].set(X)
                return out

            Xb = add_bias_column(jnp.arange(6.0).reshape(3, 2))
            """,
            """
            @jax.jit
            def add_bias_column(X):
                return jnp.concatenate([jnp.ones((X.shape[0], 1)), X], axis=1)

            Xb = add_bias_column(jnp.arange(6.0).reshape(3, 2))
            """,
        ],
    ),
    case(
        "fem-stiffness-assembly-augmented", K, setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/1611",
        cell="""
        def assemble_stiffness(n_el, k=1.0):
            # 1-D bar of n_el linear elements; each element adds its 2x2 block
            K = jnp.zeros((n_el + 1, n_el + 1))
            for e in range(n_el):
                K[e, e] += k
                K[e, e + 1] -= k
                K[e + 1, e] -= k
                K[e + 1, e + 1] += k
            return K

        K = assemble_stiffness(4, k=2.0)
        """,
        check="""
        ref = np.zeros((5, 5))
        for e in range(4):
            ref[e:e + 2, e:e + 2] += 2.0 * np.array([[1, -1], [-1, 1]])
        np.testing.assert_allclose(np.asarray(K), ref)
        """,
        wrong_fix="""
        def assemble_stiffness(n_el, k=1.0):
            K = jnp.zeros((n_el + 1, n_el + 1))
            for e in range(n_el):
                K = K.at[e, e].set(k)
                K = K.at[e, e + 1].set(-k)
                K = K.at[e + 1, e].set(-k)
                K = K.at[e + 1, e + 1].set(k)
            return K

        K = assemble_stiffness(4, k=2.0)
        """,
        alt_fixes=[
            """
            def assemble_stiffness(n_el, k=1.0):
                K = jnp.zeros((n_el + 1, n_el + 1))
                for e in range(n_el):
                    K = K.at[e, e].add(k)
                    K = K.at[e, e + 1].add(-k)
                    K = K.at[e + 1, e].add(-k)
                    K = K.at[e + 1, e + 1].add(k)
                return K

            K = assemble_stiffness(4, k=2.0)
            """,
            """
            def assemble_stiffness(n_el, k=1.0):
                K = jnp.zeros((n_el + 1, n_el + 1))
                block = k * jnp.array([[1.0, -1.0], [-1.0, 1.0]])
                for e in range(n_el):
                    K = K.at[e:e + 2, e:e + 2].add(block)
                return K

            K = assemble_stiffness(4, k=2.0)
            """,
        ],
    ),
    case(
        "masked-grid-two-columns-nested-loop", K, setup=SETUP,
        source="https://github.com/PyAutoLabs/PyAutoArray/pull/127",
        cell="""
        mask = np.array([[True, False, False], [False, False, True]])
        pixel_scales, centre = (0.5, 0.25), (0.5, 1.0)
        grid = jnp.zeros((int((~mask).sum()), 2))
        index = 0
        for y in range(mask.shape[0]):
            for x in range(mask.shape[1]):
                if not mask[y, x]:
                    grid[index, 0] = -(y - centre[0]) * pixel_scales[0]
                    grid[index, 1] = (x - centre[1]) * pixel_scales[1]
                    index += 1
        """,
        check="""
        ys, xs = np.nonzero(~np.array([[True, False, False], [False, False, True]]))
        ref = np.stack([-(ys - 0.5) * 0.5, (xs - 1.0) * 0.25], axis=1)
        np.testing.assert_allclose(np.asarray(grid), ref)
        """,
        wrong_fix="""
        mask = np.array([[True, False, False], [False, False, True]])
        pixel_scales, centre = (0.5, 0.25), (0.5, 1.0)
        grid = jnp.zeros((int((~mask).sum()), 2))
        index = 0
        for y in range(mask.shape[0]):
            for x in range(mask.shape[1]):
                if not mask[y, x]:
                    grid = grid.at[index, 0].set(-(y - centre[0]) * pixel_scales[0])
                    grid = grid.at[index, 0].set((x - centre[1]) * pixel_scales[1])
                    index += 1
        """,
        alt_fixes=[
            """
            mask = np.array([[True, False, False], [False, False, True]])
            pixel_scales, centre = (0.5, 0.25), (0.5, 1.0)
            grid = jnp.zeros((int((~mask).sum()), 2))
            index = 0
            for y in range(mask.shape[0]):
                for x in range(mask.shape[1]):
                    if not mask[y, x]:
                        grid = grid.at[index, 0].set(-(y - centre[0]) * pixel_scales[0])
                        grid = grid.at[index, 1].set((x - centre[1]) * pixel_scales[1])
                        index += 1
            """,
            """
            mask = np.array([[True, False, False], [False, False, True]])
            pixel_scales, centre = (0.5, 0.25), (0.5, 1.0)
            grid = jnp.zeros((int((~mask).sum()), 2))
            index = 0
            for y in range(mask.shape[0]):
                for x in range(mask.shape[1]):
                    if not mask[y, x]:
                        grid = grid.at[index].set(jnp.array([-(y - centre[0]) * pixel_scales[0],
                                                             (x - centre[1]) * pixel_scales[1]]))
                        index += 1
            """,
        ],
    ),
    case(
        "dict-entry-padding-row", K, setup=SETUP,
        source="written for the shape: the assigned array is a dict entry (`params['embed'][0] = 0`)",
        cell="""
        key = jax.random.key(0)
        params = {"embed": jax.random.normal(key, (4, 3)), "bias": jnp.zeros(3)}
        params["embed"][0] = 0.0        # row 0 is the padding token
        params["bias"][:] = 0.1
        """,
        check="""
        ref = np.array(jax.random.normal(jax.random.key(0), (4, 3)))
        ref[0] = 0.0
        np.testing.assert_allclose(np.asarray(params["embed"]), ref, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(params["bias"]), np.full(3, 0.1), rtol=1e-6)
        """,
        wrong_fix="""
        key = jax.random.key(0)
        params = {"embed": jax.random.normal(key, (4, 3)), "bias": jnp.zeros(3)}
        embed = params["embed"].at[0].set(0.0)
        params["bias"] = params["bias"].at[:].set(0.1)
        """,
        alt_fixes=[
            """
            key = jax.random.key(0)
            params = {"embed": jax.random.normal(key, (4, 3)), "bias": jnp.zeros(3)}
            params["embed"] = params["embed"].at[0].set(0.0)
            params["bias"] = params["bias"].at[:].set(0.1)
            """,
            """
            key = jax.random.key(0)
            params = {"embed": jax.random.normal(key, (4, 3)), "bias": jnp.zeros(3)}
            params["embed"] = params["embed"].at[0].multiply(0.0)
            params["bias"] = jnp.full_like(params["bias"], 0.1)
            """,
        ],
    ),
    case(
        "normalize-columns-method-loop", K, setup=SETUP,
        source="written for the shape: `self.W[:, k] = self.W[:, k] / norm` in a loop inside a method",
        cell="""
        class Dictionary:
            def __init__(self, W):
                self.W = W

            def normalize(self):
                for k in range(self.W.shape[1]):
                    norm = jnp.linalg.norm(self.W[:, k])
                    self.W[:, k] = self.W[:, k] / norm
                return self

        D = Dictionary(jnp.array([[3.0, 1.0], [4.0, 1.0]])).normalize()
        """,
        check="""
        W = np.array([[3.0, 1.0], [4.0, 1.0]])
        np.testing.assert_allclose(np.asarray(D.W), W / np.linalg.norm(W, axis=0), rtol=1e-6)
        """,
        wrong_fix="""
        class Dictionary:
            def __init__(self, W):
                self.W = W

            def normalize(self):
                for k in range(self.W.shape[1]):
                    norm = jnp.linalg.norm(self.W[:, k])
                    self.W = self.W.at[:, k].set(self.W[:, k] / norm)
                    break
                return self

        D = Dictionary(jnp.array([[3.0, 1.0], [4.0, 1.0]])).normalize()
        """,
        alt_fixes=[
            """
            class Dictionary:
                def __init__(self, W):
                    self.W = W

                def normalize(self):
                    for k in range(self.W.shape[1]):
                        norm = jnp.linalg.norm(self.W[:, k])
                        self.W = self.W.at[:, k].set(self.W[:, k] / norm)
                    return self

            D = Dictionary(jnp.array([[3.0, 1.0], [4.0, 1.0]])).normalize()
            """,
            """
            class Dictionary:
                def __init__(self, W):
                    self.W = W

                def normalize(self):
                    self.W = self.W / jnp.linalg.norm(self.W, axis=0, keepdims=True)
                    return self

            D = Dictionary(jnp.array([[3.0, 1.0], [4.0, 1.0]])).normalize()
            """,
        ],
    ),
    case(
        "tuple-swap-bubble-pass", K, setup=SETUP,
        source="written for the shape: tuple-assignment swap `x[i], x[j] = x[j], x[i]`",
        cell="""
        x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
        for _ in range(len(x)):
            for i in range(len(x) - 1):
                if x[i] > x[i + 1]:
                    x[i], x[i + 1] = x[i + 1], x[i]
        """,
        check="""
        np.testing.assert_array_equal(np.asarray(x), sorted([3, 1, 4, 1, 5, 9, 2, 6]))
        """,
        wrong_fix="""
        x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
        for _ in range(len(x)):
            for i in range(len(x) - 1):
                if x[i] > x[i + 1]:
                    x = x.at[i].set(x[i + 1])
                    x = x.at[i + 1].set(x[i])
        """,
        alt_fixes=[
            """
            x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
            for _ in range(len(x)):
                for i in range(len(x) - 1):
                    if x[i] > x[i + 1]:
                        x = x.at[jnp.array([i, i + 1])].set(x[jnp.array([i + 1, i])])
            """,
            """
            x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6])
            for _ in range(len(x)):
                for i in range(len(x) - 1):
                    if x[i] > x[i + 1]:
                        a, b = x[i], x[i + 1]
                        x = x.at[i].set(b)
                        x = x.at[i + 1].set(a)
            """,
        ],
    ),
    case(
        "running-max-scalar-index", K, setup=SETUP,
        source="written for the shape: `x[i] = max(x[i], v)` in a loop, then a boolean-mask assignment outside jit",
        cell="""
        bins = jnp.full(4, -jnp.inf)
        samples = [(0, 2.0), (3, 1.0), (0, 5.0), (2, -1.0), (0, 3.0)]
        for b, val in samples:
            bins[b] = max(bins[b], val)
        bins[jnp.isinf(bins)] = 0.0     # empty bins read as zero
        """,
        check="""
        np.testing.assert_allclose(np.asarray(bins), [5.0, 0.0, -1.0, 1.0])
        """,
        wrong_fix="""
        bins = jnp.full(4, -jnp.inf)
        samples = [(0, 2.0), (3, 1.0), (0, 5.0), (2, -1.0), (0, 3.0)]
        for b, val in samples:
            bins = bins.at[b].set(val)
        bins = jnp.where(jnp.isinf(bins), 0.0, bins)
        """,
        alt_fixes=[
            """
            bins = jnp.full(4, -jnp.inf)
            samples = [(0, 2.0), (3, 1.0), (0, 5.0), (2, -1.0), (0, 3.0)]
            for b, val in samples:
                bins = bins.at[b].max(val)
            bins = jnp.where(jnp.isinf(bins), 0.0, bins)
            """,
            """
            bins = jnp.full(4, -jnp.inf)
            samples = [(0, 2.0), (3, 1.0), (0, 5.0), (2, -1.0), (0, 3.0)]
            for b, val in samples:
                bins = bins.at[b].set(max(bins[b], val))
            bins = bins.at[jnp.isinf(bins)].set(0.0)
            """,
        ],
    ),
]
