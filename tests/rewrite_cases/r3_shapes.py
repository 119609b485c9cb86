"""The code shapes users write, for the control-flow, static-shape and transform rules (issue #17, items 1-3).

The same causes as in the family modules, written the other ways real cells are: module aliases
(``from jax import numpy as np``, ``import jax.lax as L``, ``import jax as J``), methods and closures,
``functools.partial`` and decorator variants, Flax NNX and Equinox module code, and definitions that live
in an earlier cell (the setup runs as one earlier cell: a rewrite of it is checked in its place, so those
checks call the function themselves). Modelled on public threads: flax#4146 (``nnx.jit`` static
arguments), gymnax#52 (an int/float mix between step branches), jax#1235 and jax#39450 (vmap ``in_axes``
and the arguments it lines up with), flax#3171 (a module method under a jit).
"""

import textwrap

from rewrite_cases import case

ALIAS = """
import numpy as onp
import jax
from jax import numpy as np
import jax.lax as L
"""

ALIAS_J = """
import numpy as onp
import jax as J
from jax import numpy as np
"""

BASE = """
from functools import partial
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
"""

NNX = """
import numpy as np
import jax
import jax.numpy as jnp
from flax import nnx
"""

EQX = """
import numpy as np
import jax
import jax.numpy as jnp
import equinox as eqx
"""



def earlier(code: str) -> str:
    """The setup's imports and an earlier cell's definitions, run as one earlier cell."""
    return BASE + textwrap.dedent(code)


