"""Static arguments, shapes built from traced values, traced slices and boolean masks under ``jit``."""

import textwrap

from rewrite_cases import case


def _s(base: str, extra: str) -> str:
    """An earlier cell plus a few more setup lines (each dedented on its own)."""
    return textwrap.dedent(base).strip("\n") + "\n" + textwrap.dedent(extra).strip("\n") + "\n"

SETUP = """
import numpy as np
import jax
import jax.numpy as jnp
"""

SETUP_DATA = SETUP + """
data = jnp.asarray(np.arange(12.0).reshape(4, 3))
x_np = np.array([-1.5, 2.0, 0.0, 3.5, -0.5, 1.0], dtype=np.float32)
x = jnp.asarray(x_np)
"""

CASES = [
    # ------------------------------------------------------------------ shape-not-concrete
    case(
        "pad-batch-zeros", "shape-not-concrete", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def pad_batch(batch, batch_size):
            # fixed-size buffer so every step compiles once
            out = jnp.zeros((batch_size, batch.shape[1]))
            return out.at[: batch.shape[0]].set(batch)

        padded = pad_batch(data, 8)
        """,
        check="""
        ref = np.zeros((8, 3)); ref[:4] = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(padded), ref)
        """,
        wrong_fix="""
        @jax.jit
        def pad_batch(batch, batch_size):
            out = jnp.zeros(batch.shape)
            return out.at[: batch.shape[0]].set(batch)

        padded = pad_batch(data, 8)
        """,
    ),
    case(
        "split-heads-reshape", "shape-not-concrete",
        setup="""
        import numpy as np
        import jax
        from functools import partial
        tokens = jax.numpy.asarray(np.arange(2 * 3 * 8, dtype=np.float32).reshape(2, 3, 8))
        """,
        cell="""
        @partial(jax.jit, static_argnames=("transpose",))
        def split_heads(x, num_heads, transpose=True):
            b, t, d = x.shape
            h = x.reshape(b, t, num_heads, d // num_heads)
            return h.transpose(0, 2, 1, 3) if transpose else h

        heads = split_heads(tokens, 4)
        """,
        check="""
        ref = np.arange(48, dtype=np.float32).reshape(2, 3, 4, 2).transpose(0, 2, 1, 3)
        np.testing.assert_allclose(np.asarray(heads), ref)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=("transpose",))
        def split_heads(x, num_heads, transpose=True):
            b, t, d = x.shape
            h = x.reshape(b, t, 2, d // 2)
            return h.transpose(0, 2, 1, 3) if transpose else h

        heads = split_heads(tokens, 4)
        """,
    ),
    case(
        "noise-sampler-jit-assign", "shape-not-concrete", setup=SETUP,
        cell="""
        def sample_noise(key, scale, n_samples):
            return scale * jax.random.normal(key, (n_samples, 2))

        sample_noise_jit = jax.jit(sample_noise)
        noise = sample_noise_jit(jax.random.key(0), 0.5, 16)
        """,
        check="""
        ref = 0.5 * np.asarray(jax.random.normal(jax.random.key(0), (16, 2)))
        assert noise.shape == (16, 2)
        np.testing.assert_allclose(np.asarray(noise), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def sample_noise(key, scale, n_samples):
            return scale * jax.random.normal(key, (16, 1))

        sample_noise_jit = jax.jit(sample_noise)
        noise = sample_noise_jit(jax.random.key(0), 0.5, 16)
        """,
    ),
    case(
        "causal-mask-helper", "shape-not-concrete",
        setup=_s(SETUP, """
        q = jnp.asarray(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2))
        k = jnp.asarray(np.linspace(0, 2, 8, dtype=np.float32).reshape(4, 2))
        """),
        cell="""
        def causal_mask(seq_len):
            return jnp.tril(jnp.ones((seq_len, seq_len), dtype=bool))

        @jax.jit
        def attention_scores(q, k, seq_len):
            s = q @ k.T
            return jnp.where(causal_mask(seq_len), s, -jnp.inf)

        scores = attention_scores(q, k, 4)
        """,
        check="""
        qn = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
        kn = np.linspace(0, 2, 8, dtype=np.float32).reshape(4, 2)
        ref = np.where(np.tril(np.ones((4, 4), bool)), qn @ kn.T, -np.inf)
        np.testing.assert_allclose(np.asarray(scores), ref, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def attention_scores(q, k, seq_len):
            return q @ k.T

        scores = attention_scores(q, k, 4)
        """,
    ),
    case(
        "init-state-jnp-int", "shape-not-concrete", setup=SETUP,
        cell="""
        @jax.jit
        def init_state(hidden):
            return {"h": jnp.zeros(hidden), "c": jnp.ones(hidden)}

        state = init_state(jnp.int32(6))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(state["h"]), np.zeros(6))
        np.testing.assert_allclose(np.asarray(state["c"]), np.ones(6))
        """,
        wrong_fix="""
        @jax.jit
        def init_state(hidden):
            return {"h": jnp.zeros(1), "c": jnp.ones(1)}

        state = init_state(jnp.int32(6))
        """,
    ),
    case(
        "count-sized-buffer-from-data", "shape-not-concrete", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def positive_buffer(v):
            n_pos = jnp.sum(v > 0)
            return jnp.zeros(n_pos)

        buf = positive_buffer(x)
        """,
        check="""
        assert np.asarray(buf).shape == (3,)
        """,
        wrong_fix="""
        buf = jnp.zeros(2)
        """,
    ),
    # ------------------------------------------------------------------ concretization-arange
    case(
        "position-ids-from-jit", "concretization-arange",
        setup="""
        import numpy as np
        import jax.numpy as jnp
        from jax import jit
        table = jnp.asarray(np.arange(20.0).reshape(10, 2))
        """,
        cell="""
        @jit
        def positional_embedding(table, seq_len):
            positions = jnp.arange(seq_len)
            return table[positions]

        emb = positional_embedding(table, 5)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(emb), np.arange(20.0).reshape(10, 2)[:5])
        """,
        wrong_fix="""
        @jit
        def positional_embedding(table, seq_len):
            return table[jnp.arange(table.shape[0])]

        emb = positional_embedding(table, 5)
        """,
    ),
    case(
        "discount-inline-jit", "concretization-arange",
        setup=_s(SETUP, """
        rewards = jnp.asarray(np.array([1.0, 0.5, 0.25, 2.0, 1.0, 0.0, 3.0], dtype=np.float32))
        """),
        cell="""
        def discounted_return(rewards, gamma, horizon):
            weights = gamma ** jnp.arange(horizon)
            return jnp.sum(weights * rewards[:horizon])

        ret = jax.jit(discounted_return)(rewards, 0.9, 4)
        """,
        check="""
        r = np.array([1.0, 0.5, 0.25, 2.0], dtype=np.float32)
        np.testing.assert_allclose(float(ret), float(np.sum(0.9 ** np.arange(4) * r)), rtol=1e-5)
        """,
        wrong_fix="""
        def discounted_return(rewards, gamma, horizon):
            return jnp.sum(rewards)

        ret = jax.jit(discounted_return)(rewards, 0.9, 4)
        """,
    ),
    case(
        "poly-features-closure", "concretization-arange",
        setup=_s(SETUP, """
        xs = jnp.asarray(np.array([0.5, 2.0, -1.0], dtype=np.float32))
        """),
        cell="""
        @jax.jit
        def poly_features(x, degree):
            def powers(v):
                return v ** jnp.arange(degree + 1)
            return jax.vmap(powers)(x)

        feats = poly_features(xs, 3)
        """,
        check="""
        v = np.array([0.5, 2.0, -1.0], dtype=np.float32)
        np.testing.assert_allclose(np.asarray(feats), v[:, None] ** np.arange(4), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def poly_features(x, degree):
            return jax.vmap(lambda v: v ** jnp.arange(3))(x)

        feats = poly_features(xs, 3)
        """,
    ),
    case(
        "arange-in-fori-body", "concretization-arange", setup=SETUP,
        cell="""
        @jax.jit
        def triangular_total(n_terms):
            def body(i, acc):
                return acc + jnp.arange(i).sum()
            return jax.lax.fori_loop(0, n_terms, body, 0)

        total = triangular_total(5)
        """,
        check="""
        assert int(total) == sum(sum(range(i)) for i in range(5))
        """,
        wrong_fix="""
        total = 0
        """,
    ),
    case(
        "time-grid-keyword-call", "concretization-arange", setup=SETUP,
        cell="""
        def time_grid(t0, dt, n_steps):
            return t0 + dt * jnp.arange(n_steps, dtype=jnp.float32)

        time_grid_fast = jax.jit(time_grid)
        ts = time_grid_fast(1.0, 0.25, n_steps=6)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ts), 1.0 + 0.25 * np.arange(6))
        """,
        wrong_fix="""
        def time_grid(t0, dt, n_steps):
            return t0 + dt * jnp.arange(5, dtype=jnp.float32)

        time_grid_fast = jax.jit(time_grid)
        ts = time_grid_fast(1.0, 0.25, n_steps=6)
        """,
    ),
    # ------------------------------------------------------------------ concretization-linspace-num
    case(
        "linspace-grid", "concretization-linspace-num", setup=SETUP,
        cell="""
        @jax.jit
        def eval_grid(w, num):
            grid = jnp.linspace(-1.0, 1.0, num)
            return w * grid ** 2

        values = eval_grid(3.0, 5)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(values), 3.0 * np.linspace(-1, 1, 5) ** 2, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def eval_grid(w, num):
            return w * jnp.linspace(-1.0, 1.0, 4) ** 2

        values = eval_grid(3.0, 5)
        """,
    ),
    case(
        "histogram-edges", "concretization-linspace-num",
        setup=SETUP_DATA,
        cell="""
        import jax.numpy as jnp

        @jax.jit
        def bin_index(v, n_bins):
            edges = jnp.linspace(v.min(), v.max(), n_bins + 1)
            return jnp.clip(jnp.digitize(v, edges) - 1, 0, n_bins - 1)

        idx = bin_index(x, 4)
        """,
        check="""
        edges = np.linspace(x_np.min(), x_np.max(), 5)
        np.testing.assert_array_equal(np.asarray(idx), np.clip(np.digitize(x_np, edges) - 1, 0, 3))
        """,
        wrong_fix="""
        @jax.jit
        def bin_index(v, n_bins):
            return jnp.zeros(v.shape, dtype=jnp.int32)

        idx = bin_index(x, 4)
        """,
    ),
    # ------------------------------------------------------------------ concretization-one-hot-num-classes
    case(
        "cross-entropy-num-classes", "concretization-one-hot-num-classes",
        setup=_s(SETUP, """
        logits = jnp.asarray(np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], dtype=np.float32))
        labels = jnp.array([0, 2])
        """),
        cell="""
        @jax.jit
        def cross_entropy(logits, labels, num_classes):
            targets = jax.nn.one_hot(labels, num_classes)
            return -jnp.mean(jnp.sum(targets * jax.nn.log_softmax(logits), axis=-1))

        loss = cross_entropy(logits, labels, 3)
        """,
        check="""
        lg = np.array([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
        logp = lg - np.log(np.exp(lg).sum(-1, keepdims=True))
        np.testing.assert_allclose(float(loss), -np.mean(logp[[0, 1], [0, 2]]), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def cross_entropy(logits, labels, num_classes):
            return -jnp.mean(jax.nn.log_softmax(logits))

        loss = cross_entropy(logits, labels, 3)
        """,
    ),
    case(
        "eval-step-keyword", "concretization-one-hot-num-classes",
        setup=_s(SETUP, """
        preds = jnp.array([0, 1, 1, 2, 0])
        """),
        cell="""
        from jax.nn import one_hot

        def confusion_counts(pred, num_classes):
            return one_hot(pred, num_classes).sum(axis=0)

        eval_step = jax.jit(confusion_counts)
        counts = eval_step(preds, num_classes=4)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(counts), np.bincount([0, 1, 1, 2, 0], minlength=4))
        """,
        wrong_fix="""
        eval_step = jax.jit(lambda pred, num_classes: jnp.bincount(pred, length=3))
        counts = eval_step(preds, num_classes=4)
        """,
    ),
    case(
        "one-hot-classes-from-labels", "concretization-one-hot-num-classes",
        setup=_s(SETUP, """
        labels = jnp.array([0, 2, 1, 2])
        """),
        cell="""
        @jax.jit
        def encode(labels):
            return jax.nn.one_hot(labels, labels.max() + 1)

        enc = encode(labels)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(enc), np.eye(3)[[0, 2, 1, 2]])
        """,
        wrong_fix="""
        enc = jax.nn.one_hot(labels, 4)
        """,
    ),
    case(
        "label-smoothing-method", "concretization-one-hot-num-classes",
        setup=_s(SETUP, """
        labels = jnp.array([1, 0, 3])
        """),
        cell="""
        import functools

        @functools.partial(jax.jit, static_argnums=2)
        def smooth_targets(labels, num_classes, eps):
            return jax.nn.one_hot(labels, num_classes) * (1 - eps) + eps / num_classes

        targets = smooth_targets(labels, 4, 0.1)
        """,
        check="""
        ref = np.eye(4)[[1, 0, 3]] * 0.9 + 0.1 / 4
        np.testing.assert_allclose(np.asarray(targets), ref, rtol=1e-6)
        """,
        wrong_fix="""
        @functools.partial(jax.jit, static_argnums=2)
        def smooth_targets(labels, num_classes, eps):
            return jax.nn.one_hot(labels, 4)

        targets = smooth_targets(labels, 4, 0.1)
        """,
    ),
    # ------------------------------------------------------------------ concretization-repeat-total-length
    case(
        "upsample-repeat", "concretization-repeat-total-length",
        setup=_s(SETUP, """
        signal = jnp.asarray(np.array([1.0, 4.0, 2.0], dtype=np.float32))
        """),
        cell="""
        @jax.jit
        def upsample(signal, factor):
            return jnp.repeat(signal, factor)

        up = upsample(signal, 3)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(up), np.repeat([1.0, 4.0, 2.0], 3))
        """,
        wrong_fix="""
        @jax.jit
        def upsample(signal, factor):
            return jnp.tile(signal, 3)

        up = upsample(signal, 3)
        """,
    ),
    case(
        "ragged-repeat-counts", "concretization-repeat-total-length",
        setup=_s(SETUP, """
        values = jnp.array([10, 20, 30])
        counts = jnp.array([2, 0, 3])
        """),
        cell="""
        @jax.jit
        def expand(values, counts):
            return jnp.repeat(values, counts)

        flat = expand(values, counts)
        """,
        check="""
        np.testing.assert_array_equal(np.asarray(flat), np.repeat([10, 20, 30], [2, 0, 3]))
        """,
        wrong_fix="""
        flat = jnp.repeat(values, 2)
        """,
    ),
    # ------------------------------------------------------------------ concretization-axis-argument
    case(
        "normalize-axis", "concretization-axis-argument", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def normalize(v, axis):
            mu = v.mean(axis=axis, keepdims=True)
            return v - mu

        centered = normalize(data, 0)
        """,
        check="""
        d = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(centered), d - d.mean(0, keepdims=True))
        """,
        wrong_fix="""
        @jax.jit
        def normalize(v, axis):
            return v - v.mean(axis=1, keepdims=True)

        centered = normalize(data, 0)
        """,
    ),
    case(
        "pool-extend-argnums", "concretization-axis-argument",
        setup=_s(SETUP_DATA, """
        from functools import partial
        """),
        cell="""
        @partial(jax.jit, static_argnums=2)
        def pool(v, axis, kind):
            if kind == "max":
                return jnp.max(v, axis=axis)
            return jnp.mean(v, axis=axis)

        pooled = pool(data, 1, "max")
        """,
        check="""
        np.testing.assert_allclose(np.asarray(pooled), np.arange(12.0).reshape(4, 3).max(1))
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=2)
        def pool(v, axis, kind):
            return jnp.max(v, axis=0)

        pooled = pool(data, 1, "max")
        """,
    ),
    case(
        "softmax-axis-jit-call", "concretization-axis-argument", setup=SETUP_DATA,
        cell="""
        def softmax(logits, axis=-1):
            z = logits - jax.lax.stop_gradient(logits.max(axis=axis, keepdims=True))
            return jnp.exp(z) / jnp.exp(z).sum(axis=axis, keepdims=True)

        softmax_jit = jax.jit(softmax)
        probs = softmax_jit(data, 0)
        """,
        check="""
        d = np.arange(12.0).reshape(4, 3)
        e = np.exp(d - d.max(0, keepdims=True))
        np.testing.assert_allclose(np.asarray(probs), e / e.sum(0, keepdims=True), rtol=1e-5)
        """,
        wrong_fix="""
        def softmax(logits, axis=-1):
            return jax.nn.softmax(logits, axis=-1)

        softmax_jit = jax.jit(softmax)
        probs = softmax_jit(data, 0)
        """,
    ),
    # ------------------------------------------------------------------ traced-slice-bounds
    case(
        "window-at-traced-start", "traced-slice-bounds", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def window(v, start):
            return v[start:start + 3]

        w = window(x, 2)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(w), x_np[2:5])
        """,
        wrong_fix="""
        @jax.jit
        def window(v, start):
            return v[:3]

        w = window(x, 2)
        """,
    ),
    case(
        "chunk-sum-fori", "traced-slice-bounds",
        setup=_s(SETUP, """
        seq = jnp.asarray(np.arange(16.0, dtype=np.float32))
        """),
        cell="""
        from jax import lax

        @jax.jit
        def chunk_maxes(seq):
            def body(i, out):
                chunk = seq[i * 4:(i + 1) * 4]
                return out.at[i].set(chunk.max())
            return lax.fori_loop(0, 4, body, jnp.zeros(4))

        maxes = chunk_maxes(seq)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(maxes), np.arange(16.0).reshape(4, 4).max(1))
        """,
        wrong_fix="""
        from jax import lax

        @jax.jit
        def chunk_maxes(seq):
            def body(i, out):
                chunk = lax.dynamic_slice_in_dim(seq, i, 4)
                return out.at[i].set(chunk.max())
            return lax.fori_loop(0, 4, body, jnp.zeros(4))

        maxes = chunk_maxes(seq)
        """,
    ),
    case(
        "scan-time-window-axis1", "traced-slice-bounds",
        setup=_s(SETUP, """
        frames = jnp.asarray(np.arange(24.0, dtype=np.float32).reshape(2, 12))
        WINDOW = 3
        """),
        cell="""
        def summarize(frames):
            def step(carry, t):
                win = frames[:, t:t + WINDOW]
                return carry, win.mean(axis=1)
            _, out = jax.lax.scan(step, 0.0, jnp.arange(0, 9, 3))
            return out

        summary = jax.jit(summarize)(frames)
        """,
        check="""
        f = np.arange(24.0).reshape(2, 12)
        ref = np.stack([f[:, t:t + 3].mean(1) for t in range(0, 9, 3)])
        np.testing.assert_allclose(np.asarray(summary), ref, rtol=1e-6)
        """,
        wrong_fix="""
        def summarize(frames):
            def step(carry, t):
                win = frames[:, :WINDOW]
                return carry, win.mean(axis=1)
            _, out = jax.lax.scan(step, 0.0, jnp.arange(0, 9, 3))
            return out

        summary = jax.jit(summarize)(frames)
        """,
    ),
    case(
        "prefix-length-param", "traced-slice-bounds", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def truncate(tokens, max_len):
            return tokens[:max_len] * 2.0

        short = truncate(x, 4)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(short), x_np[:4] * 2.0)
        """,
        wrong_fix="""
        @jax.jit
        def truncate(tokens, max_len):
            return tokens * 2.0

        short = truncate(x, 4)
        """,
    ),
    case(
        "half-split-derived", "traced-slice-bounds", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def first_half_mean(v, length):
            half = length // 2
            return v[:half].mean()

        m = first_half_mean(x, 6)
        """,
        check="""
        np.testing.assert_allclose(float(m), x_np[:3].mean(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def first_half_mean(v, length):
            return v.mean()

        m = first_half_mean(x, 6)
        """,
    ),
    case(
        "context-window-method", "traced-slice-bounds",
        setup="""
        import numpy as np
        import jax
        import jax.numpy as jnp
        from jax import lax
        """,
        cell="""
        class Corpus:
            def __init__(self, ids, context):
                self.ids = jnp.asarray(ids)
                self.context = context

            def sample(self, key):
                start = jax.random.randint(key, (), 0, self.ids.shape[0] - self.context)
                return self.ids[start:start + self.context]

        corpus = Corpus(np.arange(20), 5)
        batch = jax.jit(corpus.sample)(jax.random.key(1))
        """,
        check="""
        b = np.asarray(batch)
        assert b.shape == (5,) and np.all(np.diff(b) == 1) and 0 <= b[0] <= 15
        s = int(jax.random.randint(jax.random.key(1), (), 0, 15))
        np.testing.assert_array_equal(b, np.arange(20)[s:s + 5])
        """,
        wrong_fix="""
        class Corpus:
            def __init__(self, ids, context):
                self.ids = jnp.asarray(ids)
                self.context = context

            def sample(self, key):
                return self.ids[:self.context]

        corpus = Corpus(np.arange(20), 5)
        batch = jax.jit(corpus.sample)(jax.random.key(1))
        """,
    ),
    # ------------------------------------------------------------------ jit-non-hashable-static-arg
    case(
        "reshape-list-shape", "jit-non-hashable-static-arg", setup=_s(SETUP, """
        from functools import partial
        """),
        cell="""
        @partial(jax.jit, static_argnums=1)
        def reshape_to(v, shape):
            return v.reshape(shape)

        grid = reshape_to(jnp.arange(6.0), [2, 3])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(grid), np.arange(6.0).reshape(2, 3))
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnums=1)
        def reshape_to(v, shape):
            return v.reshape(shape)

        grid = reshape_to(jnp.arange(6.0), (3, 2))
        """,
    ),
    case(
        "mlp-hidden-sizes-name", "jit-non-hashable-static-arg", setup=SETUP,
        cell="""
        from functools import partial

        hidden_sizes = [4, 3]

        @partial(jax.jit, static_argnames=("sizes",))
        def init_mlp(key, sizes):
            keys = jax.random.split(key, len(sizes))
            return [jax.random.normal(k, (n,)) for k, n in zip(keys, sizes)]

        params = init_mlp(jax.random.key(0), sizes=hidden_sizes)
        """,
        check="""
        assert [p.shape for p in params] == [(4,), (3,)]
        keys = jax.random.split(jax.random.key(0), 2)
        np.testing.assert_allclose(np.asarray(params[1]), np.asarray(jax.random.normal(keys[1], (3,))))
        """,
        wrong_fix="""
        hidden_sizes = [4, 3]

        @partial(jax.jit, static_argnames=("sizes",))
        def init_mlp(key, sizes):
            keys = jax.random.split(key, len(sizes))
            return [jax.random.normal(k, (n,)) for k, n in zip(keys, sizes)]

        params = init_mlp(jax.random.key(0), sizes=(4,))
        """,
    ),
    case(
        "pad-widths-keyword-list", "jit-non-hashable-static-arg", setup=SETUP_DATA,
        cell="""
        def pad_sequence(v, pad_width):
            return jnp.pad(v, pad_width)

        pad_fast = jax.jit(pad_sequence, static_argnames="pad_width")
        out = pad_fast(x, pad_width=[1, 2])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.pad(x_np, [1, 2]))
        """,
        wrong_fix="""
        pad_fast = jax.jit(lambda v, pad_width: jnp.pad(v, 1), static_argnames="pad_width")
        out = pad_fast(x, pad_width=(1, 2))
        """,
    ),
    case(
        "config-dict-static", "jit-non-hashable-static-arg", setup=SETUP_DATA,
        cell="""
        from functools import partial

        @partial(jax.jit, static_argnames="cfg")
        def scale_clip(v, cfg):
            return jnp.clip(v * cfg["scale"], -cfg["limit"], cfg["limit"])

        y = scale_clip(x, cfg={"scale": 2.0, "limit": 3.0})
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.clip(x_np * 2.0, -3.0, 3.0))
        """,
        wrong_fix="""
        y = jnp.clip(x, -3.0, 3.0)
        """,
    ),
    case(
        "transpose-perm-in-loop", "jit-non-hashable-static-arg", setup=_s(SETUP, """
        from functools import partial
        cube = jnp.asarray(np.arange(24.0).reshape(2, 3, 4))
        """),
        cell="""
        @partial(jax.jit, static_argnums=(1,))
        def permute(v, axes):
            return jnp.transpose(v, axes)

        shapes = []
        for perm in ([2, 0, 1], [1, 2, 0]):
            shapes.append(permute(cube, perm).shape)
        """,
        check="""
        assert shapes == [(4, 2, 3), (3, 4, 2)], shapes
        """,
        wrong_fix="""
        shapes = []
        for perm in ([2, 0, 1], [1, 2, 0]):
            shapes.append(permute(cube, (0, 1, 2)).shape)
        """,
    ),
    # ------------------------------------------------------------------ jit-method-self-argument
    case(
        "scaler-method", "jit-method-self-argument", setup=SETUP_DATA,
        cell="""
        class Scaler:
            def __init__(self, scale, shift):
                self.scale = scale
                self.shift = shift

            @jax.jit
            def __call__(self, v):
                return v * self.scale + self.shift

        scaler = Scaler(2.0, 1.0)
        scaled = scaler(x)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(scaled), x_np * 2.0 + 1.0)
        """,
        wrong_fix="""
        class Scaler:
            def __init__(self, scale, shift):
                self.scale = scale
                self.shift = shift

            def __call__(self, v):
                return v * self.scale

        scaler = Scaler(2.0, 1.0)
        scaled = scaler(x)
        """,
    ),
    case(
        "dropout-layer-static-flag", "jit-method-self-argument", setup=_s(SETUP_DATA, """
        from functools import partial
        """),
        cell="""
        class Dense:
            def __init__(self, w, b):
                self.w, self.b = w, b

            @partial(jax.jit, static_argnames=("relu",))
            def forward(self, v, relu):
                out = v @ self.w + self.b
                return jax.nn.relu(out) if relu else out

        layer = Dense(jnp.ones((3, 2)), jnp.array([0.5, -20.0]))
        out = layer.forward(data, True)
        """,
        check="""
        d = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(out), np.maximum(d @ np.ones((3, 2)) + [0.5, -20.0], 0))
        """,
        wrong_fix="""
        class Dense:
            def __init__(self, w, b):
                self.w, self.b = w, b

            def forward(self, v, relu):
                return v @ self.w + self.b

        layer = Dense(jnp.ones((3, 2)), jnp.array([0.5, -20.0]))
        out = layer.forward(data, True)
        """,
    ),
    case(
        "simulator-step-method", "jit-method-self-argument", setup=SETUP,
        cell="""
        from jax import jit

        class Pendulum:
            g = 9.81

            def __init__(self, length, dt):
                self.length = length
                self.dt = dt

            @jit
            def step(self, state):
                theta, omega = state
                omega = omega - self.dt * self.g / self.length * jnp.sin(theta)
                return jnp.stack([theta + self.dt * omega, omega])

        sim = Pendulum(1.0, 0.01)
        s1 = sim.step(jnp.array([0.1, 0.0]))
        """,
        check="""
        om = 0.0 - 0.01 * 9.81 * np.sin(0.1)
        np.testing.assert_allclose(np.asarray(s1), [0.1 + 0.01 * om, om], rtol=1e-5)
        """,
        wrong_fix="""
        class Pendulum:
            def __init__(self, length, dt):
                self.length = length
                self.dt = dt

            def step(self, state):
                return state

        sim = Pendulum(1.0, 0.01)
        s1 = sim.step(jnp.array([0.1, 0.0]))
        """,
    ),
    case(
        "dataclass-model-method", "jit-method-self-argument", setup=SETUP_DATA,
        cell="""
        from dataclasses import dataclass

        @dataclass
        class Linear:
            w: jax.Array

            @jax.jit
            def apply(self, v):
                return v @ self.w

        y = Linear(jnp.ones((3,))).apply(data)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(y), np.arange(12.0).reshape(4, 3).sum(1))
        """,
        wrong_fix="""
        y = data.sum(0)
        """,
    ),
    # ------------------------------------------------------------------ non-concrete-boolean-index
    case(
        "positive-sum-method", "non-concrete-boolean-index", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def positive_sum(v):
            return v[v > 0].sum()

        total = positive_sum(x)
        """,
        check="""
        np.testing.assert_allclose(float(total), x_np[x_np > 0].sum(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def positive_sum(v):
            return jnp.abs(v).sum()

        total = positive_sum(x)
        """,
    ),
    case(
        "masked-mse-grad", "non-concrete-boolean-index",
        setup=_s(SETUP, """
        pred = jnp.asarray(np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32))
        y = jnp.asarray(np.array([1.5, 0.0, 2.0, 4.5], dtype=np.float32))
        valid = jnp.array([True, False, True, True])
        """),
        cell="""
        def masked_mse(pred, y, valid):
            return jnp.mean((pred[valid] - y[valid]) ** 2)

        loss, grad = jax.jit(jax.value_and_grad(masked_mse))(pred, y, valid)
        """,
        check="""
        p = np.array([1.0, 2.0, 3.0, 4.0]); t = np.array([1.5, 0.0, 2.0, 4.5]); m = np.array([1, 0, 1, 1], bool)
        np.testing.assert_allclose(float(loss), np.mean((p[m] - t[m]) ** 2), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(grad), np.where(m, 2 * (p - t) / m.sum(), 0.0), rtol=1e-6)
        """,
        wrong_fix="""
        def masked_mse(pred, y, valid):
            return jnp.mean(jnp.where(valid, pred - y, 0.0) ** 2)

        loss, grad = jax.jit(jax.value_and_grad(masked_mse))(pred, y, valid)
        """,
    ),
    case(
        "valid-loss-variable", "non-concrete-boolean-index",
        setup=_s(SETUP, """
        per_token = jnp.asarray(np.array([0.5, 1.5, 2.0, 9.0, 9.0], dtype=np.float32))
        lengths_mask = jnp.array([1, 1, 1, 0, 0]) > 0
        """),
        cell="""
        @jax.jit
        def sequence_loss(per_token, mask):
            kept = per_token[mask]   # drop padding
            return kept.sum() / jnp.maximum(mask.sum(), 1)

        seq_loss = sequence_loss(per_token, lengths_mask)
        """,
        check="""
        np.testing.assert_allclose(float(seq_loss), (0.5 + 1.5 + 2.0) / 3, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sequence_loss(per_token, mask):
            return per_token.sum() / jnp.maximum(mask.sum(), 1)

        seq_loss = sequence_loss(per_token, lengths_mask)
        """,
    ),
    case(
        "nan-to-zero-at-set", "non-concrete-boolean-index", setup=SETUP,
        cell="""
        @jax.jit
        def clean(grads):
            return grads.at[jnp.isnan(grads)].set(0.0)

        g = clean(jnp.array([1.0, jnp.nan, -2.0, jnp.nan]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g), [1.0, 0.0, -2.0, 0.0])
        """,
        wrong_fix="""
        @jax.jit
        def clean(grads):
            return jnp.zeros_like(grads)

        g = clean(jnp.array([1.0, jnp.nan, -2.0, jnp.nan]))
        """,
    ),
    case(
        "class-max-score", "non-concrete-boolean-index",
        setup=_s(SETUP, """
        scores = jnp.asarray(np.array([0.3, 0.9, 0.1, 0.7, 0.5], dtype=np.float32))
        labels = jnp.array([0, 1, 0, 1, 0])
        """),
        cell="""
        @jax.jit
        def best_score_per_class(scores, labels):
            best0 = jnp.max(scores[labels == 0])
            best1 = jnp.max(scores[labels == 1])
            return jnp.stack([best0, best1])

        best = best_score_per_class(scores, labels)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(best), [0.5, 0.9], rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def best_score_per_class(scores, labels):
            return jnp.stack([scores.max(), scores.max()])

        best = best_score_per_class(scores, labels)
        """,
    ),
    case(
        "keep-rows-embedding-mean", "non-concrete-boolean-index",
        setup=_s(SETUP_DATA, """
        keep = jnp.array([True, False, True, True])
        """),
        cell="""
        @jax.jit
        def pooled(emb, keep):
            return emb[keep].mean()

        p = pooled(data, keep)
        """,
        check="""
        d = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(float(p), d[[0, 2, 3]].mean(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def pooled(emb, keep):
            return emb.mean()

        p = pooled(data, keep)
        """,
    ),
    case(
        "select-positive-entries", "non-concrete-boolean-index", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def positives(v):
            return v[v > 0]

        pos = positives(x)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(pos), x_np[x_np > 0])
        """,
        wrong_fix="""
        pos = jnp.where(x > 0, x, 0)
        """,
    ),
    # ------------------------------------------------------------------ concretization-nonzero-size
    case(
        "count-active-len-nonzero-jit", "concretization-nonzero-size", setup=SETUP,
        cell="""
        @jax.jit
        def active_fraction(mask):
            n_active = len(jnp.nonzero(mask)[0])
            return n_active / mask.size

        mask = jnp.array([0.0, 1.0, 2.0, 0.0, 3.0]) > 0.5
        frac = active_fraction(mask)
        """,
        check="""
        assert abs(float(frac) - 3 / 5) < 1e-6, frac
        assert abs(float(active_fraction(jnp.zeros(4, bool)))) < 1e-6
        """,
        wrong_fix="""
        @jax.jit
        def active_fraction(mask):
            n_active = len(jnp.nonzero(mask, size=mask.size)[0])
            return n_active / mask.size

        mask = jnp.array([0.0, 1.0, 2.0, 0.0, 3.0]) > 0.5
        frac = active_fraction(mask)
        """,
    ),
    case(
        "count-classes-unique-shape-jit", "concretization-unique-size", setup=SETUP, offer="review",
        cell="""
        @jax.jit
        def n_classes_seen(labels):
            return jnp.unique(labels).shape[0]

        labels = jnp.array([[2, 7, 2], [7, 7, 0]])
        seen = n_classes_seen(labels)
        """,
        check="""
        assert int(seen) == len(set(np.array([[2, 7, 2], [7, 7, 0]]).ravel().tolist())), seen
        assert int(n_classes_seen(jnp.array([4, 4, 4]))) == 1
        """,
        wrong_fix="""
        @jax.jit
        def n_classes_seen(labels):
            return jnp.unique(labels, size=labels.size).shape[0]

        labels = jnp.array([[2, 7, 2], [7, 7, 0]])
        seen = n_classes_seen(labels)
        """,
    ),
    case(
        "count-distinct-floats-unique-size-jit", "concretization-unique-size", setup=SETUP, offer="none",
        cell="""
        @jax.jit
        def n_levels(x):
            return jnp.unique(x).size

        levels = n_levels(jnp.array([0.5, jnp.nan, 0.5, jnp.nan, 2.0]))
        """,
        check="""
        assert int(levels) == 3, levels
        """,
        wrong_fix="""
        @jax.jit
        def n_levels(x):
            return jnp.unique(x, size=x.size).size

        levels = n_levels(jnp.array([0.5, jnp.nan, 0.5, jnp.nan, 2.0]))
        """,
    ),
    case(
        "active-ids-nonzero", "concretization-nonzero-size", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def active_ids(scores, threshold):
            (ids,) = jnp.nonzero(scores > threshold)
            return ids

        ids = active_ids(x, 0.5)
        """,
        check="""
        got = np.asarray(ids)
        want = np.nonzero(x_np > 0.5)[0]
        assert got.shape == (6,)
        np.testing.assert_array_equal(got[: len(want)], want)
        assert (got[len(want):] == -1).all()
        """,
        wrong_fix="""
        @jax.jit
        def active_ids(scores, threshold):
            (ids,) = jnp.nonzero(scores > threshold, size=2)
            return ids

        ids = active_ids(x, 0.5)
        """,
    ),
    case(
        "where-one-arg-coords", "concretization-nonzero-size",
        setup=_s(SETUP, """
        grid = jnp.array([[0, 1, 0], [1, 0, 1]])
        """),
        cell="""
        def occupied(grid):
            rows, cols = jnp.where(grid == 1)
            return jnp.stack([rows, cols], axis=1)

        coords = jax.jit(occupied)(grid)
        """,
        check="""
        got = np.asarray(coords)
        want = np.argwhere(np.array([[0, 1, 0], [1, 0, 1]]) == 1)
        np.testing.assert_array_equal(got[:3], want)
        assert (got[3:] == -1).all() and got.shape == (6, 2)
        """,
        wrong_fix="""
        def occupied(grid):
            rows, cols = jnp.where(grid == 1, size=2)
            return jnp.stack([rows, cols], axis=1)

        coords = jax.jit(occupied)(grid)
        """,
    ),
    case(
        "gather-selected-nonzero", "concretization-nonzero-size", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def selected_total(v):
            idx = jnp.nonzero(v > 0)[0]
            return v[idx].sum()

        tot = selected_total(x)
        """,
        check="""
        np.testing.assert_allclose(float(tot), x_np[x_np > 0].sum(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def selected_total(v):
            idx = jnp.nonzero(v > 0, size=v.size)[0]
            return v[idx].sum()

        tot = selected_total(x)
        """,
    ),
    case(
        "argwhere-peaks", "concretization-nonzero-size", setup=SETUP_DATA,
        cell="""
        import jax.numpy as np_j

        @jax.jit
        def peaks(signal):
            return np_j.argwhere(signal > 1.0)

        where_peaks = peaks(x)
        """,
        check="""
        got = np.asarray(where_peaks)
        want = np.argwhere(x_np > 1.0)
        np.testing.assert_array_equal(got[: len(want)], want)
        assert (got[len(want):] == -1).all()
        """,
        wrong_fix="""
        @jax.jit
        def peaks(signal):
            return np_j.argwhere(signal > 1.0, size=1)

        where_peaks = peaks(x)
        """,
    ),
    # ------------------------------------------------------------------ concretization-unique-size
    case(
        "classes-unique", "concretization-unique-size", setup=SETUP,
        cell="""
        @jax.jit
        def present_classes(labels):
            return jnp.unique(labels)

        classes = present_classes(jnp.array([3, 1, 3, 2, 1]))
        """,
        check="""
        got = np.asarray(classes)
        assert got.shape == (5,)
        np.testing.assert_array_equal(got[:3], [1, 2, 3])
        assert set(got.tolist()) == {1, 2, 3}
        """,
        wrong_fix="""
        @jax.jit
        def present_classes(labels):
            return jnp.unique(labels, size=2)

        classes = present_classes(jnp.array([3, 1, 3, 2, 1]))
        """,
    ),
    case(
        "unique-counts-metric", "concretization-unique-size", setup=SETUP,
        cell="""
        @jax.jit
        def label_histogram(labels):
            values, counts = jnp.unique(labels, return_counts=True)
            return values, counts

        vals, cnts = label_histogram(jnp.array([0, 2, 2, 5]))
        """,
        check="""
        v, c = np.asarray(vals), np.asarray(cnts)
        np.testing.assert_array_equal(v[:3], [0, 2, 5])
        np.testing.assert_array_equal(c[:3], [1, 2, 1])
        assert c.sum() == 4
        """,
        wrong_fix="""
        @jax.jit
        def label_histogram(labels):
            return jnp.unique(labels, return_counts=True, size=4, fill_value=0)[0], jnp.ones(4, int)

        vals, cnts = label_histogram(jnp.array([0, 2, 2, 5]))
        """,
    ),
    case(
        "num-distinct-len", "concretization-unique-size", setup=SETUP,
        cell="""
        @jax.jit
        def num_distinct(ids):
            return jnp.unique(ids).shape[0]

        k = num_distinct(jnp.array([4, 4, 1]))
        """,
        check="""
        assert int(k) == 2
        """,
        wrong_fix="""
        k = 3
        """,
    ),
    # ------------------------------------------------------------------ jit-static-argnames-unknown
    case(
        "argnames-typo-decorator", "jit-static-argnames-unknown", setup=_s(SETUP_DATA, """
        from functools import partial
        """),
        cell="""
        @partial(jax.jit, static_argnames=("num_layer",))
        def deep_scale(v, num_layers):
            for _ in range(num_layers):
                v = v * 2.0
            return v

        out = deep_scale(x, 3)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), x_np * 8.0)
        """,
        wrong_fix="""
        @partial(jax.jit, static_argnames=())
        def deep_scale(v, num_layers):
            return v * 2.0

        out = deep_scale(x, 3)
        """,
    ),
    case(
        "argnames-typo-jit-call", "jit-static-argnames-unknown", setup=SETUP_DATA,
        cell="""
        def rollout(v, steps):
            for _ in range(steps):
                v = jnp.tanh(v)
            return v

        rollout_jit = jax.jit(rollout, static_argnames="step")
        final = rollout_jit(x, 2)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(final), np.tanh(np.tanh(x_np)), rtol=1e-6)
        """,
        wrong_fix="""
        def rollout(v, steps):
            return jnp.tanh(v)

        rollout_jit = jax.jit(rollout)
        final = rollout_jit(x, 2)
        """,
    ),
    # ------------------------------------------------------------------ more contexts
    case(
        "mutated-model-method", "jit-method-self-argument", setup=SETUP_DATA,
        cell="""
        class LinearModel:
            def __init__(self, w):
                self.w = w

            @jax.jit
            def predict(self, v):
                return v @ self.w

        model = LinearModel(jnp.ones(3))
        for _ in range(2):
            preds = model.predict(data)
            model.w = model.w * 0.5   # shrink the weights each round
        """,
        check="""
        d = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(np.asarray(preds), d @ (0.5 * np.ones(3)))
        """,
        wrong_fix="""
        from functools import partial

        class LinearModel:
            def __init__(self, w):
                self.w = w

            @partial(jax.jit, static_argnums=0)
            def predict(self, v):
                return v @ self.w

        model = LinearModel(jnp.ones(3))
        for _ in range(2):
            preds = model.predict(data)
            model.w = model.w * 0.5
        """,
    ),
    case(
        "flatten-shape-concat", "jit-non-hashable-static-arg", setup=_s(SETUP_DATA, """
        from functools import partial
        """),
        cell="""
        @partial(jax.jit, static_argnames=("lead",))
        def flatten_tail(v, lead):
            return v.reshape(lead + [-1])

        flat = flatten_tail(data, lead=[2])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(flat), np.arange(12.0).reshape(2, -1))
        """,
        wrong_fix="""
        flat = data.reshape(-1)
        """,
    ),
    case(
        "prefix-until-argmax", "traced-slice-bounds", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def before_peak(v):
            return v[:jnp.argmax(v)]

        head = before_peak(x)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(head), x_np[:np.argmax(x_np)])
        """,
        wrong_fix="""
        head = x[:2]
        """,
    ),
    case(
        "grad-step-mask-add", "non-concrete-boolean-index", setup=_s(SETUP, """
        params = jnp.asarray(np.array([0.5, -1.0, 2.0, 0.0], dtype=np.float32))
        frozen = jnp.array([False, True, False, True])
        """),
        cell="""
        from jax import numpy as jnp

        def loss_fn(p):
            return jnp.sum(p ** 2)

        @jax.jit
        def sgd_step(p, frozen, lr):
            g = jax.grad(loss_fn)(p)
            trainable = ~frozen
            return p.at[trainable].add(-lr * g[trainable])

        new_params = sgd_step(params, frozen, 0.1)
        """,
        check="""
        p = np.array([0.5, -1.0, 2.0, 0.0], dtype=np.float32)
        ref = np.where(~np.array([False, True, False, True]), p - 0.1 * 2 * p, p)
        np.testing.assert_allclose(np.asarray(new_params), ref, rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def sgd_step(p, frozen, lr):
            g = jax.grad(loss_fn)(p)
            return p - lr * g

        new_params = sgd_step(params, frozen, 0.1)
        """,
    ),
    case(
        "vmapped-window-rows", "traced-slice-bounds", setup=_s(SETUP, """
        rows = jnp.asarray(np.arange(30.0, dtype=np.float32).reshape(3, 10))
        starts = jnp.array([0, 4, 7])
        """),
        cell="""
        def crop(row, start):
            return row[start:start + 3]

        crops = jax.jit(jax.vmap(crop))(rows, starts)
        """,
        check="""
        r = np.arange(30.0).reshape(3, 10)
        np.testing.assert_allclose(np.asarray(crops), np.stack([r[0, 0:3], r[1, 4:7], r[2, 7:10]]))
        """,
        wrong_fix="""
        def crop(row, start):
            return row[:3]

        crops = jax.jit(jax.vmap(crop))(rows, starts)
        """,
    ),
    case(
        "zeros-like-count-in-scan", "shape-not-concrete", setup=SETUP,
        cell="""
        @jax.jit
        def running_buffers(xs, width):
            def step(carry, x):
                buf = jnp.zeros(width) + x
                return carry + buf.sum(), buf
            return jax.lax.scan(step, 0.0, xs)

        total, bufs = running_buffers(jnp.arange(3.0), 2)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(bufs), np.repeat(np.arange(3.0)[:, None], 2, axis=1))
        np.testing.assert_allclose(float(total), 2 * (0 + 1 + 2))
        """,
        wrong_fix="""
        @jax.jit
        def running_buffers(xs, width):
            def step(carry, x):
                buf = jnp.zeros(1) + x
                return carry + buf.sum(), buf
            return jax.lax.scan(step, 0.0, xs)

        total, bufs = running_buffers(jnp.arange(3.0), 2)
        """,
    ),
    case(
        "trapezoid-grid-helper", "concretization-linspace-num", setup=SETUP,
        cell="""
        def make_grid(lo, hi, num):
            return jnp.linspace(lo, hi, num=num)

        @jax.jit
        def integrate(scale, num):
            xs = make_grid(0.0, 1.0, num=num)
            ys = scale * xs ** 2
            return jnp.sum((ys[1:] + ys[:-1]) * (xs[1:] - xs[:-1])) / 2

        area = integrate(3.0, 11)
        """,
        check="""
        g = np.linspace(0.0, 1.0, 11); ys = 3.0 * g ** 2
        np.testing.assert_allclose(float(area), np.sum((ys[1:] + ys[:-1]) * np.diff(g)) / 2, rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def integrate(scale, num):
            return scale / 3.0

        area = integrate(3.0, 11)
        """,
    ),
    case(
        "repeat-rows-axis-static", "concretization-repeat-total-length", setup=_s(SETUP_DATA, """
        from functools import partial
        """),
        cell="""
        @partial(jax.jit, static_argnames=("axis",))
        def tile_rows(v, k, axis=0):
            return jnp.repeat(v, repeats=k, axis=axis)

        tiled = tile_rows(data, 2)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(tiled), np.repeat(np.arange(12.0).reshape(4, 3), 2, axis=0))
        """,
        wrong_fix="""
        tiled = jnp.tile(data, (2, 1))
        """,
    ),
    case(
        "argnames-typo-factory", "jit-static-argnames-unknown", setup=SETUP_DATA,
        cell="""
        @jax.jit(static_argnames=("trainng",))
        def dropout_or_scale(v, key, training):
            if training:
                keep = jax.random.bernoulli(key, 0.5, v.shape)
                return jnp.where(keep, v * 2.0, 0.0)
            return v

        out = dropout_or_scale(x, jax.random.key(0), False)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), x_np)
        """,
        wrong_fix="""
        @jax.jit
        def dropout_or_scale(v, key, training):
            return v * 2.0

        out = dropout_or_scale(x, jax.random.key(0), False)
        """,
    ),
    case(
        "vocab-unique-ravel", "concretization-unique-size", setup=SETUP,
        cell="""
        @jax.jit
        def batch_vocab(token_grid):
            return jnp.unique(token_grid.ravel(), fill_value=-1)

        vocab = batch_vocab(jnp.array([[5, 3, 5], [7, 3, 3]]))
        """,
        check="""
        got = np.asarray(vocab)
        assert got.shape == (6,)
        np.testing.assert_array_equal(got[:3], [3, 5, 7])
        assert (got[3:] == -1).all()
        """,
        wrong_fix="""
        @jax.jit
        def batch_vocab(token_grid):
            return jnp.unique(token_grid.ravel(), size=3)

        vocab = batch_vocab(jnp.array([[5, 3, 5], [7, 4, 3]]))
        """,
    ),
    # ------------------------------------------------------------------ negatives
    case(
        "neg-undefined-seq-len", "negative", negative=True, setup=SETUP,
        cell="""
        @jax.jit
        def positions(x):
            return x + jnp.arange(seq_len)

        positions(jnp.ones(4))
        """,
    ),
    case(
        "neg-python-typeerror-config", "negative", negative=True, setup=SETUP,
        cell="""
        config = {"hidden": "128", "layers": 2}
        sizes = config["hidden"] * config["layers"] + 1
        buf = jnp.zeros(sizes)
        """,
    ),
    # ------------------------------------------------------------------ every shape argument (issue #17)
    case(
        "sinusoidal-positions-two-sizes", "concretization-arange", setup=SETUP,
        cell="""
        @jax.jit
        def sinusoidal_positions(seq_len, d_model):
            pos = jnp.arange(seq_len)[:, None]
            i = jnp.arange(0, d_model, 2)[None, :]
            angles = pos / (10000 ** (i / d_model))
            return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)

        pe = sinusoidal_positions(16, 8)
        """,
        check="""
        pos = np.arange(16)[:, None]; i = np.arange(0, 8, 2)[None, :]
        ang = pos / (10000 ** (i / 8))
        ref = np.concatenate([np.sin(ang), np.cos(ang)], axis=-1)
        assert pe.shape == (16, 8)
        np.testing.assert_allclose(np.asarray(pe), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        from functools import partial

        @partial(jax.jit, static_argnames=("seq_len",))
        def sinusoidal_positions(seq_len, d_model):
            pos = jnp.arange(seq_len)[:, None]
            i = jnp.arange(0, 8, 4)[None, :]
            angles = pos / (10000 ** (i / d_model))
            return jnp.concatenate([jnp.sin(angles), jnp.cos(angles)], axis=-1)

        pe = sinusoidal_positions(16, 8)
        """,
    ),
    case(
        "image-batch-three-sizes", "shape-not-concrete", setup=SETUP,
        cell="""
        @jax.jit
        def blank_images(batch, height, width):
            # a batch of black images with a white border
            img = jnp.zeros((batch, height, width))
            img = img.at[:, 0, :].set(1.0).at[:, -1, :].set(1.0)
            return img.at[:, :, 0].set(1.0).at[:, :, -1].set(1.0)

        imgs = blank_images(2, 4, 5)
        """,
        check="""
        ref = np.zeros((2, 4, 5)); ref[:, 0, :] = ref[:, -1, :] = ref[:, :, 0] = ref[:, :, -1] = 1.0
        assert imgs.shape == (2, 4, 5)
        np.testing.assert_allclose(np.asarray(imgs), ref)
        """,
        wrong_fix="""
        from functools import partial

        @partial(jax.jit, static_argnames=("batch",))
        def blank_images(batch, height, width):
            img = jnp.zeros((batch, 4, 4))
            img = img.at[:, 0, :].set(1.0).at[:, -1, :].set(1.0)
            return img.at[:, :, 0].set(1.0).at[:, :, -1].set(1.0)

        imgs = blank_images(2, 4, 5)
        """,
    ),
    case(
        "stride-from-data", "concretization-arange", setup=SETUP_DATA, offer="none",
        cell="""
        @jax.jit
        def every_kth(v, size):
            stride = jnp.argmax(v > 2.0) + 1   # the stride is read from the data
            return v[jnp.arange(0, size, stride)]

        picked = every_kth(x, 6)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(picked), x_np[0:6:4])
        """,
        wrong_fix="""
        picked = x[jnp.arange(0, 6, 1)]
        """,
    ),
    # ------------------------------------------------------------------ selections followed through the function
    case(
        "weighted-error-two-selections", "non-concrete-boolean-index", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def weighted_mse(pred, target, w, keep):
            e = pred[keep] - target[keep]
            ww = w[keep]
            return jnp.sum(ww * e ** 2) / jnp.sum(ww)

        w = jnp.linspace(0.5, 1.5, 6)
        loss = weighted_mse(x, 2 * x, w, x > 0)
        """,
        check="""
        m = x_np > 0
        ww = np.linspace(0.5, 1.5, 6)[m]
        np.testing.assert_allclose(float(loss), np.sum(ww * x_np[m] ** 2) / np.sum(ww), rtol=1e-5)
        """,
        wrong_fix="""
        @jax.jit
        def weighted_mse(pred, target, w, keep):
            e = pred - target
            return jnp.sum(w * e ** 2) / jnp.sum(w)

        w = jnp.linspace(0.5, 1.5, 6)
        loss = weighted_mse(x, 2 * x, w, x > 0)
        """,
    ),
    case(
        "flatnonzero-count-and-mean", "concretization-nonzero-size", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def above(v, thr):
            idx = jnp.flatnonzero(v > thr)
            return idx.size, v[idx].mean()

        n, avg = above(x, 0.5)
        """,
        check="""
        sel = x_np[x_np > 0.5]
        assert int(n) == sel.size
        np.testing.assert_allclose(float(avg), sel.mean(), rtol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def above(v, thr):
            idx = jnp.flatnonzero(v > thr, size=v.size)
            return idx.size, v[idx].mean()

        n, avg = above(x, 0.5)
        """,
    ),
    case(
        "nonzero-selection-returned", "concretization-nonzero-size", setup=SETUP_DATA, offer="none",
        cell="""
        @jax.jit
        def positives(v):
            sel = v[jnp.nonzero(v > 0)]
            return sel, sel.sum()

        pos, tot = positives(x)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(pos), x_np[x_np > 0])
        """,
        wrong_fix="""
        @jax.jit
        def positives(v):
            return v, v.sum()

        pos, tot = positives(x)
        """,
    ),
    # ------------------------------------------------------------------ siblings: the same error next
    case(
        "two-windows-same-traced-start", "traced-slice-bounds", setup=SETUP_DATA,
        cell="""
        @jax.jit
        def window_diffs(a, b):
            k = 3
            def body(i, acc):
                wa = a[i:i + k]
                wb = b[i:i + k]
                return acc.at[i].set(jnp.sum(wa - wb))
            return jax.lax.fori_loop(0, a.shape[0] - k + 1, body, jnp.zeros(a.shape[0] - k + 1))

        d = window_diffs(x, x[::-1])
        """,
        check="""
        a, b = x_np, x_np[::-1]
        ref = [np.sum(a[i:i + 3] - b[i:i + 3]) for i in range(4)]
        np.testing.assert_allclose(np.asarray(d), ref, rtol=1e-5, atol=1e-6)
        """,
        wrong_fix="""
        @jax.jit
        def window_diffs(a, b):
            return jnp.zeros(4)

        d = window_diffs(x, x[::-1])
        """,
    ),
    case(
        "two-static-lists-one-call", "jit-non-hashable-static-arg", setup=SETUP_DATA,
        cell="""
        from functools import partial

        @partial(jax.jit, static_argnames=("widths", "acts"))
        def stack_apply(v, widths, acts):
            for w, act in zip(widths, acts):
                v = act(v[:w])
            return v

        out = stack_apply(x, widths=[5, 3], acts=[jnp.tanh, jnp.abs])
        """,
        check="""
        np.testing.assert_allclose(np.asarray(out), np.abs(np.tanh(x_np[:5])[:3]), rtol=1e-6)
        """,
        wrong_fix="""
        out = jnp.abs(jnp.tanh(x[:5]))
        """,
    ),
    case(
        "mutated-integrator-substeps-method", "jit-method-self-argument", setup=SETUP,
        cell="""
        class Integrator:
            def __init__(self, rate, substeps):
                self.rate = rate
                self.substeps = substeps

            @jax.jit
            def advance(self, y):
                h = 0.1 / self.substeps
                for _ in range(self.substeps):
                    y = y - h * self.rate * y
                return y

        decay = Integrator(0.5, 4)
        y = jnp.ones(3)
        y1 = decay.advance(y)
        decay.rate = 2.0            # a faster decay for the second phase
        y2 = decay.advance(y1)
        """,
        check="""
        one = (1 - 0.025 * 0.5) ** 4
        two = (1 - 0.025 * 2.0) ** 4
        np.testing.assert_allclose(np.asarray(y1), np.full(3, one), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(y2), np.full(3, one * two), rtol=1e-6)
        """,
        wrong_fix="""
        from functools import partial

        class Integrator:
            def __init__(self, rate, substeps):
                self.rate = rate
                self.substeps = substeps

            @partial(jax.jit, static_argnums=0)
            def advance(self, y):
                h = 0.1 / self.substeps
                for _ in range(self.substeps):
                    y = y - h * self.rate * y
                return y

        decay = Integrator(0.5, 4)
        y = jnp.ones(3)
        y1 = decay.advance(y)
        decay.rate = 2.0
        y2 = decay.advance(y1)
        """,
    ),
    case(
        "mutated-method-attr-in-if", "jit-method-self-argument", setup=SETUP, offer="none",
        cell="""
        class Clipper:
            def __init__(self, limit):
                self.limit = limit

            @jax.jit
            def apply(self, g):
                if self.limit > 0:
                    g = jnp.clip(g, -self.limit, self.limit)
                return g

        clip = Clipper(1.0)
        g1 = clip.apply(jnp.array([-3.0, 0.5, 2.0]))
        clip.limit = 0.0
        g2 = clip.apply(jnp.array([-3.0, 0.5, 2.0]))
        """,
        check="""
        np.testing.assert_allclose(np.asarray(g1), [-1.0, 0.5, 1.0])
        np.testing.assert_allclose(np.asarray(g2), [-3.0, 0.5, 2.0])
        """,
    ),
    case(
        "static-arg-through-jnp-array-helper", "concretization-arange", setup=SETUP, offer="none",
        cell="""
        def euler_steps(span, h):
            n = ((span[1] - span[0]) / h).astype(int)
            return jnp.arange(n) * h

        @jax.jit
        def grid(t_end):
            return euler_steps(jnp.array([0.0, t_end]), 0.5)

        ts = grid(2.0)
        """,
        check="""
        np.testing.assert_allclose(np.asarray(ts), [0.0, 0.5, 1.0, 1.5])
        """,
    ),
]
