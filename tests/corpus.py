"""A labelled corpus of real JAX errors (and look-alike non-JAX errors), measured on JAX 0.10.2 (CPU).

Each ``Case`` holds a short, self-contained snippet that raises when exec'd (see
``corpus_harness.run_case``). For a JAX error, ``path``/``function`` label its raise site:
the innermost traceback frame, which lies inside the ``jax``/``jaxlib`` package with no
user frame below it; ``path`` is relative to site-packages with forward slashes and
``function`` is that frame's ``co_qualname``. For errors raised from C++ (JaxRuntimeError,
the C++ pytree code, ``np.asarray`` inside jax, ...) that is the innermost jax Python frame,
the one that called into C++.

Labels were read off real tracebacks taken with ``JAX_TRACEBACK_FILTERING=tracebackhide``
(which keeps every frame) and checked against the source; re-check them with
``python3 tests/corpus_harness.py --verify``.

``devices=4`` cases need 4 CPU devices: run them in a process started with
``XLA_FLAGS=--xla_force_host_platform_device_count=4`` (set before jax is imported).

Negative cases (``is_jax=False``) raise errors that are not JAX errors even though the
code uses jax: the user's own ``raise``, Python errors in the user's traced code, numpy's
own errors. Their innermost frame is the user's code (or numpy's), and their class is not
defined in jax.

Snippets that change global config use context managers (``with jax.debug_nans(True):``),
so the cases can run one after another in a single process.
"""

from __future__ import annotations

import dataclasses
import textwrap


@dataclasses.dataclass(frozen=True)
class Case:
    name: str  # "<family>.<what>"; family is the part before the first dot
    code: str  # dedented on construction
    is_jax: bool
    path: str | None  # raise site, relative to site-packages, e.g. "jax/_src/core.py"
    function: str | None  # co_qualname of the raise-site frame
    devices: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", textwrap.dedent(self.code).strip("\n") + "\n")
        if self.is_jax and (self.path is None or self.function is None):
            raise ValueError(f"JAX case {self.name} needs path and function")
        if not self.is_jax and (self.path is not None or self.function is not None):
            raise ValueError(f"non-JAX case {self.name} must have path=function=None")

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]


