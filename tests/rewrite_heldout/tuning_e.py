"""Blind failing cells for tuning "fix my cell" (helper e): modelled on public threads, written without
reading the rewriter. Wholly on the tuning side (see ``WHOLLY_TUNING`` in ``__init__``)."""

from . import case

SETUP = "import numpy as np\nimport jax\nimport jax.numpy as jnp\n"
SETUP_F = SETUP + "import functools\n"
SETUP_OPTAX = SETUP + "import optax\n"
SETUP_EQX = SETUP + "import equinox as eqx\n"
SETUP_ALIAS = "import numpy as onp\nimport jax\nimport jax.numpy as np\n"

CASES = [
    # ------------------------------------------------------------------ tracer-bool-conversion
    case(
        id="te-bool-early-stop-step",
        kind="tracer-bool-conversion",
        setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/24740",
        cell="""
            X = jnp.linspace(-1.0, 1.0, 32)
            y = 3.0 * X - 0.5

            def loss_fn(w, b):
                return jnp.mean((X * w + b - y) ** 2)

            @jax.jit
            def step(w, b, lr):
                loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
                if loss < 1e-2:  # converged: stop moving the parameters
                    return w, b, loss
                return w - lr * gw, b - lr * gb, loss

            w, b = 0.0, 0.0
            for epoch in range(300):
                w, b, loss = step(w, b, 0.1)
        """,
        check="""
            Xn = np.linspace(-1.0, 1.0, 32)
            yn = 3.0 * Xn - 0.5
            wr, br = 0.0, 0.0
            for _ in range(300):
                r = Xn * wr + br - yn
                l = np.mean(r ** 2)
                if l >= 1e-2:
                    wr, br = wr - 0.1 * np.mean(2 * r * Xn), br - 0.1 * np.mean(2 * r)
            assert abs(wr - 3.0) > 1e-3  # the freeze matters
            np.testing.assert_allclose(float(w), wr, atol=2e-4)
            np.testing.assert_allclose(float(b), br, atol=2e-4)
        """,
        wrong_fix="""
            X = jnp.linspace(-1.0, 1.0, 32)
            y = 3.0 * X - 0.5

            def loss_fn(w, b):
                return jnp.mean((X * w + b - y) ** 2)

            @jax.jit
            def step(w, b, lr):
                loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
                return w - lr * gw, b - lr * gb, loss

            w, b = 0.0, 0.0
            for epoch in range(300):
                w, b, loss = step(w, b, 0.1)
        """,
        alt_fixes=[
            """
            X = jnp.linspace(-1.0, 1.0, 32)
            y = 3.0 * X - 0.5

            def loss_fn(w, b):
                return jnp.mean((X * w + b - y) ** 2)

            @jax.jit
            def step(w, b, lr):
                loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
                done = loss < 1e-2
                return jnp.where(done, w, w - lr * gw), jnp.where(done, b, b - lr * gb), loss

            w, b = 0.0, 0.0
            for epoch in range(300):
                w, b, loss = step(w, b, 0.1)
            """,
            """
            X = jnp.linspace(-1.0, 1.0, 32)
            y = 3.0 * X - 0.5

            def loss_fn(w, b):
                return jnp.mean((X * w + b - y) ** 2)

            @jax.jit
            def step(w, b, lr):
                loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
                w, b = jax.lax.cond(loss < 1e-2, lambda: (w, b), lambda: (w - lr * gw, b - lr * gb))
                return w, b, loss

            w, b = 0.0, 0.0
            for epoch in range(300):
                w, b, loss = step(jnp.float32(w), jnp.float32(b), 0.1)
            """,
            """
            X = jnp.linspace(-1.0, 1.0, 32)
            y = 3.0 * X - 0.5

            def loss_fn(w, b):
                return jnp.mean((X * w + b - y) ** 2)

            @jax.jit
            def step(w, b, lr):
                loss, (gw, gb) = jax.value_and_grad(loss_fn, argnums=(0, 1))(w, b)
                return w - lr * gw, b - lr * gb, loss

            w, b = 0.0, 0.0
            for epoch in range(300):
                if loss_fn(w, b) < 1e-2:
                    continue
                w, b, loss = step(w, b, 0.1)
            """,
        ],
    ),
    case(
        id="te-bool-clip-per-example-vmap",
        kind="tracer-bool-conversion",
        setup=SETUP,
        source="https://github.com/jax-ml/jax/pull/16430",
        cell="""
            def clip_update(g, max_norm=1.0):
                norm = jnp.sqrt(jnp.sum(g ** 2))
                if norm > max_norm:
                    g = g * (max_norm / norm)
                return g

            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            per_example_grads = jnp.asarray(rs.randn(8, 5) * scales, dtype=jnp.float32)
            clipped = jax.vmap(clip_update)(per_example_grads)
            avg_grad = clipped.mean(axis=0)
        """,
        check="""
            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            G = rs.randn(8, 5) * scales
            n = np.linalg.norm(G, axis=1, keepdims=True)
            ref = np.where(n > 1.0, G / n, G)
            np.testing.assert_allclose(np.asarray(clipped), ref, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(np.asarray(avg_grad), ref.mean(0), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
            def clip_update(g, max_norm=1.0):
                norm = jnp.sqrt(jnp.sum(g ** 2))
                g = g * (max_norm / norm)
                return g

            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            per_example_grads = jnp.asarray(rs.randn(8, 5) * scales, dtype=jnp.float32)
            clipped = jax.vmap(clip_update)(per_example_grads)
            avg_grad = clipped.mean(axis=0)
        """,
        alt_fixes=[
            """
            def clip_update(g, max_norm=1.0):
                norm = jnp.sqrt(jnp.sum(g ** 2))
                return jnp.where(norm > max_norm, g * (max_norm / norm), g)

            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            per_example_grads = jnp.asarray(rs.randn(8, 5) * scales, dtype=jnp.float32)
            clipped = jax.vmap(clip_update)(per_example_grads)
            avg_grad = clipped.mean(axis=0)
            """,
            """
            def clip_update(g, max_norm=1.0):
                norm = jnp.sqrt(jnp.sum(g ** 2))
                return g * jnp.minimum(1.0, max_norm / norm)

            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            per_example_grads = jnp.asarray(rs.randn(8, 5) * scales, dtype=jnp.float32)
            clipped = jax.vmap(clip_update)(per_example_grads)
            avg_grad = clipped.mean(axis=0)
            """,
            """
            def clip_update(g, max_norm=1.0):
                norm = jnp.sqrt(jnp.sum(g ** 2))
                return jax.lax.cond(norm > max_norm, lambda g: g * (max_norm / norm), lambda g: g, g)

            rs = np.random.RandomState(0)
            scales = np.array([0.1, 0.2, 0.3, 2.0, 3.0, 0.15, 5.0, 0.25])[:, None]
            per_example_grads = jnp.asarray(rs.randn(8, 5) * scales, dtype=jnp.float32)
            clipped = jax.vmap(clip_update)(per_example_grads)
            avg_grad = clipped.mean(axis=0)
            """,
        ],
    ),
    case(
        id="te-bool-while-kepler-newton",
        kind="tracer-bool-conversion",
        setup=SETUP,
        source="https://crackedaicode.com/problems/jax-while-loop-vs-python-while",
        cell="""
            @jax.jit
            def solve_kepler(M, e):
                E = M
                delta = jnp.ones_like(M)
                while jnp.max(jnp.abs(delta)) > 1e-6:
                    delta = (E - e * jnp.sin(E) - M) / (1 - e * jnp.cos(E))
                    E = E - delta
                return E

            mean_anomaly = jnp.linspace(0.1, 6.0, 16)
            ecc_anomaly = solve_kepler(mean_anomaly, 0.3)
            true_anomaly = 2 * jnp.arctan(jnp.sqrt(1.3 / 0.7) * jnp.tan(ecc_anomaly / 2))
        """,
        check="""
            Mn = np.linspace(0.1, 6.0, 16)
            En = Mn.copy()
            for _ in range(50):
                En = En - (En - 0.3 * np.sin(En) - Mn) / (1 - 0.3 * np.cos(En))
            np.testing.assert_allclose(np.asarray(ecc_anomaly), En, atol=1e-5)
            np.testing.assert_allclose(np.asarray(true_anomaly),
                                       2 * np.arctan(np.sqrt(1.3 / 0.7) * np.tan(En / 2)), atol=1e-4)
        """,
        wrong_fix="""
            @jax.jit
            def solve_kepler(M, e):
                def cond(s):
                    E, delta = s
                    return jnp.max(jnp.abs(delta)) < 1e-6
                def body(s):
                    E, _ = s
                    delta = (E - e * jnp.sin(E) - M) / (1 - e * jnp.cos(E))
                    return E - delta, delta
                E, _ = jax.lax.while_loop(cond, body, (M, jnp.ones_like(M)))
                return E

            mean_anomaly = jnp.linspace(0.1, 6.0, 16)
            ecc_anomaly = solve_kepler(mean_anomaly, 0.3)
            true_anomaly = 2 * jnp.arctan(jnp.sqrt(1.3 / 0.7) * jnp.tan(ecc_anomaly / 2))
        """,
        alt_fixes=[
            """
            @jax.jit
            def solve_kepler(M, e):
                def cond(s):
                    E, delta = s
                    return jnp.max(jnp.abs(delta)) > 1e-6
                def body(s):
                    E, _ = s
                    delta = (E - e * jnp.sin(E) - M) / (1 - e * jnp.cos(E))
                    return E - delta, delta
                E, _ = jax.lax.while_loop(cond, body, (M, jnp.ones_like(M)))
                return E

            mean_anomaly = jnp.linspace(0.1, 6.0, 16)
            ecc_anomaly = solve_kepler(mean_anomaly, 0.3)
            true_anomaly = 2 * jnp.arctan(jnp.sqrt(1.3 / 0.7) * jnp.tan(ecc_anomaly / 2))
            """,
            """
            @jax.jit
            def solve_kepler(M, e):
                def body(i, E):
                    return E - (E - e * jnp.sin(E) - M) / (1 - e * jnp.cos(E))
                return jax.lax.fori_loop(0, 30, body, M)

            mean_anomaly = jnp.linspace(0.1, 6.0, 16)
            ecc_anomaly = solve_kepler(mean_anomaly, 0.3)
            true_anomaly = 2 * jnp.arctan(jnp.sqrt(1.3 / 0.7) * jnp.tan(ecc_anomaly / 2))
            """,
            """
            def solve_kepler(M, e):
                E = M
                delta = jnp.ones_like(M)
                while jnp.max(jnp.abs(delta)) > 1e-6:
                    delta = (E - e * jnp.sin(E) - M) / (1 - e * jnp.cos(E))
                    E = E - delta
                return E

            mean_anomaly = jnp.linspace(0.1, 6.0, 16)
            ecc_anomaly = solve_kepler(mean_anomaly, 0.3)
            true_anomaly = 2 * jnp.arctan(jnp.sqrt(1.3 / 0.7) * jnp.tan(ecc_anomaly / 2))
            """,
        ],
    ),
    case(
        id="te-bool-thermostat-method-or",
        kind="tracer-bool-conversion",
        setup=SETUP,
        source="https://theneuralbase.com/jax/learn/beginner/tracer-errors-dynamic-control-flow/",
        cell="""
            class Thermostat:
                def __init__(self, low, high):
                    self.low, self.high = low, high

                def power(self, temp, heater_on):
                    if temp < self.low:
                        return 1.0
                    elif temp > self.high or not heater_on:
                        return 0.0
                    return 0.5

                def __call__(self, temps, states):
                    return jax.vmap(self.power)(temps, states)

            room = Thermostat(18.0, 22.0)
            temps = jnp.array([15.0, 19.0, 23.0, 20.0, 21.5, 17.0])
            heater = jnp.array([False, True, True, False, True, False])
            power = room(temps, heater)
        """,
        check="""
            np.testing.assert_allclose(np.asarray(power, dtype=float), [1.0, 0.5, 0.0, 0.0, 0.5, 1.0])
        """,
        wrong_fix="""
            class Thermostat:
                def __init__(self, low, high):
                    self.low, self.high = low, high

                def power(self, temp, heater_on):
                    return jnp.where(temp < self.low, 1.0, jnp.where(temp > self.high, 0.0, 0.5))

                def __call__(self, temps, states):
                    return jax.vmap(self.power)(temps, states)

            room = Thermostat(18.0, 22.0)
            temps = jnp.array([15.0, 19.0, 23.0, 20.0, 21.5, 17.0])
            heater = jnp.array([False, True, True, False, True, False])
            power = room(temps, heater)
        """,
        alt_fixes=[
            """
            class Thermostat:
                def __init__(self, low, high):
                    self.low, self.high = low, high

                def power(self, temp, heater_on):
                    off = (temp > self.high) | ~heater_on
                    return jnp.where(temp < self.low, 1.0, jnp.where(off, 0.0, 0.5))

                def __call__(self, temps, states):
                    return jax.vmap(self.power)(temps, states)

            room = Thermostat(18.0, 22.0)
            temps = jnp.array([15.0, 19.0, 23.0, 20.0, 21.5, 17.0])
            heater = jnp.array([False, True, True, False, True, False])
            power = room(temps, heater)
            """,
            """
            class Thermostat:
                def __init__(self, low, high):
                    self.low, self.high = low, high

                def power(self, temp, heater_on):
                    return jnp.select(
                        [temp < self.low, jnp.logical_or(temp > self.high, jnp.logical_not(heater_on))],
                        [1.0, 0.0], default=0.5)

                def __call__(self, temps, states):
                    return jax.vmap(self.power)(temps, states)

            room = Thermostat(18.0, 22.0)
            temps = jnp.array([15.0, 19.0, 23.0, 20.0, 21.5, 17.0])
            heater = jnp.array([False, True, True, False, True, False])
            power = room(temps, heater)
            """,
            """
            class Thermostat:
                def __init__(self, low, high):
                    self.low, self.high = low, high

                def power(self, temp, heater_on):
                    if temp < self.low:
                        return 1.0
                    elif temp > self.high or not heater_on:
                        return 0.0
                    return 0.5

                def __call__(self, temps, states):
                    return jnp.array([self.power(t, s) for t, s in zip(temps, states)])

            room = Thermostat(18.0, 22.0)
            temps = jnp.array([15.0, 19.0, 23.0, 20.0, 21.5, 17.0])
            heater = jnp.array([False, True, True, False, True, False])
            power = room(temps, heater)
            """,
        ],
    ),
    case(
        id="te-bool-assert-lj-forces",
        kind="tracer-bool-conversion",
        setup=SETUP_EQX,
        source="https://github.com/asantini29/phentax/pull/28",
        earlier="""
            def lj_energy(pos, eps=1.0, sigma=1.0):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                diff = pos[i] - pos[j]
                r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1))
                assert (r > 0.5 * sigma).all(), "particles overlap"
                sr6 = (sigma / r) ** 6
                return jnp.sum(4 * eps * (sr6 ** 2 - sr6))
        """,
        cell="""
            rng = np.random.RandomState(1)
            base = np.array([[0.0, 0.0], [1.2, 0.0], [0.0, 1.1], [1.3, 1.4]])
            configs = jnp.asarray(base + 0.05 * rng.randn(6, 4, 2), dtype=jnp.float32)
            energies = jax.vmap(lj_energy)(configs)
            forces = -jax.vmap(jax.grad(lj_energy))(configs)
        """,
        check="""
            rng = np.random.RandomState(1)
            base = np.array([[0.0, 0.0], [1.2, 0.0], [0.0, 1.1], [1.3, 1.4]])
            C = base + 0.05 * rng.randn(6, 4, 2)
            E_ref = np.zeros(6)
            F_ref = np.zeros_like(C)
            for k in range(6):
                for i in range(4):
                    for j in range(i + 1, 4):
                        d = C[k, i] - C[k, j]
                        r2 = d @ d
                        s6 = (1.0 / r2) ** 3
                        E_ref[k] += 4 * (s6 ** 2 - s6)
                        f = 24 * (2 * s6 ** 2 - s6) / r2 * d
                        F_ref[k, i] += f
                        F_ref[k, j] -= f
            np.testing.assert_allclose(np.asarray(energies), E_ref, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(forces), F_ref, rtol=1e-3, atol=1e-4)
        """,
        wrong_fix="""
            def lj_energy(pos, eps=1.0, sigma=1.0):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                diff = pos[i] - pos[j]
                r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1))
                assert bool(np.all(np.asarray(r) > 0.5 * sigma)), "particles overlap"
                sr6 = (sigma / r) ** 6
                return jnp.sum(4 * eps * (sr6 ** 2 - sr6))
        """,
        alt_fixes=[
            """
            def lj_energy(pos, eps=1.0, sigma=1.0):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                diff = pos[i] - pos[j]
                r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1))
                sr6 = (sigma / r) ** 6
                return jnp.sum(4 * eps * (sr6 ** 2 - sr6))
            """,
            """
            def lj_energy(pos, eps=1.0, sigma=1.0):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                diff = pos[i] - pos[j]
                r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1))
                r = eqx.error_if(r, jnp.any(r <= 0.5 * sigma), "particles overlap")
                sr6 = (sigma / r) ** 6
                return jnp.sum(4 * eps * (sr6 ** 2 - sr6))
            """,
            """
            def lj_energy(pos, eps=1.0, sigma=1.0):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                diff = pos[i] - pos[j]
                r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1))
                r = jnp.where(r > 0.5 * sigma, r, jnp.nan)  # overlap shows up as nan
                sr6 = (sigma / r) ** 6
                return jnp.sum(4 * eps * (sr6 ** 2 - sr6))
            """,
        ],
    ),
    # ------------------------------------------------------------------ jax-array-immutable-setitem
    case(
        id="te-set-pendulum-two-buffers",
        kind="jax-array-immutable-setitem",
        setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/2287",
        cell="""
            dt = 1e-3
            n_steps = 200
            c = 4 * np.pi ** 2
            tab_x = jnp.zeros(n_steps)
            tab_v = jnp.zeros(n_steps)
            x, v = 1.5, 0.0
            for i in range(n_steps):
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                tab_x[i] = x
                tab_v[i] = v
            energy = 0.5 * tab_v ** 2 - c * jnp.cos(tab_x)
        """,
        check="""
            xs, vs = np.zeros(200), np.zeros(200)
            x_, v_ = 1.5, 0.0
            for i in range(200):
                x_ = x_ + v_ * 1e-3
                v_ = v_ - 4 * np.pi ** 2 * np.sin(x_) * 1e-3
                xs[i], vs[i] = x_, v_
            np.testing.assert_allclose(np.asarray(tab_x), xs, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(tab_v), vs, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(np.asarray(energy), 0.5 * vs ** 2 - 4 * np.pi ** 2 * np.cos(xs),
                                       rtol=1e-4, atol=1e-3)
        """,
        wrong_fix="""
            dt = 1e-3
            n_steps = 200
            c = 4 * np.pi ** 2
            tab_x = jnp.zeros(n_steps)
            tab_v = jnp.zeros(n_steps)
            x, v = 1.5, 0.0
            for i in range(n_steps):
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                tab_x.at[i].set(x)
                tab_v.at[i].set(v)
            energy = 0.5 * tab_v ** 2 - c * jnp.cos(tab_x)
        """,
        alt_fixes=[
            """
            dt = 1e-3
            n_steps = 200
            c = 4 * np.pi ** 2
            tab_x = jnp.zeros(n_steps)
            tab_v = jnp.zeros(n_steps)
            x, v = 1.5, 0.0
            for i in range(n_steps):
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                tab_x = tab_x.at[i].set(x)
                tab_v = tab_v.at[i].set(v)
            energy = 0.5 * tab_v ** 2 - c * jnp.cos(tab_x)
            """,
            """
            dt = 1e-3
            n_steps = 200
            c = 4 * np.pi ** 2
            xs, vs = [], []
            x, v = 1.5, 0.0
            for i in range(n_steps):
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                xs.append(x)
                vs.append(v)
            tab_x, tab_v = jnp.array(xs), jnp.array(vs)
            energy = 0.5 * tab_v ** 2 - c * jnp.cos(tab_x)
            """,
            """
            dt = 1e-3
            n_steps = 200
            c = 4 * np.pi ** 2

            def step(state, _):
                x, v = state
                x = x + v * dt
                v = v - c * jnp.sin(x) * dt
                return (x, v), (x, v)

            _, (tab_x, tab_v) = jax.lax.scan(step, (jnp.float32(1.5), jnp.float32(0.0)), None, length=n_steps)
            energy = 0.5 * tab_v ** 2 - c * jnp.cos(tab_x)
            """,
        ],
    ),
    case(
        id="te-set-impute-mask-clip",
        kind="jax-array-immutable-setitem",
        setup=SETUP,
        source="https://github.com/vincentarelbundock/marginaleffects/issues/1587",
        cell="""
            raw = jnp.array([[1.0, np.nan, 3.0],
                             [4.0, 5.0, np.nan],
                             [np.nan, 2.0, 9.0],
                             [7.0, 11.0, 6.0]])
            col_means = jnp.nanmean(raw, axis=0)
            features = raw.copy()
            nan_rows, nan_cols = jnp.where(jnp.isnan(features))
            features[nan_rows, nan_cols] = col_means[nan_cols]
            features[features > 8.0] = 8.0
            features = (features - features.mean(0)) / features.std(0)
        """,
        check="""
            R = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, np.nan], [np.nan, 2.0, 9.0], [7.0, 11.0, 6.0]])
            m = np.nanmean(R, axis=0)
            F = np.where(np.isnan(R), m[None, :], R)
            F = np.minimum(F, 8.0)
            F = (F - F.mean(0)) / F.std(0)
            np.testing.assert_allclose(np.asarray(features), F, rtol=1e-5, atol=1e-5)
        """,
        wrong_fix="""
            raw = jnp.array([[1.0, np.nan, 3.0],
                             [4.0, 5.0, np.nan],
                             [np.nan, 2.0, 9.0],
                             [7.0, 11.0, 6.0]])
            col_means = jnp.nanmean(raw, axis=0)
            features = raw.copy()
            nan_rows, nan_cols = jnp.where(jnp.isnan(features))
            features = features.at[nan_rows, nan_cols].add(col_means[nan_cols])
            features = features.at[features > 8.0].set(8.0)
            features = (features - features.mean(0)) / features.std(0)
        """,
        alt_fixes=[
            """
            raw = jnp.array([[1.0, np.nan, 3.0],
                             [4.0, 5.0, np.nan],
                             [np.nan, 2.0, 9.0],
                             [7.0, 11.0, 6.0]])
            col_means = jnp.nanmean(raw, axis=0)
            features = raw.copy()
            nan_rows, nan_cols = jnp.where(jnp.isnan(features))
            features = features.at[nan_rows, nan_cols].set(col_means[nan_cols])
            features = jnp.where(features > 8.0, 8.0, features)
            features = (features - features.mean(0)) / features.std(0)
            """,
            """
            raw = jnp.array([[1.0, np.nan, 3.0],
                             [4.0, 5.0, np.nan],
                             [np.nan, 2.0, 9.0],
                             [7.0, 11.0, 6.0]])
            col_means = jnp.nanmean(raw, axis=0)
            features = jnp.where(jnp.isnan(raw), col_means, raw)
            features = jnp.minimum(features, 8.0)
            features = (features - features.mean(0)) / features.std(0)
            """,
            """
            raw = jnp.array([[1.0, np.nan, 3.0],
                             [4.0, 5.0, np.nan],
                             [np.nan, 2.0, 9.0],
                             [7.0, 11.0, 6.0]])
            col_means = jnp.nanmean(raw, axis=0)
            features = np.array(raw)
            nan_rows, nan_cols = np.where(np.isnan(features))
            features[nan_rows, nan_cols] = np.asarray(col_means)[nan_cols]
            features[features > 8.0] = 8.0
            features = jnp.asarray(features)
            features = (features - features.mean(0)) / features.std(0)
            """,
        ],
    ),
    case(
        id="te-set-replay-buffer-jit-partial",
        kind="jax-array-immutable-setitem",
        setup=SETUP_F,
        source="https://github.com/BYUCamachoLab/simphony/issues/88",
        cell="""
            @functools.partial(jax.jit, static_argnames="capacity")
            def push(buffer, count, obs, capacity):
                idx = count % capacity
                buffer[idx] = obs
                return buffer, count + 1

            capacity = 4
            buffer = jnp.zeros((capacity, 3))
            count = 0
            for t in range(6):
                obs = jnp.array([t, t ** 2, -t], dtype=jnp.float32)
                buffer, count = push(buffer, count, obs, capacity=capacity)
        """,
        check="""
            ref = np.array([[4, 16, -4], [5, 25, -5], [2, 4, -2], [3, 9, -3]], dtype=float)
            np.testing.assert_allclose(np.asarray(buffer), ref)
            assert int(count) == 6
        """,
        wrong_fix="""
            @functools.partial(jax.jit, static_argnames="capacity")
            def push(buffer, count, obs, capacity):
                idx = count % capacity
                buffer = buffer.at[idx].add(obs)
                return buffer, count + 1

            capacity = 4
            buffer = jnp.zeros((capacity, 3))
            count = 0
            for t in range(6):
                obs = jnp.array([t, t ** 2, -t], dtype=jnp.float32)
                buffer, count = push(buffer, count, obs, capacity=capacity)
        """,
        alt_fixes=[
            """
            @functools.partial(jax.jit, static_argnames="capacity")
            def push(buffer, count, obs, capacity):
                idx = count % capacity
                buffer = buffer.at[idx].set(obs)
                return buffer, count + 1

            capacity = 4
            buffer = jnp.zeros((capacity, 3))
            count = 0
            for t in range(6):
                obs = jnp.array([t, t ** 2, -t], dtype=jnp.float32)
                buffer, count = push(buffer, count, obs, capacity=capacity)
            """,
            """
            @functools.partial(jax.jit, static_argnames="capacity")
            def push(buffer, count, obs, capacity):
                idx = count % capacity
                buffer = jax.lax.dynamic_update_slice(buffer, obs[None, :], (idx, 0))
                return buffer, count + 1

            capacity = 4
            buffer = jnp.zeros((capacity, 3))
            count = 0
            for t in range(6):
                obs = jnp.array([t, t ** 2, -t], dtype=jnp.float32)
                buffer, count = push(buffer, count, obs, capacity=capacity)
            """,
            """
            @functools.partial(jax.jit, static_argnames="capacity")
            def push(buffer, count, obs, capacity):
                idx = count % capacity
                row = jnp.arange(capacity)[:, None] == idx
                return jnp.where(row, obs[None, :], buffer), count + 1

            capacity = 4
            buffer = jnp.zeros((capacity, 3))
            count = 0
            for t in range(6):
                obs = jnp.array([t, t ** 2, -t], dtype=jnp.float32)
                buffer, count = push(buffer, count, obs, capacity=capacity)
            """,
        ],
    ),
    case(
        id="te-set-token-counts-alias-iadd",
        kind="jax-array-immutable-setitem",
        setup=SETUP_ALIAS,
        source="https://github.com/jax-ml/jax/pull/27973",
        cell="""
            tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
            vocab_size = 10
            counts = np.zeros(vocab_size, dtype=np.int32)
            for tok in tokens:
                counts[tok] += 1
            freqs = counts / counts.sum()
            unigram_logp = np.log(freqs + 1e-9)
        """,
        check="""
            ref = onp.bincount([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], minlength=10)
            onp.testing.assert_array_equal(onp.asarray(counts), ref)
            onp.testing.assert_allclose(onp.asarray(freqs), ref / ref.sum(), rtol=1e-6)
            onp.testing.assert_allclose(onp.asarray(unigram_logp), onp.log(ref / ref.sum() + 1e-9), rtol=1e-5)
        """,
        wrong_fix="""
            tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
            vocab_size = 10
            counts = np.zeros(vocab_size, dtype=np.int32)
            for tok in tokens:
                counts = counts.at[tok].set(1)
            freqs = counts / counts.sum()
            unigram_logp = np.log(freqs + 1e-9)
        """,
        alt_fixes=[
            """
            tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
            vocab_size = 10
            counts = np.zeros(vocab_size, dtype=np.int32)
            for tok in tokens:
                counts = counts.at[tok].add(1)
            freqs = counts / counts.sum()
            unigram_logp = np.log(freqs + 1e-9)
            """,
            """
            tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
            vocab_size = 10
            counts = np.zeros(vocab_size, dtype=np.int32).at[tokens].add(1)
            freqs = counts / counts.sum()
            unigram_logp = np.log(freqs + 1e-9)
            """,
            """
            tokens = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5])
            vocab_size = 10
            counts = np.bincount(tokens, length=vocab_size)
            freqs = counts / counts.sum()
            unigram_logp = np.log(freqs + 1e-9)
            """,
        ],
    ),
]