CASES = [
    # ================================================================== aliases
    case(
        "r3-alias-np-vmap-shared-bias", "vmap-in-axes-length-mismatch", setup=ALIAS,
        cell="""
        def dense(x, W, b):
            return np.tanh(x @ W + b)

        W = np.arange(6.0).reshape(3, 2) / 6
        b = np.array([0.1, -0.1])
        xs = np.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(dense, in_axes=(0, None))(xs, W, b)
        """,
        check="""
        ref = onp.tanh((onp.arange(15.0).reshape(5, 3) / 15) @ (onp.arange(6.0).reshape(3, 2) / 6) + [0.1, -0.1])
        onp.testing.assert_allclose(onp.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def dense(x, W, b):
            return np.tanh(x @ W + b)

        W = np.arange(6.0).reshape(3, 2) / 6
        b = np.array([0.1, -0.1])
        xs = np.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(dense, in_axes=(0, None, None))(xs, W, b * 0)
        """,
    ),
    case(
        "r3-alias-L-cond-zero-branch", "cond-branch-output-types", setup=ALIAS,
        cell="""
        @jax.jit
        def leaky(x):
            return L.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: 0, x)

        out = [float(leaky(np.float32(v))) for v in (-1.5, 0.5, 3.0)]
        """,
        check="""
        assert out == [0.0, 1.0, 6.0], out
        """,
        wrong_fix="""
        @jax.jit
        def leaky(x):
            return L.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: v * 0 + 1.0, x)

        out = [float(leaky(np.float32(v))) for v in (-1.5, 0.5, 3.0)]
        """,
    ),
    case(
        "r3-alias-J-jit-window-size", "shape-not-concrete", setup=ALIAS_J,
        cell="""
        @J.jit
        def window(x, size):
            return np.ones(size) * x.mean()

        out = window(np.arange(4.0), 3)
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(out), [1.5, 1.5, 1.5])
        """,
        wrong_fix="""
        @J.jit
        def window(x, size):
            return np.ones(3) * x.sum()

        out = window(np.arange(4.0), 3)
        """,
    ),
    case(
        "r3-alias-np-traced-if-relu", "tracer-bool-conversion", setup=ALIAS,
        cell="""
        @jax.jit
        def leaky_relu(x):
            if x > 0:
                return x
            return 0.1 * x

        out = [float(leaky_relu(np.float32(v))) for v in (-2.0, 0.0, 3.0)]
        """,
        check="""
        onp.testing.assert_allclose(out, [-0.2, 0.0, 3.0], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def leaky_relu(x):
            return np.maximum(x, 0.0)

        out = [float(leaky_relu(np.float32(v))) for v in (-2.0, 0.0, 3.0)]
        """,
    ),
    case(
        "r3-alias-L-scan-running-sum", "scan-body-not-pair", setup=ALIAS,
        cell="""
        def step(c, x):
            return c + x

        xs = np.arange(5.0)
        total, _ = L.scan(step, 0.0, xs)
        """,
        check="""
        assert float(total) == 10.0, total
        """,
        wrong_fix="""
        def step(c, x):
            return c, c + x

        xs = np.arange(5.0)
        total, _ = L.scan(step, 0.0, xs)
        """,
    ),
    case(
        "r3-alias-J-tile-reps-list", "jit-non-hashable-static-arg", setup=ALIAS_J,
        cell="""
        def tile(x, reps):
            return np.tile(x, reps)

        tile_j = J.jit(tile, static_argnums=1)
        out = tile_j(np.arange(3.0), [2, 1])
        """,
        check="""
        assert out.shape == (2, 3), out.shape
        onp.testing.assert_allclose(onp.asarray(out), onp.tile(onp.arange(3.0), (2, 1)))
        """,
        wrong_fix="""
        def tile(x, reps):
            return np.tile(x, reps)

        tile_j = J.jit(tile, static_argnums=1)
        out = tile_j(np.arange(3.0), (1, 2))
        """,
    ),
    # ================================================================== methods
    case(
        "r3-method-vmap-bound-apply", "vmap-in-axes-length-mismatch", setup=BASE,
        cell="""
        class Model:
            def __init__(self):
                self.W = jnp.arange(6.0).reshape(3, 2) / 6
                self.b = jnp.array([0.5, -0.5])

            def apply_one(self, x, W, b):
                return jnp.tanh(x @ W + b)

            def __call__(self, xs):
                return jax.vmap(self.apply_one, in_axes=(0, None))(xs, self.W, self.b)

        out = Model()(jnp.arange(15.0).reshape(5, 3) / 15)
        """,
        check="""
        ref = np.tanh((np.arange(15.0).reshape(5, 3) / 15) @ (np.arange(6.0).reshape(3, 2) / 6) + [0.5, -0.5])
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        class Model:
            def __init__(self):
                self.W = jnp.arange(6.0).reshape(3, 2) / 6
                self.b = jnp.array([0.5, -0.5])

            def apply_one(self, x, W, b):
                return jnp.tanh(x @ W + b)

            def __call__(self, xs):
                return jax.vmap(self.apply_one, in_axes=(0, None, None))(xs, self.W, self.b[::-1])

        out = Model()(jnp.arange(15.0).reshape(5, 3) / 15)
        """,
    ),
    case(
        "r3-method-cond-explore-exploit", "cond-branch-output-types", setup=BASE,
        cell="""
        class Policy:
            def explore(self, q):
                return jnp.int32(0)

            def exploit(self, q):
                return jnp.argmax(q).astype(jnp.float32)

            def act(self, q, eps):
                return lax.cond(eps > 0.5, self.explore, self.exploit, q)

        p = Policy()
        a = p.act(jnp.array([0.1, 0.9, 0.3]), 0.1)
        b = p.act(jnp.array([0.1, 0.9, 0.3]), 0.9)
        """,
        check="""
        assert float(a) == 1.0 and float(b) == 0.0, (a, b)
        """,
        wrong_fix="""
        class Policy:
            def explore(self, q):
                return jnp.float32(0)

            def exploit(self, q):
                return jnp.argmin(q).astype(jnp.float32)

            def act(self, q, eps):
                return lax.cond(eps > 0.5, self.explore, self.exploit, q)

        p = Policy()
        a = p.act(jnp.array([0.1, 0.9, 0.3]), 0.1)
        b = p.act(jnp.array([0.1, 0.9, 0.3]), 0.9)
        """,
    ),
    case(
        "r3-method-scan-step", "scan-body-not-pair", setup=BASE,
        cell="""
        class Accumulator:
            def __init__(self, decay):
                self.decay = decay

            def step(self, c, x):
                return self.decay * c + x

            def total(self, xs):
                c, _ = lax.scan(self.step, 0.0, xs)
                return c

        out = Accumulator(0.5).total(jnp.array([1.0, 2.0, 4.0]))
        """,
        check="""
        assert abs(float(out) - 5.25) < 1e-6, out
        """,
        wrong_fix="""
        class Accumulator:
            def __init__(self, decay):
                self.decay = decay

            def step(self, c, x):
                return c + x, None

            def total(self, xs):
                c, _ = lax.scan(self.step, 0.0, xs)
                return c

        out = Accumulator(0.5).total(jnp.array([1.0, 2.0, 4.0]))
        """,
    ),
    case(
        "r3-method-scan-step-used-elsewhere", "scan-body-not-pair", setup=BASE, offer="none",
        # the body is also called on its own: returning a pair would break that call
        cell="""
        class Accumulator:
            def step(self, c, x):
                return 0.5 * c + x

            def one(self, c, x):
                return self.step(c, x) * 2

            def total(self, xs):
                c, _ = lax.scan(self.step, 0.0, xs)
                return c

        acc = Accumulator()
        out = acc.total(jnp.array([1.0, 2.0, 4.0]))
        twice = acc.one(1.0, 1.0)
        """,
        check="""
        assert abs(float(out) - 5.25) < 1e-6 and float(twice) == 3.0, (out, twice)
        """,
        wrong_fix="""
        class Accumulator:
            def step(self, c, x):
                return 0.5 * c + x, None

            def one(self, c, x):
                return self.step(c, x)[0] * 2

            def total(self, xs):
                c = lax.scan(self.step, 0.0, xs[:2])[0]
                return c

        acc = Accumulator()
        out = acc.total(jnp.array([1.0, 2.0, 4.0]))
        twice = acc.one(1.0, 1.0)
        """,
    ),
    case(
        "r3-method-fori-state-list", "scan-carry-tree-mismatch", setup=BASE,
        cell="""
        class Particle:
            def body(self, i, state):
                pos, vel = state
                return [pos + vel, vel * 0.5]

            def run(self, pos, vel):
                return lax.fori_loop(0, 3, self.body, (pos, vel))

        pos, vel = Particle().run(jnp.zeros(2), jnp.array([1.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(pos), [1.75, 3.5])
        np.testing.assert_allclose(np.asarray(vel), [0.125, 0.25])
        """,
        wrong_fix="""
        class Particle:
            def body(self, i, state):
                pos, vel = state
                return (pos + vel, vel)

            def run(self, pos, vel):
                return lax.fori_loop(0, 3, self.body, (pos, vel))

        pos, vel = Particle().run(jnp.zeros(2), jnp.array([1.0, 2.0]))
        """,
    ),
    case(
        "r3-method-switch-moves", "switch-branch-output-types", setup=BASE,
        # a float move among integer ones: every integer branch before it needs the change, not just the first
        cell="""
        class Walker:
            def up(self, s):
                return s + jnp.array([0, 1])

            def down(self, s):
                return s - jnp.array([0, 1])

            def drift(self, s):
                return s + jnp.array([0.5, 0.0])

            def step(self, s, a):
                return lax.switch(a, [self.up, self.down, self.drift], s)

        w = Walker()
        moved = [w.step(jnp.array([2, 2]), a) for a in range(3)]
        """,
        check="""
        got = [np.asarray(m).tolist() for m in moved]
        assert got == [[2.0, 3.0], [2.0, 1.0], [2.5, 2.0]], got
        """,
        wrong_fix="""
        class Walker:
            def up(self, s):
                return (s + jnp.array([0, 1])).astype(jnp.float32)

            def down(self, s):
                return (s + jnp.array([0, 1])).astype(jnp.float32)

            def drift(self, s):
                return s + jnp.array([0.5, 0.0])

            def step(self, s, a):
                return lax.switch(a, [self.up, self.down, self.drift], s)

        w = Walker()
        moved = [w.step(jnp.array([2, 2]), a) for a in range(3)]
        """,
    ),
    case(
        "r3-method-static-sample-count", "shape-not-concrete", setup=BASE,
        cell="""
        class Sampler:
            @partial(jax.jit, static_argnums=0)
            def sample(self, key, n):
                return jax.random.normal(key, (n,))

        s = Sampler()
        draws = s.sample(jax.random.PRNGKey(0), 4)
        """,
        check="""
        assert draws.shape == (4,), draws.shape
        np.testing.assert_allclose(np.asarray(draws), np.asarray(jax.random.normal(jax.random.PRNGKey(0), (4,))))
        """,
        wrong_fix="""
        class Sampler:
            @partial(jax.jit, static_argnums=0)
            def sample(self, key, n):
                return jax.random.normal(key, (4,)) * 0

        s = Sampler()
        draws = s.sample(jax.random.PRNGKey(0), 4)
        """,
    ),
    case(
        "r3-method-hashable-widths", "jit-non-hashable-static-arg", setup=BASE,
        cell="""
        class Trunk:
            @partial(jax.jit, static_argnums=(0, 2))
            def forward(self, x, widths):
                for w in widths:
                    x = jnp.tanh(x[..., :w])
                return x

        out = Trunk().forward(jnp.ones((2, 8)) * 0.5, [6, 4])
        """,
        check="""
        assert out.shape == (2, 4), out.shape
        np.testing.assert_allclose(np.asarray(out), np.tanh(np.tanh(np.full((2, 4), 0.5))), rtol=1e-6)
        """,
        wrong_fix="""
        class Trunk:
            @partial(jax.jit, static_argnums=(0,))
            def forward(self, x, widths):
                return jnp.tanh(x[..., :4])

        out = Trunk().forward(jnp.ones((2, 8)) * 0.5, [6, 4])
        """,
    ),
    case(
        "r3-method-traced-if-clip", "tracer-bool-conversion", setup=BASE,
        cell="""
        class Clipper:
            def __init__(self, limit):
                self.limit = limit

            @partial(jax.jit, static_argnums=0)
            def __call__(self, g):
                norm = jnp.linalg.norm(g)
                if norm > self.limit:
                    g = g * (self.limit / norm)
                return g

        c = Clipper(1.0)
        big, small = c(jnp.array([3.0, 4.0])), c(jnp.array([0.3, 0.4]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(big), [0.6, 0.8], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(small), [0.3, 0.4], rtol=1e-6)
        """,
        wrong_fix="""
        class Clipper:
            def __init__(self, limit):
                self.limit = limit

            @partial(jax.jit, static_argnums=0)
            def __call__(self, g):
                return g / jnp.linalg.norm(g)

        c = Clipper(1.0)
        big, small = c(jnp.array([3.0, 4.0])), c(jnp.array([0.3, 0.4]))
        """,
    ),
    # ================================================================== closures
    case(
        "r3-closure-vmap-forward", "vmap-in-axes-length-mismatch", setup=BASE,
        cell="""
        def make_forward(W, b):
            def one(x, W, b):
                return jnp.tanh(x @ W + b)

            def forward(xs):
                return jax.vmap(one, in_axes=(0, None))(xs, W, b)

            return forward

        fwd = make_forward(jnp.arange(6.0).reshape(3, 2) / 6, jnp.array([0.5, -0.5]))
        out = fwd(jnp.arange(15.0).reshape(5, 3) / 15)
        """,
        check="""
        ref = np.tanh((np.arange(15.0).reshape(5, 3) / 15) @ (np.arange(6.0).reshape(3, 2) / 6) + [0.5, -0.5])
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def make_forward(W, b):
            def one(x, W, b):
                return jnp.tanh(x @ W + b)

            def forward(xs):
                return jax.vmap(one, in_axes=(0, None, None))(xs, W, 0 * b)

            return forward

        fwd = make_forward(jnp.arange(6.0).reshape(3, 2) / 6, jnp.array([0.5, -0.5]))
        out = fwd(jnp.arange(15.0).reshape(5, 3) / 15)
        """,
    ),
    case(
        "r3-closure-switch-reward", "switch-branch-output-types", setup=BASE,
        cell="""
        def reward(kind, x):
            def nothing(x):
                return 0

            def linear(x):
                return x.sum()

            def trap(x):
                return -5

            return lax.switch(kind, [nothing, linear, trap], x)

        rs = [float(reward(k, jnp.array([1.0, 2.0]))) for k in range(3)]
        """,
        check="""
        assert rs == [0.0, 3.0, -5.0], rs
        """,
        wrong_fix="""
        def reward(kind, x):
            def nothing(x):
                return 0.0

            def linear(x):
                return x.sum()

            def trap(x):
                return 0.0

            return lax.switch(kind, [nothing, linear, trap], x)

        rs = [float(reward(k, jnp.array([1.0, 2.0]))) for k in range(3)]
        """,
    ),
    case(
        "r3-closure-traced-if-margin", "tracer-bool-conversion", setup=BASE,
        cell="""
        def make_hinge(margin):
            def hinge(s):
                if s < margin:
                    return margin - s
                return 0.0 * s
            return jax.jit(hinge)

        hinge = make_hinge(1.0)
        out = [float(hinge(jnp.float32(v))) for v in (0.25, 2.0)]
        """,
        check="""
        assert out == [0.75, 0.0], out
        """,
        wrong_fix="""
        def make_hinge(margin):
            def hinge(s):
                return jnp.abs(margin - s)
            return jax.jit(hinge)

        hinge = make_hinge(1.0)
        out = [float(hinge(jnp.float32(v))) for v in (0.25, 2.0)]
        """,
    ),
    # ================================================================== partial and decorator variants
    case(
        "r3-partial-scan-decay", "scan-body-not-pair", setup=BASE,
        cell="""
        def step(decay, c, x):
            return decay * c + x

        xs = jnp.array([1.0, 2.0, 4.0])
        ema, _ = lax.scan(partial(step, 0.5), 0.0, xs)
        """,
        check="""
        assert abs(float(ema) - 5.25) < 1e-6, ema
        """,
        wrong_fix="""
        def step(decay, c, x):
            return decay * c + x, None

        xs = jnp.array([1.0, 2.0, 4.0])
        ema, _ = lax.scan(partial(step, 1.0), 0.0, xs)
        """,
    ),
    case(
        "r3-partial-cond-scaled-branch", "cond-branch-output-types", setup=BASE,
        cell="""
        def scaled(k, x):
            return x * k

        def floor(x):
            return 0

        @jax.jit
        def gate(x):
            return lax.cond(x > 1.0, partial(scaled, 2.0), floor, x)

        out = [float(gate(jnp.float32(v))) for v in (0.5, 3.0)]
        """,
        check="""
        assert out == [0.0, 6.0], out
        """,
        wrong_fix="""
        def scaled(k, x):
            return x * k

        def floor(x):
            return 0.0 * x + 1.0

        @jax.jit
        def gate(x):
            return lax.cond(x > 1.0, partial(scaled, 2.0), floor, x)

        out = [float(gate(jnp.float32(v))) for v in (0.5, 3.0)]
        """,
    ),
    case(
        "r3-decorator-bare-vmap-bias", "vmap-in-axes-length-mismatch",
        setup="""
        from functools import partial
        import numpy as np
        import jax.numpy as jnp
        from jax import vmap
        """,
        cell="""
        @partial(vmap, in_axes=(0, None))
        def score(x, w, bias):
            return x @ w + bias

        xs = jnp.arange(12.0).reshape(4, 3)
        w = jnp.array([1.0, 0.0, -1.0])
        out = score(xs, w, 0.5)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.arange(12.0).reshape(4, 3) @ [1.0, 0.0, -1.0] + 0.5)
        """,
        wrong_fix="""
        @partial(vmap, in_axes=(0, None, None))
        def score(x, w, bias):
            return x @ w

        xs = jnp.arange(12.0).reshape(4, 3)
        w = jnp.array([1.0, 0.0, -1.0])
        out = score(xs, w, 0.5)
        """,
    ),
    case(
        "r3-functools-partial-jit-pad", "shape-not-concrete",
        setup="""
        import functools
        import numpy as np
        import jax
        import jax.numpy as jnp
        """,
        cell="""
        @functools.partial(jax.jit, static_argnames=("value",))
        def pad_to(x, length, value=0.0):
            return jnp.full(length, value).at[: x.shape[0]].set(x)

        out = pad_to(jnp.array([1.0, 2.0]), 4)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 2.0, 0.0, 0.0])
        """,
        wrong_fix="""
        @functools.partial(jax.jit, static_argnames=("value",))
        def pad_to(x, length, value=0.0):
            return jnp.full(2, value).at[: x.shape[0]].set(x)

        out = pad_to(jnp.array([1.0, 2.0]), 4)
        """,
    ),
    # ================================================================== Flax NNX
    case(
        "r3-nnx-jit-pad-length", "shape-not-concrete", setup=NNX,
        cell="""
        @nnx.jit
        def pad(x, n):
            return jnp.zeros(n).at[: x.shape[0]].set(x)

        out = pad(jnp.array([1.0, 2.0, 3.0]), 5)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 2.0, 3.0, 0.0, 0.0])
        """,
        wrong_fix="""
        @nnx.jit
        def pad(x, n):
            return jnp.zeros(3).at[: x.shape[0]].set(x)

        out = pad(jnp.array([1.0, 2.0, 3.0]), 5)
        """,
    ),
    case(
        "r3-nnx-jit-repeat-count", "tracer-integer-conversion", setup=NNX,
        cell="""
        @nnx.jit
        def power(x, n):
            for _ in range(n):
                x = x * x
            return x

        out = power(jnp.float32(1.5), 3)
        """,
        check="""
        assert abs(float(out) - 1.5 ** 8) < 1e-3, out
        """,
        wrong_fix="""
        @nnx.jit
        def power(x, n):
            return x * x

        out = power(jnp.float32(1.5), 3)
        """,
    ),
    case(
        "r3-nnx-module-gate", "tracer-bool-conversion", setup=NNX,
        cell="""
        class Gate(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(2, 1, rngs=rngs)

            def __call__(self, x):
                y = self.lin(x)
                if y.sum() > 0:
                    y = y * 2
                return y

        @nnx.jit
        def run(m, x):
            return m(x)

        model = Gate(nnx.Rngs(0))
        xs = [jnp.array([[1.0, 2.0]]), jnp.array([[-1.0, -2.0]])]
        outs = [run(model, x) for x in xs]
        """,
        check="""
        for x, o in zip(xs, outs):
            y = np.asarray(x) @ np.asarray(model.lin.kernel[...]) + np.asarray(model.lin.bias[...])
            np.testing.assert_allclose(np.asarray(o), y * 2 if y.sum() > 0 else y, rtol=1e-5)
        """,
        wrong_fix="""
        class Gate(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(2, 1, rngs=rngs)

            def __call__(self, x):
                return self.lin(x) * 2

        @nnx.jit
        def run(m, x):
            return m(x)

        model = Gate(nnx.Rngs(0))
        xs = [jnp.array([[1.0, 2.0]]), jnp.array([[-1.0, -2.0]])]
        outs = [run(model, x) for x in xs]
        """,
    ),
    case(
        "r3-nnx-vmap-lambda-scale", "vmap-in-axes-length-mismatch", setup=NNX,
        cell="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(3, 2, rngs=rngs)

            def __call__(self, x, scale):
                return self.lin(x) * scale

        model = Head(nnx.Rngs(0))
        xs = jnp.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(lambda x, s: model(x, s), in_axes=(0,))(xs, 2.0)
        """,
        check="""
        ref = (np.asarray(xs) @ np.asarray(model.lin.kernel[...]) + np.asarray(model.lin.bias[...])) * 2.0
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(3, 2, rngs=rngs)

            def __call__(self, x, scale):
                return self.lin(x) * scale

        model = Head(nnx.Rngs(0))
        xs = jnp.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(lambda x, s: model(x, s), in_axes=(0, None))(xs, 1.0)
        """,
    ),
    case(
        "r3-nnx-cond-zero-branch", "cond-branch-output-types", setup=NNX,
        # nnx.cond hands the module to each branch and returns its state with the output ("at path [1]")
        cell="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(2, 1, rngs=rngs)

            def __call__(self, x, use):
                return nnx.cond(use, lambda m, x: m.lin(x).sum(), lambda m, x: 0, self, x)

        head = Head(nnx.Rngs(0))
        on, off = head(jnp.ones(2), jnp.array(True)), head(jnp.ones(2), jnp.array(False))
        """,
        check="""
        ref = float((np.ones(2) @ np.asarray(head.lin.kernel[...]) + np.asarray(head.lin.bias[...])).sum())
        assert abs(float(on) - ref) < 1e-5 and float(off) == 0.0, (on, off, ref)
        """,
        wrong_fix="""
        class Head(nnx.Module):
            def __init__(self, rngs):
                self.lin = nnx.Linear(2, 1, rngs=rngs)

            def __call__(self, x, use):
                return nnx.cond(use, lambda m, x: m.lin(x).sum(), lambda m, x: m.lin(x).sum(), self, x)

        head = Head(nnx.Rngs(0))
        on, off = head(jnp.ones(2), jnp.array(True)), head(jnp.ones(2), jnp.array(False))
        """,
    ),
    # ================================================================== Equinox
    case(
        "r3-eqx-vmap-module-bias", "vmap-in-axes-length-mismatch", setup=EQX,
        cell="""
        class Affine(eqx.Module):
            w: jax.Array

            def __call__(self, x, b):
                return x @ self.w + b

        layer = Affine(jnp.arange(6.0).reshape(3, 2))
        xs = jnp.arange(15.0).reshape(5, 3)
        b = jnp.array([1.0, -1.0])
        out = jax.vmap(layer, in_axes=(0,))(xs, b)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.arange(15.0).reshape(5, 3) @ np.arange(6.0).reshape(3, 2) + [1, -1])
        """,
        wrong_fix="""
        class Affine(eqx.Module):
            w: jax.Array

            def __call__(self, x, b):
                return x @ self.w + b

        layer = Affine(jnp.arange(6.0).reshape(3, 2))
        xs = jnp.arange(15.0).reshape(5, 3)
        b = jnp.array([1.0, -1.0])
        out = jax.vmap(layer, in_axes=(0, None))(xs, b * 0)
        """,
    ),
    case(
        "r3-eqx-method-vmap-in-filter-jit", "vmap-in-axes-length-mismatch", setup=EQX,
        cell="""
        class Affine(eqx.Module):
            w: jax.Array
            b: jax.Array

            def one(self, x, w, b):
                return x @ w + b

            def __call__(self, xs):
                return jax.vmap(self.one, in_axes=(0, None))(xs, self.w, self.b)

        layer = Affine(jnp.arange(6.0).reshape(3, 2), jnp.array([1.0, -1.0]))
        out = eqx.filter_jit(layer)(jnp.arange(15.0).reshape(5, 3))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.arange(15.0).reshape(5, 3) @ np.arange(6.0).reshape(3, 2) + [1, -1])
        """,
        wrong_fix="""
        class Affine(eqx.Module):
            w: jax.Array
            b: jax.Array

            def one(self, x, w, b):
                return x @ w + b

            def __call__(self, xs):
                return jax.vmap(self.one, in_axes=(0, None, None))(xs, self.w, 0 * self.b)

        layer = Affine(jnp.arange(6.0).reshape(3, 2), jnp.array([1.0, -1.0]))
        out = eqx.filter_jit(layer)(jnp.arange(15.0).reshape(5, 3))
        """,
    ),
    case(
        "r3-eqx-traced-if-abs", "tracer-bool-conversion", setup=EQX,
        cell="""
        class Rectify(eqx.Module):
            w: jax.Array

            def __call__(self, x):
                y = x @ self.w
                if y > 0:
                    return y
                return -y

        r = Rectify(jnp.array([1.0, -2.0]))
        outs = [float(eqx.filter_jit(r)(jnp.array(v))) for v in ([3.0, 1.0], [1.0, 3.0])]
        """,
        check="""
        assert outs == [1.0, 5.0], outs
        """,
        wrong_fix="""
        class Rectify(eqx.Module):
            w: jax.Array

            def __call__(self, x):
                return x @ self.w

        r = Rectify(jnp.array([1.0, -2.0]))
        outs = [float(eqx.filter_jit(r)(jnp.array(v))) for v in ([3.0, 1.0], [1.0, 3.0])]
        """,
    ),
    # ================================================================== unhashable static: a dataclass config
    case(
        "r3-hashable-dataclass-config", "jit-non-hashable-static-arg",
        setup=BASE + "from dataclasses import dataclass\n",
        cell="""
        @dataclass
        class Config:
            width: int
            scale: float

        @partial(jax.jit, static_argnames="cfg")
        def init(x, cfg):
            return jnp.ones(cfg.width) * x * cfg.scale

        out = init(1.0, Config(3, 2.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [2.0, 2.0, 2.0])
        np.testing.assert_allclose(np.asarray(init(2.0, Config(2, 0.5))), [1.0, 1.0])
        """,
        wrong_fix="""
        @dataclass
        class Config:
            width: int
            scale: float

        @jax.jit
        def init(x, cfg):
            return jnp.ones(3) * x

        out = init(1.0, Config(3, 2.0))
        """,
    ),
    case(
        "r3-hashable-dataclass-list-field", "jit-non-hashable-static-arg", offer="none",
        # frozen, it would still not hash: a field holds a list
        setup=BASE + "from dataclasses import dataclass\n",
        cell="""
        @dataclass
        class Config:
            widths: list
            scale: float

        @partial(jax.jit, static_argnames="cfg")
        def init(x, cfg):
            return jnp.ones(sum(cfg.widths)) * x * cfg.scale

        out = init(1.0, Config([2, 1], 2.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [2.0, 2.0, 2.0])
        """,
        wrong_fix="""
        @jax.jit
        def init(x):
            return jnp.ones(2) * x

        out = init(1.0)
        """,
    ),
    case(
        "r3-hashable-dataclass-mutated", "jit-non-hashable-static-arg", offer="none",
        # the cell changes the config after making it: a frozen dataclass would refuse that
        setup=BASE + "from dataclasses import dataclass\n",
        cell="""
        @dataclass
        class Config:
            width: int
            scale: float

        @partial(jax.jit, static_argnames="cfg")
        def init(x, cfg):
            return jnp.ones(cfg.width) * x * cfg.scale

        cfg = Config(3, 2.0)
        cfg.scale = 0.5
        out = init(1.0, cfg)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [0.5, 0.5, 0.5])
        """,
        wrong_fix="""
        @jax.jit
        def init(x):
            return jnp.ones(3) * x * 2.0

        out = init(1.0)
        """,
    ),
    case(
        "r3-earlier-hashable-dataclass", "jit-non-hashable-static-arg",
        setup=earlier("""
        import dataclasses

        @dataclasses.dataclass
        class Config:
            width: int
            scale: float
        """),
        cell="""
        @partial(jax.jit, static_argnums=1)
        def init(x, cfg):
            return jnp.ones(cfg.width) * x * cfg.scale

        out = init(1.0, Config(3, 2.0))
        """,
        check="""
        @partial(jax.jit, static_argnums=1)
        def init(x, cfg):
            return jnp.ones(cfg.width) * x * cfg.scale

        np.testing.assert_allclose(np.asarray(init(1.0, Config(3, 2.0))), [2.0, 2.0, 2.0])
        """,
        wrong_fix="""
        @dataclasses.dataclass(frozen=True)
        class Config:
            width: int
            scale: float

            def __post_init__(self):
                object.__setattr__(self, "scale", 1.0)
        """,
    ),
    case(
        "r3-hashable-dict-config-two-calls", "jit-non-hashable-static-arg", setup=BASE,
        # a dict of options for a static parameter, passed by name and inline: both calls become item tuples
        cell="""
        @partial(jax.jit, static_argnames="opts")
        def features(x, opts):
            \"\"\"Polynomial features of x up to opts['degree'], scaled.\"\"\"
            powers = jnp.stack([x ** k for k in range(opts["degree"] + 1)], axis=-1)
            return opts["scale"] * powers

        opts = {"degree": 3, "scale": 0.5}
        train = features(jnp.arange(3.0), opts=opts)
        test = features(jnp.array([2.0]), opts={"degree": 1, "scale": 2.0})
        """,
        check="""
        x = np.arange(3.0)
        np.testing.assert_allclose(np.asarray(train), 0.5 * np.stack([x ** k for k in range(4)], axis=-1))
        np.testing.assert_allclose(np.asarray(test), [[2.0, 4.0]])
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames="opts")
        def features(x, opts):
            powers = jnp.stack([x ** k for k in range(4)], axis=-1)
            return 0.5 * powers

        opts = (("degree", 3), ("scale", 0.5))
        train = features(jnp.arange(3.0), opts=opts)
        test = features(jnp.array([2.0]), opts=opts)
        """,
    ),
    case(
        "r3-hashable-dict-list-values", "jit-non-hashable-static-arg", setup=BASE, offer="none",
        # a value of the dict is a list: a tuple of the items would not hash either
        cell="""
        @partial(jax.jit, static_argnums=1)
        def mlp_shapes(x, cfg):
            return jnp.zeros((x.shape[0], sum(cfg["widths"])))

        out = mlp_shapes(jnp.ones((2, 3)), {"widths": [4, 4]})
        """,
        check="""
        assert out.shape == (2, 8)
        """,
        wrong_fix="""
        out = jnp.zeros((2, 4))
        """,
    ),
    case(
        "r3-jnp-arithmetic-window-count", "shape-not-concrete", setup=ALIAS_J,
        # sizes computed with jnp from shapes: known while tracing, traced only because jnp computed them
        cell="""
        @J.jit
        def framed(signal, hop):
            n_frames = np.floor_divide(signal.shape[0], 4)
            width = np.maximum(hop.shape[0], 2)
            frames = np.zeros((n_frames, width))
            return frames + signal[: n_frames * width].reshape(n_frames, width) * hop

        out = framed(np.arange(16.0), np.ones(4))
        """,
        check="""
        onp.testing.assert_allclose(onp.asarray(out), onp.arange(16.0).reshape(4, 4))
        """,
        wrong_fix="""
        @J.jit
        def framed(signal, hop):
            return np.zeros((4, 4))

        out = framed(np.arange(16.0), np.ones(4))
        """,
    ),
    case(
        "r3-jnp-arithmetic-from-values", "shape-not-concrete", setup=ALIAS_J, offer="none",
        # the size depends on the data (a sum), not on shapes: Python arithmetic would not make it static
        cell="""
        @J.jit
        def padded(x):
            n = np.add(np.sum(x > 0), 1)
            return np.zeros((n,))

        out = padded(np.array([1.0, -2.0, 3.0]))
        """,
        check="""
        assert out.shape == (3,)
        """,
        wrong_fix="""
        out = np.zeros((2,))
        """,
    ),
    # ================================================================== arguments written inline in the call
    case(
        "r3-inline-shared-weights-vmap", "vmap-inconsistent-sizes", setup=BASE,
        # the weights are built in the call itself: their shape is read from the constructor
        cell="""
        def dense(x, W):
            return jnp.tanh(x @ W)

        xs = jnp.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(dense)(xs, jnp.full((3, 2), 0.5))
        """,
        check="""
        ref = np.tanh((np.arange(15.0).reshape(5, 3) / 15) @ np.full((3, 2), 0.5))
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def dense(x, W):
            return jnp.tanh(x @ W)

        xs = jnp.arange(15.0).reshape(5, 3) / 15
        out = jax.vmap(dense, in_axes=(0, None))(xs, jnp.full((3, 2), 0.25))
        """,
    ),
    case(
        "r3-inline-eqx-bias-vmap", "vmap-in-axes-length-mismatch", setup=EQX,
        cell="""
        class Affine(eqx.Module):
            w: jax.Array

            def __call__(self, x, b):
                return x @ self.w + b

        layer = Affine(jnp.arange(6.0).reshape(3, 2))
        out = jax.vmap(layer, in_axes=(0,))(jnp.arange(15.0).reshape(5, 3), jnp.zeros(2))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.arange(15.0).reshape(5, 3) @ np.arange(6.0).reshape(3, 2))
        """,
        wrong_fix="""
        class Affine(eqx.Module):
            w: jax.Array

            def __call__(self, x, b):
                return x @ self.w + b

        layer = Affine(jnp.arange(6.0).reshape(3, 2))
        out = jax.vmap(layer, in_axes=(0, None))(jnp.arange(15.0).reshape(5, 3), jnp.ones(2))
        """,
    ),
    # ================================================================== defined in an earlier cell: the frame is there
    case(
        "r3-earlier-positions-both-sizes", "concretization-arange",
        setup=earlier("""
        @jax.jit
        def positions(seq_len, d_model):
            pos = jnp.arange(seq_len)[:, None]
            i = jnp.arange(d_model)[None, :]
            return jnp.sin(pos / 10000 ** (i / d_model))
        """),
        cell="""
        pe = positions(16, 8)
        """,
        check="""
        pe = positions(16, 8)
        ref = np.sin(np.arange(16)[:, None] / 10000 ** (np.arange(8)[None, :] / 8))
        np.testing.assert_allclose(np.asarray(pe), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("seq_len", "d_model"))
        def positions(seq_len, d_model):
            pos = jnp.arange(seq_len)[:, None]
            i = jnp.arange(d_model)[None, :]
            return jnp.cos(pos / 10000 ** (i / d_model))
        """,
    ),
    case(
        "r3-earlier-huber-branch", "tracer-bool-conversion",
        setup=earlier("""
        @jax.jit
        def huber(r, delta):
            if jnp.abs(r) < delta:
                return 0.5 * r ** 2
            return delta * (jnp.abs(r) - 0.5 * delta)
        """),
        cell="""
        losses = jax.vmap(huber, in_axes=(0, None))(jnp.array([0.5, -3.0]), 1.0)
        """,
        check="""
        losses = jax.vmap(huber, in_axes=(0, None))(jnp.array([0.5, -3.0]), 1.0)
        np.testing.assert_allclose(np.asarray(losses), [0.125, 2.5], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def huber(r, delta):
            return 0.5 * r ** 2
        """,
    ),
    case(
        "r3-earlier-forward-vmap-bias", "vmap-in-axes-length-mismatch",
        setup=earlier("""
        def dense(x, W, b):
            return jnp.tanh(x @ W + b)

        def forward(W, b, xs):
            return jax.vmap(dense, in_axes=(0, None))(xs, W, b)
        """),
        cell="""
        W = jnp.arange(6.0).reshape(3, 2) / 6
        out = forward(W, jnp.array([0.5, -0.5]), jnp.arange(15.0).reshape(5, 3) / 15)
        """,
        check="""
        out = forward(jnp.arange(6.0).reshape(3, 2) / 6, jnp.array([0.5, -0.5]), jnp.arange(15.0).reshape(5, 3) / 15)
        ref = np.tanh((np.arange(15.0).reshape(5, 3) / 15) @ (np.arange(6.0).reshape(3, 2) / 6) + [0.5, -0.5])
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def dense(x, W, b):
            return jnp.tanh(x @ W)

        def forward(W, b, xs):
            return jax.vmap(dense, in_axes=(0, None, None))(xs, W, b)
        """,
    ),
    # ================================================================== defined in an earlier cell, jitted in this one
    case(
        "r3-ran-cell-jit-positions", "concretization-arange",
        # the frame is in the earlier cell's function; the jit to change is in the cell that ran
        setup=earlier("""
        def positions(seq_len, d_model):
            pos = jnp.arange(seq_len)[:, None]
            i = jnp.arange(d_model)[None, :]
            return jnp.sin(pos / 10000 ** (i / d_model))
        """),
        cell="""
        pe = jax.jit(positions)(16, 8)
        """,
        check="""
        ref = np.sin(np.arange(16)[:, None] / 10000 ** (np.arange(8)[None, :] / 8))
        np.testing.assert_allclose(np.asarray(pe), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        pe = positions(16, 4)
        """,
    ),
    case(
        "r3-ran-cell-jit-assigned-pad", "shape-not-concrete",
        setup=earlier("""
        def pad(x, n):
            return jnp.zeros(n).at[: x.shape[0]].set(x)
        """),
        cell="""
        pad_j = jax.jit(pad)
        out = pad_j(jnp.array([1.0, 2.0]), 4)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 2.0, 0.0, 0.0])
        """,
        wrong_fix="""
        pad_j = jax.jit(pad, static_argnames="n")
        out = pad_j(jnp.array([1.0, 2.0]), 2)
        """,
    ),
    case(
        "r3-ran-cell-jit-power-count", "tracer-integer-conversion",
        setup=earlier("""
        def power(x, n):
            for _ in range(n):
                x = x * x
            return x
        """),
        cell="""
        out = jax.jit(power)(jnp.float32(1.5), 3)
        """,
        check="""
        assert abs(float(out) - 1.5 ** 8) < 1e-3, out
        """,
        wrong_fix="""
        out = jax.jit(power, static_argnames="n")(jnp.float32(1.5), 2)
        """,
    ),
    # ================================================================== defined in an earlier cell, used from this one
    case(
        "r3-earlier-vmap-per-example-loss", "vmap-in-axes-length-mismatch",
        setup=earlier("""
        def loss(params, x, y):
            return ((x @ params - y) ** 2).mean()

        per_example = jax.vmap(loss, in_axes=(None, 0))
        """),
        cell="""
        params = jnp.array([1.0, -1.0, 0.5])
        xs = jnp.arange(12.0).reshape(4, 3)
        ys = jnp.array([0.0, 1.0, 2.0, 3.0])
        out = per_example(params, xs, ys)
        """,
        check="""
        xs = np.arange(12.0).reshape(4, 3)
        ref = (xs @ [1.0, -1.0, 0.5] - [0.0, 1.0, 2.0, 3.0]) ** 2
        out = per_example(jnp.array([1.0, -1.0, 0.5]), jnp.asarray(xs), jnp.array([0.0, 1.0, 2.0, 3.0]))
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def loss(params, x, y):
            return ((x @ params - y) ** 2).mean()

        per_example = jax.vmap(loss, in_axes=(None, 0, None))
        """,
    ),
    case(
        "r3-earlier-vmap-decorated-score", "vmap-in-axes-length-mismatch",
        setup=earlier("""
        @partial(jax.vmap, in_axes=(0, None))
        def score(x, w, bias):
            return x @ w + bias
        """),
        cell="""
        xs = jnp.arange(12.0).reshape(4, 3)
        w = jnp.array([1.0, 0.0, -1.0])
        out = score(xs, w, 0.5)
        """,
        check="""
        out = score(jnp.arange(12.0).reshape(4, 3), jnp.array([1.0, 0.0, -1.0]), 0.5)
        np.testing.assert_allclose(np.asarray(out), np.arange(12.0).reshape(4, 3) @ [1.0, 0.0, -1.0] + 0.5)
        """,
        wrong_fix="""
        @partial(jax.vmap, in_axes=(0, None, None))
        def score(x, w, bias):
            return x @ w
        """,
    ),
    case(
        "r3-earlier-switch-step-costs", "switch-branch-output-types",
        setup=earlier("""
        def step_cost(x):
            return -1

        def goal(x):
            return 10.0 * x.sum()

        def trap(x):
            return -5
        """),
        cell="""
        x = jnp.array([0.5, 0.25])
        rewards = [lax.switch(k, [step_cost, goal, trap], x) for k in range(3)]
        """,
        check="""
        rewards = [float(lax.switch(k, [step_cost, goal, trap], jnp.array([0.5, 0.25]))) for k in range(3)]
        assert rewards == [-1.0, 7.5, -5.0], rewards
        """,
        wrong_fix="""
        def step_cost(x):
            return -1.0

        def goal(x):
            return 10.0 * x.sum()

        def trap(x):
            return -1.0
        """,
    ),
    case(
        "r3-earlier-cond-explore-zero", "cond-branch-output-types",
        setup=earlier("""
        def explore(q):
            return 0

        def exploit(q):
            return jnp.max(q)
        """),
        cell="""
        q = jnp.array([0.1, 0.9])
        v = lax.cond(q.sum() > 2.0, explore, exploit, q)
        """,
        check="""
        vals = [float(lax.cond(q.sum() > 2.0, explore, exploit, q)) for q in (jnp.array([0.1, 0.9]), jnp.array([2.0, 1.0]))]
        assert abs(vals[0] - 0.9) < 1e-6 and vals[1] == 0.0, vals
        """,
        wrong_fix="""
        def explore(q):
            return jnp.min(q)

        def exploit(q):
            return jnp.max(q)
        """,
    ),
    case(
        "r3-earlier-scan-step", "scan-body-not-pair",
        setup=earlier("""
        def step(c, x):
            return 0.5 * c + x
        """),
        cell="""
        xs = jnp.array([1.0, 2.0, 4.0])
        c, _ = lax.scan(step, 0.0, xs)
        """,
        check="""
        c, _ = lax.scan(step, 0.0, jnp.array([1.0, 2.0, 4.0]))
        assert abs(float(c) - 5.25) < 1e-6, c
        """,
        wrong_fix="""
        def step(c, x):
            return c + x, None
        """,
    ),
    case(
        "r3-earlier-scan-step-reused", "scan-body-not-pair", offer="none",
        # the earlier cell calls the body itself: returning a pair would break it there
        setup=earlier("""
        def step(c, x):
            return 0.5 * c + x

        first = step(0.0, 1.0)
        """),
        cell="""
        xs = jnp.array([1.0, 2.0, 4.0])
        c, _ = lax.scan(step, 0.0, xs)
        """,
        check="""
        c, _ = lax.scan(lambda c, x: (step(c, x), None), 0.0, jnp.array([1.0, 2.0, 4.0]))
        assert abs(float(c) - 5.25) < 1e-6 and first == 1.0, (c, first)
        """,
        wrong_fix="""
        def step(c, x):
            return c + x
        """,
    ),
    case(
        "r3-earlier-carry-state-int", "scan-carry-dtype-mismatch",
        # the initial state was made in an earlier cell with an integer dtype: cast where the scan takes it
        setup=earlier("""
        h0 = jnp.zeros(3, dtype=jnp.int32)

        def step(h, x):
            h = jnp.tanh(0.5 * h + x)
            return h, h
        """),
        cell="""
        xs = jnp.ones((4, 3))
        h, hs = lax.scan(step, h0, xs)
        """,
        check="""
        ref = np.zeros(3)
        for _ in range(4):
            ref = np.tanh(0.5 * ref + 1.0)
        np.testing.assert_allclose(np.asarray(h), ref, rtol=1e-5)
        assert hs.shape == (4, 3)
        """,
        wrong_fix="""
        xs = jnp.ones((4, 3))
        h, hs = lax.scan(step, h0.astype(jnp.float32) + 1, xs)
        """,
    ),
    case(
        "r3-earlier-jit-method-scaler", "jit-method-self-argument",
        setup=earlier("""
        class Scaler:
            def __init__(self, k):
                self.k = k

            @jax.jit
            def __call__(self, x):
                return x * self.k
        """),
        cell="""
        out = Scaler(2.0)(jnp.array([1.0, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(Scaler(2.0)(jnp.array([1.0, 2.0]))), [2.0, 4.0])
        np.testing.assert_allclose(np.asarray(Scaler(3.0)(jnp.array([1.0, 2.0]))), [3.0, 6.0])
        """,
        wrong_fix="""
        class Scaler:
            def __init__(self, k):
                self.k = k

            def __call__(self, x):
                return x * 2.0
        """,
    ),
    case(
        "r3-switch-branches-in-two-cells", "switch-branch-output-types", offer="none",
        # integer branches in the earlier cell and in this one: one rewrite cannot fix both cells
        setup=earlier("""
        def step_cost(x):
            return -1
        """),
        cell="""
        def goal(x):
            return 10.0 * x.sum()

        def trap(x):
            return -5

        x = jnp.array([0.5, 0.25])
        rewards = [lax.switch(k, [step_cost, goal, trap], x) for k in range(3)]
        """,
        check="""
        assert [float(r) for r in rewards] == [-1.0, 7.5, -5.0], rewards
        """,
        wrong_fix="""
        def goal(x):
            return 10.0 * x.sum()

        def trap(x):
            return -5.0

        x = jnp.array([0.5, 0.25])
        rewards = [lax.switch(k, [lambda x: -1.0, goal, trap], x) for k in range(3)]
        rewards[2] = rewards[0]
        """,
    ),
    # ================================================================== has_aux: library transforms, earlier cells
    case(
        "r3-eqx-filter-value-and-grad-aux-earlier", "grad-output-tuple-needs-has-aux",
        setup=EQX + textwrap.dedent("""
        def loss_and_logits(model, x, y):
            logits = jax.vmap(model)(x)
            return jnp.mean((logits[:, 0] - y) ** 2), logits
        """),
        cell="""
        model = eqx.nn.Linear(3, 1, key=jax.random.PRNGKey(1))
        x = jnp.asarray(np.linspace(-1.0, 1.0, 12).reshape(4, 3), dtype=jnp.float32)
        y = jnp.asarray([0.5, -0.5, 1.0, 0.0], dtype=jnp.float32)
        (loss, logits), grads = eqx.filter_value_and_grad(loss_and_logits)(model, x, y)
        """,
        check="""
        W, b = np.asarray(model.weight, np.float64), np.asarray(model.bias, np.float64)
        X, Y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        r = X @ W[0] + b[0] - Y
        np.testing.assert_allclose(float(loss), np.mean(r ** 2), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(logits)[:, 0], X @ W[0] + b[0], rtol=1e-5)
        np.testing.assert_allclose(np.asarray(grads.weight)[0], 2 * X.T @ r / 4, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(np.asarray(grads.bias)[0], 2 * r.mean(), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        model = eqx.nn.Linear(3, 1, key=jax.random.PRNGKey(1))
        x = jnp.asarray(np.linspace(-1.0, 1.0, 12).reshape(4, 3), dtype=jnp.float32)
        y = jnp.asarray([0.5, -0.5, 1.0, 0.0], dtype=jnp.float32)
        (loss, logits), grads = eqx.filter_value_and_grad(lambda m, a, b: loss_and_logits(m, a, b)[0] * 0)(model, x, y), None
        """,
    ),
    case(
        "r3-nnx-grad-aux-earlier", "grad-output-tuple-needs-has-aux",
        setup=NNX + textwrap.dedent("""
        def loss_with_metrics(model, x, y):
            pred = model(x)[:, 0]
            err = pred - y
            return jnp.mean(err ** 2), {"max_err": jnp.max(jnp.abs(err))}
        """),
        cell="""
        model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
        x = jnp.asarray([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0]])
        y = jnp.asarray([1.0, 0.0, -1.0])
        grads = nnx.grad(loss_with_metrics)(model, x, y)
        """,
        check="""
        W = np.asarray(model.kernel.value, np.float64)[:, 0]
        b = float(np.asarray(model.bias.value)[0])
        X, Y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        r = X @ W + b - Y
        g = grads[0] if isinstance(grads, tuple) else grads
        np.testing.assert_allclose(np.asarray(g.kernel.value)[:, 0], 2 * X.T @ r / 3, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(float(np.asarray(g.bias.value)[0]), 2 * r.mean(), rtol=1e-4, atol=1e-6)
        """,
        wrong_fix="""
        model = nnx.Linear(2, 1, rngs=nnx.Rngs(0))
        x = jnp.asarray([[1.0, 2.0], [0.5, -1.0], [0.0, 1.0]])
        y = jnp.asarray([1.0, 0.0, -1.0])
        grads = nnx.grad(lambda m, a, b: jnp.sum(m(a)))(model, x, y)
        """,
    ),
]
