"""Relevance set for `jaxerrs.search`: realistic queries and the curated record each one means.

Each expected id was chosen by reading the records (the question the query asks), not by running
the engine. Kinds: natural words, pasted messages (exact and partial), whole pasted tracebacks
(captured by really running JAX 0.10.2 code, paths anonymised), exception class names, tags and
API names, and misspellings.

Used by tests/test_search.py (MRR, top-1) and benchmarks/bench_search.py (latency).
"""

from __future__ import annotations

# A script run with `python train.py` (JAX's default traceback filtering outside IPython).
TRACEBACK_PYTHON = """\
Traceback (most recent call last):
  File "/home/ana/project/train.py", line 16, in <module>
    print(step(params, jnp.ones((4, 3))))
          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/home/ana/project/train.py", line 11, in step
    if jnp.linalg.norm(g["w"]) > 1.0:
       ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced array with shape bool[].
The error occurred while tracing the function step at /home/ana/project/train.py:8 for jit. This concrete value was not available in Python because it depends on the values of the arguments params['w'] and x.
See https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError
"""

# The same kind of paste from terminal IPython (`ipython scan.py`), hidden frames and all.
TRACEBACK_IPYTHON = """\
---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
File /home/ana/project/scan.py:10
      7     return carry, x.sum()
      9 xs = jnp.arange(5.0)
---> 10 lax.scan(body, jnp.zeros(1), xs)

    [... skipping hidden 2 frame]

File ~/.venv/lib/python3.11/site-packages/jax/_src/lax/control_flow/loops.py:615, in _check_carry_type(name, body_fun, in_carry, out_carry)
    611 if pvary_msg:
    612   pvary_msg += ("See https://docs.jax.dev/en/latest/notebooks/shard_map.html#scan-vma "
    613                 "for more information.\\n\\n")
--> 615 raise TypeError(
    616     f"{name} function carry input and carry output must have equal types, "
    617     "but they differ:\\n\\n"
    618     f"{differences}\\n"
    619     f"{pvary_msg}"
    620     "Revise the function so that all output types match the corresponding "
    621     "input types.")

TypeError: scan body function carry input and carry output must have equal types, but they differ:

The input carry carry has type float32[1] but the corresponding output carry component has type float32[2], so the shapes do not match.

Revise the function so that all output types match the corresponding input types.
"""

