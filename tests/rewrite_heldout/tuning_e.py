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
    # ------------------------------------------------------------------ concretization-abstract-tracer
    case(
        id="te-conc-split-heads-jit",
        kind="concretization-abstract-tracer",
        setup=SETUP_F,
        source="https://github.com/jax-ml/jax/issues/2506",
        cell="""
            @jax.jit
            def split_heads(x, num_heads):
                # (seq, d_model) -> (num_heads, seq, d_model // num_heads)
                return jnp.stack(jnp.split(x, num_heads, axis=-1))

            def attention(q, k, v, num_heads):
                qh, kh, vh = (split_heads(t, num_heads) for t in (q, k, v))
                scores = qh @ kh.transpose(0, 2, 1) / jnp.sqrt(qh.shape[-1])
                weights = jax.nn.softmax(scores, axis=-1)
                return (weights @ vh).transpose(1, 0, 2).reshape(q.shape)

            rs = np.random.RandomState(0)
            q, k, v = (jnp.asarray(rs.randn(5, 8), dtype=jnp.float32) for _ in range(3))
            out = attention(q, k, v, 2)
        """,
        check="""
            rs = np.random.RandomState(0)
            Q, K, V = (rs.randn(5, 8) for _ in range(3))
            heads = []
            for h in range(2):
                sl = slice(4 * h, 4 * h + 4)
                s = Q[:, sl] @ K[:, sl].T / np.sqrt(4)
                w = np.exp(s - s.max(-1, keepdims=True))
                w /= w.sum(-1, keepdims=True)
                heads.append(w @ V[:, sl])
            np.testing.assert_allclose(np.asarray(out), np.concatenate(heads, axis=1), rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
            @functools.partial(jax.jit, static_argnums=1)
            def split_heads(x, num_heads):
                # (seq, d_model) -> (num_heads, seq, d_model // num_heads)
                return x.reshape(num_heads, x.shape[0], -1)

            def attention(q, k, v, num_heads):
                qh, kh, vh = (split_heads(t, num_heads) for t in (q, k, v))
                scores = qh @ kh.transpose(0, 2, 1) / jnp.sqrt(qh.shape[-1])
                weights = jax.nn.softmax(scores, axis=-1)
                return (weights @ vh).transpose(1, 0, 2).reshape(q.shape)

            rs = np.random.RandomState(0)
            q, k, v = (jnp.asarray(rs.randn(5, 8), dtype=jnp.float32) for _ in range(3))
            out = attention(q, k, v, 2)
        """,
        alt_fixes=[
            """
            @functools.partial(jax.jit, static_argnums=1)
            def split_heads(x, num_heads):
                # (seq, d_model) -> (num_heads, seq, d_model // num_heads)
                return jnp.stack(jnp.split(x, num_heads, axis=-1))

            def attention(q, k, v, num_heads):
                qh, kh, vh = (split_heads(t, num_heads) for t in (q, k, v))
                scores = qh @ kh.transpose(0, 2, 1) / jnp.sqrt(qh.shape[-1])
                weights = jax.nn.softmax(scores, axis=-1)
                return (weights @ vh).transpose(1, 0, 2).reshape(q.shape)

            rs = np.random.RandomState(0)
            q, k, v = (jnp.asarray(rs.randn(5, 8), dtype=jnp.float32) for _ in range(3))
            out = attention(q, k, v, 2)
            """,
            """
            @functools.partial(jax.jit, static_argnames="num_heads")
            def split_heads(x, num_heads):
                # (seq, d_model) -> (num_heads, seq, d_model // num_heads)
                return x.reshape(x.shape[0], num_heads, -1).transpose(1, 0, 2)

            def attention(q, k, v, num_heads):
                qh, kh, vh = (split_heads(t, num_heads=num_heads) for t in (q, k, v))
                scores = qh @ kh.transpose(0, 2, 1) / jnp.sqrt(qh.shape[-1])
                weights = jax.nn.softmax(scores, axis=-1)
                return (weights @ vh).transpose(1, 0, 2).reshape(q.shape)

            rs = np.random.RandomState(0)
            q, k, v = (jnp.asarray(rs.randn(5, 8), dtype=jnp.float32) for _ in range(3))
            out = attention(q, k, v, 2)
            """,
            """
            def split_heads(x, num_heads):
                # (seq, d_model) -> (num_heads, seq, d_model // num_heads)
                return jnp.stack(jnp.split(x, num_heads, axis=-1))

            def attention(q, k, v, num_heads):
                qh, kh, vh = (split_heads(t, num_heads) for t in (q, k, v))
                scores = qh @ kh.transpose(0, 2, 1) / jnp.sqrt(qh.shape[-1])
                weights = jax.nn.softmax(scores, axis=-1)
                return (weights @ vh).transpose(1, 0, 2).reshape(q.shape)

            rs = np.random.RandomState(0)
            q, k, v = (jnp.asarray(rs.randn(5, 8), dtype=jnp.float32) for _ in range(3))
            out = jax.jit(attention, static_argnums=3)(q, k, v, 2)
            """,
        ],
    ),
    case(
        id="te-conc-pad-collate",
        kind="concretization-abstract-tracer",
        setup=SETUP_F,
        source="https://github.com/jax-ml/jax/pull/5558",
        cell="""
            @jax.jit
            def pad_to(seq, max_len):
                return jnp.pad(seq, (0, max_len - seq.shape[0]), constant_values=0)

            sentences = [[5, 2, 9], [7, 1], [3, 3, 3, 8, 1], [4]]
            max_len = max(len(s) for s in sentences)
            batch = jnp.stack([pad_to(jnp.array(s), max_len) for s in sentences])
            mask = batch != 0
            lengths = mask.sum(axis=1)
        """,
        check="""
            ref = np.array([[5, 2, 9, 0, 0], [7, 1, 0, 0, 0], [3, 3, 3, 8, 1], [4, 0, 0, 0, 0]])
            np.testing.assert_array_equal(np.asarray(batch), ref)
            np.testing.assert_array_equal(np.asarray(lengths), [3, 2, 5, 1])
        """,
        wrong_fix="""
            @functools.partial(jax.jit, static_argnums=0)
            def pad_to(seq, max_len):
                return jnp.pad(seq, (0, max_len - seq.shape[0]), constant_values=0)

            sentences = [[5, 2, 9], [7, 1], [3, 3, 3, 8, 1], [4]]
            max_len = max(len(s) for s in sentences)
            batch = jnp.stack([pad_to(jnp.array(s), max_len) for s in sentences])
            mask = batch != 0
            lengths = mask.sum(axis=1)
        """,
        alt_fixes=[
            """
            @functools.partial(jax.jit, static_argnums=1)
            def pad_to(seq, max_len):
                return jnp.pad(seq, (0, max_len - seq.shape[0]), constant_values=0)

            sentences = [[5, 2, 9], [7, 1], [3, 3, 3, 8, 1], [4]]
            max_len = max(len(s) for s in sentences)
            batch = jnp.stack([pad_to(jnp.array(s), max_len) for s in sentences])
            mask = batch != 0
            lengths = mask.sum(axis=1)
            """,
            """
            @functools.partial(jax.jit, static_argnames="max_len")
            def pad_to(seq, max_len):
                return jnp.zeros(max_len, seq.dtype).at[: seq.shape[0]].set(seq)

            sentences = [[5, 2, 9], [7, 1], [3, 3, 3, 8, 1], [4]]
            max_len = max(len(s) for s in sentences)
            batch = jnp.stack([pad_to(jnp.array(s), max_len=max_len) for s in sentences])
            mask = batch != 0
            lengths = mask.sum(axis=1)
            """,
            """
            def pad_to(seq, max_len):
                return jnp.pad(seq, (0, max_len - seq.shape[0]), constant_values=0)

            sentences = [[5, 2, 9], [7, 1], [3, 3, 3, 8, 1], [4]]
            max_len = max(len(s) for s in sentences)
            batch = jnp.stack([pad_to(jnp.array(s), max_len) for s in sentences])
            mask = batch != 0
            lengths = mask.sum(axis=1)
            """,
        ],
    ),
    case(
        id="te-conc-histogram-bins-earlier",
        kind="concretization-abstract-tracer",
        setup=SETUP_F,
        source="https://github.com/jax-ml/jax/pull/12960",
        earlier="""
            def pair_distances(pos):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                return jnp.linalg.norm(pos[i] - pos[j], axis=-1)

            @jax.jit
            def distance_histogram(pos, n_bins, r_max):
                r = pair_distances(pos)
                counts, edges = jnp.histogram(r, bins=n_bins, range=(0.0, r_max))
                return counts, edges
        """,
        cell="""
            pos = jnp.asarray(np.random.RandomState(3).rand(30, 3) * 2.0, dtype=jnp.float32)
            counts, edges = distance_histogram(pos, 12, 3.5)
            centers = 0.5 * (edges[1:] + edges[:-1])
            mean_r = jnp.sum(counts * centers) / jnp.sum(counts)
        """,
        check="""
            P = np.random.RandomState(3).rand(30, 3).astype(np.float32) * np.float32(2.0)
            ii, jj = np.triu_indices(30, k=1)
            r = np.linalg.norm(P[ii] - P[jj], axis=-1)
            c_ref, e_ref = np.histogram(r, bins=12, range=(0.0, 3.5))
            np.testing.assert_allclose(np.asarray(counts), c_ref)
            np.testing.assert_allclose(np.asarray(edges), e_ref, rtol=1e-6, atol=1e-6)
            ctr = 0.5 * (e_ref[1:] + e_ref[:-1])
            np.testing.assert_allclose(float(mean_r), (c_ref * ctr).sum() / c_ref.sum(), rtol=1e-5)
        """,
        wrong_fix="""
            def pair_distances(pos):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                return jnp.linalg.norm(pos[i] - pos[j], axis=-1)

            @functools.partial(jax.jit, static_argnums=2)
            def distance_histogram(pos, n_bins, r_max):
                r = pair_distances(pos)
                counts, edges = jnp.histogram(r, bins=n_bins, range=(0.0, r_max))
                return counts, edges
        """,
        alt_fixes=[
            """
            def pair_distances(pos):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                return jnp.linalg.norm(pos[i] - pos[j], axis=-1)

            @functools.partial(jax.jit, static_argnums=1)
            def distance_histogram(pos, n_bins, r_max):
                r = pair_distances(pos)
                counts, edges = jnp.histogram(r, bins=n_bins, range=(0.0, r_max))
                return counts, edges
            """,
            """
            def pair_distances(pos):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                return jnp.linalg.norm(pos[i] - pos[j], axis=-1)

            @functools.partial(jax.jit, static_argnames=("n_bins", "r_max"))
            def distance_histogram(pos, n_bins, r_max):
                r = pair_distances(pos)
                counts, edges = jnp.histogram(r, bins=n_bins, range=(0.0, r_max))
                return counts, edges
            """,
            """
            def pair_distances(pos):
                i, j = jnp.triu_indices(pos.shape[0], k=1)
                return jnp.linalg.norm(pos[i] - pos[j], axis=-1)

            def distance_histogram(pos, n_bins, r_max):
                r = jax.jit(pair_distances)(pos)
                counts, edges = jnp.histogram(r, bins=n_bins, range=(0.0, r_max))
                return counts, edges
            """,
        ],
    ),
    # ------------------------------------------------------------------ vmap-in-axes-length-mismatch
    case(
        id="te-vmap-params-not-mapped",
        kind="vmap-in-axes-length-mismatch",
        setup=SETUP_F,
        source="https://github.com/jax-ml/jax/issues/9928",
        cell="""
            def batch_loss(params, x, y):
                w, b = params
                pred = x @ w + b
                return jnp.mean((pred - y) ** 2)

            rs = np.random.RandomState(0)
            params = (jnp.array([[0.5], [-1.0], [2.0]]), jnp.array([0.1]))
            xs = jnp.asarray(rs.randn(10, 4, 3), dtype=jnp.float32)   # 10 batches of 4 examples
            ys = jnp.asarray(rs.randn(10, 4, 1), dtype=jnp.float32)
            per_batch = jax.vmap(batch_loss, in_axes=(None, 0))(params, xs, ys)
            worst_batch = int(jnp.argmax(per_batch))
        """,
        check="""
            rs = np.random.RandomState(0)
            X = rs.randn(10, 4, 3)
            Y = rs.randn(10, 4, 1)
            W = np.array([[0.5], [-1.0], [2.0]])
            ref = np.mean((X @ W + 0.1 - Y) ** 2, axis=(1, 2))
            np.testing.assert_allclose(np.asarray(per_batch), ref, rtol=1e-4)
            assert worst_batch == int(np.argmax(ref))
        """,
        wrong_fix="""
            def batch_loss(params, x, y):
                w, b = params
                pred = x @ w + b
                return jnp.mean((pred - y) ** 2)

            rs = np.random.RandomState(0)
            params = (jnp.array([[0.5], [-1.0], [2.0]]), jnp.array([0.1]))
            xs = jnp.asarray(rs.randn(10, 4, 3), dtype=jnp.float32)   # 10 batches of 4 examples
            ys = jnp.asarray(rs.randn(10, 4, 1), dtype=jnp.float32)
            per_batch = jax.vmap(batch_loss, in_axes=(0, 0, 0))(params, xs, ys)
            worst_batch = int(jnp.argmax(per_batch))
        """,
        alt_fixes=[
            """
            def batch_loss(params, x, y):
                w, b = params
                pred = x @ w + b
                return jnp.mean((pred - y) ** 2)

            rs = np.random.RandomState(0)
            params = (jnp.array([[0.5], [-1.0], [2.0]]), jnp.array([0.1]))
            xs = jnp.asarray(rs.randn(10, 4, 3), dtype=jnp.float32)   # 10 batches of 4 examples
            ys = jnp.asarray(rs.randn(10, 4, 1), dtype=jnp.float32)
            per_batch = jax.vmap(batch_loss, in_axes=(None, 0, 0))(params, xs, ys)
            worst_batch = int(jnp.argmax(per_batch))
            """,
            """
            def batch_loss(params, x, y):
                w, b = params
                pred = x @ w + b
                return jnp.mean((pred - y) ** 2)

            rs = np.random.RandomState(0)
            params = (jnp.array([[0.5], [-1.0], [2.0]]), jnp.array([0.1]))
            xs = jnp.asarray(rs.randn(10, 4, 3), dtype=jnp.float32)   # 10 batches of 4 examples
            ys = jnp.asarray(rs.randn(10, 4, 1), dtype=jnp.float32)
            per_batch = jax.vmap(functools.partial(batch_loss, params), in_axes=(0, 0))(xs, ys)
            worst_batch = int(jnp.argmax(per_batch))
            """,
            """
            def batch_loss(params, x, y):
                w, b = params
                pred = x @ w + b
                return jnp.mean((pred - y) ** 2)

            rs = np.random.RandomState(0)
            params = (jnp.array([[0.5], [-1.0], [2.0]]), jnp.array([0.1]))
            xs = jnp.asarray(rs.randn(10, 4, 3), dtype=jnp.float32)   # 10 batches of 4 examples
            ys = jnp.asarray(rs.randn(10, 4, 1), dtype=jnp.float32)
            per_batch = jax.vmap(lambda x, y: batch_loss(params, x, y))(xs, ys)
            worst_batch = int(jnp.argmax(per_batch))
            """,
        ],
    ),
    case(
        id="te-vmap-bound-method-self",
        kind="vmap-in-axes-length-mismatch",
        setup=SETUP,
        source="https://github.com/flo-schu/pymob/issues/161",
        cell="""
            class GaussianPolicy:
                def __init__(self, mean_w, log_std):
                    self.mean_w = mean_w
                    self.log_std = log_std

                def log_prob(self, obs, action):
                    mu = obs @ self.mean_w
                    std = jnp.exp(self.log_std)
                    z = (action - mu) / std
                    return jnp.sum(-0.5 * z ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi))

            rs = np.random.RandomState(7)
            policy = GaussianPolicy(jnp.asarray(rs.randn(4, 2), dtype=jnp.float32), jnp.array([-0.5, 0.2]))
            obs_batch = jnp.asarray(rs.randn(6, 4), dtype=jnp.float32)
            act_batch = jnp.asarray(rs.randn(6, 2), dtype=jnp.float32)
            logps = jax.vmap(policy.log_prob, in_axes=(None, 0, 0))(obs_batch, act_batch)
            avg_logp = logps.mean()
        """,
        check="""
            rs = np.random.RandomState(7)
            Wm = rs.randn(4, 2)
            ls = np.array([-0.5, 0.2])
            O = rs.randn(6, 4)
            A = rs.randn(6, 2)
            z = (A - O @ Wm) / np.exp(ls)
            ref = np.sum(-0.5 * z ** 2 - ls - 0.5 * np.log(2 * np.pi), axis=1)
            np.testing.assert_allclose(np.asarray(logps), ref, rtol=1e-4, atol=1e-4)
            np.testing.assert_allclose(float(avg_logp), ref.mean(), rtol=1e-4)
        """,
        wrong_fix="""
            class GaussianPolicy:
                def __init__(self, mean_w, log_std):
                    self.mean_w = mean_w
                    self.log_std = log_std

                def log_prob(self, obs, action):
                    mu = obs @ self.mean_w
                    std = jnp.exp(self.log_std)
                    z = (action - mu) / std
                    return jnp.sum(-0.5 * z ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi))

            rs = np.random.RandomState(7)
            policy = GaussianPolicy(jnp.asarray(rs.randn(4, 2), dtype=jnp.float32), jnp.array([-0.5, 0.2]))
            obs_batch = jnp.asarray(rs.randn(6, 4), dtype=jnp.float32)
            act_batch = jnp.asarray(rs.randn(6, 2), dtype=jnp.float32)
            logps = jax.vmap(policy.log_prob, in_axes=(0, None))(obs_batch, act_batch)
            avg_logp = logps.mean()
        """,
        alt_fixes=[
            """
            class GaussianPolicy:
                def __init__(self, mean_w, log_std):
                    self.mean_w = mean_w
                    self.log_std = log_std

                def log_prob(self, obs, action):
                    mu = obs @ self.mean_w
                    std = jnp.exp(self.log_std)
                    z = (action - mu) / std
                    return jnp.sum(-0.5 * z ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi))

            rs = np.random.RandomState(7)
            policy = GaussianPolicy(jnp.asarray(rs.randn(4, 2), dtype=jnp.float32), jnp.array([-0.5, 0.2]))
            obs_batch = jnp.asarray(rs.randn(6, 4), dtype=jnp.float32)
            act_batch = jnp.asarray(rs.randn(6, 2), dtype=jnp.float32)
            logps = jax.vmap(policy.log_prob, in_axes=(0, 0))(obs_batch, act_batch)
            avg_logp = logps.mean()
            """,
            """
            class GaussianPolicy:
                def __init__(self, mean_w, log_std):
                    self.mean_w = mean_w
                    self.log_std = log_std

                def log_prob(self, obs, action):
                    mu = obs @ self.mean_w
                    std = jnp.exp(self.log_std)
                    z = (action - mu) / std
                    return jnp.sum(-0.5 * z ** 2 - self.log_std - 0.5 * jnp.log(2 * jnp.pi))

            rs = np.random.RandomState(7)
            policy = GaussianPolicy(jnp.asarray(rs.randn(4, 2), dtype=jnp.float32), jnp.array([-0.5, 0.2]))
            obs_batch = jnp.asarray(rs.randn(6, 4), dtype=jnp.float32)
            act_batch = jnp.asarray(rs.randn(6, 2), dtype=jnp.float32)
            logps = jax.vmap(policy.log_prob)(obs_batch, act_batch)
            avg_logp = logps.mean()
            """,
        ],
    ),
    case(
        id="te-vmap-partial-rk4-keyword",
        kind="vmap-in-axes-length-mismatch",
        setup=SETUP_F,
        source="https://github.com/jax-ml/jax/pull/39450",
        cell="""
            def rk4_step(k, state, dt):
                def f(s):
                    x, v = s
                    return jnp.array([v, -k * x - 0.1 * v])
                k1 = f(state)
                k2 = f(state + 0.5 * dt * k1)
                k3 = f(state + 0.5 * dt * k2)
                k4 = f(state + dt * k3)
                return state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

            step = functools.partial(rk4_step, dt=0.05)
            batched_step = jax.vmap(step, in_axes=(None, 0, None))
            states = jnp.stack([jnp.linspace(-1.0, 1.0, 5), jnp.zeros(5)], axis=1)
            for _ in range(20):
                states = batched_step(2.0, states)
        """,
        check="""
            def f(s, k=2.0):
                return np.stack([s[:, 1], -k * s[:, 0] - 0.1 * s[:, 1]], axis=1)
            S = np.stack([np.linspace(-1.0, 1.0, 5), np.zeros(5)], axis=1)
            h = 0.05
            for _ in range(20):
                a = f(S); b_ = f(S + 0.5 * h * a); c_ = f(S + 0.5 * h * b_); d_ = f(S + h * c_)
                S = S + h / 6 * (a + 2 * b_ + 2 * c_ + d_)
            np.testing.assert_allclose(np.asarray(states), S, rtol=1e-4, atol=1e-5)
        """,
        wrong_fix="""
            def rk4_step(k, state, dt):
                def f(s):
                    x, v = s
                    return jnp.array([v, -k * x - 0.1 * v])
                k1 = f(state)
                k2 = f(state + 0.5 * dt * k1)
                k3 = f(state + 0.5 * dt * k2)
                k4 = f(state + dt * k3)
                return state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

            step = functools.partial(rk4_step, dt=0.05)
            batched_step = jax.vmap(step, in_axes=(0, 0))
            states = jnp.stack([jnp.linspace(-1.0, 1.0, 5), jnp.zeros(5)], axis=1)
            for _ in range(20):
                states = batched_step(2.0, states)
        """,
        alt_fixes=[
            """
            def rk4_step(k, state, dt):
                def f(s):
                    x, v = s
                    return jnp.array([v, -k * x - 0.1 * v])
                k1 = f(state)
                k2 = f(state + 0.5 * dt * k1)
                k3 = f(state + 0.5 * dt * k2)
                k4 = f(state + dt * k3)
                return state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

            step = functools.partial(rk4_step, dt=0.05)
            batched_step = jax.vmap(step, in_axes=(None, 0))
            states = jnp.stack([jnp.linspace(-1.0, 1.0, 5), jnp.zeros(5)], axis=1)
            for _ in range(20):
                states = batched_step(2.0, states)
            """,
            """
            def rk4_step(k, state, dt):
                def f(s):
                    x, v = s
                    return jnp.array([v, -k * x - 0.1 * v])
                k1 = f(state)
                k2 = f(state + 0.5 * dt * k1)
                k3 = f(state + 0.5 * dt * k2)
                k4 = f(state + dt * k3)
                return state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)

            batched_step = jax.vmap(rk4_step, in_axes=(None, 0, None))
            states = jnp.stack([jnp.linspace(-1.0, 1.0, 5), jnp.zeros(5)], axis=1)
            for _ in range(20):
                states = batched_step(2.0, states, 0.05)
            """,
        ],
    ),
    # ------------------------------------------------------------------ grad-output-tuple-needs-has-aux
    case(
        id="te-aux-optax-loss-and-accuracy",
        kind="grad-output-tuple-needs-has-aux",
        setup=SETUP_OPTAX,
        source="https://github.com/jax-ml/jax/issues/6213",
        cell="""
            def loss_fn(params, x, y):
                logits = x @ params["w"] + params["b"]
                loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
                acc = jnp.mean(jnp.argmax(logits, -1) == y)
                return loss, acc

            rs = np.random.RandomState(0)
            x = jnp.asarray(rs.randn(12, 4), dtype=jnp.float32)
            y = jnp.asarray(rs.randint(0, 3, size=12))
            opt = optax.sgd(0.5)
            params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
            opt_state = opt.init(params)
            for step in range(5):
                (loss, acc), grads = jax.value_and_grad(loss_fn)(params, x, y)
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
        """,
        check="""
            rs = np.random.RandomState(0)
            X = rs.randn(12, 4)
            Y = rs.randint(0, 3, size=12)
            W, B = np.zeros((4, 3)), np.zeros(3)
            onehot = np.eye(3)[Y]
            for _ in range(5):
                z = X @ W + B
                p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
                l_ref = -np.mean(np.log(p[np.arange(12), Y]))
                a_ref = np.mean(z.argmax(1) == Y)
                G = (p - onehot) / 12
                W, B = W - 0.5 * X.T @ G, B - 0.5 * G.sum(0)
            np.testing.assert_allclose(np.asarray(params["w"]), W, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(params["b"]), B, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(float(loss), l_ref, rtol=1e-4)
            np.testing.assert_allclose(float(acc), a_ref)
        """,
        wrong_fix="""
            def loss_fn(params, x, y):
                logits = x @ params["w"] + params["b"]
                loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
                acc = jnp.mean(jnp.argmax(logits, -1) == y)
                return loss, acc

            rs = np.random.RandomState(0)
            x = jnp.asarray(rs.randn(12, 4), dtype=jnp.float32)
            y = jnp.asarray(rs.randint(0, 3, size=12))
            opt = optax.sgd(0.5)
            params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
            opt_state = opt.init(params)
            for step in range(5):
                grads, (loss, acc) = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
        """,
        alt_fixes=[
            """
            def loss_fn(params, x, y):
                logits = x @ params["w"] + params["b"]
                loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
                acc = jnp.mean(jnp.argmax(logits, -1) == y)
                return loss, acc

            rs = np.random.RandomState(0)
            x = jnp.asarray(rs.randn(12, 4), dtype=jnp.float32)
            y = jnp.asarray(rs.randint(0, 3, size=12))
            opt = optax.sgd(0.5)
            params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
            opt_state = opt.init(params)
            for step in range(5):
                (loss, acc), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y)
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
            """,
            """
            def loss_fn(params, x, y):
                logits = x @ params["w"] + params["b"]
                loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
                acc = jnp.mean(jnp.argmax(logits, -1) == y)
                return loss, acc

            rs = np.random.RandomState(0)
            x = jnp.asarray(rs.randn(12, 4), dtype=jnp.float32)
            y = jnp.asarray(rs.randint(0, 3, size=12))
            opt = optax.sgd(0.5)
            params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
            opt_state = opt.init(params)
            for step in range(5):
                grads, acc = jax.grad(loss_fn, has_aux=True)(params, x, y)
                loss = loss_fn(params, x, y)[0]
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
            """,
            """
            def loss_fn(params, x, y):
                logits = x @ params["w"] + params["b"]
                loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
                acc = jnp.mean(jnp.argmax(logits, -1) == y)
                return loss, acc

            rs = np.random.RandomState(0)
            x = jnp.asarray(rs.randn(12, 4), dtype=jnp.float32)
            y = jnp.asarray(rs.randint(0, 3, size=12))
            opt = optax.sgd(0.5)
            params = {"w": jnp.zeros((4, 3)), "b": jnp.zeros(3)}
            opt_state = opt.init(params)
            for step in range(5):
                loss, grads = jax.value_and_grad(lambda p: loss_fn(p, x, y)[0])(params)
                acc = loss_fn(params, x, y)[1]
                updates, opt_state = opt.update(grads, opt_state)
                params = optax.apply_updates(params, updates)
            """,
        ],
    ),
    case(
        id="te-aux-eqx-filter-grad-earlier",
        kind="grad-output-tuple-needs-has-aux",
        setup=SETUP_EQX,
        source="https://github.com/patrick-kidger/equinox/issues/512",
        earlier="""
            class MLP(eqx.Module):
                layers: list

                def __init__(self, key):
                    k1, k2 = jax.random.split(key)
                    self.layers = [eqx.nn.Linear(2, 8, key=k1), eqx.nn.Linear(8, 1, key=k2)]

                def __call__(self, x):
                    h = jax.nn.tanh(self.layers[0](x))
                    return self.layers[1](h)[0]

            def mse_loss(model, x, y):
                preds = jax.vmap(model)(x)
                return jnp.mean((preds - y) ** 2), preds
        """,
        cell="""
            model = MLP(jax.random.PRNGKey(0))
            x = jnp.asarray(np.random.RandomState(0).randn(16, 2), dtype=jnp.float32)
            y = jnp.sin(x[:, 0]) + 0.5 * x[:, 1]
            lr = 0.1
            for step in range(3):
                grads = eqx.filter_grad(mse_loss)(model, x, y)
                model = eqx.apply_updates(model, jax.tree.map(lambda g: -lr * g, grads))
            final_loss = mse_loss(model, x, y)
        """,
        check="""
            m0 = MLP(jax.random.PRNGKey(0))
            W1 = np.asarray(m0.layers[0].weight, dtype=np.float64); b1 = np.asarray(m0.layers[0].bias, dtype=np.float64)
            W2 = np.asarray(m0.layers[1].weight, dtype=np.float64)[0]; b2 = float(m0.layers[1].bias[0])
            X = np.asarray(x, dtype=np.float64); Y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
            def fwd(W1, b1, W2, b2):
                h = np.tanh(X @ W1.T + b1)
                return h, h @ W2 + b2
            for _ in range(3):
                h, p = fwd(W1, b1, W2, b2)
                d = 2 * (p - Y) / len(Y)
                gW2, gb2 = d @ h, d.sum()
                dh = np.outer(d, W2) * (1 - h ** 2)
                W1, b1, W2, b2 = W1 - 0.1 * dh.T @ X, b1 - 0.1 * dh.sum(0), W2 - 0.1 * gW2, b2 - 0.1 * gb2
            np.testing.assert_allclose(np.asarray(model.layers[0].weight), W1, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(model.layers[1].weight)[0], W2, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.asarray(model.layers[1].bias)[0], b2, rtol=1e-4, atol=1e-5)
            _, p = fwd(W1, b1, W2, b2)
            fl = final_loss[0] if isinstance(final_loss, tuple) else final_loss
            np.testing.assert_allclose(float(fl), np.mean((p - Y) ** 2), rtol=1e-4)
        """,
        wrong_fix="""
            class MLP(eqx.Module):
                layers: list

                def __init__(self, key):
                    k1, k2 = jax.random.split(key)
                    self.layers = [eqx.nn.Linear(2, 8, key=k1), eqx.nn.Linear(8, 1, key=k2)]

                def __call__(self, x):
                    h = jax.nn.tanh(self.layers[0](x))
                    return self.layers[1](h)[0]

            def mse_loss(model, x, y):
                preds = jax.vmap(model)(x)
                return jnp.mean((preds - y) ** 2), jax.lax.stop_gradient(preds)
        """,
        alt_fixes=[
            """
            class MLP(eqx.Module):
                layers: list

                def __init__(self, key):
                    k1, k2 = jax.random.split(key)
                    self.layers = [eqx.nn.Linear(2, 8, key=k1), eqx.nn.Linear(8, 1, key=k2)]

                def __call__(self, x):
                    h = jax.nn.tanh(self.layers[0](x))
                    return self.layers[1](h)[0]

            def mse_loss(model, x, y):
                preds = jax.vmap(model)(x)
                return jnp.mean((preds - y) ** 2)
            """,
            """
            class MLP(eqx.Module):
                layers: list

                def __init__(self, key):
                    k1, k2 = jax.random.split(key)
                    self.layers = [eqx.nn.Linear(2, 8, key=k1), eqx.nn.Linear(8, 1, key=k2)]

                def __call__(self, x):
                    h = jax.nn.tanh(self.layers[0](x))
                    return self.layers[1](h)[0]

            def loss_and_preds(model, x, y):
                preds = jax.vmap(model)(x)
                return jnp.mean((preds - y) ** 2), preds

            def mse_loss(model, x, y):
                return loss_and_preds(model, x, y)[0]
            """,
        ],
    ),
    # ------------------------------------------------------------------ grad-has-aux-not-pair
    case(
        id="te-aux-scalar-nll-has-aux-jit",
        kind="grad-has-aux-not-pair",
        setup=SETUP,
        source="https://github.com/jax-ml/jax/issues/1105",
        cell="""
            def nll(theta, data):
                mu, log_sigma = theta[0], theta[1]
                z = (data - mu) / jnp.exp(log_sigma)
                return jnp.sum(0.5 * z ** 2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))

            data = jnp.asarray(np.random.RandomState(2).randn(20) * 1.5 + 0.7, dtype=jnp.float32)
            theta = jnp.array([0.0, 0.0])
            grad_fn = jax.jit(jax.grad(nll, has_aux=True))
            for it in range(300):
                g, _ = grad_fn(theta, data)
                theta = theta - 0.01 * g
            mu_hat, sigma_hat = theta[0], jnp.exp(theta[1])
        """,
        check="""
            D = np.random.RandomState(2).randn(20) * 1.5 + 0.7
            mu, ls = 0.0, 0.0
            for _ in range(300):
                s2 = np.exp(2 * ls)
                gmu = -np.sum(D - mu) / s2
                gls = np.sum(1 - (D - mu) ** 2 / s2)
                mu, ls = mu - 0.01 * gmu, ls - 0.01 * gls
            np.testing.assert_allclose(float(mu_hat), mu, atol=1e-3)
            np.testing.assert_allclose(float(sigma_hat), np.exp(ls), rtol=1e-3)
        """,
        wrong_fix="""
            def nll(theta, data):
                mu, log_sigma = theta[0], theta[1]
                z = (data - mu) / jnp.exp(log_sigma)
                return jnp.sum(0.5 * z ** 2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))

            data = jnp.asarray(np.random.RandomState(2).randn(20) * 1.5 + 0.7, dtype=jnp.float32)
            theta = jnp.array([0.0, 0.0])
            grad_fn = jax.jit(jax.grad(nll))
            for it in range(300):
                g, _ = grad_fn(theta, data)
                theta = theta - 0.01 * g
            mu_hat, sigma_hat = theta[0], jnp.exp(theta[1])
        """,
        alt_fixes=[
            """
            def nll(theta, data):
                mu, log_sigma = theta[0], theta[1]
                z = (data - mu) / jnp.exp(log_sigma)
                return jnp.sum(0.5 * z ** 2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))

            data = jnp.asarray(np.random.RandomState(2).randn(20) * 1.5 + 0.7, dtype=jnp.float32)
            theta = jnp.array([0.0, 0.0])
            grad_fn = jax.jit(jax.grad(nll))
            for it in range(300):
                g = grad_fn(theta, data)
                theta = theta - 0.01 * g
            mu_hat, sigma_hat = theta[0], jnp.exp(theta[1])
            """,
            """
            def nll(theta, data):
                mu, log_sigma = theta[0], theta[1]
                z = (data - mu) / jnp.exp(log_sigma)
                loss = jnp.sum(0.5 * z ** 2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))
                return loss, jnp.exp(log_sigma)

            data = jnp.asarray(np.random.RandomState(2).randn(20) * 1.5 + 0.7, dtype=jnp.float32)
            theta = jnp.array([0.0, 0.0])
            grad_fn = jax.jit(jax.grad(nll, has_aux=True))
            for it in range(300):
                g, _ = grad_fn(theta, data)
                theta = theta - 0.01 * g
            mu_hat, sigma_hat = theta[0], jnp.exp(theta[1])
            """,
            """
            def nll(theta, data):
                mu, log_sigma = theta[0], theta[1]
                z = (data - mu) / jnp.exp(log_sigma)
                return jnp.sum(0.5 * z ** 2 + log_sigma + 0.5 * jnp.log(2 * jnp.pi))

            data = jnp.asarray(np.random.RandomState(2).randn(20) * 1.5 + 0.7, dtype=jnp.float32)
            theta = jnp.array([0.0, 0.0])
            grad_fn = jax.jit(jax.value_and_grad(nll))
            for it in range(300):
                _, g = grad_fn(theta, data)
                theta = theta - 0.01 * g
            mu_hat, sigma_hat = theta[0], jnp.exp(theta[1])
            """,
        ],
    ),
    case(
        id="te-aux-triple-momentum-partial-jit",
        kind="grad-has-aux-not-pair",
        setup=SETUP_OPTAX + "import functools\n",
        source="https://github.com/jax-ml/jax/issues/5776",
        cell="""
            opt = optax.sgd(0.05, momentum=0.9)

            def loss_fn(params, x, y, l2_coef):
                pred = x @ params["w"] + params["b"]
                mse = jnp.mean((pred - y) ** 2)
                l2 = l2_coef * jnp.sum(params["w"] ** 2)
                return mse + l2, mse, l2

            @functools.partial(jax.jit, static_argnames="l2_coef")
            def train_step(params, opt_state, x, y, l2_coef=1e-2):
                (loss, mse, l2), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, l2_coef)
                updates, opt_state = opt.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss, mse

            rs = np.random.RandomState(4)
            x = jnp.asarray(rs.randn(32, 3), dtype=jnp.float32)
            y = x @ jnp.array([1.5, -2.0, 0.5]) + 0.3
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = opt.init(params)
            history = []
            for step in range(20):
                params, opt_state, loss, mse = train_step(params, opt_state, x, y)
                history.append(float(mse))
        """,
        check="""
            rs = np.random.RandomState(4)
            X = rs.randn(32, 3).astype(np.float32).astype(np.float64)
            Y = X @ np.array([1.5, -2.0, 0.5]) + 0.3
            w, b = np.zeros(3), 0.0
            tw, tb = np.zeros(3), 0.0
            hist = []
            for _ in range(20):
                r = X @ w + b - Y
                mse_ = np.mean(r ** 2)
                hist.append(mse_)
                loss_ = mse_ + 1e-2 * np.sum(w ** 2)
                gw = 2 * X.T @ r / 32 + 2e-2 * w
                gb = 2 * r.mean()
                tw, tb = gw + 0.9 * tw, gb + 0.9 * tb
                w, b = w - 0.05 * tw, b - 0.05 * tb
            np.testing.assert_allclose(np.asarray(params["w"]), w, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(float(params["b"]), b, rtol=1e-4, atol=1e-5)
            np.testing.assert_allclose(np.array(history), hist, rtol=1e-4)
            np.testing.assert_allclose(float(loss), loss_, rtol=1e-4)
        """,
        wrong_fix="""
            opt = optax.sgd(0.05, momentum=0.9)

            def loss_fn(params, x, y, l2_coef):
                pred = x @ params["w"] + params["b"]
                mse = jnp.mean((pred - y) ** 2)
                l2 = l2_coef * jnp.sum(params["w"] ** 2)
                return mse + l2, mse, l2

            @functools.partial(jax.jit, static_argnames="l2_coef")
            def train_step(params, opt_state, x, y, l2_coef=1e-2):
                (loss, (mse, l2)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, l2_coef)
                updates, opt_state = opt.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss, mse

            rs = np.random.RandomState(4)
            x = jnp.asarray(rs.randn(32, 3), dtype=jnp.float32)
            y = x @ jnp.array([1.5, -2.0, 0.5]) + 0.3
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = opt.init(params)
            history = []
            for step in range(20):
                params, opt_state, loss, mse = train_step(params, opt_state, x, y)
                history.append(float(mse))
        """,
        alt_fixes=[
            """
            opt = optax.sgd(0.05, momentum=0.9)

            def loss_fn(params, x, y, l2_coef):
                pred = x @ params["w"] + params["b"]
                mse = jnp.mean((pred - y) ** 2)
                l2 = l2_coef * jnp.sum(params["w"] ** 2)
                return mse + l2, (mse, l2)

            @functools.partial(jax.jit, static_argnames="l2_coef")
            def train_step(params, opt_state, x, y, l2_coef=1e-2):
                (loss, (mse, l2)), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, l2_coef)
                updates, opt_state = opt.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss, mse

            rs = np.random.RandomState(4)
            x = jnp.asarray(rs.randn(32, 3), dtype=jnp.float32)
            y = x @ jnp.array([1.5, -2.0, 0.5]) + 0.3
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = opt.init(params)
            history = []
            for step in range(20):
                params, opt_state, loss, mse = train_step(params, opt_state, x, y)
                history.append(float(mse))
            """,
            """
            opt = optax.sgd(0.05, momentum=0.9)

            def loss_fn(params, x, y, l2_coef):
                pred = x @ params["w"] + params["b"]
                mse = jnp.mean((pred - y) ** 2)
                l2 = l2_coef * jnp.sum(params["w"] ** 2)
                return mse + l2, {"mse": mse, "l2": l2}

            @functools.partial(jax.jit, static_argnames="l2_coef")
            def train_step(params, opt_state, x, y, l2_coef=1e-2):
                (loss, aux), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, x, y, l2_coef)
                updates, opt_state = opt.update(grads, opt_state)
                return optax.apply_updates(params, updates), opt_state, loss, aux["mse"]

            rs = np.random.RandomState(4)
            x = jnp.asarray(rs.randn(32, 3), dtype=jnp.float32)
            y = x @ jnp.array([1.5, -2.0, 0.5]) + 0.3
            params = {"w": jnp.zeros(3), "b": jnp.zeros(())}
            opt_state = opt.init(params)
            history = []
            for step in range(20):
                params, opt_state, loss, mse = train_step(params, opt_state, x, y)
                history.append(float(mse))
            """,
        ],
    ),
]
