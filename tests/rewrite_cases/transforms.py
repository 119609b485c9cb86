"""vmap axes, scan / while_loop / fori_loop carries, cond / switch branch outputs, fori_loop bounds."""

from rewrite_cases import case

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
"""

SETUP_JAX_ONLY = """
import numpy as np
import jax
"""

SETUP_PARTIAL = """
from functools import partial
import numpy as np
import jax
import jax.numpy as jnp
"""

CASES = [
    # ------------------------------------------------------------------ vmap: in_axes length
    case(
        "vmap-kwarg-weights", "vmap-in-axes-length-mismatch", setup=SETUP,
        cell="""
        def predict(x, w):
            return jnp.tanh(x @ w)

        xs = jnp.arange(12.0).reshape(4, 3) / 10
        w = jnp.array([0.5, -1.0, 2.0])
        preds = jax.vmap(predict, in_axes=(0, None))(xs, w=w)
        """,
        check="""
        ref = np.tanh((np.arange(12.0).reshape(4, 3) / 10) @ np.array([0.5, -1.0, 2.0]))
        np.testing.assert_allclose(np.asarray(preds), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def predict(x, w):
            return jnp.tanh(x @ w)

        xs = jnp.arange(12.0).reshape(4, 3) / 10
        w = jnp.array([0.5, -1.0, 2.0])
        preds = jax.vmap(lambda x: predict(x, xs[0]))(xs)
        """,
    ),
    case(
        "vmap-extra-bias-in-jitted-forward", "vmap-in-axes-length-mismatch", setup=SETUP,
        cell="""
        def dense(x, W, b):
            return jax.nn.relu(x @ W + b)

        @jax.jit
        def forward(W, b, batch):
            # one example at a time, weights shared
            return jax.vmap(dense, in_axes=(0, None))(batch, W, b)

        W = jnp.arange(6.0).reshape(3, 2) - 2.0
        b = jnp.array([0.5, -0.5])
        batch = jnp.arange(15.0).reshape(5, 3) / 5
        out = forward(W, b, batch)
        """,
        check="""
        W = np.arange(6.0).reshape(3, 2) - 2.0
        ref = np.maximum((np.arange(15.0).reshape(5, 3) / 5) @ W + np.array([0.5, -0.5]), 0)
        assert out.shape == (5, 2)
        np.testing.assert_allclose(np.asarray(out), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def dense(x, W, b):
            return jax.nn.relu(x @ W + b)

        @jax.jit
        def forward(W, b, batch):
            return jax.vmap(dense, in_axes=(0, None, None))(batch, W, b[::-1])

        W = jnp.arange(6.0).reshape(3, 2) - 2.0
        b = jnp.array([0.5, -0.5])
        batch = jnp.arange(15.0).reshape(5, 3) / 5
        out = forward(W, b, batch)
        """,
    ),
    case(
        "vmap-decorated-temperature", "vmap-in-axes-length-mismatch", setup=SETUP_PARTIAL,
        cell="""
        @partial(jax.vmap, in_axes=(0, None))
        def softmax_row(logits, centre, temperature):
            z = (logits - centre) / temperature
            return jnp.exp(z) / jnp.exp(z).sum()

        logits = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
        centre = jnp.array([1.0, 1.0, 1.0])
        probs = softmax_row(logits, centre, 2.0)
        """,
        check="""
        z = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]]) - 1.0
        e = np.exp(z / 2.0)
        np.testing.assert_allclose(np.asarray(probs), e / e.sum(1, keepdims=True), rtol=1e-6)
        """,
        wrong_fix="""
        @partial(jax.vmap, in_axes=(0, None, None))
        def softmax_row(logits, centre, temperature):
            z = (logits - centre) / temperature
            return jnp.exp(z) / jnp.exp(z).sum()

        logits = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
        centre = jnp.array([1.0, 1.0, 1.0])
        probs = softmax_row(logits, centre, 1.0)
        """,
    ),
    case(
        "vmap-single-tuple-argument", "vmap-in-axes-length-mismatch", setup=SETUP,
        cell="""
        def score(inputs):
            features, template = inputs
            return jnp.dot(features, template)

        features = jnp.arange(8.0).reshape(4, 2)
        template = jnp.array([1.0, -1.0])
        scores = jax.vmap(score, in_axes=(0, None))((features, template))
        """,
        check="""
        ref = np.arange(8.0).reshape(4, 2) @ np.array([1.0, -1.0])
        np.testing.assert_allclose(np.asarray(scores), ref)
        """,
        wrong_fix="""
        def score(inputs):
            features, template = inputs
            return jnp.dot(features, template)

        features = jnp.arange(8.0).reshape(4, 2)
        template = jnp.array([1.0, -1.0])
        scores = jax.vmap(score)((features, jnp.ones((4, 2))))
        """,
    ),
    case(
        "vmap-lambda-standardise-in-jit", "vmap-in-axes-length-mismatch", setup=SETUP,
        cell="""
        @jax.jit
        def standardise(rows, mean, std):
            return jax.vmap(lambda r, m, s: (r - m) / s, in_axes=(0,))(rows, mean, std)

        rows = jnp.arange(12.0).reshape(3, 4)
        mean = rows.mean(axis=0)
        std = rows.std(axis=0) + 1.0
        z = standardise(rows, mean, std)
        """,
        check="""
        r = np.arange(12.0).reshape(3, 4)
        np.testing.assert_allclose(np.asarray(z), (r - r.mean(0)) / (r.std(0) + 1.0), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def standardise(rows, mean, std):
            return jax.vmap(lambda r, m, s: (r - m) / s, in_axes=(0, None, None))(rows, mean, mean)

        rows = jnp.arange(12.0).reshape(3, 4)
        mean = rows.mean(axis=0)
        std = rows.std(axis=0) + 1.0
        z = standardise(rows, mean, std)
        """,
    ),
    case(
        "vmap-new-middle-parameter", "vmap-in-axes-length-mismatch", setup=SETUP,
        # a parameter was inserted in the middle of the signature: which entry is missing is a guess
        cell="""
        def weighted_err(pred, weight, target):
            return weight * (pred - target) ** 2

        preds = jnp.array([1.0, 2.0, 3.0])
        targets = jnp.array([1.5, 2.0, 2.0])
        errs = jax.vmap(weighted_err, in_axes=(0, 0))(preds, 0.5, targets)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(errs), 0.5 * (np.array([1.0, 2, 3]) - np.array([1.5, 2, 2])) ** 2)
        """,
        wrong_fix="""
        def weighted_err(pred, weight, target):
            return weight * (pred - target) ** 2

        preds = jnp.array([1.0, 2.0, 3.0])
        targets = jnp.array([1.5, 2.0, 2.0])
        errs = jax.vmap(weighted_err, in_axes=(0, None, None))(preds, 0.5, targets)
        """,
    ),
    # ------------------------------------------------------------------ vmap: in_axes tree prefix
    case(
        "vmap-dict-axes-missing-key", "vmap-in-axes-not-tree-prefix", setup=SETUP,
        cell="""
        def masked_mean(batch):
            return (batch["x"] * batch["mask"]).sum() / batch["mask"].sum()

        batch = {"x": jnp.arange(12.0).reshape(4, 3),
                 "mask": jnp.array([[1.0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]]),
                 "scale": jnp.array(2.0)}
        means = jax.vmap(masked_mean, in_axes=({"x": 0, "scale": None},))(batch)
        """,
        check="""
        x = np.arange(12.0).reshape(4, 3)
        mask = np.array([[1.0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]])
        np.testing.assert_allclose(np.asarray(means), (x * mask).sum(1) / mask.sum(1), rtol=1e-6)
        """,
        wrong_fix="""
        def masked_mean(batch):
            return (batch["x"] * batch["mask"]).sum() / batch["mask"].sum()

        batch = {"x": jnp.arange(12.0).reshape(4, 3),
                 "mask": jnp.array([[1.0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 1]]),
                 "scale": jnp.array(2.0)}
        means = jax.vmap(lambda x: masked_mean({"x": x, "mask": jnp.ones(3)}))(batch["x"])
        """,
    ),
    case(
        "vmap-list-axes-for-tuple-params", "vmap-in-axes-not-tree-prefix", setup=SETUP,
        cell="""
        def apply_layer(params, x):
            W, b = params
            return x @ W + b

        params = (jnp.eye(3) * 2.0, jnp.array([1.0, 0.0, -1.0]))
        xs = jnp.arange(6.0).reshape(2, 3)
        ys = jax.vmap(apply_layer, in_axes=([None, None], 0))(params, xs)
        """,
        check="""
        ref = np.arange(6.0).reshape(2, 3) @ (np.eye(3) * 2.0) + np.array([1.0, 0.0, -1.0])
        np.testing.assert_allclose(np.asarray(ys), ref)
        """,
        wrong_fix="""
        def apply_layer(params, x):
            W, b = params
            return x @ W + b

        params = (jnp.eye(3) * 2.0, jnp.array([1.0, 0.0, -1.0]))
        xs = jnp.arange(6.0).reshape(2, 3)
        ys = jax.vmap(apply_layer, in_axes=(None, 0))((params[0], jnp.zeros(3)), xs)
        """,
    ),
    case(
        "vmap-dict-params-missing-bias", "vmap-in-axes-not-tree-prefix", setup=SETUP_JAX_ONLY,
        cell="""
        import jax.numpy as jnp

        def linear(p, x):
            return p["w"] * x + p["b"]

        ensemble = {"w": jnp.array([1.0, 2.0, 3.0]), "b": jnp.array([0.0, 1.0, 2.0])}
        outs = jax.vmap(linear, in_axes=({"w": 0}, None))(ensemble, 10.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(outs), np.array([1.0, 2, 3]) * 10 + np.array([0.0, 1, 2]))
        """,
        wrong_fix="""
        import jax.numpy as jnp

        def linear(p, x):
            return p["w"] * x + p["b"]

        ensemble = {"w": jnp.array([1.0, 2.0, 3.0]), "b": jnp.array([0.0, 1.0, 2.0])}
        outs = jax.vmap(lambda w: linear({"w": w, "b": 0.0}, 10.0))(ensemble["w"])
        """,
    ),
    case(
        "vmap-tuple-of-none-for-dict-params", "vmap-in-axes-not-tree-prefix", setup=SETUP,
        cell="""
        params = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array(0.25)}

        def logit(params, x):
            return x @ params["w"] + params["b"]   # shared weights, one example

        xs = jnp.arange(12.0).reshape(4, 3) / 4
        logits = jax.vmap(logit, in_axes=((None, None), 0))(params, xs)
        """,
        check="""
        ref = (np.arange(12.0).reshape(4, 3) / 4) @ np.array([0.5, -1.0, 2.0]) + 0.25
        np.testing.assert_allclose(np.asarray(logits), ref, rtol=1e-6)
        """,
        wrong_fix="""
        params = {"w": jnp.array([0.5, -1.0, 2.0]), "b": jnp.array(0.25)}

        def logit(params, x):
            return x @ params["w"] + params["b"]   # shared weights, one example

        xs = jnp.arange(12.0).reshape(4, 3) / 4
        logits = jax.vmap(logit, in_axes=(None, 0))({"w": params["w"], "b": 0.0}, xs)
        """,
    ),
    case(
        "vmap-list-of-zero-for-dict-ensemble-three-keys", "vmap-in-axes-not-tree-prefix", setup=SETUP, offer="review",
        cell="""
        members = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.array([[0.0], [1.0]]), "t": jnp.array([1.0, 2.0])}

        def member_out(m, x):
            return (x * m["w"] + m["b"]) / m["t"]

        x = jnp.ones(3)
        outs = jax.vmap(member_out, in_axes=([0, 0], None))(members, x)
        """,
        check="""
        w = np.arange(6.0).reshape(2, 3)
        ref = (w + np.array([[0.0], [1.0]])) / np.array([1.0, 2.0])[:, None]
        np.testing.assert_allclose(np.asarray(outs), ref, rtol=1e-6)
        """,
        wrong_fix="""
        members = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.array([[0.0], [1.0]]), "t": jnp.array([1.0, 2.0])}

        def member_out(m, x):
            return (x * m["w"] + m["b"]) / m["t"]

        x = jnp.ones(3)
        outs = jax.vmap(member_out, in_axes=(0, None))({"w": members["w"], "b": members["b"], "t": jnp.ones(2)}, x)
        """,
    ),
    # ------------------------------------------------------------------ vmap: inconsistent sizes
    case(
        "vmap-shared-weights-default-axes", "vmap-inconsistent-sizes", setup=SETUP,
        cell="""
        w = jnp.array([0.2, -0.1, 0.4])            # shared weights
        xs = jnp.arange(24.0).reshape(8, 3)        # batch of 8 inputs
        logits = jax.vmap(lambda w, x: w @ x)(w, xs)
        """,
        check="""
        ref = np.arange(24.0).reshape(8, 3) @ np.array([0.2, -0.1, 0.4])
        np.testing.assert_allclose(np.asarray(logits), ref, rtol=1e-5)
        """,
        wrong_fix="""
        w = jnp.array([0.2, -0.1, 0.4])
        xs = jnp.arange(24.0).reshape(8, 3)
        logits = jax.vmap(lambda w, x: w @ x)(jnp.tile(w, (8, 1))[:, ::-1], xs)
        """,
    ),
    case(
        "vmap-loss-with-params-dict-in-jit", "vmap-inconsistent-sizes", setup=SETUP,
        cell="""
        def example_loss(params, x, y):
            pred = x @ params["W"] + params["b"]
            return ((pred - y) ** 2).sum()

        @jax.jit
        def batch_loss(params, xs, ys):
            return jax.vmap(example_loss)(params, xs, ys).mean()

        params = {"W": jnp.arange(6.0).reshape(3, 2) / 6, "b": jnp.array([0.1, -0.2])}
        xs = jnp.arange(15.0).reshape(5, 3) / 15
        ys = jnp.ones((5, 2))
        loss = batch_loss(params, xs, ys)
        """,
        check="""
        W = np.arange(6.0).reshape(3, 2) / 6
        pred = (np.arange(15.0).reshape(5, 3) / 15) @ W + np.array([0.1, -0.2])
        np.testing.assert_allclose(float(loss), ((pred - 1.0) ** 2).sum(1).mean(), rtol=1e-5)
        """,
        wrong_fix="""
        def example_loss(params, x, y):
            pred = x @ params["W"] + params["b"]
            return ((pred - y) ** 2).sum()

        @jax.jit
        def batch_loss(params, xs, ys):
            return jax.vmap(example_loss, in_axes=(None, 0, 0))(params, xs, ys).sum()

        params = {"W": jnp.arange(6.0).reshape(3, 2) / 6, "b": jnp.array([0.1, -0.2])}
        xs = jnp.arange(15.0).reshape(5, 3) / 15
        ys = jnp.ones((5, 2))
        loss = batch_loss(params, xs, ys)
        """,
    ),
    case(
        "vmap-explicit-axes-weight-matrix", "vmap-inconsistent-sizes", setup=SETUP,
        cell="""
        def project(x, W, y):
            return jnp.sum((x @ W - y) ** 2)

        xs = jnp.arange(12.0).reshape(6, 2) / 12
        W = jnp.array([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])
        ys = jnp.zeros((6, 3))
        errs = jax.vmap(project, in_axes=(0, 0, 0))(xs, W, ys)
        """,
        check="""
        W = np.array([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])
        ref = (((np.arange(12.0).reshape(6, 2) / 12) @ W) ** 2).sum(1)
        np.testing.assert_allclose(np.asarray(errs), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def project(x, W, y):
            return jnp.sum((x @ W - y) ** 2)

        xs = jnp.arange(12.0).reshape(6, 2) / 12
        W = jnp.array([[1.0, 0.0, 2.0], [0.5, 1.0, -1.0]])
        ys = jnp.zeros((6, 3))
        errs = jax.vmap(project, in_axes=(0, None, 0))(xs, W.T[:2], ys)
        """,
    ),
    case(
        "vmap-method-shared-table", "vmap-inconsistent-sizes", setup=SETUP,
        cell="""
        class Scorer:
            def __init__(self, weights):
                self.weights = weights

            def score_one(self, weights, feats):
                return jnp.dot(weights, feats)

            def score_all(self, feats):
                return jax.vmap(self.score_one)(self.weights, feats)

        scorer = Scorer(jnp.array([1.0, 2.0]))
        scores = scorer.score_all(jnp.arange(10.0).reshape(5, 2))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(scores), np.arange(10.0).reshape(5, 2) @ np.array([1.0, 2.0]))
        """,
        wrong_fix="""
        class Scorer:
            def __init__(self, weights):
                self.weights = weights

            def score_one(self, weights, feats):
                return jnp.dot(weights, feats)

            def score_all(self, feats):
                return jax.vmap(self.score_one, in_axes=(None, 0))(jnp.ones(2), feats)

        scorer = Scorer(jnp.array([1.0, 2.0]))
        scores = scorer.score_all(jnp.arange(10.0).reshape(5, 2))
        """,
    ),
    case(
        "vmap-labels-sliced-differently", "vmap-inconsistent-sizes", setup=SETUP,
        # the batches really disagree (a dropped partial batch): no unmapped argument can fix that
        cell="""
        xs = jnp.arange(16.0).reshape(8, 2)
        ys = jnp.arange(7.0)
        residuals = jax.vmap(lambda x, y: x.sum() - y)(xs, ys)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(residuals), np.arange(16.0).reshape(8, 2)[:7].sum(1) - np.arange(7.0))
        """,
        wrong_fix="""
        xs = jnp.arange(16.0).reshape(8, 2)
        ys = jnp.arange(7.0)
        residuals = jax.vmap(lambda x, y: x.sum() - y, in_axes=(0, None))(xs, ys)
        """,
    ),
    # ------------------------------------------------------------------ scan carry dtype
    case(
        "scan-int32-total-in-jit", "scan-carry-dtype-mismatch", setup=SETUP,
        cell="""
        @jax.jit
        def running_total(xs):
            def step(total, x):
                total = total + x
                return total, total
            final, partial_sums = lax.scan(step, jnp.int32(0), xs)
            return final, partial_sums

        final, partial_sums = running_total(jnp.array([0.5, 1.5, 2.25]))
        """,
        check="""
        np.testing.assert_allclose(float(final), 4.25)
        np.testing.assert_allclose(np.asarray(partial_sums), np.cumsum([0.5, 1.5, 2.25]))
        """,
        wrong_fix="""
        @jax.jit
        def running_total(xs):
            def step(total, x):
                total = total + x.astype(jnp.int32)
                return total, total
            final, partial_sums = lax.scan(step, jnp.int32(0), xs)
            return final, partial_sums

        final, partial_sums = running_total(jnp.array([0.5, 1.5, 2.25]))
        """,
    ),
    case(
        "scan-int-vector-accumulator", "scan-carry-dtype-mismatch", setup=SETUP_JAX_ONLY,
        cell="""
        import jax.numpy as jnp

        def ema_step(avg, x):
            avg = 0.5 * avg + 0.5 * x
            return avg, None

        readings = jnp.arange(12.0).reshape(4, 3)
        smoothed, _ = jax.lax.scan(ema_step, jnp.zeros(3, dtype=int), readings)
        """,
        check="""
        avg = np.zeros(3)
        for r in np.arange(12.0).reshape(4, 3):
            avg = 0.5 * avg + 0.5 * r
        np.testing.assert_allclose(np.asarray(smoothed), avg)
        """,
        wrong_fix="""
        import jax.numpy as jnp

        def ema_step(avg, x):
            avg = (0.5 * avg + 0.5 * x).astype(int)
            return avg, None

        readings = jnp.arange(12.0).reshape(4, 3)
        smoothed, _ = jax.lax.scan(ema_step, jnp.zeros(3, dtype=int), readings)
        """,
    ),
    case(
        "scan-tuple-carry-sum-and-count", "scan-carry-dtype-mismatch", setup=SETUP,
        cell="""
        def mean_positive(xs):
            def step(carry, x):
                s, n = carry
                keep = x > 0
                return (s + jnp.where(keep, x, 0.0), n + keep.astype(jnp.int32)), None
            (s, n), _ = lax.scan(step, (jnp.array(0, dtype=jnp.int32), jnp.array(0, dtype=jnp.int32)), xs)
            return s / n

        m = mean_positive(jnp.array([1.5, -2.0, 2.5, 0.0, 3.0]))
        """,
        check="""
        np.testing.assert_allclose(float(m), (1.5 + 2.5 + 3.0) / 3, rtol=1e-6)
        """,
        wrong_fix="""
        def mean_positive(xs):
            def step(carry, x):
                s, n = carry
                keep = x > 0
                return (s + jnp.where(keep, x, 0.0).astype(jnp.int32), n + keep.astype(jnp.int32)), None
            (s, n), _ = lax.scan(step, (jnp.array(0, dtype=jnp.int32), jnp.array(0, dtype=jnp.int32)), xs)
            return s / n

        m = mean_positive(jnp.array([1.5, -2.0, 2.5, 0.0, 3.0]))
        """,
    ),
    case(
        "fori-static-int-carry", "scan-carry-dtype-mismatch", setup=SETUP,
        cell="""
        def compound(rate, years):
            def body(i, balance):
                return balance * (1 + rate)
            return lax.fori_loop(0, years, body, jnp.int32(100))

        final_balance = compound(0.5, 3)
        """,
        check="""
        np.testing.assert_allclose(float(final_balance), 100 * 1.5 ** 3, rtol=1e-6)
        """,
        wrong_fix="""
        def compound(rate, years):
            def body(i, balance):
                return (balance * (1 + rate)).astype(jnp.int32)
            return lax.fori_loop(0, years, body, jnp.int32(100))

        final_balance = compound(0.5, 3)
        """,
    ),
    case(
        "scan-dict-carry-from-variable", "scan-carry-dtype-mismatch", setup=SETUP,
        cell="""
        def step(state, x):
            state = {"total": state["total"] + x, "steps": state["steps"] + 1}
            return state, state["total"]

        init = {"total": jnp.zeros((), jnp.int32), "steps": 0}
        xs = jnp.array([0.25, 0.5, 0.75, 1.0])
        state, history = lax.scan(step, init, xs)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(history), np.cumsum([0.25, 0.5, 0.75, 1.0]))
        assert int(state["steps"]) == 4
        """,
        wrong_fix="""
        def step(state, x):
            state = {"total": state["total"] + jnp.round(x).astype(jnp.int32), "steps": state["steps"] + 1}
            return state, state["total"]

        init = {"total": jnp.zeros((), jnp.int32), "steps": 0}
        xs = jnp.array([0.25, 0.5, 0.75, 1.0])
        state, history = lax.scan(step, init, xs)
        """,
    ),
    case(
        "scan-arange-carry-decay", "scan-carry-dtype-mismatch", setup=SETUP,
        cell="""
        weights = jnp.arange(4)
        def decay(w, _):
            w = w * 0.9
            return w, w.sum()
        w_final, totals = lax.scan(decay, weights, None, length=3)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w_final), np.arange(4) * 0.9 ** 3, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(totals), [6 * 0.9, 6 * 0.81, 6 * 0.729], rtol=1e-6)
        """,
        wrong_fix="""
        weights = jnp.arange(4)
        def decay(w, _):
            w = (w * 0.9).astype(w.dtype)
            return w, w.sum()
        w_final, totals = lax.scan(decay, weights, None, length=3)
        """,
    ),
    # ------------------------------------------------------------------ while_loop carry dtype
    case(
        "while-newton-int-start", "while-body-type-mismatch", setup=SETUP,
        cell="""
        def newton_sqrt(a):
            def cond(state):
                i, x = state
                return i < 20

            def body(state):
                i, x = state
                return i + 1, 0.5 * (x + a / x)

            x0 = jnp.ones((), dtype=int)   # start the iteration at 1
            _, root = lax.while_loop(cond, body, (0, x0))
            return root

        r = newton_sqrt(2.0)
        """,
        check="""
        np.testing.assert_allclose(float(r), np.sqrt(2.0), rtol=1e-6)
        """,
        wrong_fix="""
        def newton_sqrt(a):
            def cond(state):
                i, x = state
                return i < 20

            def body(state):
                i, x = state
                return i + 1, (0.5 * (x + a / x)).astype(jnp.int32)

            x0 = jnp.ones((), dtype=int)
            _, root = lax.while_loop(cond, body, (0, x0))
            return root

        r = newton_sqrt(2.0)
        """,
    ),
    case(
        "fori-traced-bounds-int-carry", "while-body-type-mismatch", setup=SETUP,
        cell="""
        @jax.jit
        def halve_n_times(n):
            return lax.fori_loop(0, n, lambda i, v: v / 2, jnp.int32(64))

        out = halve_n_times(3)
        """,
        check="""
        np.testing.assert_allclose(float(out), 8.0)
        """,
        wrong_fix="""
        @jax.jit
        def halve_n_times(n):
            return lax.fori_loop(0, n, lambda i, v: v // 2, jnp.int32(64))

        out = halve_n_times(4)
        """,
    ),
    case(
        "while-int-step-size", "while-body-type-mismatch", setup=SETUP_JAX_ONLY,
        cell="""
        import jax.numpy as jnp
        from jax.lax import while_loop

        def first_crossing(threshold):
            # walk in steps of 0.75 until the threshold is passed
            pos = jnp.zeros((), dtype=jnp.int32)
            return while_loop(lambda p: p < threshold, lambda p: p + 0.75, pos)

        crossing = first_crossing(2.0)
        """,
        check="""
        np.testing.assert_allclose(float(crossing), 2.25)
        """,
        wrong_fix="""
        import jax.numpy as jnp
        from jax.lax import while_loop

        def first_crossing(threshold):
            pos = jnp.zeros((), dtype=jnp.int32)
            return while_loop(lambda p: p < threshold, lambda p: p + 1, pos)

        crossing = first_crossing(2.0)
        """,
    ),
    case(
        "while-growing-buffer", "while-body-type-mismatch", setup=SETUP,
        # appending to the state changes its shape: that needs a preallocated buffer, not a dtype
        cell="""
        def collect(n):
            def body(state):
                i, buf = state
                return i + 1, jnp.append(buf, i * 1.0)
            return lax.while_loop(lambda s: s[0] < n, body, (0, jnp.zeros(0)))[1]

        vals = collect(3)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(vals), [0.0, 1.0, 2.0])
        """,
        wrong_fix="""
        def collect(n):
            return jnp.zeros(3)

        vals = collect(3)
        """,
    ),
    # ------------------------------------------------------------------ scan carry shape
    case(
        "scan-vector-running-sum-scalar-init", "scan-carry-shape-mismatch", setup=SETUP,
        cell="""
        frames = jnp.arange(12.0).reshape(4, 3)

        def accumulate(acc, frame):
            acc = acc + frame
            return acc, acc

        total, running = lax.scan(accumulate, 0.0, frames)
        """,
        check="""
        f = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(total), f.sum(0))
        np.testing.assert_allclose(np.asarray(running), np.cumsum(f, 0))
        """,
        wrong_fix="""
        frames = jnp.arange(12.0).reshape(4, 3)

        def accumulate(acc, frame):
            acc = acc + frame.sum()
            return acc, acc

        total, running = lax.scan(accumulate, 0.0, frames)
        """,
    ),
    case(
        "scan-ema-zeros-scalar-in-jit", "scan-carry-shape-mismatch", setup=SETUP,
        cell="""
        @jax.jit
        def smooth(signal):
            def step(ema, x):
                ema = 0.8 * ema + 0.2 * x
                return ema, ema
            _, out = lax.scan(step, jnp.zeros(()), signal)
            return out

        out = smooth(jnp.ones((5, 2)))
        """,
        check="""
        ema, ref = np.zeros(2), []
        for x in np.ones((5, 2)):
            ema = 0.8 * ema + 0.2 * x
            ref.append(ema)
        np.testing.assert_allclose(np.asarray(out), np.array(ref), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def smooth(signal):
            def step(ema, x):
                ema = 0.8 * ema + 0.2 * x.mean()
                return ema, ema
            _, out = lax.scan(step, jnp.zeros(()), signal)
            return out

        out = smooth(jnp.ones((5, 2)))
        """,
    ),
    case(
        "scan-append-history", "scan-carry-shape-mismatch", setup=SETUP,
        # growing the carry with jnp.append: the fix moves history to scan's outputs, beyond a local edit
        cell="""
        def step(history, x):
            return jnp.append(history, x * 2), None

        hist, _ = lax.scan(step, jnp.zeros(0), jnp.arange(3.0))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(hist)[-3:], [0.0, 2.0, 4.0])
        """,
        wrong_fix="""
        def step(history, x):
            return history, None

        hist, _ = lax.scan(step, jnp.zeros(3), jnp.arange(3.0))
        """,
    ),
    # ------------------------------------------------------------------ carry containers
    case(
        "scan-list-carry-returned", "scan-carry-tree-mismatch", setup=SETUP,
        cell="""
        def minmax_step(carry, x):
            lo, hi = carry
            return [jnp.minimum(lo, x), jnp.maximum(hi, x)], None

        xs = jnp.array([3.0, -1.0, 4.0, 1.5])
        (lo, hi), _ = lax.scan(minmax_step, (jnp.inf, -jnp.inf), xs)
        """,
        check="""
        assert float(lo) == -1.0 and float(hi) == 4.0
        """,
        wrong_fix="""
        def minmax_step(carry, x):
            lo, hi = carry
            return (jnp.maximum(lo, x), jnp.minimum(hi, x)), None

        xs = jnp.array([3.0, -1.0, 4.0, 1.5])
        (lo, hi), _ = lax.scan(minmax_step, (jnp.inf, -jnp.inf), xs)
        """,
    ),
    case(
        "while-list-state-returned", "while-body-tree-mismatch", setup=SETUP,
        cell="""
        def collatz_steps(n):
            def body(state):
                k, steps = state
                k = jnp.where(k % 2 == 0, k // 2, 3 * k + 1)
                return [k, steps + 1]
            return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]

        steps = collatz_steps(6)
        """,
        check="""
        assert int(steps) == 8
        """,
        wrong_fix="""
        def collatz_steps(n):
            def body(state):
                k, steps = state
                k = jnp.where(k % 2 == 0, k // 2, 3 * k + 1)
                return (k, steps + 2)
            return lax.while_loop(lambda s: s[0] != 1, body, (n, 0))[1]

        steps = collatz_steps(6)
        """,
    ),
    # ------------------------------------------------------------------ scan body not a pair
    case(
        "scan-body-carry-only-assign", "scan-body-not-pair", setup=SETUP,
        cell="""
        def step(total, x):
            return total + x

        total = lax.scan(step, 0.0, jnp.array([1.0, 2.0, 3.5]))
        """,
        check="""
        np.testing.assert_allclose(float(total), 6.5)
        """,
        wrong_fix="""
        def step(total, x):
            return total, x

        total, _ = lax.scan(step, 0.0, jnp.array([1.0, 2.0, 3.5]))
        """,
    ),
    case(
        "scan-lambda-decay-indexed", "scan-body-not-pair", setup=SETUP_JAX_ONLY,
        cell="""
        import jax.numpy as jnp

        rewards = jnp.array([1.0, 0.0, 2.0, 1.0])
        discounted = jax.lax.scan(lambda g, r: 0.9 * g + r, 0.0, rewards[::-1])[0]
        """,
        check="""
        g = 0.0
        for r in [1.0, 2.0, 0.0, 1.0]:
            g = 0.9 * g + r
        np.testing.assert_allclose(float(discounted), g, rtol=1e-6)
        """,
        wrong_fix="""
        import jax.numpy as jnp

        rewards = jnp.array([1.0, 0.0, 2.0, 1.0])
        discounted = jax.lax.scan(lambda g, r: (0.9 * g + r, None), 0.0, rewards)[0]
        """,
    ),
    case(
        "scan-rnn-return-in-jit", "scan-body-not-pair", setup=SETUP,
        cell="""
        W = jnp.array([[0.5, -0.2], [0.1, 0.3]])

        @jax.jit
        def encode(h0, inputs):
            def cell(h, x):
                h = jnp.tanh(W @ h + x)
                return h
            return lax.scan(cell, h0, inputs)

        h = encode(jnp.zeros(2), jnp.ones((3, 2)))
        """,
        check="""
        W = np.array([[0.5, -0.2], [0.1, 0.3]])
        h_ref = np.zeros(2)
        for x in np.ones((3, 2)):
            h_ref = np.tanh(W @ h_ref + x)
        np.testing.assert_allclose(np.asarray(h), h_ref, rtol=1e-6)
        """,
        wrong_fix="""
        W = np.array([[0.5, -0.2], [0.1, 0.3]])

        @jax.jit
        def encode(h0, inputs):
            def cell(h, x):
                return jnp.tanh(W @ h + x), h
            return lax.scan(cell, h0, inputs)[1]

        h = encode(jnp.zeros(2), jnp.ones((3, 2)))
        """,
    ),
    case(
        "scan-three-outputs", "scan-body-not-pair", setup=SETUP,
        cell="""
        def stats_step(count, x):
            count = count + 1
            return count, x ** 2, jnp.abs(x)

        count, squares, magnitudes = lax.scan(stats_step, 0, jnp.array([-1.0, 2.0, -3.0]))
        """,
        check="""
        assert int(count) == 3
        np.testing.assert_allclose(np.asarray(squares), [1.0, 4.0, 9.0])
        np.testing.assert_allclose(np.asarray(magnitudes), [1.0, 2.0, 3.0])
        """,
        wrong_fix="""
        def stats_step(count, x):
            count = count + 1
            return count, (jnp.abs(x), x ** 2)

        count, (squares, magnitudes) = lax.scan(stats_step, 0, jnp.array([-1.0, 2.0, -3.0]))
        """,
    ),
    case(
        "scan-body-already-unpacked", "scan-body-not-pair", setup=SETUP,
        cell="""
        def product_step(acc, x):
            return acc * x

        prod, _ = lax.scan(product_step, 1.0, jnp.array([2.0, 3.0, 0.5]))
        """,
        check="""
        np.testing.assert_allclose(float(prod), 3.0)
        """,
        wrong_fix="""
        def product_step(acc, x):
            return acc + x, None

        prod, _ = lax.scan(product_step, 1.0, jnp.array([2.0, 3.0, 0.5]))
        """,
    ),
    # ------------------------------------------------------------------ cond branches
    case(
        "cond-relu-int-zero", "cond-branch-output-types", setup=SETUP,
        cell="""
        @jax.jit
        def relu(x):
            return lax.cond(x > 0, lambda v: v, lambda v: 0, x)

        vals = [relu(jnp.float32(v)) for v in (1.5, -2.0)]
        """,
        check="""
        np.testing.assert_allclose([float(v) for v in vals], [1.5, 0.0])
        """,
        wrong_fix="""
        @jax.jit
        def relu(x):
            return lax.cond(x > 0, lambda v: v, lambda v: v, x)

        vals = [relu(jnp.float32(v)) for v in (1.5, -2.0)]
        """,
    ),
    case(
        "cond-clip-closure-literal", "cond-branch-output-types", setup=SETUP_JAX_ONLY,
        cell="""
        import jax.numpy as jnp

        @jax.jit
        def cap(x):
            # saturate at 1
            return jax.lax.cond(x > 1.0, lambda: 1, lambda: x)

        capped = [cap(jnp.float32(v)) for v in (0.25, 3.0)]
        """,
        check="""
        np.testing.assert_allclose([float(v) for v in capped], [0.25, 1.0])
        """,
        wrong_fix="""
        import jax.numpy as jnp

        @jax.jit
        def cap(x):
            return jax.lax.cond(x > 1.0, lambda: x, lambda: x)

        capped = [cap(jnp.float32(v)) for v in (0.25, 3.0)]
        """,
    ),
    case(
        "cond-grad-clip-vector-placeholder", "cond-branch-output-types", setup=SETUP,
        cell="""
        def clip_update(grads, max_norm):
            norm = jnp.linalg.norm(grads)
            return lax.cond(norm > max_norm, lambda g: 0, lambda g: g, grads)

        small = clip_update(jnp.array([0.3, 0.4]), 1.0)
        big = clip_update(jnp.array([3.0, 4.0]), 1.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(small), [0.3, 0.4])
        np.testing.assert_allclose(np.asarray(big), [0.0, 0.0])
        assert big.shape == (2,)
        """,
        wrong_fix="""
        def clip_update(grads, max_norm):
            norm = jnp.linalg.norm(grads)
            return lax.cond(norm > max_norm, lambda g: 0.0, lambda g: g.sum(), grads)

        small = clip_update(jnp.array([0.3, 0.4]), 1.0)
        big = clip_update(jnp.array([3.0, 4.0]), 1.0)
        """,
    ),
    case(
        "cond-def-branches-int32-sentinel", "cond-branch-output-types", setup=SETUP,
        cell="""
        def safe_log(x):
            def valid(v):
                return jnp.log(v)

            def invalid(v):
                return jnp.int32(-1)

            return lax.cond(x > 0, valid, invalid, x)

        outs = [safe_log(jnp.float32(v)) for v in (np.e, -3.0)]
        """,
        check="""
        np.testing.assert_allclose([float(o) for o in outs], [1.0, -1.0], rtol=1e-6)
        """,
        wrong_fix="""
        def safe_log(x):
            def valid(v):
                return jnp.log(v)

            def invalid(v):
                return jnp.log(v)

            return lax.cond(x > 0, valid, invalid, x)

        outs = [safe_log(jnp.float32(v)) for v in (np.e, -3.0)]
        """,
    ),
    case(
        "cond-half-precision-zero", "cond-branch-output-types", setup=SETUP,
        cell="""
        def gate(x, open_):
            return lax.cond(open_, lambda v: v * 2, lambda v: 0.0, x)

        opened = gate(jnp.float16(1.5), True)
        closed = gate(jnp.float16(1.5), False)
        """,
        check="""
        assert opened.dtype == np.float16 and float(opened) == 3.0 and float(closed) == 0.0
        """,
        wrong_fix="""
        def gate(x, open_):
            return lax.cond(open_, lambda v: v * 2, lambda v: v * 0 + 1, x)

        opened = gate(jnp.float16(1.5), True)
        closed = gate(jnp.float16(1.5), False)
        """,
    ),
    case(
        "cond-tuple-output-aux", "cond-branch-output-types", setup=SETUP,
        cell="""
        @jax.jit
        def maybe_penalise(loss):
            return lax.cond(loss > 1.0,
                            lambda l: (l, l * 0.1),     # loss and penalty
                            lambda l: (l, 0),
                            loss)

        loss_hi, pen_hi = maybe_penalise(jnp.float32(2.0))
        loss_lo, pen_lo = maybe_penalise(jnp.float32(0.5))
        """,
        check="""
        np.testing.assert_allclose([float(loss_hi), float(pen_hi), float(loss_lo), float(pen_lo)],
                                   [2.0, 0.2, 0.5, 0.0], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def maybe_penalise(loss):
            return lax.cond(loss > 1.0, lambda l: (l, l * 0.1), lambda l: (l, l * 0.1), loss)

        loss_hi, pen_hi = maybe_penalise(jnp.float32(2.0))
        loss_lo, pen_lo = maybe_penalise(jnp.float32(0.5))
        """,
    ),
    # ------------------------------------------------------------------ switch branches
    case(
        "switch-activation-vector-zero", "switch-branch-output-types", setup=SETUP,
        cell="""
        def activate(kind, h):
            branches = [jax.nn.relu, jnp.tanh, lambda v: 0]
            return lax.switch(kind, branches, h)

        h = jnp.array([-1.0, 0.5, 2.0])
        outs = [activate(k, h) for k in range(3)]
        """,
        check="""
        h = np.array([-1.0, 0.5, 2.0])
        np.testing.assert_allclose(np.asarray(outs[0]), np.maximum(h, 0))
        np.testing.assert_allclose(np.asarray(outs[1]), np.tanh(h), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(outs[2]), np.zeros(3))
        """,
        wrong_fix="""
        def activate(kind, h):
            branches = [jax.nn.relu, jnp.tanh, lambda v: v]
            return lax.switch(kind, branches, h)

        h = jnp.array([-1.0, 0.5, 2.0])
        outs = [activate(k, h) for k in range(3)]
        """,
    ),
    case(
        "switch-scalar-int-fallback-in-jit", "switch-branch-output-types", setup=SETUP,
        cell="""
        @jax.jit
        def schedule(stage, step):
            return lax.switch(stage, [lambda s: 1e-3 * s, lambda s: 1e-4 * s, lambda s: 0], step)

        lrs = [schedule(i, 10.0) for i in range(3)]
        """,
        check="""
        np.testing.assert_allclose([float(v) for v in lrs], [1e-2, 1e-3, 0.0], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def schedule(stage, step):
            return lax.switch(stage, [lambda s: 1e-3 * s, lambda s: 1e-4 * s, lambda s: 1e-4 * s], step)

        lrs = [schedule(i, 10.0) for i in range(3)]
        """,
    ),
    case(
        "switch-int-count-branch", "switch-branch-output-types", setup=SETUP,
        cell="""
        def summary(op, x):
            def total(v):
                return v.sum()

            def peak(v):
                return v.max()

            def n_positive(v):
                return (v > 0).sum()

            return lax.switch(op, [total, peak, n_positive], x)

        x = jnp.array([1.5, -2.0, 3.0])
        results = [summary(i, x) for i in range(3)]
        """,
        check="""
        np.testing.assert_allclose([float(r) for r in results], [2.5, 3.0, 2.0])
        """,
        wrong_fix="""
        def summary(op, x):
            def total(v):
                return v.sum()

            def peak(v):
                return v.max()

            def n_positive(v):
                return v.sum()

            return lax.switch(op, [total, peak, n_positive], x)

        x = jnp.array([1.5, -2.0, 3.0])
        results = [summary(i, x) for i in range(3)]
        """,
    ),
    case(
        "switch-reduce-vs-vector", "switch-branch-output-types", setup=SETUP,
        # one branch reduces, the others keep the vector: what the caller wants back is unclear
        cell="""
        def pool(mode, v):
            return lax.switch(mode, [lambda u: u, lambda u: u.mean()], v)

        pooled = pool(1, jnp.array([1.0, 2.0, 3.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(pooled).ravel()[0], 2.0)
        """,
        wrong_fix="""
        def pool(mode, v):
            return lax.switch(mode, [lambda u: u, lambda u: u], v)

        pooled = pool(1, jnp.array([1.0, 2.0, 3.0]))
        """,
    ),
    # ------------------------------------------------------------------ fori_loop bounds
    case(
        "fori-half-steps-true-division", "fori-loop-bounds-dtype", setup=SETUP,
        cell="""
        n_steps = 6
        x = lax.fori_loop(0, n_steps / 2, lambda i, acc: acc + i, 0)
        """,
        check="""
        assert int(x) == 0 + 1 + 2
        """,
        wrong_fix="""
        n_steps = 6
        x = lax.fori_loop(0, n_steps, lambda i, acc: acc + i, 0)
        """,
    ),
    case(
        "fori-float-literal-upper", "fori-loop-bounds-dtype", setup=SETUP_JAX_ONLY,
        cell="""
        def power_iteration(A, v):
            def body(_, v):
                v = A @ v
                return v / jax.numpy.linalg.norm(v)
            return jax.lax.fori_loop(0, 50.0, body, v)

        top = power_iteration(jax.numpy.array([[2.0, 0.0], [0.0, 1.0]]), jax.numpy.array([1.0, 1.0]))
        """,
        check="""
        np.testing.assert_allclose(np.abs(np.asarray(top)), [1.0, 0.0], atol=1e-6)
        """,
        wrong_fix="""
        def power_iteration(A, v):
            def body(_, v):
                v = A @ v
                return v / jax.numpy.linalg.norm(v)
            return jax.lax.fori_loop(0, 1, body, v)

        top = power_iteration(jax.numpy.array([[2.0, 0.0], [0.0, 1.0]]), jax.numpy.array([1.0, 1.0]))
        """,
    ),
    case(
        "fori-float-config-bound", "fori-loop-bounds-dtype", setup=SETUP,
        cell="""
        config = {"iters": jnp.array(4.0)}

        @jax.jit
        def relax(x, iters):
            return lax.fori_loop(0, iters, lambda i, v: 0.5 * (v + 1.0), x)

        y = relax(jnp.float32(0.0), config["iters"])
        """,
        check="""
        v = 0.0
        for _ in range(4):
            v = 0.5 * (v + 1.0)
        np.testing.assert_allclose(float(y), v, rtol=1e-6)
        """,
        wrong_fix="""
        config = {"iters": jnp.array(4.0)}

        @jax.jit
        def relax(x, iters):
            return lax.fori_loop(0, 1, lambda i, v: 0.5 * (v + 1.0), x)

        y = relax(jnp.float32(0.0), config["iters"])
        """,
    ),
    case(
        "fori-traced-int-division", "fori-loop-bounds-dtype", setup=SETUP,
        cell="""
        @jax.jit
        def pair_sums(xs, n):
            def body(i, acc):
                return acc + xs[2 * i] + xs[2 * i + 1]
            return lax.fori_loop(0, n / 2, body, 0.0)

        s = pair_sums(jnp.arange(6.0), 6)
        """,
        check="""
        np.testing.assert_allclose(float(s), 15.0)
        """,
        wrong_fix="""
        @jax.jit
        def pair_sums(xs, n):
            def body(i, acc):
                return acc + xs[2 * i] + xs[2 * i + 1]
            return lax.fori_loop(0, 2, body, 0.0)

        s = pair_sums(jnp.arange(6.0), 6)
        """,
    ),
    # ------------------------------------------------------------------ more contexts and import styles
    case(
        "vmap-tuple-params-grew", "vmap-in-axes-not-tree-prefix", setup=SETUP,
        cell="""
        def logit(params, x):
            W, b, temperature = params      # temperature was added to params later
            return (x @ W + b) / temperature

        params = (jnp.array([[1.0], [2.0]]), jnp.array([0.5]), jnp.array(2.0))
        xs = jnp.arange(8.0).reshape(4, 2)
        out = jax.vmap(logit, in_axes=((None, None), 0))(params, xs)
        """,
        check="""
        ref = (np.arange(8.0).reshape(4, 2) @ np.array([[1.0], [2.0]]) + 0.5) / 2.0
        np.testing.assert_allclose(np.asarray(out), ref)
        """,
        wrong_fix="""
        def logit(params, x):
            W, b, temperature = params
            return (x @ W + b) / temperature

        params = (jnp.array([[1.0], [2.0]]), jnp.array([0.5]), jnp.array(2.0))
        xs = jnp.arange(8.0).reshape(4, 2)
        out = jax.vmap(logit, in_axes=((None, None, None), 0))((params[0], params[1], 1.0), xs)
        """,
    ),
    case(
        "vmap-from-import-shared-centroid", "vmap-inconsistent-sizes", setup="""
        import numpy as np
        import jax.numpy as jnp
        from jax import vmap
        """,
        cell="""
        def sq_dist(point, centroid):
            return jnp.sum((point - centroid) ** 2)

        points = jnp.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [0.0, 2.0]])
        centroid = points.mean(axis=0)
        dists = vmap(sq_dist)(points, centroid)
        """,
        check="""
        p = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [0.0, 2.0]])
        np.testing.assert_allclose(np.asarray(dists), ((p - p.mean(0)) ** 2).sum(1), rtol=1e-6)
        """,
        wrong_fix="""
        def sq_dist(point, centroid):
            return jnp.sum((point - centroid) ** 2)

        points = jnp.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0], [3.0, 1.0], [0.0, 2.0]])
        centroid = points.mean(axis=0)
        dists = vmap(sq_dist)(points, points[::-1])
        """,
    ),
    case(
        "vmap-bare-decorator-query", "vmap-inconsistent-sizes", setup=SETUP,
        cell="""
        @jax.vmap
        def cosine(query, doc):
            return query @ doc / (jnp.linalg.norm(query) * jnp.linalg.norm(doc))

        query = jnp.array([1.0, 0.0, 1.0])
        docs = jnp.arange(1.0, 13.0).reshape(4, 3)
        sims = cosine(query, docs)
        """,
        check="""
        q, d = np.array([1.0, 0.0, 1.0]), np.arange(1.0, 13.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(sims), d @ q / (np.linalg.norm(q) * np.linalg.norm(d, axis=1)),
                                   rtol=1e-6)
        """,
        wrong_fix="""
        @jax.vmap
        def cosine(query, doc):
            return query @ doc / (jnp.linalg.norm(query) * jnp.linalg.norm(doc))

        query = jnp.array([1.0, 0.0, 1.0])
        docs = jnp.arange(1.0, 13.0).reshape(4, 3)
        sims = cosine(docs[:, ::-1], docs)
        """,
    ),
    case(
        "switch-two-int-placeholders", "switch-branch-output-types", setup=SETUP,
        cell="""
        def reward(kind, score):
            return lax.switch(kind, [lambda s: s * 0.5, lambda s: 0, lambda s: 1], score)

        rewards = [reward(k, jnp.float32(3.0)) for k in range(3)]
        """,
        check="""
        np.testing.assert_allclose([float(r) for r in rewards], [1.5, 0.0, 1.0])
        """,
        wrong_fix="""
        def reward(kind, score):
            return lax.switch(kind, [lambda s: s * 0.5, lambda s: s * 0.0, lambda s: s * 0.0], score)

        rewards = [reward(k, jnp.float32(3.0)) for k in range(3)]
        """,
    ),
    case(
        "scan-from-import-carry-only", "scan-body-not-pair", setup="""
        import numpy as np
        import jax.numpy as jnp
        from jax.lax import scan
        """,
        cell="""
        def max_step(best, x):
            return jnp.maximum(best, x)

        best = scan(max_step, -jnp.inf, jnp.array([0.5, 3.0, -1.0, 2.0]))
        print(best)
        """,
        check="""
        assert float(best) == 3.0
        """,
        wrong_fix="""
        def max_step(best, x):
            return jnp.maximum(best, x), None

        best, _ = scan(max_step, jnp.inf, jnp.array([0.5, 3.0, -1.0, 2.0]))
        """,
    ),
    case(
        "cond-from-import-int-count", "cond-branch-output-types", setup="""
        import numpy as np
        import jax
        import jax.numpy as jnp
        from jax.lax import cond
        """,
        cell="""
        @jax.jit
        def score(hit, x):
            # hits count double, misses keep the raw count of positives
            return cond(hit, lambda v: 2.0 * v.sum(), lambda v: (v > 0).sum(), x)

        hi = score(True, jnp.array([0.5, -1.0, 1.5]))
        lo = score(False, jnp.array([0.5, -1.0, 1.5]))
        """,
        check="""
        np.testing.assert_allclose([float(hi), float(lo)], [2.0, 2.0])
        """,
        wrong_fix="""
        @jax.jit
        def score(hit, x):
            return cond(hit, lambda v: 2.0 * v.sum(), lambda v: v.sum(), x)

        hi = score(True, jnp.array([0.5, -1.0, 1.5]))
        lo = score(False, jnp.array([0.5, -1.0, 1.5]))
        """,
    ),
    case(
        "scan-init-from-caller", "scan-carry-dtype-mismatch", setup=SETUP,
        # the initial carry is the caller's argument: the fix belongs at a call site the rule does not track
        cell="""
        def integrate(y0, rates):
            def step(y, r):
                y = y * (1 + r)
                return y, y
            return lax.scan(step, y0, rates)

        y_final, path = integrate(jnp.int32(10), jnp.array([0.1, 0.2]))
        """,
        check="""
        np.testing.assert_allclose(float(y_final), 10 * 1.1 * 1.2, rtol=1e-6)
        """,
        wrong_fix="""
        def integrate(y0, rates):
            def step(y, r):
                y = (y * (1 + r)).astype(y.dtype)
                return y, y
            return lax.scan(step, y0, rates)

        y_final, path = integrate(jnp.int32(10), jnp.array([0.1, 0.2]))
        """,
    ),
    case(
        "while-body-drops-counter", "while-body-tree-mismatch", setup=SETUP,
        # the body returns one element of the (i, x) state: what the counter should do is a guess
        cell="""
        def body(state):
            i, x = state
            return x * 2

        _, grown = lax.while_loop(lambda s: s[0] < 3, body, (0, 1.0))
        """,
        check="""
        np.testing.assert_allclose(float(grown), 8.0)
        """,
        wrong_fix="""
        def body(state):
            i, x = state
            return i + 1, x
        _, grown = lax.while_loop(lambda s: s[0] < 3, body, (0, 1.0))
        """,
    ),
    case(
        "fori-leapfrog-returns-position-only", "scan-carry-tree-mismatch", setup=SETUP,
        # the body unpacks the new (position, velocity) from the state and returns only the position
        cell="""
        def leapfrog(x, v, dt=0.1):
            v_half = v - 0.5 * dt * x
            x_new = x + dt * v_half
            return x_new, v_half - 0.5 * dt * x_new

        def body(i, state):
            x, v = state
            x, v = leapfrog(x, v)
            return x

        x_T, v_T = lax.fori_loop(0, 20, body, (jnp.float32(1.0), jnp.float32(0.0)))
        """,
        check="""
        x, v = 1.0, 0.0
        for _ in range(20):
            vh = v - 0.05 * x
            x = x + 0.1 * vh
            v = vh - 0.05 * x
        np.testing.assert_allclose([float(x_T), float(v_T)], [x, v], rtol=1e-5)
        """,
        wrong_fix="""
        def leapfrog(x, v, dt=0.1):
            v_half = v - 0.5 * dt * x
            x_new = x + dt * v_half
            return x_new, v_half - 0.5 * dt * x_new

        def body(i, state):
            x, v = state
            x, v = leapfrog(x, v)
            return x, state[1]

        x_T, v_T = lax.fori_loop(0, 20, body, (jnp.float32(1.0), jnp.float32(0.0)))
        """,
    ),
    case(
        "scan-one-entry-list-state-returns-leaf", "scan-carry-tree-mismatch", setup=SETUP,
        cell="""
        def ema_step(state, x):
            avg = state[0]
            return 0.9 * avg + 0.1 * x, avg

        _, history = lax.scan(ema_step, [jnp.float32(0.0)], jnp.arange(1.0, 6.0))
        """,
        check="""
        avg, ref = 0.0, []
        for x in range(1, 6):
            ref.append(avg)
            avg = 0.9 * avg + 0.1 * x
        np.testing.assert_allclose(np.asarray(history), ref, rtol=1e-5)
        """,
        wrong_fix="""
        def ema_step(state, x):
            avg = state[0]
            return [0.1 * x], avg

        _, history = lax.scan(ema_step, [jnp.float32(0.0)], jnp.arange(1.0, 6.0))
        """,
    ),
    case(
        "scan-pair-state-returns-unrelated-name", "scan-carry-tree-mismatch", setup=SETUP, offer="none",
        # the returned name was unpacked from the input, not from the state: which state was meant is unknown
        cell="""
        def step(state, xy):
            x, y = xy
            total, count = state
            return x, total + y

        _, out = lax.scan(step, (jnp.float32(0.0), jnp.int32(0)), (jnp.ones(3), jnp.ones(3)))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), [1.0, 1.0, 1.0])
        """,
        wrong_fix="""
        def step(state, xy):
            x, y = xy
            total, count = state
            return (x, y), total + y

        _, out = lax.scan(step, (jnp.float32(0.0), jnp.int32(0)), (jnp.ones(3), jnp.ones(3)))
        """,
    ),
    # ------------------------------------------------------------------ negatives
    case(
        "neg-scan-body-typo", "negative", setup=SETUP, negative=True,
        cell="""
        def step(carry, x):
            return carry + x, carr

        lax.scan(step, 0.0, jnp.ones(3))
        """,
    ),
    case(
        "neg-vmap-python-typeerror", "negative", setup=SETUP, negative=True,
        cell="""
        def describe(x, unit):
            return "value: " + x.sum() + unit

        jax.vmap(describe, in_axes=(0, None))(jnp.ones((2, 3)), "cm")
        """,
    ),
    case(
        "vmap-default-axes-data-is-the-odd-one", "vmap-inconsistent-sizes", setup=SETUP, offer="none",
        cell="""
        proj = jnp.ones((5, 2))
        shift = jnp.arange(5.0)
        points = jnp.asarray(np.arange(16.0).reshape(8, 2))

        def embed(proj, shift, p):
            return proj @ p + shift

        out = jax.vmap(embed)(proj, shift, points)
        """,
        check="""
        P = np.arange(16.0).reshape(8, 2)
        np.testing.assert_allclose(np.asarray(out), P @ np.ones((5, 2)).T + np.arange(5.0))
        """,
    ),
    case(
        "vmap-bound-method-axes-for-self", "vmap-in-axes-length-mismatch", setup=SETUP,
        cell="""
        class Scorer:
            def __init__(self, w):
                self.w = w

            def score(self, x, bias):
                return x @ self.w + bias

        sc = Scorer(jnp.array([1.0, -1.0]))
        xs = jnp.asarray(np.arange(8.0).reshape(4, 2))
        bs = jnp.arange(4.0)
        scores = jax.vmap(sc.score, in_axes=(None, 0, 0))(xs, bs)
        """,
        check="""
        X = np.arange(8.0).reshape(4, 2)
        np.testing.assert_allclose(np.asarray(scores), X @ np.array([1.0, -1.0]) + np.arange(4.0))
        """,
        wrong_fix="""
        class Scorer:
            def __init__(self, w):
                self.w = w

            def score(self, x, bias):
                return x @ self.w + bias

        sc = Scorer(jnp.array([1.0, -1.0]))
        xs = jnp.asarray(np.arange(8.0).reshape(4, 2))
        bs = jnp.arange(4.0)
        scores = jax.vmap(sc.score, in_axes=(0, None))(xs, bs)
        """,
    ),
    case(
        "vmap-partial-keyword-axes-kept", "vmap-in-axes-length-mismatch", setup=SETUP + "from functools import partial\n",
        cell="""
        def damped(x, gain, damping):
            return gain * x - damping * x ** 2

        f = partial(damped, damping=0.5)
        ys = jax.vmap(f, in_axes=(0, None, None))(jnp.arange(3.0), 2.0)
        """,
        check="""
        x = np.arange(3.0)
        np.testing.assert_allclose(np.asarray(ys), 2.0 * x - 0.5 * x ** 2)
        """,
        wrong_fix="""
        def damped(x, gain, damping):
            return gain * x - damping * x ** 2

        f = partial(damped, damping=0.5)
        ys = jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), 0.5)
        """,
    ),
]