# (query, expected record id, kind)
CASES: list[tuple[str, str, str]] = [
    # --- natural words -------------------------------------------------------------------
    ("python if on traced value", "tracer-bool-conversion", "words"),
    ("dot shapes mismatch", "dot-general-contracting-mismatch", "words"),
    ("remat custom_vjp hessian", "custom-vjp-optimize-remat-higher-order", "words"),
    ("grad of a function that returns a vector", "grad-non-scalar-output", "words"),
    ("grad returns loss and metrics tuple", "grad-output-tuple-needs-has-aux", "words"),
    ("assign into array x[i] = v", "jax-array-immutable-setitem", "words"),
    ("np.asarray inside jit", "tracer-array-conversion", "words"),
    ("range over a traced integer", "tracer-integer-conversion", "words"),
    ("boolean mask indexing inside jit", "non-concrete-boolean-index", "words"),
    ("jnp.unique under jit needs size", "concretization-unique-size", "words"),
    ("reshape to a different number of elements", "reshape-size-mismatch", "words"),
    ("scan carry shape changes every step", "scan-carry-shape-mismatch", "words"),
    ("gradient through while_loop", "while-loop-reverse-mode", "words"),
    ("cond branches return different dtypes", "cond-branch-output-types", "words"),
    ("tree map over dicts with different keys", "tree-map-dict-keys-mismatch", "words"),
    ("out of memory on the GPU", "gpu-out-of-memory", "words"),
    ("jaxlib is older than jax requires", "jaxlib-version-too-old", "words"),
    ("jit decorator on a class method self", "jit-method-self-argument", "words"),
    ("list passed as a static argument", "jit-non-hashable-static-arg", "words"),
    ("same random key used twice", "key-reuse-consumed", "words"),
    ("seed the PRNG key with a float", "prng-seed-not-integer", "words"),
    ("pass an integer seed instead of a key to random.normal", "prng-key-not-array", "words"),
    ("vmap mapped axes have different sizes", "vmap-inconsistent-sizes", "words"),
    ("vmap in_axes tuple has the wrong length", "vmap-in-axes-length-mismatch", "words"),
    ("einsum number of subscripts does not equal number of operands", "einsum-operand-count", "words"),
    ("concatenate arrays with different number of dimensions", "concatenate-rank-mismatch", "words"),
    ("stack arrays of different shapes", "stack-shape-mismatch", "words"),
    ("jnp.array of a ragged nested list", "ragged-nested-list", "words"),
    ("tracer saved to a global list leaked", "unexpected-tracer-leak", "words"),
    ("psum axis name not bound under vmap", "collective-unbound-axis-name", "words"),
    ("differentiate through pure_callback", "pure-callback-no-jvp", "words"),
    ("vmap over an ordered io_callback", "io-callback-ordered-vmap", "words"),
    ("shard_map without a mesh", "shard-map-no-mesh", "words"),
    ("array dimension not divisible by the mesh axis", "sharding-dim-not-divisible", "words"),
    ("print an array after donating it", "array-deleted", "words"),
    ("export a function that is not jitted", "export-requires-jit", "words"),
    ("custom_jvp rule must return a pair", "custom-jvp-rule-not-pair", "words"),
    ("custom_vjp bwd returns wrong number of cotangents", "custom-vjp-bwd-wrong-structure", "words"),
    ("index an array with a float", "non-integer-index", "words"),
    ("slice x[:n] with traced n inside jit", "traced-slice-bounds", "words"),
    ("jnp.zeros with a traced shape", "shape-not-concrete", "words"),
    ("jax.tree_map was removed", "removed-jax-tree-functions", "words"),
    ("vmap a scalar argument along axis 0", "vmap-axis-out-of-range", "words"),
    # --- pasted messages: exact ----------------------------------------------------------
    ("TypeError: Gradient only defined for scalar-output functions. Output had shape: (4,).",
     "grad-non-scalar-output", "message"),
    ("TypeError: add got incompatible shapes for broadcasting: (3,), (4,).", "binary-op-incompatible-shapes",
     "message"),
    ("TypeError: cannot reshape array of shape (6,) (size 6) into shape (4, 2) (size 8)", "reshape-size-mismatch",
     "message"),
    ("IndexError: Too many indices: array is 1-dimensional, but 2 were indexed", "too-many-indices", "message"),
    ("ValueError: vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument w of type float32[3];\n"
     "  * one axis had size 8: axis 0 of argument x of type float32[8,3]", "vmap-inconsistent-sizes", "message"),
    ("jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be concrete; got bool[3]",
     "non-concrete-boolean-index", "message"),
    ("ValueError: pytree structure error: different lengths of list at key path\n    tree_map tree\n"
     "At that key path, the prefix pytree tree_map tree has a subtree of type list of length 2, but the full "
     "pytree has a subtree of the same type but of length 3.", "tree-map-list-length-mismatch", "message"),
    ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
     "17179869184 bytes.", "gpu-out-of-memory", "message"),
    ("TypeError: scan body output must be a pair, got float32[].", "scan-body-not-pair", "message"),
    # --- pasted messages: partial (no class, a fragment) ---------------------------------
    ("dot_general requires contracting dimensions to have the same shape", "dot-general-contracting-mismatch",
     "partial"),
    ("Non-hashable static arguments are not supported", "jit-non-hashable-static-arg", "partial"),
    ("JAX arrays are immutable and do not support in-place item assignment", "jax-array-immutable-setitem",
     "partial"),
    ("module 'jax' has no attribute 'tree_map'", "removed-jax-tree-functions", "partial"),
    ("Abstract tracer value encountered where concrete value is expected", "concretization-abstract-tracer",
     "partial"),
    ("Shapes must be 1D sequences of concrete values of integer type", "shape-not-concrete", "partial"),
    ("cond branches must have equal output types", "cond-branch-output-types", "partial"),
    ("The numpy.ndarray conversion method __array__() was called on traced array", "tracer-array-conversion",
     "partial"),
    # --- whole tracebacks ----------------------------------------------------------------
    (TRACEBACK_PYTHON, "tracer-bool-conversion", "traceback"),
    (TRACEBACK_IPYTHON, "scan-carry-shape-mismatch", "traceback"),
    # --- class names ---------------------------------------------------------------------
    ("TracerBoolConversionError", "tracer-bool-conversion", "class"),
    ("TracerIntegerConversionError", "tracer-integer-conversion", "class"),
    ("TracerArrayConversionError", "tracer-array-conversion", "class"),
    ("NonConcreteBooleanIndexError", "non-concrete-boolean-index", "class"),
    ("UnexpectedTracerError", "unexpected-tracer-leak", "class"),
    ("TypePromotionError", "dtype-promotion-strict", "class"),
    ("DuplicateSpecError", "partitionspec-duplicate-mesh-axis", "class"),
    ("CustomVJPException", "custom-vjp-closed-over-value", "class"),
    # --- tags and API names --------------------------------------------------------------
    ("holomorphic", "grad-holomorphic-needs-complex", "tag"),
    ("float0 tangent", "jvp-tangent-dtype-mismatch", "tag"),
    ("flatbuffers", "export-serialization-needs-flatbuffers", "tag"),
    ("tree_multimap", "removed-tree-multimap", "tag"),
    ("checkify division", "checkify-division-by-zero", "tag"),
    ("debug_nans", "debug-nans-invalid-value", "tag"),
    ("ffi handler custom_call", "ffi-handler-not-found", "tag"),
    ("cudnn", "cuda-backend-init-failed", "tag"),
    # --- misspellings --------------------------------------------------------------------
    ("tracr bool converson", "tracer-bool-conversion", "typo"),
    ("concatinate zero dimensonal array", "concatenate-zero-dim", "typo"),
    ("donatd bufer reused", "donated-buffer-reused", "typo"),
    ("reshpe size mismatch", "reshape-size-mismatch", "typo"),
    ("non hashble static argumnt", "jit-non-hashable-static-arg", "typo"),
    ("gradeint of scaler output", "grad-non-scalar-output", "typo"),
    ("einsum subscirpt rank", "einsum-subscript-rank", "typo"),
    ("shard_map out_specs replicaton", "shard-map-out-specs-replication", "typo"),
]

QUERIES = [q for q, _, _ in CASES]