CASES: list[Case] = [
    # ----------------------------------------------------------------------
    # jit and tracing: tracer conversion, concretization, static arguments
    Case(
        "jit.bool_conversion",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x
        f(jnp.float32(1.0))
        """,
        True,
        "jax/_src/core.py",
        "concretization_function_error.<locals>.error",
    ),
    Case(
        "jit.int_conversion",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return [0, 1, 2][x]
        f(jnp.int32(1))
        """,
        True,
        "jax/_src/core.py",
        "concretization_function_error.<locals>.error",
    ),
    Case(
        "jit.array_conversion",
        """
        import jax, jax.numpy as jnp, numpy as np
        @jax.jit
        def f(x):
            return np.sin(np.asarray(x))
        f(jnp.ones(3))
        """,
        True,
        "jax/_src/core.py",
        "Tracer.__array__",
    ),
    Case(
        "jit.float_conversion",
        """
        import jax, jax.numpy as jnp, math
        @jax.jit
        def f(x):
            return math.exp(x)
        f(jnp.float32(1.0))
        """,
        True,
        "jax/_src/core.py",
        "concretization_function_error.<locals>.error",
    ),
    Case(
        "jit.shape_from_tracer",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(n):
            return jnp.zeros(n)
        f(3)
        """,
        True,
        "jax/_src/core.py",
        "canonicalize_shape",
    ),
    Case(
        "jit.arange_traced",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(n):
            return jnp.arange(n)
        f(5)
        """,
        True,
        "jax/_src/core.py",
        "concrete_or_error",
    ),
    Case(
        "jit.reshape_traced_shape",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x, n):
            return x.reshape(n, -1)
        f(jnp.ones(6), 2)
        """,
        True,
        "jax/_src/core.py",
        "canonicalize_shape",
    ),
    Case(
        "jit.invalid_arg_type",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return x
        f("hello")
        """,
        True,
        "jax/_src/pjit.py",
        "_infer_input_type",
    ),
    Case(
        "jit.invalid_output_type",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return "done"
        f(jnp.ones(2))
        """,
        True,
        "jax/_src/interpreters/partial_eval.py",
        "_check_returned_jaxtypes",
    ),
    Case(
        "jit.unexpected_tracer",
        """
        import jax, jax.numpy as jnp
        leaked = []
        @jax.jit
        def f(x):
            leaked.append(x)
            return x
        f(jnp.ones(2))
        jnp.sin(leaked[0])
        """,
        True,
        "jax/_src/core.py",
        "check_eval_args",
    ),
    Case(
        "jit.boolean_mask_index",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return x[x > 0]
        f(jnp.arange(4.0))
        """,
        True,
        "jax/_src/numpy/indexing.py",
        "NDIndexer.expand_bool_indices",
    ),
    Case(
        "jit.nonzero_no_size",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.nonzero(x)
        f(jnp.arange(4))
        """,
        True,
        "jax/_src/core.py",
        "concrete_or_error",
    ),
    Case(
        "jit.iterate_scalar",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return [v for v in x]
        f(jnp.float32(1.0))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_iter",
    ),
    Case(
        "jit.len_scalar",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return x * len(x)
        f(jnp.float32(1.0))
        """,
        True,
        "jax/_src/core.py",
        "ShapedArray._len",
    ),
    Case(
        "jit.static_argnums_out_of_range",
        """
        import jax, jax.numpy as jnp
        def f(x):
            return x
        jax.jit(f, static_argnums=3)(jnp.ones(2))
        """,
        True,
        "jax/_src/api_util.py",
        "_validate_argnums",
    ),
    Case(
        "jit.donate_and_static",
        """
        import jax, jax.numpy as jnp
        def f(x, y):
            return x + y
        jax.jit(f, static_argnums=0, donate_argnums=0)(1, jnp.ones(2))
        """,
        True,
        "jax/_src/api_util.py",
        "_assert_no_intersection",
    ),
    Case(
        "jit.static_arg_unhashable_lower",
        """
        import jax, jax.numpy as jnp
        from functools import partial
        @partial(jax.jit, static_argnums=1)
        def f(x, cfg):
            return x * len(cfg)
        f.lower(jnp.ones(3), [1, 2])
        """,
        True,
        "jax/_src/pjit.py",
        "_infer_params",
    ),
    Case(
        "jit.compiled_wrong_arg",
        """
        import jax, jax.numpy as jnp
        compiled = jax.jit(jnp.sin).lower(jnp.ones(3)).compile()
        compiled(jnp.ones(4))
        """,
        True,
        "jax/_src/interpreters/pxla.py",
        "check_arg_avals_for_call",
    ),
    Case(
        "jit.item_in_jit",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.zeros(x.sum().item())
        f(jnp.ones(3, jnp.int32))
        """,
        True,
        "jax/_src/core.py",
        "concrete_or_error",
    ),
    Case(
        "jit.unknown_backend",
        """
        import jax
        jax.devices("tpu")
        """,
        True,
        "jax/_src/xla_bridge.py",
        "_get_backend_uncached",
    ),
    # ----------------------------------------------------------------------
    # concrete arrays used as Python values
    Case(
        "eager.bool_of_array",
        """
        import jax.numpy as jnp
        x = jnp.ones(3)
        if x > 0:
            pass
        """,
        True,
        "jax/_src/core.py",
        "check_bool_conversion",
    ),
    Case(
        "eager.float_of_array",
        """
        import jax.numpy as jnp
        float(jnp.ones(3))
        """,
        True,
        "jax/_src/core.py",
        "check_scalar_conversion",
    ),
    Case(
        "eager.device_put_bad_device",
        """
        import jax, jax.numpy as jnp
        jax.device_put(jnp.ones(3), "cpu:0")
        """,
        True,
        "jax/_src/api.py",
        "_check_sharding",
    ),
    # ----------------------------------------------------------------------
    # jax.numpy shapes, dtypes, indexing
    Case(
        "jnp.at_bad_mode",
        """
        import jax, jax.numpy as jnp
        x = jnp.ones(3)
        x.at[0].set(1.0, mode="nonsense")
        """,
        True,
        "jax/_src/lax/slicing.py",
        "GatherScatterMode.from_any",
    ),
    Case(
        "jnp.reshape_bad_size",
        """
        import jax.numpy as jnp
        jnp.arange(6).reshape(4, 2)
        """,
        True,
        "jax/_src/numpy/array_methods.py",
        "_compute_newshape",
    ),
    Case(
        "jnp.broadcast_add",
        """
        import jax.numpy as jnp
        jnp.ones(3) + jnp.ones(4)
        """,
        True,
        "jax/_src/lax/lax.py",
        "_try_broadcast_shapes",
    ),
    Case(
        "jnp.dot_mismatch",
        """
        import jax.numpy as jnp
        jnp.dot(jnp.ones((2, 3)), jnp.ones((4, 5)))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_dot_general_shape_rule",
    ),
    Case(
        "jnp.matmul_mismatch",
        """
        import jax.numpy as jnp
        jnp.ones((2, 3)) @ jnp.ones((4, 5))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_dot_general_shape_rule",
    ),
    Case(
        "jnp.matmul_scalar",
        """
        import jax.numpy as jnp
        jnp.matmul(jnp.ones(3), 2.0)
        """,
        True,
        "jax/_src/numpy/tensor_contractions.py",
        "matmul",
    ),
    Case(
        "jnp.concatenate_mismatch",
        """
        import jax.numpy as jnp
        jnp.concatenate([jnp.ones((2, 3)), jnp.ones((2, 4))])
        """,
        True,
        "jax/_src/lax/lax.py",
        "_concatenate_shape_rule",
    ),
    Case(
        "jnp.concatenate_rank",
        """
        import jax.numpy as jnp
        jnp.concatenate([jnp.ones((2, 3)), jnp.ones(3)])
        """,
        True,
        "jax/_src/lax/lax.py",
        "_concatenate_shape_rule",
    ),
    Case(
        "jnp.stack_mismatch",
        """
        import jax.numpy as jnp
        jnp.stack([jnp.ones(2), jnp.ones(3)])
        """,
        True,
        "jax/_src/lax/lax.py",
        "_stack_shape_rule",
    ),
    Case(
        "jnp.array_of_strings",
        """
        import jax.numpy as jnp
        jnp.array(["a", "b"])
        """,
        True,
        "jax/_src/dtypes.py",
        "dtype",
    ),
    Case(
        "jnp.ragged_list",
        """
        import jax.numpy as jnp
        jnp.array([[1, 2], [3]])
        """,
        True,
        "jax/_src/numpy/array_constructors.py",
        "array",
    ),
    Case(
        "jnp.float_index",
        """
        import jax.numpy as jnp
        jnp.arange(4)[1.5]
        """,
        True,
        "jax/_src/numpy/indexing.py",
        "IndexType.from_index",
    ),
    Case(
        "jnp.too_many_indices",
        """
        import jax.numpy as jnp
        jnp.arange(4)[0, 0]
        """,
        True,
        "jax/_src/numpy/indexing.py",
        "_parse_indices",
    ),
    Case(
        "jnp.setitem_immutable",
        """
        import jax.numpy as jnp
        x = jnp.zeros(3)
        x[0] = 1.0
        """,
        True,
        "jax/_src/numpy/array_methods.py",
        "_unimplemented_setitem",
    ),
    Case(
        "jnp.rank_promotion_raise",
        """
        import jax, jax.numpy as jnp
        with jax.numpy_rank_promotion("raise"):
            jnp.ones(3) + jnp.ones((2, 3))
        """,
        True,
        "jax/_src/numpy/util.py",
        "_rank_promotion_warning_or_error",
    ),
    Case(
        "jnp.dtype_promotion_strict",
        """
        import jax, jax.numpy as jnp
        with jax.numpy_dtype_promotion("strict"):
            jnp.int32(1) + jnp.float32(1)
        """,
        True,
        "jax/_src/dtypes.py",
        "_least_upper_bound",
    ),
    Case(
        "jnp.transpose_bad_axes",
        """
        import jax.numpy as jnp
        jnp.transpose(jnp.ones((2, 3)), (0, 0))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_transpose_shape_rule",
    ),
    Case(
        "jnp.sum_axis_out_of_range",
        """
        import jax.numpy as jnp
        jnp.sum(jnp.ones((2, 3)), axis=2)
        """,
        True,
        "jax/_src/util.py",
        "canonicalize_axis",
    ),
    Case(
        "jnp.split_uneven",
        """
        import jax.numpy as jnp
        jnp.split(jnp.arange(5), 2)
        """,
        True,
        "jax/_src/numpy/lax_numpy.py",
        "_split",
    ),
    Case(
        "jnp.inv_nonsquare",
        """
        import jax.numpy as jnp
        jnp.linalg.inv(jnp.ones((2, 3)))
        """,
        True,
        "jax/_src/numpy/linalg.py",
        "inv",
    ),
    Case(
        "jnp.astype_bad_dtype",
        """
        import jax.numpy as jnp
        jnp.ones(3).astype("not_a_dtype")
        """,
        True,
        "jax/_src/dtypes.py",
        "issubdtype",
    ),
    Case(
        "jnp.int_overflow",
        """
        import jax.numpy as jnp
        jnp.array(2 ** 70)
        """,
        True,
        "jax/_src/core.py",
        "Primitive.bind",
    ),
    Case(
        "jnp.pad_bad_mode",
        """
        import jax.numpy as jnp
        jnp.pad(jnp.ones(3), 1, mode="bogus")
        """,
        True,
        "jax/_src/numpy/lax_numpy.py",
        "pad",
    ),
    Case(
        "jnp.squeeze_non_unit",
        """
        import jax.numpy as jnp
        jnp.squeeze(jnp.ones((2, 3)), axis=0)
        """,
        True,
        "jax/_src/lax/lax.py",
        "_compute_squeeze_shape",
    ),
    Case(
        "jnp.unique_in_jit",
        """
        import jax, jax.numpy as jnp
        jax.jit(jnp.unique)(jnp.array([1, 1, 2]))
        """,
        True,
        "jax/_src/core.py",
        "concrete_or_error",
    ),
    Case(
        "jnp.take_bad_mode",
        """
        import jax.numpy as jnp
        jnp.take(jnp.arange(3), jnp.array([0]), mode="bogus")
        """,
        True,
        "jax/_src/numpy/indexing.py",
        "_take",
    ),
    Case(
        "jnp.zeros_negative",
        """
        import jax.numpy as jnp
        jnp.zeros((-1, 2))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_check_shapelike",
    ),
    Case(
        "jnp.zeros_float_shape",
        """
        import jax.numpy as jnp
        jnp.zeros((2.5, 2))
        """,
        True,
        "jax/_src/core.py",
        "canonicalize_shape",
    ),
    Case(
        "jnp.reshape_two_unknown",
        """
        import jax.numpy as jnp
        jnp.ones(12).reshape(2, -1, -1)
        """,
        True,
        "jax/_src/numpy/array_methods.py",
        "_compute_newshape",
    ),
    Case(
        "jnp.broadcast_to_bad",
        """
        import jax.numpy as jnp
        jnp.broadcast_to(jnp.ones(3), (4,))
        """,
        True,
        "jax/_src/lax/lax.py",
        "broadcast_to",
    ),
    Case(
        "jnp.bool_index_shape",
        """
        import jax.numpy as jnp
        jnp.ones(3)[jnp.array([True, False])]
        """,
        True,
        "jax/_src/numpy/indexing.py",
        "NDIndexer.expand_bool_indices",
    ),
    Case(
        "jnp.solve_mismatch",
        """
        import jax.numpy as jnp
        jnp.linalg.solve(jnp.eye(3), jnp.ones(4))
        """,
        True,
        "jax/_src/numpy/vectorize.py",
        "_update_dim_sizes",
    ),
    Case(
        "jnp.fft_bad_norm",
        """
        import jax.numpy as jnp
        jnp.fft.fft(jnp.ones(4), norm="bogus")
        """,
        True,
        "jax/_src/numpy/fft.py",
        "_fft_norm",
    ),
    Case(
        "jnp.repeat_traced",
        """
        import jax, jax.numpy as jnp
        jax.jit(lambda x, n: jnp.repeat(x, n))(jnp.ones(3), 2)
        """,
        True,
        "jax/_src/core.py",
        "concrete_or_error",
    ),
    Case(
        "jnp.moveaxis_bad",
        """
        import jax.numpy as jnp
        jnp.moveaxis(jnp.ones((2, 3)), (0, 1), (0,))
        """,
        True,
        "jax/_src/numpy/lax_numpy.py",
        "_moveaxis",
    ),
    # ----------------------------------------------------------------------
    # jax.lax primitives
    Case(
        "lax.add_dtype_mismatch",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.add(jnp.int32(1), jnp.float32(1))
        """,
        True,
        "jax/_src/lax/lax.py",
        "check_same_dtypes",
    ),
    Case(
        "lax.dot_general_bad_dims",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.dot_general(jnp.ones((2, 3)), jnp.ones((4, 3)), (((1,), (0,)), ((), ())))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_dot_general_shape_rule",
    ),
    Case(
        "lax.conv_bad_rank",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.conv(jnp.ones((1, 1, 8)), jnp.ones((1, 1, 3, 3)), (1, 1), "SAME")
        """,
        True,
        "jax/_src/lax/convolution.py",
        "conv_dimension_numbers",
    ),
    Case(
        "lax.reshape_bad_size",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.reshape(jnp.ones(6), (4, 2))
        """,
        True,
        "jax/_src/interpreters/mlir.py",
        "lower_jaxpr_to_module",
    ),
    Case(
        "lax.broadcast_in_dim_bad",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.broadcast_in_dim(jnp.ones(3), (2, 4), (1,))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_broadcast_in_dim_shape_rule",
    ),
    Case(
        "lax.dynamic_slice_too_big",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.dynamic_slice(jnp.ones(4), (0,), (5,))
        """,
        True,
        "jax/_src/lax/slicing.py",
        "_dynamic_slice_shape_rule",
    ),
    Case(
        "lax.psum_unbound_axis",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.psum(jnp.ones(3), "i")
        """,
        True,
        "jax/_src/core.py",
        "AxisEnv.axis_size",
    ),
    Case(
        "lax.select_pred_dtype",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.select(jnp.ones(3), jnp.ones(3), jnp.zeros(3))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_select_dtype_rule",
    ),
    Case(
        "lax.transpose_bad_perm",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.transpose(jnp.ones((2, 3)), (0, 2))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_transpose_shape_rule",
    ),
    Case(
        "lax.sort_bad_dimension",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.sort(jnp.ones(3), dimension=2)
        """,
        True,
        "jax/_src/util.py",
        "canonicalize_axis",
    ),
    Case(
        "lax.pad_bad_config",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.pad(jnp.ones(3), 0.0, [(1, 1, 0), (1, 1, 0)])
        """,
        True,
        "jax/_src/lax/lax.py",
        "_pad_shape_rule",
    ),
    Case(
        "lax.cumsum_bad_axis",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.cumsum(jnp.ones(3), axis=1)
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_cumred_shape_rule",
    ),
    Case(
        "lax.reduce_bad_axes",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.reduce_sum(jnp.ones(3), axes=(1,))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_reduce_op_shape_rule",
    ),
    Case(
        "lax.dynamic_update_slice_rank",
        """
        import jax.numpy as jnp
        from jax import lax
        lax.dynamic_update_slice(jnp.ones((3, 3)), jnp.ones(2), (0, 0))
        """,
        True,
        "jax/_src/lax/slicing.py",
        "_dynamic_update_slice_shape_rule",
    ),
    Case(
        "lax.fori_float_bounds",
        """
        import jax
        jax.lax.fori_loop(0, 2.5, lambda i, c: c, 0.0)
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "fori_loop",
    ),
    Case(
        "lax.axis_index_unbound",
        """
        import jax
        jax.jit(lambda x: x + jax.lax.axis_index("i"))(1.0)
        """,
        True,
        "jax/_src/lax/parallel.py",
        "_check_axis_names",
    ),
    # ----------------------------------------------------------------------
    # vmap
    Case(
        "vmap.inconsistent_sizes",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
        """,
        True,
        "jax/_src/api.py",
        "_mapped_axis_size",
    ),
    Case(
        "vmap.axis_out_of_range",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a: a, in_axes=1)(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "_mapped_axis_size.<locals>._get_axis_size",
    ),
    Case(
        "vmap.in_axes_tree_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a, b: a + b, in_axes=(0, 0, 0))(jnp.ones(3), jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "vmap.<locals>.vmap_f",
    ),
    Case(
        "vmap.all_none",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a: a, in_axes=None)(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "_mapped_axis_size",
    ),
    Case(
        "vmap.out_axes_none_mapped",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a: a, out_axes=None)(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "vmap.<locals>.vmap_f",
    ),
    Case(
        "vmap.float_in_axes",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda a: a, in_axes=0.5)(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "vmap",
    ),
    Case(
        "vmap.no_args",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda: 1.0)()
        """,
        True,
        "jax/_src/api.py",
        "_mapped_axis_size",
    ),
    # ----------------------------------------------------------------------
    # grad / vjp / jvp
    Case(
        "grad.nonscalar_output",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 2)(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "_check_scalar",
    ),
    Case(
        "grad.integer_input",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 2)(3)
        """,
        True,
        "jax/_src/api.py",
        "_check_input_dtype_revderiv",
    ),
    Case(
        "grad.argnums_out_of_range",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 2.0, argnums=1)(1.0)
        """,
        True,
        "jax/_src/api.py",
        "value_and_grad.<locals>.value_and_grad_f",
    ),
    Case(
        "grad.has_aux_not_pair",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 2.0, has_aux=True)(1.0)
        """,
        True,
        "jax/_src/interpreters/ad.py",
        "linearize",
    ),
    Case(
        "grad.complex_output",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 1j)(1.0)
        """,
        True,
        "jax/_src/api.py",
        "_check_output_dtype_revderiv",
    ),
    Case(
        "grad.holomorphic_real_input",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: x * 2.0, holomorphic=True)(1.0)
        """,
        True,
        "jax/_src/api.py",
        "_check_input_dtype_revderiv",
    ),
    Case(
        "grad.integer_output",
        """
        import jax, jax.numpy as jnp
        jax.grad(lambda x: jnp.sum(x).astype(jnp.int32))(jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "_check_output_dtype_revderiv",
    ),
    Case(
        "grad.jvp_shape_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(4),))
        """,
        True,
        "jax/_src/api.py",
        "_jvp",
    ),
    Case(
        "grad.jvp_dtype_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.jvp(jnp.sin, (jnp.ones(3, jnp.float32),), (jnp.ones(3, jnp.int32),))
        """,
        True,
        "jax/_src/api.py",
        "_jvp",
    ),
    Case(
        "grad.jvp_primals_not_tuple",
        """
        import jax, jax.numpy as jnp
        jax.jvp(jnp.sin, jnp.ones(3), jnp.ones(3))
        """,
        True,
        "jax/_src/api.py",
        "jvp",
    ),
    Case(
        "grad.vjp_cotangent_shape",
        """
        import jax, jax.numpy as jnp
        _, pullback = jax.vjp(jnp.sin, jnp.ones(3))
        pullback(jnp.ones(4))
        """,
        True,
        "jax/_src/api.py",
        "_vjp_check_ct_avals",
    ),
    Case(
        "grad.while_loop_reverse",
        """
        import jax, jax.numpy as jnp
        def f(x):
            return jax.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
        jax.grad(f)(1.0)
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_while_transpose_error",
    ),
    Case(
        "grad.jacrev_int_input",
        """
        import jax, jax.numpy as jnp
        jax.jacrev(lambda x: x * 2)(jnp.arange(3))
        """,
        True,
        "jax/_src/api.py",
        "_check_input_dtype_revderiv",
    ),
    Case(
        "grad.jacfwd_int_input",
        """
        import jax, jax.numpy as jnp
        jax.jacfwd(lambda x: x * 2)(jnp.arange(3))
        """,
        True,
        "jax/_src/api.py",
        "_check_input_dtype_jacfwd",
    ),
    Case(
        "grad.value_and_grad_aux",
        """
        import jax, jax.numpy as jnp
        jax.value_and_grad(lambda x: (x, x, x), has_aux=True)(1.0)
        """,
        True,
        "jax/_src/interpreters/ad.py",
        "linearize",
    ),
    # ----------------------------------------------------------------------
    # custom_jvp / custom_vjp
    Case(
        "custom.vjp_fwd_not_pair",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x):
            return jnp.sin(x)
        f.defvjp(lambda x: jnp.sin(x), lambda res, g: (g,))
        jax.grad(f)(1.0)
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_fwd",
    ),
    Case(
        "custom.vjp_bwd_wrong_structure",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x, y):
            return x * y
        f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g,))
        jax.grad(f)(1.0, 2.0)
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_bwd",
    ),
    Case(
        "custom.vjp_bwd_not_tuple",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x):
            return x
        f.defvjp(lambda x: (x, None), lambda res, g: g)
        jax.grad(f)(1.0)
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_bwd",
    ),
    Case(
        "custom.vjp_bwd_wrong_shape",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x):
            return x.sum()
        f.defvjp(lambda x: (x.sum(), None), lambda res, g: (jnp.ones(2),))
        jax.grad(f)(jnp.ones(3))
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_bwd",
    ),
    Case(
        "custom.jvp_undefined",
        """
        import jax, jax.numpy as jnp
        @jax.custom_jvp
        def f(x):
            return x
        f(1.0)
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "custom_jvp.__call__",
    ),
    Case(
        "custom.vjp_undefined",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x):
            return x
        f(1.0)
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "custom_vjp.__call__",
    ),
    Case(
        "custom.jvp_rule_wrong_shape",
        """
        import jax, jax.numpy as jnp
        @jax.custom_jvp
        def f(x):
            return jnp.sin(x)
        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return jnp.sin(x), jnp.ones(5)
        jax.jvp(f, (jnp.ones(3),), (jnp.ones(3),))
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_jvp",
    ),
    Case(
        "custom.jvp_rule_not_pair",
        """
        import jax, jax.numpy as jnp
        @jax.custom_jvp
        def f(x):
            return jnp.sin(x)
        f.defjvp(lambda primals, tangents: jnp.sin(primals[0]))
        jax.jvp(f, (1.0,), (1.0,))
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_flatten_jvp",
    ),
    Case(
        "custom.nondiff_argnums_tracer",
        """
        import jax, jax.numpy as jnp
        from functools import partial
        @partial(jax.custom_vjp, nondiff_argnums=(1,))
        def f(x, n):
            return x * n
        f.defvjp(lambda x, n: (x * n, None), lambda n, res, g: (g * n,))
        jax.jit(jax.grad(f))(1.0, jnp.float32(2.0))
        """,
        True,
        "jax/_src/custom_derivatives.py",
        "_check_for_tracers",
    ),
    # ----------------------------------------------------------------------
    # checkpoint / remat
    Case(
        "remat.bool_conversion",
        """
        import jax, jax.numpy as jnp
        @jax.checkpoint
        def f(x):
            return x if x > 0 else -x
        jax.grad(f)(1.0)
        """,
        True,
        "jax/_src/core.py",
        "concretization_function_error.<locals>.error",
    ),
    Case(
        "remat.bad_policy",
        """
        import jax, jax.numpy as jnp
        f = jax.checkpoint(jnp.sin, policy="nothing_saveable")
        jax.grad(f)(1.0)
        """,
        True,
        "jax/_src/interpreters/partial_eval.py",
        "_partial_eval_jaxpr_custom_cached",
    ),
    Case(
        "remat.offload_bad_names",
        """
        import jax, jax.numpy as jnp
        pol = jax.checkpoint_policies.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"], names_which_can_be_offloaded=["a"],
            offload_src="device", offload_dst="pinned_host")
        """,
        True,
        "jax/_src/ad_checkpoint.py",
        "save_and_offload_only_these_names",
    ),
    Case(
        "remat.static_argnums_traced",
        """
        import jax, jax.numpy as jnp
        def f(x, n):
            return x * n
        jax.checkpoint(f, static_argnums=(5,))(1.0, 2)
        """,
        True,
        "jax/_src/ad_checkpoint.py",
        "_remat_static_argnums",
    ),
    # ----------------------------------------------------------------------
    # pytrees
    Case(
        "pytree.map_structure_mismatch",
        """
        import jax
        jax.tree.map(lambda a, b: a + b, {"a": 1, "b": 2}, {"a": 1, "c": 2})
        """,
        True,
        "jax/_src/tree_util.py",
        "tree_map",
    ),
    Case(
        "pytree.map_arity_mismatch",
        """
        import jax
        jax.tree.map(lambda a, b: a + b, (1, 2), (1, 2, 3))
        """,
        True,
        "jax/_src/tree_util.py",
        "tree_map",
    ),
    Case(
        "pytree.unflatten_wrong_count",
        """
        import jax
        treedef = jax.tree.structure((1, 2))
        jax.tree.unflatten(treedef, [1, 2, 3])
        """,
        True,
        "jax/_src/tree_util.py",
        "tree_unflatten",
    ),
    Case(
        "pytree.duplicate_registration",
        """
        import jax
        class Box:
            def __init__(self, v):
                self.v = v
        jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
        jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), None), lambda _, c: Box(*c))
        """,
        True,
        "jax/_src/tree_util.py",
        "register_pytree_node",
    ),
    Case(
        "pytree.transpose_mismatch",
        """
        import jax
        outer = jax.tree.structure([0, 0])
        inner = jax.tree.structure((0, 0))
        jax.tree.transpose(outer, inner, [(1, 2), (3, 4, 5)])
        """,
        True,
        "jax/_src/tree_util.py",
        "tree_transpose",
    ),
    Case(
        "pytree.register_dataclass_missing_field",
        """
        import jax, dataclasses
        @dataclasses.dataclass
        class P:
            a: float
            b: float
        jax.tree_util.register_dataclass(P, data_fields=["a"], meta_fields=[])
        """,
        True,
        "jax/_src/tree_util.py",
        "register_dataclass",
    ),
    Case(
        "pytree.jit_returns_object",
        """
        import jax, jax.numpy as jnp
        class Thing:
            pass
        jax.jit(lambda x: Thing())(1.0)
        """,
        True,
        "jax/_src/interpreters/partial_eval.py",
        "_check_returned_jaxtypes",
    ),
    Case(
        "pytree.broadcast_prefix",
        """
        import jax, jax.numpy as jnp
        jax.vmap(lambda d: d["a"], in_axes=({"a": 0, "b": 0},))({"a": jnp.ones(3)})
        """,
        True,
        "jax/_src/api_util.py",
        "flatten_axes",
    ),
    Case(
        "pytree.leaves_with_none_structure",
        """
        import jax
        jax.tree.map(lambda a, b: a, [1, None], [1, 2])
        """,
        True,
        "jax/_src/tree_util.py",
        "tree_map",
    ),
    Case(
        "pytree.tree_util_partial_noncallable",
        """
        import jax
        jax.tree_util.Partial(3)
        """,
        True,
        "jax/_src/tree_util.py",
        "Partial.__new__",
    ),
    # ----------------------------------------------------------------------
    # random keys
    Case(
        "random.int_key",
        """
        import jax
        jax.random.normal(0, (3,))
        """,
        True,
        "jax/_src/random/prng.py",
        "_check_prng_key_data",
    ),
    Case(
        "random.key_data_not_key",
        """
        import jax, jax.numpy as jnp
        jax.random.key_data(jnp.ones(2))
        """,
        True,
        "jax/_src/random/prng.py",
        "_check_prng_key_data",
    ),
    Case(
        "random.choice_too_many",
        """
        import jax, jax.numpy as jnp
        jax.random.choice(jax.random.key(0), 3, shape=(5,), replace=False)
        """,
        True,
        "jax/_src/random/core.py",
        "choice",
    ),
    Case(
        "random.randint_float_dtype",
        """
        import jax, jax.numpy as jnp
        jax.random.randint(jax.random.key(0), (2,), 0, 10, dtype=jnp.float32)
        """,
        True,
        "jax/_src/random/core.py",
        "randint",
    ),
    Case(
        "random.normal_int_dtype",
        """
        import jax, jax.numpy as jnp
        jax.random.normal(jax.random.key(0), (2,), dtype=jnp.int32)
        """,
        True,
        "jax/_src/random/core.py",
        "normal",
    ),
    Case(
        "random.float_seed",
        """
        import jax
        jax.random.key(1.5)
        """,
        True,
        "jax/_src/random/threefry2x32.py",
        "_threefry_seed",
    ),
    Case(
        "random.key_reuse",
        """
        import jax
        with jax.debug_key_reuse(True):
            k = jax.random.key(0)
            jax.random.normal(k)
            jax.random.normal(k)
        """,
        True,
        "jax/experimental/key_reuse/_core.py",
        "KeyReuseSignature.check_signature",
    ),
    Case(
        "random.split_key_batch",
        """
        import jax
        keys = jax.random.split(jax.random.key(0), 4)
        jax.random.split(keys)
        """,
        True,
        "jax/_src/random/core.py",
        "_check_prng_key",
    ),
    Case(
        "random.wrap_key_data_shape",
        """
        import jax, jax.numpy as jnp
        jax.random.wrap_key_data(jnp.zeros(3, jnp.uint32))
        """,
        True,
        "jax/_src/random/prng.py",
        "_check_prng_key_data",
    ),
    Case(
        "random.uniform_shape_scalar_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.random.uniform(jax.random.key(0), (3,), minval=jnp.zeros(2))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_try_broadcast_shapes",
    ),
    Case(
        "random.bits_bad_dtype",
        """
        import jax, jax.numpy as jnp
        jax.random.bits(jax.random.key(0), (2,), dtype=jnp.float32)
        """,
        True,
        "jax/_src/random/core.py",
        "bits",
    ),
    # ----------------------------------------------------------------------
    # scan / cond / switch / while_loop / fori_loop
    Case(
        "control.scan_carry_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.scan(lambda c, x: (c + x, x), jnp.int32(0), jnp.ones(3))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_check_carry_type",
    ),
    Case(
        "control.scan_carry_shape",
        """
        import jax, jax.numpy as jnp
        jax.lax.scan(lambda c, x: (jnp.append(c, x), x), jnp.zeros(1), jnp.ones(3))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_check_carry_type",
    ),
    Case(
        "control.scan_length_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.scan(lambda c, x: (c, x), 0.0, (jnp.ones(3), jnp.ones(4)))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_infer_scan_length",
    ),
    Case(
        "control.scan_no_length",
        """
        import jax, jax.numpy as jnp
        jax.lax.scan(lambda c, x: (c, x), 0.0, None)
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_infer_scan_length",
    ),
    Case(
        "control.scan_body_not_pair",
        """
        import jax, jax.numpy as jnp
        jax.lax.scan(lambda c, x: c + x, 0.0, jnp.ones(3))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "scan.<locals>._create_jaxpr",
    ),
    Case(
        "control.cond_branch_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), jnp.ones(3))
        """,
        True,
        "jax/_src/lax/control_flow/conditionals.py",
        "_check_branch_outputs",
    ),
    Case(
        "control.cond_pred_nonscalar",
        """
        import jax, jax.numpy as jnp
        jax.lax.cond(jnp.array([True, False]), lambda: 1.0, lambda: 2.0)
        """,
        True,
        "jax/_src/lax/control_flow/conditionals.py",
        "cond",
    ),
    Case(
        "control.while_carry_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.while_loop(lambda c: c < 10, lambda c: c + 1.5, jnp.int32(0))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_check_carry_type",
    ),
    Case(
        "control.while_cond_nonscalar",
        """
        import jax, jax.numpy as jnp
        jax.lax.while_loop(lambda c: c < 10, lambda c: c + 1, jnp.zeros(3))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "while_loop.<locals>._create_jaxpr",
    ),
    Case(
        "control.fori_carry_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.fori_loop(0, 3, lambda i, c: (c, c), jnp.float32(1))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_check_carry_type",
    ),
    Case(
        "control.switch_float_index",
        """
        import jax, jax.numpy as jnp
        jax.lax.switch(1.0, [lambda: 1.0, lambda: 2.0])
        """,
        True,
        "jax/_src/lax/control_flow/conditionals.py",
        "switch",
    ),
    Case(
        "control.switch_no_branches",
        """
        import jax, jax.numpy as jnp
        jax.lax.switch(0, [])
        """,
        True,
        "jax/_src/lax/control_flow/conditionals.py",
        "switch",
    ),
    Case(
        "control.map_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.map(lambda xy: xy[0] + xy[1], (jnp.ones(3), jnp.ones(4)))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_infer_scan_length",
    ),
    Case(
        "control.associative_scan_mismatch",
        """
        import jax, jax.numpy as jnp
        jax.lax.associative_scan(lambda a, b: a + b, (jnp.ones(3), jnp.ones(4)))
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "associative_scan",
    ),
    Case(
        "control.fori_body_arity",
        """
        import jax
        jax.lax.fori_loop(0, 3, lambda c: c + 1.0, 0.0)
        """,
        True,
        "jax/_src/lax/control_flow/loops.py",
        "_fori_scan_body_fun.<locals>.scanned_fun",
    ),
    Case(
        "control.cond_operand_arity",
        """
        import jax
        jax.lax.cond(True, lambda a, b: a, lambda a, b: b, 1.0)
        """,
        True,
        "jax/_src/interpreters/partial_eval.py",
        "trace_to_jaxpr",
    ),
    # ----------------------------------------------------------------------
    # sharding and shard_map (4 CPU devices)
    Case(
        "sharding.indivisible_device_put",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        jax.device_put(jnp.ones(6), NamedSharding(mesh, P("x")))
        """,
        True,
        "jax/_src/core.py",
        "_check_divisibility",
        devices=4,
    ),
    Case(
        "sharding.make_mesh_wrong_count",
        """
        import jax
        jax.make_mesh((8,), ("x",))
        """,
        True,
        "jax/_src/sharding_impls.py",
        "make_mesh",
        devices=4,
    ),
    Case(
        "sharding.unknown_axis_name",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        jax.device_put(jnp.ones(8), NamedSharding(mesh, P("y")))
        """,
        True,
        "jax/_src/named_sharding.py",
        "_check_mesh_resource_axis",
        devices=4,
    ),
    Case(
        "sharding.spec_too_long",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((2, 2), ("x", "y"))
        jax.device_put(jnp.ones(8), NamedSharding(mesh, P("x", "y")))
        """,
        True,
        "jax/_src/core.py",
        "_make_lengths_same",
        devices=4,
    ),
    Case(
        "sharding.duplicate_axis",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        NamedSharding(mesh, P("x", "x"))
        """,
        True,
        "jax/_src/named_sharding.py",
        "_check_unique_resources",
        devices=4,
    ),
    Case(
        "sharding.incompatible_devices",
        """
        import jax, jax.numpy as jnp
        d = jax.devices()
        a = jax.device_put(jnp.ones(3), d[0])
        b = jax.device_put(jnp.ones(3), d[1])
        jax.jit(lambda a, b: a + b)(a, b)
        """,
        True,
        "jax/_src/pjit.py",
        "_run_python_pjit",
        devices=4,
    ),
    Case(
        "sharding.shard_map_indivisible",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(jnp.ones(6))
        """,
        True,
        "jax/_src/shard_map.py",
        "_check_specs_vs_args",
        devices=4,
    ),
    Case(
        "sharding.shard_map_out_specs_vma",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        x = jax.device_put(jnp.ones(8), jax.NamedSharding(mesh, P("x")))
        jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P())(x)
        """,
        True,
        "jax/_src/shard_map.py",
        "_shard_map.<locals>.wrapped",
        devices=4,
    ),
    Case(
        "sharding.shard_map_in_specs_rank",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        jax.shard_map(lambda a: a, mesh=mesh, in_specs=P(None, "x"), out_specs=P("x"))(jnp.ones(8))
        """,
        True,
        "jax/_src/shard_map.py",
        "_check_specs_vs_args",
        devices=4,
    ),
    Case(
        "sharding.shard_map_unknown_axis_collective",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        x = jax.device_put(jnp.ones(8), jax.NamedSharding(mesh, P("x")))
        jax.shard_map(lambda a: jax.lax.psum(a, "y"), mesh=mesh, in_specs=P("x"), out_specs=P())(x)
        """,
        True,
        "jax/_src/core.py",
        "pvary",
        devices=4,
    ),
    Case(
        "sharding.jit_in_shardings_count",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import NamedSharding, PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        s = NamedSharding(mesh, P("x"))
        jax.jit(lambda a, b: a + b, in_shardings=(s,))(jnp.ones(8), jnp.ones(8))
        """,
        True,
        "jax/_src/api_util.py",
        "flatten_axis_resources",
        devices=4,
    ),
    Case(
        "sharding.constraint_no_mesh",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        jax.jit(lambda a: jax.lax.with_sharding_constraint(a, P("x")))(jnp.ones(8))
        """,
        True,
        "jax/_src/pjit.py",
        "_create_sharding_for_array",
        devices=4,
    ),
    Case(
        "sharding.pmap_too_many",
        """
        import jax, jax.numpy as jnp
        jax.pmap(lambda a: a)(jnp.ones((8, 2)))
        """,
        True,
        "jax/_src/lax/lax.py",
        "_compute_squeeze_shape",
        devices=4,
    ),
    Case(
        "sharding.shard_map_missing_mesh",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        jax.shard_map(lambda a: a, in_specs=P("x"), out_specs=P("x"))(jnp.ones(8))
        """,
        True,
        "jax/_src/shard_map.py",
        "_shmap_checks",
        devices=4,
    ),
    Case(
        "sharding.shard_map_in_specs_explicit",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(jnp.ones(8))
        """,
        True,
        "jax/_src/shard_map.py",
        "_shard_map.<locals>.wrapped",
        devices=4,
    ),
    # ----------------------------------------------------------------------
    # jax.export
    Case(
        "export.not_jitted",
        """
        import jax, jax.numpy as jnp
        from jax import export
        export.export(lambda x: jnp.sin(x))(jnp.ones(3))
        """,
        True,
        "jax/_src/export/_export.py",
        "_export_internal",
    ),
    Case(
        "export.call_wrong_shape",
        """
        import jax, jax.numpy as jnp
        from jax import export
        exp = export.export(jax.jit(jnp.sin))(jnp.ones(3))
        exp.call(jnp.ones(4))
        """,
        True,
        "jax/_src/export/_export.py",
        "_call_exported_abstract_eval",
    ),
    Case(
        "export.symbolic_parse_error",
        """
        from jax import export
        export.symbolic_shape("a, b+")
        """,
        True,
        "jax/_src/export/shape_poly.py",
        "_Parser.expect_token",
    ),
    Case(
        "export.inconclusive_dimension",
        """
        import jax, jax.numpy as jnp
        from jax import export
        (a,) = export.symbolic_shape("a")
        export.export(jax.jit(lambda x: x.reshape(3, -1)))(jax.ShapeDtypeStruct((a,), jnp.float32))
        """,
        True,
        "jax/_src/core.py",
        "divide_shape_sizes",
    ),
    Case(
        "export.bad_platform",
        """
        import jax, jax.numpy as jnp
        from jax import export
        exp = export.export(jax.jit(jnp.sin), platforms=["tpu"])(jnp.ones(3))
        exp.call(jnp.ones(3))
        """,
        True,
        "jax/_src/export/_export.py",
        "_call_exported_lowering",
    ),
    # ----------------------------------------------------------------------
    # checkify
    Case(
        "checkify.check_not_functionalized",
        """
        import jax, jax.numpy as jnp
        from jax.experimental import checkify
        @jax.jit
        def f(x):
            checkify.check(x > 0, "x must be positive")
            return x
        f(1.0)
        """,
        True,
        "jax/_src/checkify.py",
        "check_lowering_rule",
    ),
    Case(
        "checkify.throw",
        """
        import jax, jax.numpy as jnp
        from jax.experimental import checkify
        def f(x):
            checkify.check(x > 0, "x must be positive, got {}", x)
            return x
        err, _ = checkify.checkify(f)(jnp.float32(-1.0))
        err.throw()
        """,
        True,
        "jax/_src/checkify.py",
        "check_impl",
    ),
    Case(
        "checkify.index_error",
        """
        import jax, jax.numpy as jnp
        from jax.experimental import checkify
        err, _ = checkify.checkify(lambda x: x[5], errors=checkify.index_checks)(jnp.ones(3))
        err.throw()
        """,
        True,
        "jax/_src/checkify.py",
        "check_impl",
    ),
    Case(
        "checkify.check_nonscalar_bool",
        """
        from jax.experimental import checkify
        import jax.numpy as jnp
        checkify.check(jnp.array([True, False]), "bad")
        """,
        True,
        "jax/_src/checkify.py",
        "_check",
    ),
    # ----------------------------------------------------------------------
    # debug_nans / debug_infs
    Case(
        "debug.nans_jit",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return jnp.log(x)
        with jax.debug_nans(True):
            f(-1.0)
        """,
        True,
        "jax/_src/pjit.py",
        "_run_python_pjit",
    ),
    Case(
        "debug.infs",
        """
        import jax, jax.numpy as jnp
        with jax.debug_infs(True):
            jnp.divide(1.0, 0.0)
        """,
        True,
        "jax/_src/pjit.py",
        "_run_python_pjit",
    ),
    # ----------------------------------------------------------------------
    # errors raised from C++ (JaxRuntimeError)
    Case(
        "runtime.callback_error",
        """
        import jax, jax.numpy as jnp
        def cb(x):
            raise RuntimeError("host callback failed")
        @jax.jit
        def f(x):
            return jax.pure_callback(cb, jax.ShapeDtypeStruct((), jnp.float32), x)
        f(1.0).block_until_ready()
        """,
        True,
        "jax/_src/interpreters/pxla.py",
        "ExecuteReplicated.__call__",
    ),
    Case(
        "runtime.ffi_missing_target",
        """
        import jax, jax.numpy as jnp
        call = jax.ffi.ffi_call("no_such_target_xyz", jax.ShapeDtypeStruct((3,), jnp.float32))
        jax.jit(lambda x: call(x))(jnp.ones(3))
        """,
        True,
        "jax/_src/compiler.py",
        "backend_compile_and_load",
    ),
    # ----------------------------------------------------------------------
    # removed / renamed API
    Case(
        "removed.jax_tree_map",
        """
        import jax
        jax.tree_map(lambda x: x, [1])
        """,
        True,
        "jax/_src/deprecations.py",
        "deprecation_getattr.<locals>.getattr",
    ),
    Case(
        "removed.device_put_replicated",
        """
        import jax
        jax.device_put_replicated(1.0, jax.devices())
        """,
        True,
        "jax/_src/deprecations.py",
        "deprecation_getattr.<locals>.getattr",
    ),
    Case(
        "removed.jnp_round_",
        """
        import jax.numpy as jnp
        jnp.round_(1.5)
        """,
        True,
        "jax/_src/deprecations.py",
        "deprecation_getattr.<locals>.getattr",
    ),
    Case(
        "removed.core_get_aval",
        """
        import jax
        jax.core.get_aval(1.0)
        """,
        True,
        "jax/_src/deprecations.py",
        "deprecation_getattr.<locals>.getattr",
    ),
    Case(
        "removed.lax_attribute",
        """
        from jax import lax
        lax.tie_in(1, 2)
        """,
        True,
        "jax/_src/deprecations.py",
        "deprecation_getattr.<locals>.getattr",
    ),
    # ----------------------------------------------------------------------
    # NEGATIVES: not JAX errors (user code, numpy, Python) in code that uses jax
    Case(
        "neg.user_raise_in_jit",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            if x.shape[0] != 4:
                raise ValueError("expected 4 elements")
            return x
        f(jnp.ones(3))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.keyerror_in_tree_map",
        """
        import jax
        lookup = {"a": 1}
        jax.tree.map(lambda k: lookup[k], ["a", "b"])
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.numpy_reshape",
        """
        import jax, numpy as np
        np.reshape(np.arange(6), (4, 2))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.numpy_broadcast",
        """
        import jax, numpy as np
        np.zeros(2) + np.zeros(3)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.numpy_index_oob",
        """
        import jax, numpy as np
        np.zeros(3)[5]
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.name_error",
        """
        import jax, jax.numpy as jnp
        jnp.sum(undefined_variable)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.zero_division_trace_time",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            scale = 1 / (len(x.shape) - 1)
            return x * scale
        f(jnp.ones(3))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.attribute_error_user_object",
        """
        import jax, jax.numpy as jnp
        class Model:
            def __init__(self):
                self.w = jnp.ones(3)
        m = Model()
        jax.jit(lambda x: x * m.bias)(jnp.ones(3))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_class_in_vmap",
        """
        import jax, jax.numpy as jnp
        class ShapeError(Exception):
            pass
        class Layer:
            def __call__(self, x):
                if x.ndim != 2:
                    raise ShapeError(f"Layer wants 2-d input, got {x.ndim}-d")
                return x
        jax.vmap(Layer())(jnp.ones((4, 3)))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.assert_under_grad",
        """
        import jax, jax.numpy as jnp
        def loss(w):
            assert w.ndim == 2, "weights must be a matrix"
            return (w ** 2).sum()
        jax.grad(loss)(jnp.ones(3))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_scan_body",
        """
        import jax, jax.numpy as jnp
        def body(c, x):
            raise NotImplementedError("step not written yet")
        jax.lax.scan(body, 0.0, jnp.ones(3))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_cond_branch",
        """
        import jax, jax.numpy as jnp
        def bad(x):
            raise RuntimeError("branch failed")
        jax.lax.cond(True, bad, lambda x: x, 1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.list_index_in_jit",
        """
        import jax, jax.numpy as jnp
        layers = [1.0, 2.0]
        jax.jit(lambda x: x * layers[2])(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.dict_key_in_jit",
        """
        import jax, jax.numpy as jnp
        params = {"w": jnp.ones(3)}
        jax.jit(lambda p, x: p["b"] + x)(params, 1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.str_plus_int_in_jit",
        """
        import jax, jax.numpy as jnp
        jax.jit(lambda x: x * ("scale" + 1))(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.module_not_found",
        """
        import jax
        import jaxx_not_a_module
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.numpy_linalg_singular",
        """
        import jax, numpy as np
        np.linalg.inv(np.zeros((2, 2)))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_custom_jvp_rule",
        """
        import jax, jax.numpy as jnp
        @jax.custom_jvp
        def f(x):
            return jnp.sin(x)
        @f.defjvp
        def f_jvp(primals, tangents):
            raise ValueError("jvp rule not supported for this input")
        jax.grad(f)(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_custom_vjp_bwd",
        """
        import jax, jax.numpy as jnp
        @jax.custom_vjp
        def f(x):
            return x
        def bwd(res, g):
            raise TypeError("bwd got unexpected cotangent")
        f.defvjp(lambda x: (x, None), bwd)
        jax.grad(f)(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.pytree_flatten_user_error",
        """
        import jax
        class Box:
            def __init__(self, v):
                self.v = v
        def flat(b):
            return ((b.value,), None)
        jax.tree_util.register_pytree_node(Box, flat, lambda _, c: Box(*c))
        jax.tree.leaves(Box(1))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.shape_tuple_index",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return x * x.shape[3]
        f(jnp.ones((2, 2)))
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.math_domain_error",
        """
        import jax, jax.numpy as jnp, math
        @jax.jit
        def f(x):
            return x * math.sqrt(-1.0)
        f(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.is_leaf_user_error",
        """
        import jax
        def is_leaf(x):
            return x.is_leaf_flag
        jax.tree.flatten([1, 2], is_leaf=is_leaf)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_while_body",
        """
        import jax, jax.numpy as jnp
        def body(c):
            raise OverflowError("too many iterations")
        jax.lax.while_loop(lambda c: c < 3, body, 0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.stop_iteration_in_jit",
        """
        import jax, jax.numpy as jnp
        @jax.jit
        def f(x):
            return next(iter([])) + x
        f(1.0)
        """,
        False,
        None,
        None,
    ),
    Case(
        "neg.user_raise_in_shard_map",
        """
        import jax, jax.numpy as jnp
        from jax.sharding import PartitionSpec as P
        mesh = jax.make_mesh((4,), ("x",))
        def body(a):
            raise ValueError("per-shard check failed")
        x = jax.device_put(jnp.ones(8), jax.NamedSharding(mesh, P("x")))
        jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
        """,
        False,
        None,
        None,
        devices=4,
    ),
]


def by_name(name: str) -> Case:
    for case in CASES:
        if case.name == name:
            return case
    raise KeyError(name)


# JAX errors whose final line carries none of JAX's own words (Python's or NumPy's wording, or a bare
# AssertionError): from that line alone no tool can tell JAX raised it, let alone where. The final-line
# figures are reported with and without them; the thresholds apply to the rest.
NO_JAX_TEXT = {
    "jnp.astype_bad_dtype": "NumPy's words: data type 'not_a_dtype' not understood",
    "remat.bad_policy": "Python's words: 'str' object is not callable",
    "pytree.tree_util_partial_noncallable": "functools' words: the first argument must be callable",
    "control.fori_body_arity": "Python's words: takes 1 positional argument but 2 were given",
    "control.cond_operand_arity": "Python's words: takes 1 positional argument but 2 were given",
    "sharding.spec_too_long": "a bare AssertionError",
    "sharding.shard_map_unknown_axis_collective": "a bare AssertionError",
}
assert set(NO_JAX_TEXT) <= {c.name for c in CASES if c.is_jax}
