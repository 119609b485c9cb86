"""Kinds fix-my-cell had nothing for: removed module imports, tracers formatted into printed strings,
Python-number conversions that only feed a print or a returned metric, string/bool options of a jitted
function.

Cells modelled on public threads (facts carry over, code is ours): `from jax.config import config` failing
after the jax.config module went (hiddenSymmetries/simsopt#447, zadorlab/sella#39, spdes/chirpgp#2);
`jax.experimental.maps.Mesh` -> `jax.sharding.Mesh` (NVIDIA/TransformerEngine#276, jax-md/jax-md#316);
`jax.experimental.enable_x64` replaced by `jax.enable_x64` (jax-ml/jax#32429, #36167); format specs on
tracers inside jit (jax-ml/jax#23475, #26296); string options of jitted functions (jax-ml/jax#4416).
"""

import textwrap

from rewrite_cases import case

_d = textwrap.dedent

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

BARE = """
import numpy as np
"""

PRINTED = SETUP + _d("""
import contextlib
import io

def printed(fn, *args):
    \"\"\"(result, what fn printed while running): stdout captured until the device has finished.\"\"\"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        out = fn(*args)
        jax.block_until_ready(out)
        jax.effects_barrier()
    return out, buf.getvalue()
""")

CASES = [
    # ------------------------------------------------------------------ removed modules and names (imports)
    case(
        "jax-config-module-x64-first-cell", "removed-jax-module", setup=BARE,
        cell="""
        import jax
        import jax.numpy as jnp
        from jax.config import config
        config.update("jax_enable_x64", True)

        t = jnp.linspace(0.0, 1.0, 5)
        decay = jnp.exp(-3.0 * t)
        """,
        check="""
        assert decay.dtype == np.float64, decay.dtype
        np.testing.assert_allclose(np.asarray(decay), np.exp(-3.0 * np.linspace(0.0, 1.0, 5)), rtol=1e-12)
        """,
        wrong_fix="""
        import jax
        import jax.numpy as jnp

        t = jnp.linspace(0.0, 1.0, 5)
        decay = jnp.exp(-3.0 * t)
        """,
    ),
    case(
        "jax-config-import-in-helper", "removed-jax-module", setup=BARE,
        cell="""
        import jax.numpy as jnp

        def use_double_precision():
            # package-style setup helper written for jax 0.3
            from jax.config import config
            config.update("jax_enable_x64", True)
            return config.read("jax_enable_x64")

        enabled = use_double_precision()
        third = jnp.ones(3) / 3
        """,
        check="""
        assert enabled is True
        assert third.dtype == np.float64 and abs(float(third[0]) - 1 / 3) < 1e-15
        """,
        wrong_fix="""
        import jax.numpy as jnp
        enabled = True
        third = jnp.ones(3) / 3
        """,
    ),
    case(
        "experimental-optimizers-adam-fit", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.experimental import optimizers

        opt_init, opt_update, get_params = optimizers.adam(step_size=0.1)

        def loss(w):
            return jnp.sum((w - jnp.array([3.0, -1.0])) ** 2)

        state = opt_init(jnp.zeros(2))
        for i in range(300):
            g = jax.grad(loss)(get_params(state))
            state = opt_update(i, g, state)
        w = get_params(state)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), [3.0, -1.0], atol=1e-2)
        """,
        wrong_fix="""
        w = jnp.zeros(2)
        """,
    ),
    case(
        "stax-optimizers-three-imports", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.experimental import stax
        from jax.experimental.stax import Dense, Relu
        import jax.experimental.optimizers as optim

        init_fn, apply_fn = stax.serial(Dense(4), Relu, Dense(1))
        _, params = init_fn(jax.random.PRNGKey(0), (-1, 3))
        x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
        out = apply_fn(params, x)
        opt_init, opt_update, get_params = optim.sgd(0.01)
        same = get_params(opt_init(params))
        """,
        check="""
        (w1, b1), _, (w2, b2) = params
        h = np.maximum(np.asarray(x) @ np.asarray(w1) + np.asarray(b1), 0.0)
        np.testing.assert_allclose(np.asarray(out), h @ np.asarray(w2) + np.asarray(b2), rtol=1e-5)
        assert jax.tree.all(jax.tree.map(lambda a, b: bool(jnp.all(a == b)), same, params))
        """,
        wrong_fix="""
        from jax.example_libraries import stax
        from jax.example_libraries.stax import Dense
        from jax.example_libraries import optimizers as optim

        init_fn, apply_fn = stax.serial(Dense(4), Dense(1))
        _, params = init_fn(jax.random.PRNGKey(0), (-1, 3))
        params = (params[0], (), params[1])
        x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
        out = stax.serial(Dense(4), Dense(1))[1]((params[0], params[2]), x)
        opt_init, opt_update, get_params = optim.sgd(0.01)
        same = get_params(opt_init(params))
        """,
    ),
    case(
        "tree-helpers-from-jax-and-dotted", "removed-jax-import-name", setup=SETUP,
        cell="""
        from jax import jit, tree_map, tree_leaves  # old-style helpers

        params = {"dense": {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}, "out": jnp.ones(2)}
        grads = jax.tree_util.tree_map(jnp.ones_like, params)

        @jit
        def sgd(p, g):
            return tree_map(lambda a, b: a - 0.5 * b, p, g)

        new = sgd(params, grads)
        n_params = sum(leaf.size for leaf in tree_leaves(new))
        leaves, treedef = jax.tree_flatten(new)
        """,
        check="""
        assert n_params == 3 * 2 + 2 + 2
        np.testing.assert_allclose(np.asarray(new["dense"]["w"]), np.full((3, 2), 0.5))
        np.testing.assert_allclose(np.asarray(new["dense"]["b"]), np.full(2, -0.5))
        assert len(leaves) == 3 and jax.tree_util.tree_unflatten(treedef, leaves)["out"].shape == (2,)
        """,
        wrong_fix="""
        from jax import jit
        from jax.tree_util import tree_map, tree_leaves

        params = {"dense": {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}, "out": jnp.ones(2)}
        grads = jax.tree_util.tree_map(jnp.ones_like, params)
        new = tree_map(lambda a, b: a - b, params, grads)
        n_params = len(tree_leaves(new))
        leaves, treedef = jax.tree_util.tree_flatten(new)
        """,
    ),
    case(
        "tree-multimap-in-update-fn", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        def momentum_step(params, grads, velocity, lr=0.1, beta=0.9):
            from jax.tree_util import tree_multimap
            velocity = tree_multimap(lambda v, g: beta * v + g, velocity, grads)
            params = tree_multimap(lambda p, v: p - lr * v, params, velocity)
            return params, velocity

        p = {"w": jnp.array([1.0, 2.0])}
        v = {"w": jnp.zeros(2)}
        for _ in range(2):
            p, v = momentum_step(p, {"w": jnp.array([1.0, -1.0])}, v)
        """,
        check="""
        # v1 = g, p1 = p0 - 0.1 g; v2 = 0.9 g + g, p2 = p1 - 0.1 * 1.9 g
        np.testing.assert_allclose(np.asarray(p["w"]), [1.0 - 0.29, 2.0 + 0.29], rtol=1e-6)
        np.testing.assert_allclose(np.asarray(v["w"]), [1.9, -1.9], rtol=1e-6)
        """,
        wrong_fix="""
        p = {"w": jnp.array([1.0, 2.0]) - 0.2 * jnp.array([1.0, -1.0])}
        v = {"w": jnp.array([1.0, -1.0])}
        """,
    ),
    case(
        "maps-mesh-through-dotted-path", "removed-jax-module", setup=SETUP,
        cell="""
        import jax.experimental.maps
        from jax.sharding import NamedSharding, PartitionSpec as P

        devices = np.array(jax.devices()[:2])
        mesh = jax.experimental.maps.Mesh(devices, ("data",))
        batch = jax.device_put(jnp.arange(8.0).reshape(4, 2), NamedSharding(mesh, P("data")))
        """,
        check="""
        assert mesh.axis_names == ("data",) and mesh.devices.shape == (2,)
        assert batch.sharding.spec == jax.sharding.PartitionSpec("data")
        assert len(batch.addressable_shards) == 2
        np.testing.assert_array_equal(np.asarray(batch), np.arange(8.0).reshape(4, 2))
        """,
        wrong_fix="""
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("data",))
        batch = jax.device_put(jnp.arange(8.0).reshape(4, 2), NamedSharding(mesh, P()))
        """,
    ),
    case(
        "maps-module-mesh-alias", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.experimental import maps
        from jax.experimental import PartitionSpec

        mesh = maps.Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("dp", "mp"))
        spec = PartitionSpec("dp", "mp")
        w = jax.device_put(jnp.ones((4, 4)), jax.sharding.NamedSharding(mesh, spec))
        """,
        check="""
        assert dict(mesh.shape) == {"dp": 2, "mp": 2}
        assert w.sharding.spec == jax.sharding.PartitionSpec("dp", "mp")
        assert {s.data.shape for s in w.addressable_shards} == {(2, 2)}
        """,
        wrong_fix="""
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]).reshape(4, 1), ("dp", "mp"))
        spec = jax.sharding.PartitionSpec("dp", "mp")
        w = jax.device_put(jnp.ones((4, 4)), jax.sharding.NamedSharding(mesh, spec))
        """,
    ),
    case(
        "maps-xmap-has-no-home", "removed-jax-module", setup=SETUP, offer="none",
        cell="""
        from jax.experimental.maps import xmap, Mesh

        batched_dot = xmap(jnp.vdot, in_axes=({0: "left"}, {0: "left"}), out_axes=["left", ...])
        out = batched_dot(jnp.ones((3, 2)), jnp.ones((3, 2)))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [2.0, 2.0, 2.0])
        """,
        wrong_fix="""
        out = jnp.vdot(jnp.ones((3, 2)), jnp.ones((3, 2)))
        """,
    ),
    case(
        "host-callback-has-no-home", "removed-jax-module", setup=SETUP, offer="none",
        cell="""
        import jax.experimental.host_callback as hcb

        @jax.jit
        def step(x):
            hcb.id_print(x, what="x")
            return x * 2

        out = step(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [0.0, 2.0, 4.0])
        """,
        wrong_fix="""
        out = jnp.arange(3.0)
        """,
    ),
    case(
        "config-flags-attribute-gone", "removed-jax-module", setup=SETUP, offer="none",
        cell="""
        from jax.config import config
        config.FLAGS.jax_enable_x64 = True
        y = jnp.ones(2) / 3
        """,
        check="""
        assert y.dtype == np.float64
        """,
        wrong_fix="""
        y = jnp.ones(2) / 3
        """,
    ),
    case(
        "xla-bridge-backend-platform", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.lib import xla_bridge

        platform = xla_bridge.get_backend().platform
        print("running on", platform)
        """,
        check="""
        assert platform == jax.devices()[0].platform, platform
        """,
        wrong_fix="""
        platform = "gpu"
        """,
    ),
    case(
        "core-primitive-import-double", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.core import Primitive

        double_p = Primitive("double")
        double_p.def_impl(lambda x: 2 * x)
        double_p.def_abstract_eval(lambda aval: aval)

        out = double_p.bind(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [0.0, 2.0, 4.0])
        assert double_p.name == "double"
        """,
        wrong_fix="""
        from jax.extend.core import Primitive
        double_p = Primitive("double")
        out = jnp.arange(3.0)
        """,
    ),
    case(
        "keyarray-annotations-import", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.random import KeyArray

        def split_for_layers(key: KeyArray, n: int) -> list[KeyArray]:
            return list(jax.random.split(key, n))

        keys = split_for_layers(jax.random.PRNGKey(0), 3)
        """,
        check="""
        ref = jax.random.split(jax.random.PRNGKey(0), 3)
        assert len(keys) == 3
        np.testing.assert_array_equal(np.stack([np.asarray(k) for k in keys]), np.asarray(ref))
        """,
        wrong_fix="""
        keys = [jax.random.PRNGKey(i) for i in range(3)]
        """,
    ),
    case(
        "prngkeyarray-isinstance-review", "removed-jax-submodule-import-name", setup=SETUP, offer="review",
        cell="""
        from jax.random import PRNGKeyArray

        def as_key(seed_or_key):
            if isinstance(seed_or_key, PRNGKeyArray):
                return seed_or_key
            return jax.random.PRNGKey(seed_or_key)

        k1 = as_key(7)
        k2 = as_key(jax.random.PRNGKey(3))
        """,
        check="""
        np.testing.assert_array_equal(np.asarray(k1), np.asarray(jax.random.PRNGKey(7)))
        np.testing.assert_array_equal(np.asarray(k2), np.asarray(jax.random.PRNGKey(3)))
        """,
        wrong_fix="""
        k1 = jax.random.PRNGKey(0)
        k2 = jax.random.PRNGKey(3)
        """,
    ),
    case(
        "linear-util-wrap-init-review", "removed-jax-module", setup=SETUP, offer="review",
        cell="""
        import jax.linear_util as lu

        def scale(x):
            return 3.0 * x

        wrapped = lu.wrap_init(scale)
        out = wrapped.call_wrapped(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [0.0, 3.0, 6.0])
        """,
        wrong_fix="""
        out = jnp.arange(3.0)
        """,
    ),
    case(
        "experimental-enable-x64-context", "removed-jax-submodule-import-name", setup=SETUP,
        cell="""
        from jax.experimental import enable_x64

        with enable_x64():
            precise = jnp.cumsum(jnp.full(1000, 0.1))
        coarse = jnp.cumsum(jnp.full(1000, 0.1))
        """,
        check="""
        assert precise.dtype == np.float64 and coarse.dtype == np.float32
        assert abs(float(precise[-1]) - 100.0) < 1e-9
        """,
        wrong_fix="""
        precise = jnp.cumsum(jnp.full(1000, 0.1))
        coarse = precise
        """,
    ),
    case(
        "optimizers-imports-inside-functions", "removed-jax-module", setup=SETUP,
        cell="""
        def make_optimizer(lr):
            from jax.experimental.optimizers import sgd
            return sgd(lr)

        def flat_params(p):
            from jax import tree_flatten
            return tree_flatten(p)[0]

        init, update, get = make_optimizer(0.5)
        state = update(0, {"w": jnp.ones(2)}, init({"w": jnp.zeros(2)}))
        flat = flat_params(get(state))
        """,
        check="""
        assert len(flat) == 1
        np.testing.assert_allclose(np.asarray(flat[0]), [-0.5, -0.5])
        """,
        wrong_fix="""
        flat = [jnp.zeros(2)]
        """,
    ),
    # ------------------------------------------------------------------ tracers formatted into printed strings
    case(
        "jit-step-fstring-loss-spec", "tracer-format-string", setup=PRINTED,
        cell="""
        @jax.jit
        def train_step(w, x, y, step):
            loss = jnp.mean((x @ w - y) ** 2)
            grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            print(f"step {step} loss {loss:.4f}")
            return w - 0.1 * grad

        x, y = jnp.ones((4, 2)), jnp.ones(4)
        w = jnp.zeros(2)
        for step in range(3):
            w = train_step(w, x, y, step)
        """,
        check="""
        w0 = np.zeros(2)
        out, text = printed(train_step, jnp.zeros(2), jnp.ones((4, 2)), jnp.ones(4), 7)
        assert text == "step 7 loss 1.0000\\n", repr(text)
        # two features of ones, target one: w moves by 0.1 * 2 * (0 - 1) * -1 per coordinate
        np.testing.assert_allclose(np.asarray(out), w0 + 0.2, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def train_step(w, x, y, step):
            grad = jax.grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            return w - 0.1 * grad

        w = train_step(jnp.zeros(2), jnp.ones((4, 2)), jnp.ones(4), 0)
        """,
    ),
    case(
        "scan-body-format-method", "tracer-format-string", setup=PRINTED,
        cell="""
        def body(carry, x):
            t, total = carry
            total = total + x
            print("t={:d} running total={:.3f}".format(t, total))
            return (t + 1, total), total

        (_, final), totals = jax.lax.scan(body, (0, 0.0), jnp.array([0.5, 0.25, 1.0]))
        """,
        check="""
        run = lambda xs: jax.lax.scan(body, (0, 0.0), xs)
        (_, fin), _ = run(jnp.array([0.5, 0.25, 1.0]))
        _, text = printed(run, jnp.array([0.5, 0.25, 1.0]))
        assert text.splitlines() == ["t=0 running total=0.500", "t=1 running total=0.750",
                                     "t=2 running total=1.750"], text
        assert float(fin) == 1.75
        """,
        wrong_fix="""
        def body(carry, x):
            t, total = carry
            jax.debug.print("t={} running total={}", t, total)
            return (t + 1, total + x), total

        (_, final), totals = jax.lax.scan(body, (0, 0.0), jnp.array([0.5, 0.25, 1.0]))
        """,
    ),
    case(
        "vmap-fstring-per-example", "tracer-format-string", setup=PRINTED,
        cell="""
        def margin(logits, label):
            correct = logits[label]
            m = correct - jnp.max(jnp.where(jnp.arange(logits.shape[0]) == label, -jnp.inf, logits))
            print(f"label {label:d}: margin {m:+.2f}")
            return m

        logits = jnp.array([[2.0, 0.5, 0.0], [0.0, 1.0, 3.0]])
        labels = jnp.array([0, 1])
        margins = jax.vmap(margin)(logits, labels)
        """,
        check="""
        out, text = printed(jax.vmap(margin), logits, labels)
        np.testing.assert_allclose(np.asarray(out), [1.5, -2.0])
        assert sorted(text.splitlines()) == ["label 0: margin +1.50", "label 1: margin -2.00"], text
        """,
        wrong_fix="""
        def margin(logits, label):
            m = logits[label] - jnp.max(logits)
            jax.debug.print("label {label:d}: margin {m:+.2f}", label=label, m=m)
            return m

        logits = jnp.array([[2.0, 0.5, 0.0], [0.0, 1.0, 3.0]])
        labels = jnp.array([0, 1])
        margins = jax.vmap(margin)(logits, labels)
        """,
    ),
    case(
        "fori-percent-iter-and-value", "tracer-format-string", setup=PRINTED,
        cell="""
        def newton_step(i, x):
            x = 0.5 * (x + 2.0 / x)
            print("iter %d: x = %.6f" % (i, x))
            return x

        root = jax.lax.fori_loop(0, 3, newton_step, 1.0)
        """,
        check="""
        ref, lines = 1.0, []
        for i in range(3):
            ref = 0.5 * (ref + 2.0 / ref)
            lines.append("iter %d: x = %.6f" % (i, ref))
        out, text = printed(lambda x0: jax.lax.fori_loop(0, 3, newton_step, x0), 1.0)
        assert text.splitlines() == lines, (text, lines)
        np.testing.assert_allclose(float(out), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def newton_step(i, x):
            jax.debug.print("iter {}: x = {}", i, x)
            return 0.5 * (x + 2.0 / x)

        root = jax.lax.fori_loop(0, 3, newton_step, 1.0)
        """,
    ),
    case(
        "jit-float-args-in-print", "concretization-python-scalar-conversion", setup=PRINTED,
        cell="""
        @jax.jit
        def evaluate(logits, labels):
            probs = jax.nn.softmax(logits)
            loss = -jnp.mean(jnp.log(probs[jnp.arange(labels.shape[0]), labels]))
            acc = jnp.mean(jnp.argmax(logits, -1) == labels)
            print("loss:", float(loss), "acc:", float(acc), flush=True)
            return loss, acc

        loss, acc = evaluate(jnp.log(jnp.array([[0.5, 0.5], [0.25, 0.75]])), jnp.array([1, 1]))
        """,
        check="""
        (l, a), text = printed(evaluate, jnp.log(jnp.array([[0.5, 0.5], [0.25, 0.75]])), jnp.array([1, 1]))
        ref_loss = -np.mean(np.log([0.5, 0.75]))
        np.testing.assert_allclose(float(l), ref_loss, rtol=1e-6)
        assert float(a) == 0.5
        words = text.split()
        assert words[0] == "loss:" and words[2] == "acc:" and len(words) == 4, text
        np.testing.assert_allclose(float(words[1]), ref_loss, rtol=1e-6)
        assert float(words[3]) == 0.5
        """,
        wrong_fix="""
        @jax.jit
        def evaluate(logits, labels):
            probs = jax.nn.softmax(logits)
            loss = -jnp.mean(jnp.log(probs[jnp.arange(labels.shape[0]), labels]))
            acc = jnp.mean(jnp.argmax(logits, -1) == labels)
            jax.debug.print("loss: {} acc: {}", acc, loss)
            return loss, acc

        loss, acc = evaluate(jnp.log(jnp.array([[0.5, 0.5], [0.25, 0.75]])), jnp.array([1, 1]))
        """,
    ),
    case(
        "item-fstring-two-metrics", "concretization-item-method", setup=PRINTED,
        cell="""
        @jax.jit
        def sgd_step(w, x, y):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            gnorm = jnp.linalg.norm(g)
            print(f"loss={loss.item():.3f} grad_norm={gnorm.item():.2e}")
            return w - 0.05 * g

        w = sgd_step(jnp.zeros(3), jnp.eye(3), jnp.array([1.0, 2.0, 2.0]))
        """,
        check="""
        out, text = printed(sgd_step, jnp.zeros(3), jnp.eye(3), jnp.array([1.0, 2.0, 2.0]))
        g = 2 * (np.zeros(3) - np.array([1.0, 2.0, 2.0])) / 3
        assert text == "loss=%.3f grad_norm=%.2e\\n" % (9.0 / 3, np.linalg.norm(g)), repr(text)
        np.testing.assert_allclose(np.asarray(out), -0.05 * g, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sgd_step(w, x, y):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            jax.debug.print("loss={:.3f} grad_norm={:.2e}", loss, loss)
            return w - 0.05 * g

        w = sgd_step(jnp.zeros(3), jnp.eye(3), jnp.array([1.0, 2.0, 2.0]))
        """,
    ),
    case(
        "method-two-prints-equal-spec", "tracer-format-string", setup=PRINTED,
        cell="""
        class Integrator:
            def __init__(self, dt):
                self.dt = dt

            def step(self, x, v):
                v = v - self.dt * x
                print(f"{v=:.3f}")
                x = x + self.dt * v
                print(f"position {x:8.4f} | dt {self.dt}")
                return x, v

        integ = Integrator(0.5)
        x1, v1 = jax.jit(integ.step)(1.0, 0.0)
        """,
        check="""
        (x, v), text = printed(jax.jit(integ.step), 1.0, 0.0)
        assert float(v) == -0.5 and float(x) == 0.75
        assert text.splitlines() == ["v=-0.500", "position   0.7500 | dt 0.5"], text
        """,
        wrong_fix="""
        class Integrator:
            def __init__(self, dt):
                self.dt = dt

            def step(self, x, v):
                v = v - self.dt * x
                jax.debug.print("v={v:.3f}", v=v)
                jax.debug.print("position {x:8.4f} | dt {dt}", x=x, dt=self.dt)
                x = x + self.dt * v
                return x, v

        integ = Integrator(0.5)
        x1, v1 = jax.jit(integ.step)(1.0, 0.0)
        """,
    ),
    case(
        "fstring-into-logger-declined", "tracer-format-string", setup=SETUP, offer="none",
        cell="""
        import logging
        log = logging.getLogger("train")

        @jax.jit
        def step(w, g):
            w = w - 0.1 * g
            log.info(f"update norm {jnp.linalg.norm(0.1 * g):.3f}")
            return w

        w1 = step(jnp.ones(2), jnp.array([3.0, 4.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w1), [0.7, 0.6], rtol=1e-6)
        """,
        wrong_fix="""
        w1 = jnp.ones(2)
        """,
    ),
    case(
        "fstring-also-returned-declined", "tracer-format-string", setup=SETUP, offer="none",
        cell="""
        @jax.jit
        def summarize(x):
            m = jnp.mean(x)
            print(f"mean {m:.2f}")
            label = f"{m:.2f}"
            return m, label

        m, label = summarize(jnp.arange(4.0))
        """,
        check="""
        assert float(m) == 1.5
        """,
        wrong_fix="""
        m = jnp.float32(0.0)
        """,
    ),
    case(
        "print-to-stderr-declined", "tracer-format-string", setup=SETUP, offer="none",
        cell="""
        import sys

        @jax.jit
        def step(x):
            y = jnp.sin(x)
            print(f"y {y:.3f}", file=sys.stderr)
            return y

        y = step(1.0)
        """,
        check="""
        np.testing.assert_allclose(float(y), np.sin(1.0), rtol=1e-6)
        """,
        wrong_fix="""
        y = jnp.cos(1.0)
        """,
    ),
    # ------------------------------------------------------------------ string / function / flag options of a jitted function
    case(
        "string-activation-decorator", "jit-non-array-argument", setup=SETUP,
        cell="""
        @jax.jit
        def dense(x, w, b, activation="relu"):
            h = x @ w + b
            if activation == "relu":
                return jax.nn.relu(h)
            elif activation == "gelu":
                return jax.nn.gelu(h, approximate=False)
            return h

        x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
        w = jnp.full((3, 2), 0.5)
        b = jnp.array([0.1, -0.2])
        hidden = dense(x, w, b, activation="gelu")
        logits = dense(hidden, jnp.eye(2), jnp.zeros(2), activation="linear")
        """,
        check="""
        from math import erf
        h = np.asarray(x) @ np.full((3, 2), 0.5) + np.array([0.1, -0.2])
        gelu = 0.5 * h * (1 + np.vectorize(erf)(h / np.sqrt(2)))
        np.testing.assert_allclose(np.asarray(hidden), gelu, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(logits), gelu, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def dense(x, w, b):
            return jax.nn.relu(x @ w + b)

        x = jnp.linspace(-1.0, 1.0, 6).reshape(2, 3)
        w = jnp.full((3, 2), 0.5)
        b = jnp.array([0.1, -0.2])
        hidden = dense(x, w, b)
        logits = dense(hidden, jnp.eye(2), jnp.zeros(2))
        """,
    ),
    case(
        # nnx.jit names its wrapper in the message: "argument to JitFn(f=<function …>, …) as an abstract array"
        "nnx-jit-string-pooling-option", "jit-non-array-argument", setup=SETUP + "from flax import nnx\n",
        cell="""
        class Pool(nnx.Module):
            def __init__(self, rngs):
                self.proj = nnx.Linear(3, 2, rngs=rngs)

        @nnx.jit
        def embed(model, tokens, pooling):
            h = model.proj(tokens)
            return h.max(axis=0) if pooling == "max" else h.mean(axis=0)

        pool = Pool(nnx.Rngs(1))
        tokens = jnp.arange(12.0).reshape(4, 3) / 10
        by_max = embed(pool, tokens, "max")
        by_mean = embed(pool, tokens, "mean")
        """,
        check="""
        h = np.asarray(tokens) @ np.asarray(pool.proj.kernel[...]) + np.asarray(pool.proj.bias[...])
        np.testing.assert_allclose(np.asarray(by_max), h.max(axis=0), rtol=1e-5)
        np.testing.assert_allclose(np.asarray(by_mean), h.mean(axis=0), rtol=1e-5)
        """,
        wrong_fix="""
        class Pool(nnx.Module):
            def __init__(self, rngs):
                self.proj = nnx.Linear(3, 2, rngs=rngs)

        @nnx.jit
        def embed(model, tokens):
            return model.proj(tokens).mean(axis=0)

        pool = Pool(nnx.Rngs(1))
        tokens = jnp.arange(12.0).reshape(4, 3) / 10
        by_max = embed(pool, tokens)
        by_mean = embed(pool, tokens)
        """,
    ),
    case(
        "partial-jit-missing-kwonly-options", "jit-non-array-argument", setup=SETUP,
        cell="""
        from functools import partial

        @partial(jax.jit, static_argnames=("num_layers",))
        def encoder(x, num_layers, *, norm="rms", training=False):
            for _ in range(num_layers):
                if norm == "rms":
                    x = x / jnp.sqrt(jnp.mean(x ** 2, axis=-1, keepdims=True) + 1e-6)
                else:
                    x = x - x.mean(axis=-1, keepdims=True)
                x = jnp.tanh(x)
                if training:
                    x = 0.9 * x
            return x

        feats = jnp.arange(6.0).reshape(2, 3)
        train_out = encoder(feats, 2, norm="center", training=True)
        eval_out = encoder(feats, 2, norm="rms")
        """,
        check="""
        def ref(x, layers, norm, training):
            x = np.asarray(x, np.float64)
            for _ in range(layers):
                if norm == "rms":
                    x = x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + 1e-6)
                else:
                    x = x - x.mean(axis=-1, keepdims=True)
                x = np.tanh(x)
                if training:
                    x = 0.9 * x
            return x
        f = np.arange(6.0).reshape(2, 3)
        np.testing.assert_allclose(np.asarray(train_out), ref(f, 2, "center", True), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(eval_out), ref(f, 2, "rms", False), rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        from functools import partial

        @partial(jax.jit, static_argnames=("num_layers",))
        def encoder(x, num_layers):
            for _ in range(num_layers):
                x = jnp.tanh(x / jnp.sqrt(jnp.mean(x ** 2, axis=-1, keepdims=True) + 1e-6))
            return x

        feats = jnp.arange(6.0).reshape(2, 3)
        train_out = encoder(feats, 2)
        eval_out = encoder(feats, 2)
        """,
    ),
    case(
        "jit-assigned-loss-kind-positional", "jit-non-array-argument", setup=SETUP,
        cell="""
        def loss_fn(pred, target, kind):
            err = pred - target
            if kind == "mse":
                return jnp.mean(err ** 2)
            if kind == "mae":
                return jnp.mean(jnp.abs(err))
            raise ValueError(kind)

        fast_loss = jax.jit(loss_fn)
        pred, target = jnp.array([1.0, 2.0, 4.0]), jnp.array([1.5, 2.0, 2.0])
        losses = {k: fast_loss(pred, target, k) for k in ("mse", "mae")}
        """,
        check="""
        err = np.array([-0.5, 0.0, 2.0])
        np.testing.assert_allclose(float(losses["mse"]), np.mean(err ** 2), rtol=1e-6)
        np.testing.assert_allclose(float(losses["mae"]), np.mean(np.abs(err)), rtol=1e-6)
        """,
        wrong_fix="""
        fast_loss = jax.jit(lambda p, t: jnp.mean((p - t) ** 2))
        pred, target = jnp.array([1.0, 2.0, 4.0]), jnp.array([1.5, 2.0, 2.0])
        losses = {k: fast_loss(pred, target) for k in ("mse", "mae")}
        """,
    ),
    case(
        "function-argument-to-jitted-apply", "jit-non-array-argument", setup=SETUP,
        cell="""
        def apply_twice(x, fn):
            return fn(fn(x))

        y_tanh = jax.jit(apply_twice)(jnp.array([0.5, -1.0]), jnp.tanh)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y_tanh), np.tanh(np.tanh([0.5, -1.0])), rtol=1e-6)
        """,
        wrong_fix="""
        y_tanh = jnp.tanh(jnp.array([0.5, -1.0]))
        """,
    ),
    case(
        "method-static-self-string-mode", "jit-non-array-argument", setup=SETUP,
        cell="""
        from functools import partial

        class Dropoutish:
            def __init__(self, keep):
                self.keep = keep

            def __hash__(self):
                return hash(self.keep)

            def __eq__(self, other):
                return isinstance(other, Dropoutish) and other.keep == self.keep

            @partial(jax.jit, static_argnums=0)
            def __call__(self, x, mode):
                if mode == "train":
                    return x * self.keep
                return x

        layer = Dropoutish(0.8)
        train_y = layer(jnp.ones(3), "train")
        eval_y = layer(jnp.ones(3), "eval")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(train_y), np.full(3, 0.8), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(eval_y), np.ones(3))
        """,
        wrong_fix="""
        train_y = jnp.ones(3)
        eval_y = jnp.ones(3)
        """,
    ),
    case(
        "string-inside-config-dict-declined", "jit-non-array-argument", setup=SETUP, offer="none",
        cell="""
        @jax.jit
        def block(x, cfg):
            h = x * cfg["scale"]
            return jax.nn.relu(h) if cfg["act"] == "relu" else jnp.tanh(h)

        out = block(jnp.array([-1.0, 2.0]), {"scale": 2.0, "act": "tanh"})
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.tanh([-2.0, 4.0]), rtol=1e-6)
        """,
        wrong_fix="""
        out = jax.nn.relu(jnp.array([-2.0, 4.0]))
        """,
    ),
    case(
        "option-also-given-array-declined", "jit-non-array-argument", setup=SETUP, offer="none",
        cell="""
        @jax.jit
        def scale(x, factor):
            return x * (2.0 if factor == "double" else factor)

        halves = scale(jnp.ones(2), jnp.array(0.5))
        doubled = scale(jnp.ones(2), "double")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(halves), [0.5, 0.5])
        np.testing.assert_allclose(np.asarray(doubled), [2.0, 2.0])
        """,
        wrong_fix="""
        halves = jnp.ones(2)
        doubled = jnp.ones(2) * 2
        """,
    ),
    # ------------------------------------------------------------------ Python numbers returned for logging
    case(
        "float-loss-returned-converted-after-call", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def train_step(w, x, y):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            return w - 0.1 * g, float(loss)

        x, y = jnp.eye(2), jnp.array([1.0, -1.0])
        w = jnp.zeros(2)
        losses = []
        for epoch in range(3):
            w, loss = train_step(w, x, y)
            losses.append(loss)
        print(f"final loss {losses[-1]:.4f}")
        """,
        check="""
        ref_w, ref = np.zeros(2), []
        for _ in range(3):
            r = ref_w - np.array([1.0, -1.0])
            ref.append(float(np.mean(r ** 2)))
            ref_w = ref_w - 0.1 * r
        assert all(type(v) is float for v in losses), [type(v) for v in losses]
        np.testing.assert_allclose(losses, ref, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(w), ref_w, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def train_step(w, x, y):
            loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
            return w - 0.1 * g, loss

        x, y = jnp.eye(2), jnp.array([1.0, -1.0])
        w = jnp.zeros(2)
        losses = []
        for epoch in range(3):
            w, loss = train_step(w, x, y)
            losses.append(loss)
        """,
    ),
    case(
        "float-scale-and-item-return-one-step", "concretization-python-scalar-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def adaptive_step(w, x):
            loss = jnp.mean((x @ w) ** 2)
            step_size = 0.5 / (1.0 + float(loss))
            w = w - step_size * x.mean(axis=0)
            return w, loss.item()

        w1, loss0 = adaptive_step(jnp.ones(3), jnp.ones((4, 3)))
        """,
        check="""
        assert type(loss0) is float and loss0 == 9.0
        np.testing.assert_allclose(np.asarray(w1), np.ones(3) - 0.05, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def adaptive_step(w, x):
            loss = jnp.mean((x @ w) ** 2)
            w = w - 0.5 * x.mean(axis=0)
            return w, loss

        w1, loss0 = adaptive_step(jnp.ones(3), jnp.ones((4, 3)))
        loss0 = float(loss0)
        """,
    ),
    case(
        "metrics-dict-item-and-float", "concretization-item-method", setup=SETUP,
        cell="""
        @jax.jit
        def eval_step(params, x, y):
            pred = x @ params["w"] + params["b"]
            return {"mse": jnp.mean((pred - y) ** 2).item(),
                    "w_norm": float(jnp.linalg.norm(params["w"]))}

        metrics = eval_step({"w": jnp.array([3.0, 4.0]), "b": jnp.array(0.0)}, jnp.eye(2), jnp.zeros(2))
        """,
        check="""
        np.testing.assert_allclose(float(metrics["mse"]), (9.0 + 16.0) / 2, rtol=1e-6)
        np.testing.assert_allclose(float(metrics["w_norm"]), 5.0, rtol=1e-6)
        """,
        wrong_fix="""
        metrics = {"mse": 12.5, "w_norm": 25.0}
        """,
    ),
    case(
        "float-into-python-history-declined", "concretization-python-scalar-conversion", setup=SETUP,
        offer="none",
        cell="""
        history = []

        @jax.jit
        def step(w, g):
            w = w - 0.1 * g
            history.append(float(jnp.linalg.norm(w)))
            return w

        w = step(jnp.array([3.0, 4.0]), jnp.zeros(2))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), [3.0, 4.0])
        """,
        wrong_fix="""
        w = jnp.zeros(2)
        """,
    ),
    # ------------------------------------------------------------------ string / function options of a vmapped function
    case(
        "vmap-decorated-string-metric", "invalid-jax-type-argument", setup=SETUP,
        cell="""
        from functools import partial

        @partial(jax.vmap, in_axes=(0, 0, 0))
        def distance(a, b, metric):
            d = a - b
            if metric == "l2":
                return jnp.sqrt(jnp.sum(d ** 2))
            return jnp.sum(jnp.abs(d))

        a = jnp.array([[0.0, 0.0], [1.0, 1.0]])
        b = jnp.array([[3.0, 4.0], [1.0, 2.0]])
        l2 = distance(a, b, "l2")
        l1 = distance(a, b, "l1")
        """,
        check="""
        d = np.array([[-3.0, -4.0], [0.0, -1.0]])
        np.testing.assert_allclose(np.asarray(l2), np.sqrt((d ** 2).sum(1)), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(l1), np.abs(d).sum(1), rtol=1e-6)
        """,
        wrong_fix="""
        a = jnp.array([[0.0, 0.0], [1.0, 1.0]])
        b = jnp.array([[3.0, 4.0], [1.0, 2.0]])
        l2 = jnp.sqrt(jnp.sum((a - b) ** 2, axis=1))
        l1 = l2
        """,
    ),
    case(
        "vmap-inline-function-argument", "invalid-jax-type-argument", setup=SETUP,
        cell="""
        def apply_elementwise(x, fn, scale):
            return scale * fn(x)

        xs = jnp.linspace(-2.0, 2.0, 5)
        ys = jax.vmap(apply_elementwise)(xs, jax.nn.sigmoid, jnp.full(5, 2.0))
        """,
        check="""
        xs_np = np.linspace(-2.0, 2.0, 5)
        np.testing.assert_allclose(np.asarray(ys), 2.0 / (1 + np.exp(-xs_np)), rtol=1e-6)
        """,
        wrong_fix="""
        xs = jnp.linspace(-2.0, 2.0, 5)
        ys = jax.nn.sigmoid(xs)
        """,
    ),
    case(
        "vmap-option-as-keyword-declined", "invalid-jax-type-argument", setup=SETUP, offer="none",
        cell="""
        def act(x, kind="relu"):
            return jnp.tanh(x) if kind == "tanh" else jax.nn.relu(x)

        out = jax.vmap(act)(jnp.arange(3.0), kind="tanh")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.tanh(np.arange(3.0)), rtol=1e-6)
        """,
        wrong_fix="""
        out = jax.nn.relu(jnp.arange(3.0))
        """,
    ),
    case(
        "vmap-same-position-gets-array-declined", "invalid-jax-type-argument", setup=SETUP, offer="none",
        cell="""
        @jax.vmap
        def combine(x, w):
            return x * 2 if isinstance(w, str) else x * w

        weighted = combine(jnp.ones(3), jnp.arange(3.0))
        doubled = combine(jnp.ones(3), "double")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(weighted), [0.0, 1.0, 2.0])
        np.testing.assert_allclose(np.asarray(doubled), [2.0, 2.0, 2.0])
        """,
        wrong_fix="""
        weighted = jnp.ones(3)
        doubled = jnp.ones(3) * 2
        """,
    ),
    # ------------------------------------------------------------------ removed modules reached through their dotted path
    case(
        "dotted-experimental-optimizers-momentum", "removed-jax-submodule-attribute", setup=SETUP,
        cell="""
        opt_init, opt_update, get_params = jax.experimental.optimizers.momentum(0.1, mass=0.9)

        def loss(w):
            return jnp.sum((w - 2.0) ** 2)

        state = opt_init(jnp.zeros(3))
        for i in range(200):
            state = opt_update(i, jax.grad(loss)(get_params(state)), state)
        w = get_params(state)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), np.full(3, 2.0), atol=1e-3)
        """,
        wrong_fix="""
        w = jnp.zeros(3)
        """,
    ),
    case(
        "dotted-config-config-update", "removed-jax-submodule-attribute", setup=SETUP,
        cell="""
        jax.config.config.update("jax_enable_x64", True)
        h = 1e-9
        slope = (jnp.sin(1.0 + h) - jnp.sin(1.0)) / h
        """,
        check="""
        assert slope.dtype == np.float64
        assert abs(float(slope) - np.cos(1.0)) < 1e-6
        """,
        wrong_fix="""
        h = 1e-9
        slope = (jnp.sin(1.0 + h) - jnp.sin(1.0)) / h
        """,
    ),
    case(
        "dotted-linear-util-wrap-review", "removed-jax-top-level-name", setup=SETUP, offer="review",
        cell="""
        def as_wrapped(f):
            return jax.linear_util.wrap_init(f)

        out = as_wrapped(lambda x: x + 1.0).call_wrapped(jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 2.0, 3.0])
        """,
        wrong_fix="""
        out = jnp.arange(3.0)
        """,
    ),
    case(
        "dotted-maps-xmap-declined", "removed-jax-submodule-attribute", setup=SETUP, offer="none",
        cell="""
        f = jax.experimental.maps.xmap(lambda x: x * 2, in_axes=["i", ...], out_axes=["i", ...])
        out = f(jnp.arange(4.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [0.0, 2.0, 4.0, 6.0])
        """,
        wrong_fix="""
        out = jnp.arange(4.0)
        """,
    ),
    # ------------------------------------------------------------------ bool flags a jitted function branches on
    case(
        "two-bool-flags-both-static", "tracer-bool-conversion", setup=SETUP,
        cell="""
        @jax.jit
        def residual_block(x, w, training=False, use_bias=True):
            h = x @ w
            if use_bias:
                h = h + 0.1
            if training:
                h = h * 0.5
            return x + jnp.tanh(h)

        x, w = jnp.ones((2, 3)), jnp.eye(3)
        train_out = residual_block(x, w, training=True, use_bias=False)
        eval_out = residual_block(x, w)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(train_out), 1 + np.tanh(0.5 * np.ones((2, 3))), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(eval_out), 1 + np.tanh(1.1 * np.ones((2, 3))), rtol=1e-6)
        """,
        wrong_fix="""
        from functools import partial

        @partial(jax.jit, static_argnames=("training",))
        def residual_block(x, w, training=False, use_bias=True):
            h = x @ w + 0.1
            if training:
                h = h * 0.5
            return x + jnp.tanh(h)

        x, w = jnp.ones((2, 3)), jnp.eye(3)
        train_out = residual_block(x, w, training=True, use_bias=False)
        eval_out = residual_block(x, w)
        """,
    ),
    case(
        "flag-from-loop-variable-kwonly", "tracer-bool-conversion", setup=SETUP,
        cell="""
        from functools import partial

        @partial(jax.jit, static_argnames=("n_steps",))
        def rollout(x, n_steps, *, clip=False, verbose_mode=False):
            for _ in range(n_steps):
                x = 1.5 * x
                if clip:
                    x = jnp.clip(x, -1.0, 1.0)
            return x

        results = {}
        for do_clip in (True, False):
            results[do_clip] = rollout(jnp.array([0.5, -0.9]), 3, clip=do_clip)
        """,
        check="""
        raw = np.array([0.5, -0.9]) * 1.5 ** 3
        clipped = np.array([0.5, -0.9])
        for _ in range(3):
            clipped = np.clip(1.5 * clipped, -1.0, 1.0)
        np.testing.assert_allclose(np.asarray(results[True]), clipped, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(results[False]), raw, rtol=1e-6)
        """,
        wrong_fix="""
        results = {True: jnp.array([0.5, -0.9]) * 3.375, False: jnp.array([0.5, -0.9]) * 3.375}
        """,
    ),
]
