"""Labelled corpus for "why it was raised" (ground truth, written blind).

Each entry in CASES is a realistic user mistake that makes JAX's public API
raise on CPU (JAX 0.10.2 as installed).  The labels were taken from JAX's own
source at the raise site (jax/_src/...) and from running the snippet:

  id            unique kebab-case name
  code          a self-contained snippet (imports included) that raises
  source        the JAX test the case comes from ("jax tests/FILE::Class::test"),
                or the public documentation page of the function called
  api           dotted public name of the JAX function/method the user called
  names         variable names, as spelled in JAX's source in the raising
                frame, that the guarding condition reads and whose values
                explain the error ([] when the raise has no condition)
  condition     a substring of the guarding condition as written in JAX's
                source ("" when the raise is unconditional: the function or
                method body does nothing but raise)
  accepted      for a membership test / key lookup in a literal collection, the
                accepted values as strings; else []
  did_you_mean  the accepted value nearest to what the code passed, when there
                is a clear nearest (a typo); else None
  text          the final line of the error as Python prints it when the code
                is run with JAX_PLATFORMS=cpu ("ValueError: ..."); JAX's
                trailing note about removed internal frames ("----" /
                "For simplicity, JAX has removed its internal frames ...") is
                not counted as part of the error

Notes on judgment calls:
  * random-key-unknown-impl / random-key-impl-typo: the lookup is
    `impl_spec in prng.prngs`, a module-level registry dict filled by
    register_prng() at import time (not a literal in the source); accepted
    lists its live keys.
  * nn-delta-orthogonal-2d: `len(shape) not in [3, 4, 5]` is a literal list
    of ints; accepted holds them as strings, no did-you-mean.
  * jnp-searchsorted-method-typo: `method not in self.valid_methods`, a
    class-level literal tuple.
"""

CASES = [
    dict(
        id='jnp-pad-unknown-mode',
        code=('import jax.numpy as jnp\n'
              'x = jnp.array([1, 2, 3])\n'
              "jnp.pad(x, 1, mode='foo')"),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testPadKwargs',
        api='jax.numpy.pad',
        names=['mode'],
        condition='allowed_kwargs',
        accepted=['empty', 'edge', 'wrap', 'constant', 'linear_ramp', 'maximum', 'mean', 'median', 'minimum', 'reflect', 'symmetric'],
        did_you_mean=None,
        text="NotImplementedError: Unimplemented padding mode 'foo' for np.pad.",
    ),
    dict(
        id='jnp-pad-mode-typo',
        code=('import jax.numpy as jnp\n'
              'x = jnp.arange(5.0)\n'
              "jnp.pad(x, (2, 2), mode='reflct')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.pad.html',
        api='jax.numpy.pad',
        names=['mode'],
        condition='allowed_kwargs',
        accepted=['empty', 'edge', 'wrap', 'constant', 'linear_ramp', 'maximum', 'mean', 'median', 'minimum', 'reflect', 'symmetric'],
        did_you_mean='reflect',
        text="NotImplementedError: Unimplemented padding mode 'reflct' for np.pad.",
    ),
    dict(
        id='jnp-pad-kwarg-for-other-mode',
        code=('import jax.numpy as jnp\n'
              'x = jnp.array([1, 2, 3])\n'
              "jnp.pad(x, 1, mode='edge', constant_values=0)"),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testPadKwargs',
        api='jax.numpy.pad',
        names=['unsupported_kwargs'],
        condition='unsupported_kwargs',
        accepted=[],
        did_you_mean=None,
        text="ValueError: unsupported keyword arguments for mode 'edge': {'constant_values'}",
    ),
    dict(
        id='jnp-argmin-empty',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'jnp.argmin(np.array([]))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArgMinMaxEmpty',
        api='jax.numpy.argmin',
        names=['a', 'axis'],
        condition='a.shape[axis] == 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: attempt to get argmin of an empty sequence',
    ),
    dict(
        id='jnp-tensordot-axes-exceed-rank',
        code=('import jax.numpy as jnp\n'
              'a = jnp.ones((3,))\n'
              'b = jnp.ones((3,))\n'
              'jnp.tensordot(a, b, axes=2)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testTensordotErrors',
        api='jax.numpy.tensordot',
        names=['axes', 'a_ndim', 'b_ndim'],
        condition='axes > min(a_ndim, b_ndim)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: Number of tensordot axes (axes 2) exceeds input ranks ((3,) and (3,))',
    ),
    dict(
        id='jnp-tensordot-axes-unequal',
        code=('import jax.numpy as jnp\n'
              'a = jnp.ones((2, 3))\n'
              'b = jnp.ones((2, 3))\n'
              'jnp.tensordot(a, b, axes=([0], [0, 1]))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testTensordotErrors',
        api='jax.numpy.tensordot',
        names=['ax1', 'ax2'],
        condition='len(ax1) != len(ax2)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: tensordot requires axes lists to have equal length, got [0] and [0, 1].',
    ),
    dict(
        id='jnp-clip-complex',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones(5, dtype=jnp.complex64)\n'
              'jnp.clip(x, 0, 1)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testClipComplexInputError',
        api='jax.numpy.clip',
        names=['arr', 'min', 'max'],
        condition='any(iscomplexobj(t) for t in (arr, min, max))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Clip received a complex value either through the input or the min/max keywords. Complex values have no ordering and cannot be clipped. Please convert to a real value or array by taking the real or imaginary components via jax.numpy.real/imag respectively.',
    ),
    dict(
        id='jnp-hypot-complex',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones(5, dtype=jnp.complex64)\n'
              'jnp.hypot(x, x)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testHypotComplexInputError',
        api='jax.numpy.hypot',
        names=['x1'],
        condition='dtypes.issubdtype(x1.dtype, np.complexfloating)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jnp.hypot is not well defined for complex-valued inputs. Please convert to real values first, such as by using abs(x)',
    ),
    dict(
        id='jnp-interp-size-mismatch',
        code=('import jax.numpy as jnp\n'
              'jnp.interp(0.0, jnp.arange(2.0), jnp.arange(3.0))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testInterpErrors',
        api='jax.numpy.interp',
        names=['xp', 'fp'],
        condition='np.shape(xp) != np.shape(fp)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: xp and fp must be one-dimensional arrays of equal size',
    ),
    dict(
        id='jnp-interp-left-string',
        code=('import jax.numpy as jnp\n'
              "jnp.interp(0.0, jnp.arange(3.0), jnp.arange(3.0), left='interpolate')"),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testInterpErrors',
        api='jax.numpy.interp',
        names=['left'],
        condition="left != 'extrapolate'",
        accepted=[],
        did_you_mean=None,
        text="ValueError: the only valid string value of `left` is 'extrapolate', but got: 'interpolate'",
    ),
    dict(
        id='jnp-interp-complex-x',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'jnp.interp(1j, 1j * np.arange(3.0), np.arange(3.0))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testInterpErrors',
        api='jax.numpy.interp',
        names=['x_arr'],
        condition='dtypes.issubdtype(x_arr.dtype, np.complexfloating)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jnp.interp: complex x values not supported.',
    ),
    dict(
        id='jnp-interp-period-array',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'jnp.interp(0.0, jnp.arange(3.0), jnp.arange(3.0), period=np.array([1.0]))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testInterpErrors',
        api='jax.numpy.interp',
        names=['period'],
        condition='np.ndim(period) != 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: period must be a scalar; got JitTracer(float32[1])',
    ),
    dict(
        id='jnp-trace-same-axes',
        code=('import jax.numpy as jnp\n'
              'a = jnp.ones((2, 3, 3))\n'
              'jnp.trace(a, axis1=1, axis2=-2)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testTraceSameAxesError',
        api='jax.numpy.trace',
        names=['axis1', 'axis2'],
        condition='_canonicalize_axis(axis1, np.ndim(a)) == _canonicalize_axis(axis2, np.ndim(a))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: axis1 and axis2 can not be same. axis1=1 and axis2=-2',
    ),
    dict(
        id='jnp-expand-dims-repeated',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3))\n'
              'jnp.expand_dims(x, [1, 1])'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testExpandDimsRepeatedAxisError',
        api='jax.numpy.expand_dims',
        names=['dimensions'],
        condition='len(set(dimensions)) != len(dimensions)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: repeated axis in lax.expand_dims: (1, 1)',
    ),
    dict(
        id='array-contains-0d',
        code=('import jax.numpy as jnp\n'
              '1 in jnp.array(1)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArrayContains',
        api='jax.Array.__contains__',
        names=['self'],
        condition='self.ndim != 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Array.__contains__: search array must be one-dimensional, got arr.shape=().',
    ),
    dict(
        id='array-contains-str',
        code=('import jax.numpy as jnp\n'
              "'abc' in jnp.arange(2)"),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArrayContains',
        api='jax.Array.__contains__',
        names=['other'],
        condition='isinstance(other, str)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: Array.__contains__: unsupported operand type <class 'str'>.",
    ),
    dict(
        id='jnp-array-none-leaf',
        code=('import jax.numpy as jnp\n'
              'jnp.array([0.0, None])'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArrayNone',
        api='jax.numpy.array',
        names=['leaves'],
        condition='any(leaf is None for leaf in leaves)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: None is not a valid value for jnp.array',
    ),
    dict(
        id='jnp-take-from-empty-axis',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 0, 4), dtype=jnp.float32)\n'
              'jnp.take(x, jnp.array([0], jnp.int32), axis=1)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testTakeEmpty',
        api='jax.numpy.take',
        names=['indices'],
        condition='indices.size != 0',
        accepted=[],
        did_you_mean=None,
        text='IndexError: Cannot do a non-empty jnp.take() from an empty axis.',
    ),
    dict(
        id='jnp-take-along-axis-float-indices',
        code=('import jax.numpy as jnp\n'
              'x = jnp.arange(3.0)\n'
              'idx = jnp.array([0.0, 1.0])\n'
              'jnp.take_along_axis(x, idx, axis=0)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testTakeAlongAxisRequiresIntIndices',
        api='jax.numpy.take_along_axis',
        names=['index_dtype'],
        condition='dtypes.issubdtype(index_dtype, np.integer)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: take_along_axis indices must be of integer type, got float32',
    ),
    dict(
        id='jnp-corrcoef-int-dtype',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((3, 4))\n'
              'jnp.corrcoef(x, x, dtype=int)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testCorrCoefDtype',
        api='jax.numpy.corrcoef',
        names=['dtype'],
        condition='dtypes.issubdtype(dtype, np.inexact)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: corrcoef: dtype must be a subclass of float or complex; got dtype=<class 'int'>",
    ),
    dict(
        id='jnp-cov-int-dtype',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((3, 4))\n'
              'jnp.cov(x, dtype=int)'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testCovDtype',
        api='jax.numpy.cov',
        names=['dtype'],
        condition='dtypes.issubdtype(dtype, np.inexact)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: cov: dtype must be a subclass of float or complex; got dtype=<class 'int'>",
    ),
    dict(
        id='jnp-broadcast-to-fewer-dims',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3, 4))\n'
              'jnp.broadcast_to(x, (4, 5))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testBroadcastToInvalidShape',
        api='jax.numpy.broadcast_to',
        names=['shape', 'arr_shape'],
        condition='len(shape) < len(arr_shape)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Cannot broadcast to shape with fewer dimensions: arr_shape=(2, 3, 4) shape=(4, 5)',
    ),
    dict(
        id='jnp-rot90-1d',
        code=('import jax.numpy as jnp\n'
              'jnp.rot90(jnp.ones(2))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::test_rot90_error',
        api='jax.numpy.rot90',
        names=['m'],
        condition='np.ndim(m) < 2',
        accepted=[],
        did_you_mean=None,
        text='ValueError: rot90 requires its first argument to have ndim at least two, but got first argument of shape (2,), which has ndim 1',
    ),
    dict(
        id='jnp-size-duplicate-axis',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3))\n'
              'jnp.size(x, (0, 0))'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testSizeAlongAxisDuplicate',
        api='jax.numpy.size',
        names=['axis'],
        condition='len(set(axis)) != len(axis)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: repeated axis: (0, 0)',
    ),
    dict(
        id='jnp-arange-complex',
        code=('import jax.numpy as jnp\n'
              'jnp.arange(1 + 2j, 5 + 3j)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArangeComplex',
        api='jax.numpy.arange',
        names=['start', 'stop'],
        condition='iscomplexobj(start)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Passing complex start/stop/step to jnp.arange is no longer supported starting in JAX v0.10.0.',
    ),
    dict(
        id='jnp-sum-duplicate-axis',
        code=('import jax.numpy as jnp\n'
              'jnp.sum(jnp.arange(3), (0, 0))'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReductionWithRepeatedAxisError',
        api='jax.numpy.sum',
        names=['canon_axis'],
        condition='len(canon_axis) != len(set(canon_axis))',
        accepted=[],
        did_you_mean=None,
        text="ValueError: duplicate value in 'axis': (0, 0)",
    ),
    dict(
        id='jnp-sum-where-not-bool',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones(3)\n'
              'jnp.sum(x, where=jnp.array([1, 0, 1]))'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerWhereNonBooleanErrorNoInitial',
        api='jax.numpy.sum',
        names=['where'],
        condition='where.dtype != bool',
        accepted=[],
        did_you_mean=None,
        text="ValueError: jnp.sum: where must be None or a boolean array; got where.dtype=dtype('int32').",
    ),
    dict(
        id='jnp-max-nonscalar-initial',
        code=('import jax.numpy as jnp\n'
              'arr = jnp.ones((2, 3, 4))\n'
              'jnp.max(arr, axis=-1, initial=jnp.zeros((1, 2, 3)))'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testReducerBadInitial',
        api='jax.numpy.max',
        names=['initial_arr'],
        condition='initial_arr.shape != ()',
        accepted=[],
        did_you_mean=None,
        text='ValueError: initial value must be a scalar. Got array of shape (1, 2, 3)',
    ),
    dict(
        id='jnp-std-ddof-and-correction',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones(4)\n'
              'jnp.std(x, ddof=1, correction=1)'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testStdOrVar',
        api='jax.numpy.std',
        names=['ddof'],
        condition='ddof != 0',
        accepted=[],
        did_you_mean=None,
        text="ValueError: ddof and correction can't be provided simultaneously.",
    ),
    dict(
        id='jnp-cumulative-sum-scalar',
        code=('import jax.numpy as jnp\n'
              'jnp.cumulative_sum(jnp.array(1.0))'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testCumulativeSumErrors',
        api='jax.numpy.cumulative_sum',
        names=['x'],
        condition='x.ndim == 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The input must be non-scalar to take a cumulative sum, however a scalar value or scalar array was given.',
    ),
    dict(
        id='jnp-cumulative-sum-no-axis',
        code=('import jax.numpy as jnp\n'
              'jnp.cumulative_sum(jnp.ones((2, 3)))'),
        source='jax tests/lax_numpy_reducers_test.py::JaxNumpyReducerTests::testCumulativeSumErrors',
        api='jax.numpy.cumulative_sum',
        names=['x'],
        condition='x.ndim > 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The input array has rank 2, however axis was not set to an explicit value. The axis argument is only optional for one-dimensional arrays.',
    ),
    dict(
        id='jnp-vectorize-excluded-float',
        code=('import jax.numpy as jnp\n'
              'jnp.vectorize(lambda x: x, excluded={1.5})'),
        source='jax tests/lax_numpy_vectorize_test.py::VectorizeTest::test_exclude_errors',
        api='jax.numpy.vectorize',
        names=['excluded'],
        condition='isinstance(exclude, (str, int))',
        accepted=[],
        did_you_mean=None,
        text='TypeError: jax.numpy.vectorize can only exclude integer or string arguments, but excluded={1.5}',
    ),
    dict(
        id='jnp-vectorize-excluded-negative',
        code=('import jax.numpy as jnp\n'
              'jnp.vectorize(lambda x: x, excluded={-1})'),
        source='jax tests/lax_numpy_vectorize_test.py::VectorizeTest::test_exclude_errors',
        api='jax.numpy.vectorize',
        names=['excluded'],
        condition='e < 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: excluded={-1} contains negative numbers',
    ),
    dict(
        id='jnp-vectorize-core-dim-mismatch',
        code=('import jax.numpy as jnp\n'
              "matmat = jnp.vectorize(jnp.dot, signature='(n,m),(m,k)->(n,k)')\n"
              'matmat(jnp.zeros((2, 3)), jnp.zeros((4, 5)))'),
        source='jax tests/lax_numpy_vectorize_test.py::VectorizeTest::test_bad_inputs',
        api='jax.numpy.vectorize',
        names=['size', 'dim_sizes'],
        condition='size != dim_sizes[dim]',
        accepted=[],
        did_you_mean=None,
        text="ValueError: inconsistent size for core dimension 'm': 4 vs 3 on vectorized function with excluded=frozenset() and signature='(n,m),(m,k)->(n,k)'",
    ),
    dict(
        id='jnp-vectorize-too-few-dims',
        code=('import jax.numpy as jnp\n'
              "matmat = jnp.vectorize(jnp.dot, signature='(n,m),(m,k)->(n,k)')\n"
              'matmat(jnp.zeros((2,)), jnp.zeros((2, 2)))'),
        source='jax tests/lax_numpy_vectorize_test.py::VectorizeTest::test_bad_inputs',
        api='jax.numpy.vectorize',
        names=['shape', 'num_core_dims'],
        condition='len(shape) < num_core_dims',
        accepted=[],
        did_you_mean=None,
        text="ValueError: input with shape (2,) does not have enough dimensions for all core dimensions ('n', 'm') on vectorized function with excluded=frozenset() and signature='(n,m),(m,k)->(n,k)'",
    ),
    dict(
        id='jnp-quantile-method-typo',
        code=('import jax.numpy as jnp\n'
              'x = jnp.array([1.0, 2.0, 3.0, 4.0])\n'
              "jnp.quantile(x, 0.5, method='linera')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.quantile.html',
        api='jax.numpy.quantile',
        names=['method'],
        condition='method not in ["linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf"]',
        accepted=['linear', 'lower', 'higher', 'midpoint', 'nearest', 'inverted_cdf'],
        did_you_mean='linear',
        text="ValueError: method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'",
    ),
    dict(
        id='jnp-meshgrid-indexing-typo',
        code=('import jax.numpy as jnp\n'
              "jnp.meshgrid(jnp.arange(2), jnp.arange(3), indexing='i,j')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.meshgrid.html',
        api='jax.numpy.meshgrid',
        names=['indexing'],
        condition='indexing not in ["xy", "ij"]',
        accepted=['xy', 'ij'],
        did_you_mean='ij',
        text="ValueError: Valid values for indexing are 'xy' and 'ij', got i,j",
    ),
    dict(
        id='jnp-packbits-bitorder-typo',
        code=('import jax.numpy as jnp\n'
              "jnp.packbits(jnp.array([1, 0, 1, 1]), bitorder='bigg')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.packbits.html',
        api='jax.numpy.packbits',
        names=['bitorder'],
        condition="bitorder not in ['little', 'big']",
        accepted=['little', 'big'],
        did_you_mean='big',
        text="ValueError: 'order' must be either 'little' or 'big'",
    ),
    dict(
        id='jnp-unpackbits-bitorder-typo',
        code=('import jax.numpy as jnp\n'
              "jnp.unpackbits(jnp.array([5], dtype=jnp.uint8), bitorder='litle')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.unpackbits.html',
        api='jax.numpy.unpackbits',
        names=['bitorder'],
        condition="bitorder not in ['little', 'big']",
        accepted=['little', 'big'],
        did_you_mean='little',
        text="ValueError: 'order' must be either 'little' or 'big'",
    ),
    dict(
        id='jnp-searchsorted-side-typo',
        code=('import jax.numpy as jnp\n'
              "jnp.searchsorted(jnp.arange(5), 3, side='lft')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.searchsorted.html',
        api='jax.numpy.searchsorted',
        names=['side'],
        condition='side not in ["left", "right"]',
        accepted=['left', 'right'],
        did_you_mean='left',
        text="ValueError: invalid argument side='lft', expected 'left' or 'right'",
    ),
    dict(
        id='jnp-searchsorted-method-typo',
        code=('import jax.numpy as jnp\n'
              "jnp.searchsorted(jnp.arange(5), 3, method='scann')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.searchsorted.html',
        api='jax.numpy.searchsorted',
        names=['method'],
        condition='method not in self.valid_methods',
        accepted=['compare_all', 'scan', 'scan_unrolled', 'sort'],
        did_you_mean='scan',
        text="ValueError: invalid argument method='scann', expected one of ['compare_all', 'scan', 'scan_unrolled', 'sort']",
    ),
    dict(
        id='jnp-stack-shape-mismatch',
        code=('import jax.numpy as jnp\n'
              'jnp.stack([jnp.ones(2), jnp.ones(3)])'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.stack.html',
        api='jax.numpy.stack',
        names=['operands'],
        condition='len({op.shape for op in operands}) != 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: All input arrays must have the same shape. Got (2,), (3,).',
    ),
    dict(
        id='jnp-concatenate-empty',
        code=('import jax.numpy as jnp\n'
              'jnp.concatenate([])'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.concatenate.html',
        api='jax.numpy.concatenate',
        names=['arrays'],
        condition='not len(arrays)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Need at least one array to concatenate.',
    ),
    dict(
        id='jnp-diff-negative-n',
        code=('import jax.numpy as jnp\n'
              'jnp.diff(jnp.arange(5), n=-1)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.diff.html',
        api='jax.numpy.diff',
        names=['n'],
        condition='n < 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: order must be non-negative but got -1',
    ),
    dict(
        id='jnp-linspace-negative-num',
        code=('import jax.numpy as jnp\n'
              'jnp.linspace(0.0, 1.0, num=-1)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linspace.html',
        api='jax.numpy.linspace',
        names=['num'],
        condition='num < 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Number of samples, -1, must be non-negative.',
    ),
    dict(
        id='jnp-select-length-mismatch',
        code=('import jax.numpy as jnp\n'
              'jnp.select([jnp.array([True])], [jnp.ones(1), jnp.zeros(1)])'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.select.html',
        api='jax.numpy.select',
        names=['condlist', 'choicelist'],
        condition='len(condlist) != len(choicelist)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: condlist must have length equal to choicelist (1 vs 2)',
    ),
    dict(
        id='jnp-polyfit-negative-deg',
        code=('import jax.numpy as jnp\n'
              'x = jnp.arange(4.0)\n'
              'jnp.polyfit(x, x, deg=-1)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.polyfit.html',
        api='jax.numpy.polyfit',
        names=['deg'],
        condition='deg < 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: expected deg >= 0',
    ),
    dict(
        id='jnp-roots-2d',
        code=('import jax.numpy as jnp\n'
              'jnp.roots(jnp.ones((2, 2)))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.roots.html',
        api='jax.numpy.roots',
        names=['p_arr'],
        condition='p_arr.ndim != 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Input must be a rank-1 array.',
    ),
    dict(
        id='jnp-repeat-axis-out-of-bounds',
        code=('import jax.numpy as jnp\n'
              'jnp.repeat(jnp.ones((2, 2)), 2, axis=2)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.repeat.html',
        api='jax.numpy.repeat',
        names=['axis', 'num_dims'],
        condition='not -num_dims <= axis < num_dims',
        accepted=[],
        did_you_mean=None,
        text='ValueError: axis 2 is out of bounds for array of dimension 2',
    ),
    dict(
        id='jnp-fft-fftn-repeated-axes',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3))\n'
              'jnp.fft.fftn(x, axes=[1, 1])'),
        source='jax tests/fft_test.py::FftTest::testFftnErrors',
        api='jax.numpy.fft.fftn',
        names=['axes'],
        condition='len(axes) != len(set(axes))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jax.numpy.fft.fftn does not support repeated axes. Got axes [1, 1].',
    ),
    dict(
        id='jnp-fft-fft-multiple-axes',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3))\n'
              'jnp.fft.fft(x, axis=[1, 1])'),
        source='jax tests/fft_test.py::FftTest::testFftErrors',
        api='jax.numpy.fft.fft',
        names=['axis'],
        condition='isinstance(axis, (list, tuple))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jax.numpy.fft.fft does not support multiple axes. Please use jax.numpy.fft.fftn. Got axis = [1, 1].',
    ),
    dict(
        id='jnp-fft-fft2-one-axis',
        code=('import jax.numpy as jnp\n'
              'x = jnp.ones((2, 3))\n'
              'jnp.fft.fft2(x, axes=[0])'),
        source='jax tests/fft_test.py::FftTest::testFft2Errors',
        api='jax.numpy.fft.fft2',
        names=['axes'],
        condition='len(axes) != 2',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jax.numpy.fft.fft2 only supports 2 axes. Got axes = [0].',
    ),
    dict(
        id='jnp-fft-fftfreq-list-n',
        code=('import jax.numpy as jnp\n'
              'jnp.fft.fftfreq([0, 1, 2])'),
        source='jax tests/fft_test.py::FftTest::testFftfreqErrors',
        api='jax.numpy.fft.fftfreq',
        names=['n'],
        condition='isinstance(n, (list, tuple))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The n argument of jax.numpy.fft.fftfreq only takes an int. Got n = [0, 1, 2].',
    ),
    dict(
        id='jnp-fft-fftfreq-list-d',
        code=('import jax.numpy as jnp\n'
              'jnp.fft.fftfreq(4, d=[0, 1, 2])'),
        source='jax tests/fft_test.py::FftTest::testFftfreqErrors',
        api='jax.numpy.fft.fftfreq',
        names=['d'],
        condition='isinstance(d, (list, tuple))',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The d argument of jax.numpy.fft.fftfreq only takes a single value. Got d = [0, 1, 2].',
    ),
    dict(
        id='jnp-linalg-norm-string-inf',
        code=('import jax.numpy as jnp\n'
              "jnp.linalg.norm(jnp.array([1.0, 2.0, 3.0]), ord='inf')"),
        source='jax tests/linalg_test.py::NumpyLinalgTest::testStringInfNorm',
        api='jax.numpy.linalg.norm',
        names=['ord'],
        condition='isinstance(ord, str)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Invalid order 'inf' for vector norm.Use 'jax.numpy.inf' instead.",
    ),
    dict(
        id='jnp-linalg-pinv-rcond-and-rtol',
        code=('import jax.numpy as jnp\n'
              'x = jnp.eye(3)\n'
              'jnp.linalg.pinv(x, rcond=1e-2, rtol=1e-2)'),
        source='jax tests/linalg_test.py::NumpyLinalgTest::testPinvRcond',
        api='jax.numpy.linalg.pinv',
        names=['rtol'],
        condition='rtol is not None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: pinv: only one of rtol and rcond may be specified.',
    ),
    dict(
        id='jnp-linalg-matrix-rank-tol-and-rtol',
        code=('import jax.numpy as jnp\n'
              'x = jnp.eye(3)\n'
              'jnp.linalg.matrix_rank(x, rtol=1e-2, tol=1e-2)'),
        source='jax tests/linalg_test.py::NumpyLinalgTest::testMatrixRankTol',
        api='jax.numpy.linalg.matrix_rank',
        names=['rtol'],
        condition='rtol is not None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: matrix_rank: only one of tol or rtol may be specified.',
    ),
    dict(
        id='lax-split-negative-size',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.split(np.arange(5), [-1])'),
        source='jax tests/lax_test.py::LaxTest::testSplitErrors',
        api='jax.lax.split',
        names=['sizes'],
        condition='any(s < 0 for s in sizes)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Sizes passed to split must be nonnegative, got [-1]',
    ),
    dict(
        id='lax-split-sizes-sum',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.split(np.arange(5), [6])'),
        source='jax tests/lax_test.py::LaxTest::testSplitErrors',
        api='jax.lax.split',
        names=['operand', 'sizes', 'axis'],
        condition='operand.shape[axis] != np.sum(sizes)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Sum of sizes 6 must be equal to dimension 0 of the operand shape [5]',
    ),
    dict(
        id='lax-split-axis-out-of-bounds',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.split(np.arange(5), sizes=(), axis=1)'),
        source='jax tests/lax_test.py::LaxTest::testSplitErrors',
        api='jax.lax.split',
        names=['axis', 'num_dims'],
        condition='not -num_dims <= axis < num_dims',
        accepted=[],
        did_you_mean=None,
        text='ValueError: axis 1 is out of bounds for array of dimension 1',
    ),
    dict(
        id='lax-pad-nonscalar-value',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.pad(np.zeros(2), np.zeros(2), [(0, 0, 0)])'),
        source='jax tests/lax_test.py::LaxTest::testPadErrors',
        api='jax.lax.pad',
        names=['padding_value'],
        condition='np.ndim(padding_value) != 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: padding_value must be a scalar; got np.shape(padding_value)=(2,)',
    ),
    dict(
        id='lax-pad-config-length',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.pad(np.zeros(2), 0., [(0, 1, 0), (0, 1, 0)])'),
        source='jax tests/lax_test.py::LaxTest::testPadErrors',
        api='jax.lax.pad',
        names=['padding_config', 'operand'],
        condition='len(padding_config) == np.ndim(operand)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: length of padding_config must equal the number of axes of operand, got padding_config ((0, 1, 0), (0, 1, 0)) for operand shape (2,)',
    ),
    dict(
        id='lax-pad-negative-interior',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.pad(np.zeros(2), 0., [(0, 1, -1)])'),
        source='jax tests/lax_test.py::LaxTest::testPadErrors',
        api='jax.lax.pad',
        names=['padding_config'],
        condition='all(i >= 0 for _, _, i in padding_config)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: interior padding in padding_config must be nonnegative, got padding_config ((0, 1, -1),)',
    ),
    dict(
        id='lax-pad-negative-result',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.pad(np.zeros(2), 0., [(-3, 0, 0)])'),
        source='jax tests/lax_test.py::LaxTest::testPadErrors',
        api='jax.lax.pad',
        names=['result'],
        condition='all(d >= 0 for d in result)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Dimension size after padding is not at least 0, got result shape (-1,), for padding_config ((-3, 0, 0),) and operand shape (2,)',
    ),
    dict(
        id='lax-dynamic-slice-index-dtypes',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'x = np.ones((3, 4), dtype=np.float32)\n'
              'lax.dynamic_slice(x, (np.int32(1), np.int16(2)), (2, 2))'),
        source='jax tests/lax_test.py::LaxTest::testDynamicSliceTypeErrors',
        api='jax.lax.dynamic_slice',
        names=['start_indices'],
        condition='i.dtype != start_indices[0].dtype',
        accepted=[],
        did_you_mean=None,
        text='TypeError: index arguments to dynamic_slice must be integers of the same type, got: int32, int16',
    ),
    dict(
        id='lax-reduce-duplicate-axes',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.reduce(np.arange(3), 0, lax.add, (0, 0))'),
        source='jax tests/lax_test.py::LaxTest::test_reduction_with_repeated_axes_error',
        api='jax.lax.reduce',
        names=['axes'],
        condition='len(axes) != len(set(axes))',
        accepted=[],
        did_you_mean=None,
        text="ValueError: duplicate value in 'axes' of reduction: (0, 0)",
    ),
    dict(
        id='lax-add-mixed-dtypes',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.add(0, 0.0)'),
        source='jax tests/lax_test.py::LaxTest::test_ops_error_on_mismatched_dtypes',
        api='jax.lax.add',
        names=['avals', 'dtype'],
        condition='aval.dtype != dtype',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.add requires arguments to have the same dtypes, got int32, float32. (Tip: jnp.add is a similar function that does automatic type promotion on inputs).',
    ),
    dict(
        id='lax-population-count-bool',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.population_count(True)'),
        source='jax tests/lax_test.py::LaxTest::test_population_count_booleans_not_supported',
        api='jax.lax.population_count',
        names=['aval', 'accepted_dtypes'],
        condition='dtypes.issubdtype(aval.dtype, t)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: population_count does not accept dtype bool. Accepted dtypes are subtypes of integer.',
    ),
    dict(
        id='lax-argmin-float-index-dtype',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.argmin(np.ones((2, 2)), axis=0, index_dtype=np.float32)'),
        source='jax tests/lax_test.py::LazyConstantTest::testArgMinMaxIndexDtypeError',
        api='jax.lax.argmin',
        names=['index_dtype'],
        condition='dtypes.issubdtype(index_dtype, np.integer)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: index_dtype must be an integer type, but got float32',
    ),
    dict(
        id='lax-argmin-empty-dimension',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.argmin(np.ones((0, 2)), axis=0, index_dtype=np.int32)'),
        source='jax tests/lax_test.py::LazyConstantTest::testArgMinMaxEmptyError',
        api='jax.lax.argmin',
        names=['operand', 'axis'],
        condition='operand.shape[axis] < 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: argmin and argmax require non-empty reduced dimension. operand.shape=(0, 2) axis=0',
    ),
    dict(
        id='lax-argmin-negative-axis',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.argmin(np.ones((2, 3)), axis=-1, index_dtype=np.int32)'),
        source='jax tests/lax_test.py::LazyConstantTest::testArgMinMaxInvalidAxisError',
        api='jax.lax.argmin',
        names=['axis', 'operand'],
        condition='0 <= axis < len(operand.shape)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Invalid axis -1 for operand shape (2, 3)',
    ),
    dict(
        id='lax-reduce-tree-mismatch',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              "operands = {'x': jnp.ones(3)}\n"
              'lax.reduce(operands, (0.0,), lambda x, y: x, [0])'),
        source='jax tests/lax_test.py::LaxTest::test_reduce_with_mismatched_pytrees_errors',
        api='jax.lax.reduce',
        names=['operand_tree', 'init_value_tree'],
        condition='operand_tree != init_value_tree',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Operands must have the same tree structure as init_values: PyTreeDef({'x': *}) vs. PyTreeDef((*,))",
    ),
    dict(
        id='lax-reduce-nonscalar-init',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              "operands = {'x': jnp.ones(3)}\n"
              "init = {'x': jnp.zeros(2)}\n"
              "lax.reduce(operands, init, lambda x, y: dict(x=x['x'] + y['x']), [0])"),
        source='jax tests/lax_test.py::LaxTest::test_reduce_with_nonscalar_inits_errors',
        api='jax.lax.reduce',
        names=['init_val_avals'],
        condition='arg.shape != ()',
        accepted=[],
        did_you_mean=None,
        text='ValueError: reduce found non-scalar initial value: [(2,)]',
    ),
    dict(
        id='lax-squeeze-non-unit-dim',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.squeeze(jnp.ones((2, 3)), dimensions=(0,))'),
        source='jax tests/lax_test.py::LaxTest::testSqueezeShapeCheck',
        api='jax.lax.squeeze',
        names=['shape', 'dimensions'],
        condition='core.definitely_equal(shape[d], 1)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: cannot select an axis to squeeze out which has size not equal to one, got shape=(2, 3) and dimensions=(0,)',
    ),
    dict(
        id='lax-conv-rank-mismatch',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lhs = jnp.ones((1, 1, 5))\n'
              'rhs = jnp.ones((1, 1, 3, 3))\n'
              "lax.conv_general_dilated(lhs, rhs, window_strides=(1,), padding='VALID')"),
        source='jax tests/lax_test.py::LaxTest::test_conv_general_dilated_different_input_ranks_error',
        api='jax.lax.conv_general_dilated',
        names=['lhs_shape', 'rhs_shape'],
        condition='len(lhs_shape) != len(rhs_shape)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: convolution requires lhs and rhs ndim to be equal, got 3 and 4.',
    ),
    dict(
        id='lax-conv-window-strides-length',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lhs = jnp.ones((1, 1, 5, 5))\n'
              'rhs = jnp.ones((1, 1, 3, 3))\n'
              "lax.conv(lhs, rhs, [1], 'SAME')"),
        source='jax tests/lax_test.py::LaxTest::test_window_strides_dimension_shape_rule',
        api='jax.lax.conv',
        names=['window_strides'],
        condition='len(_conv_sdims(dimension_numbers.rhs_spec)) != len(window_strides)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: conv_general_dilated window and window_strides must have the same number of dimensions, but got 2 and 1',
    ),
    dict(
        id='lax-fft-too-many-lengths',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              "lax.fft(np.ones((14, 15)), fft_type='fft', fft_lengths=(4, 5, 6))"),
        source='jax tests/fft_test.py::FftTest::testLaxFftErrors',
        api='jax.lax.fft',
        names=['fft_lengths', 'x'],
        condition='len(fft_lengths) > x.ndim',
        accepted=[],
        did_you_mean=None,
        text='ValueError: FFT input shape (14, 15) must have at least as many input dimensions as fft_lengths (4, 5, 6).',
    ),
    dict(
        id='lax-fori-loop-not-callable',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.fori_loop(0, 1, 42, 0)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCallableErrors',
        api='jax.lax.fori_loop',
        names=['body_fun'],
        condition='callable(body_fun)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.fori_loop: body_fun argument should be callable.',
    ),
    dict(
        id='lax-while-loop-not-callable',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.while_loop(42, 42, 0)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCallableErrors',
        api='jax.lax.while_loop',
        names=['body_fun', 'cond_fun'],
        condition='callable(body_fun) and callable(cond_fun)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.while_loop: body_fun and cond_fun arguments should be callable.',
    ),
    dict(
        id='lax-switch-branch-not-callable',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.switch(0, [42])'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCallableErrors',
        api='jax.lax.switch',
        names=['branches'],
        condition='all(callable(branch) for branch in branches)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.switch: branches argument should be a sequence of callables.',
    ),
    dict(
        id='lax-scan-not-callable',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.scan(42, 0, 1)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCallableErrors',
        api='jax.lax.scan',
        names=['f'],
        condition='callable(f)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.scan: f argument should be a callable.',
    ),
    dict(
        id='lax-associative-scan-not-callable',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.associative_scan(42, 0)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCallableErrors',
        api='jax.lax.associative_scan',
        names=['fn'],
        condition='callable(fn)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lax.associative_scan: fn argument should be callable.',
    ),
    dict(
        id='lax-while-cond-returns-tuple',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.while_loop(lambda c: (1., 1.), lambda c: c, 0.)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testWhileTypeErrors',
        api='jax.lax.while_loop',
        names=['cond_out_avals', 'cond_jaxpr'],
        condition='treedef_is_leaf(cond_out_avals.tree)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: cond_fun must return a boolean scalar, but got pytree PyTreeDef((*, *)).',
    ),
    dict(
        id='lax-while-cond-returns-float',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.while_loop(lambda c: np.float32(1.), lambda c: c, np.float32(0.))'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testWhileTypeErrors',
        api='jax.lax.while_loop',
        names=['pred_aval'],
        condition='ShapedArray(pred_aval.shape, pred_aval.dtype) != ShapedArray((), np.bool_)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: cond_fun must return a boolean scalar, but got output type(s) [ShapedArray(float32[])].',
    ),
    dict(
        id='lax-fori-loop-bound-dtypes',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.fori_loop(np.int16(0), jnp.int32(10), (lambda i, c: c), jnp.float32(7))'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testForiLoopErrors',
        api='jax.lax.fori_loop',
        names=['dtype'],
        condition='dtype is None',
        accepted=[],
        did_you_mean=None,
        text='TypeError: lower and upper arguments to fori_loop must have equal types, got int16 and int32',
    ),
    dict(
        id='lax-cond-pred-string',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              "lax.cond('foo', lambda top: 2., lambda fop: 3., 1.)"),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCondTypeErrors',
        api='jax.lax.cond',
        names=['pred'],
        condition='isinstance(pred, Sequence)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: Pred must be a scalar, got foo of type <class 'str'>",
    ),
    dict(
        id='lax-cond-pred-none',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.cond(None, lambda x: x, lambda x: x, 1.)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testCondPredIsNone',
        api='jax.lax.cond',
        names=['pred'],
        condition='pred is None',
        accepted=[],
        did_you_mean=None,
        text='TypeError: cond predicate is None',
    ),
    dict(
        id='lax-switch-index-tuple',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.switch((1., 1.), [lambda _: 2., lambda _: 3.], 1.)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testSwitchErrors',
        api='jax.lax.switch',
        names=['index'],
        condition='len(np.shape(index)) != 0',
        accepted=[],
        did_you_mean=None,
        text='TypeError: Branch index must be scalar, got (1.0, 1.0) of shape (2,).',
    ),
    dict(
        id='lax-switch-no-branches',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.switch(0, [], 1.)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testSwitchErrors',
        api='jax.lax.switch',
        names=['branches'],
        condition='len(branches) == 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Empty branch sequence',
    ),
    dict(
        id='lax-scan-body-not-pair',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.scan(lambda c, x: np.float32(0.), 0, jnp.arange(5.))'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testScanBodyOutputError',
        api='jax.lax.scan',
        names=['out_avals'],
        condition='len(out_avals.unpack()) != 2',
        accepted=[],
        did_you_mean=None,
        text='TypeError: scan body output must be a pair, got float32[].',
    ),
    dict(
        id='lax-scan-length-disagrees',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'x = jnp.arange(10)\n'
              'lax.scan(lambda *args: args, 0, x, length=5)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testScanLengthError',
        api='jax.lax.scan',
        names=['length', 'lengths'],
        condition='all(length == l for l in lengths)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: scan got `length` argument of 5 which disagrees with leading axis sizes [10].',
    ),
    dict(
        id='lax-scan-negative-unroll',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'lax.scan(lambda x, _: (x, x), 0, jnp.arange(5), unroll=-1)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testScanInvalidUnrollRaises',
        api='jax.lax.scan',
        names=['unroll'],
        condition='unroll < 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: `unroll` must be a `bool` or a non-negative `int`.',
    ),
    dict(
        id='lax-while-loop-reverse-mode',
        code=('import jax\n'
              'import numpy as np\n'
              'from jax import lax\n'
              'def f(x):\n'
              '  return lax.while_loop(lambda c: c < 3., lambda c: c * 2., x)\n'
              'jax.grad(f)(1.)'),
        source='jax tests/lax_control_flow_test.py::LaxControlFlowTest::testWhileGradError',
        api='jax.grad',
        names=[],
        condition='',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.',
    ),
    dict(
        id='random-bits-signed-dtype',
        code=('import jax\n'
              'import numpy as np\n'
              "jax.random.bits(jax.random.key(0), (3, 4), np.dtype('int8'))"),
        source='jax tests/random_test.py::PrngTest::test_random_bits_error',
        api='jax.random.bits',
        names=['dtype'],
        condition='dtypes.issubdtype(dtype, np.unsignedinteger)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: dtype argument to `bits` must be an unsigned int dtype, got int8',
    ),
    dict(
        id='random-key-impl-and-dtype',
        code=('import jax\n'
              'import numpy as np\n'
              'dtype = jax.random.key(0).dtype\n'
              "jax.random.key(42, impl='threefry2x32', dtype=dtype)"),
        source='jax tests/random_test.py::PrngTest::test_key_construction_with_both_impl_and_dtype',
        api='jax.random.key',
        names=['impl'],
        condition='impl is not None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Cannot specify both `impl` and `dtype` arguments to jax.random.key',
    ),
    dict(
        id='random-key-array-seed',
        code=('import jax\n'
              'import numpy as np\n'
              'jax.random.key(np.arange(2))'),
        source='jax tests/random_test.py::KeyArrayTest::test_non_scalar_seed',
        api='jax.random.key',
        names=['seed'],
        condition='np.ndim(seed)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: key accepts a scalar seed, but was given an array of shape (2,) != (). Use jax.vmap for batching',
    ),
    dict(
        id='random-key-from-key',
        code=('import jax\n'
              'import numpy as np\n'
              'key = jax.random.key(0)\n'
              'jax.random.key(key)'),
        source='jax tests/random_test.py::KeyArrayTest::test_key_as_seed',
        api='jax.random.key',
        names=['seed'],
        condition='dtypes.issubdtype(seed.dtype, dtypes.prng_key)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: key accepts a scalar seed, but was given a PRNG key.',
    ),
    dict(
        id='random-key-unknown-impl',
        code=('import jax\n'
              'import numpy as np\n'
              "jax.random.key(42, impl='unlikely name')"),
        source='jax tests/random_test.py::KeyArrayTest::test_key_impl_from_string_error',
        api='jax.random.key',
        names=['impl_spec'],
        condition='prng.prngs',
        accepted=['philox2x32', 'philox4x32', 'threefry2x32', 'rbg', 'unsafe_rbg', 'threefry4x32'],
        did_you_mean=None,
        text='ValueError: unrecognized PRNG implementation "unlikely name". Did you mean one of: "philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg", "threefry4x32"?',
    ),
    dict(
        id='random-key-impl-typo',
        code=('import jax\n'
              'import numpy as np\n'
              "jax.random.key(42, impl='threfry2x32')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.random.key.html',
        api='jax.random.key',
        names=['impl_spec'],
        condition='prng.prngs',
        accepted=['philox2x32', 'philox4x32', 'threefry2x32', 'rbg', 'unsafe_rbg', 'threefry4x32'],
        did_you_mean='threefry2x32',
        text='ValueError: unrecognized PRNG implementation "threfry2x32". Did you mean one of: "philox2x32", "philox4x32", "threefry2x32", "rbg", "unsafe_rbg", "threefry4x32"?',
    ),
    dict(
        id='random-key-convert-to-int',
        code=('import jax\n'
              'from jax import lax\n'
              'key = jax.random.key(0)\n'
              'lax.convert_element_type(key, int)'),
        source='jax tests/random_test.py::JnpWithKeyArrayTest::test_errors',
        api='jax.lax.convert_element_type',
        names=['allow_conversion'],
        condition='not allow_conversion',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Cannot convert_element_type from key<fry> to int32',
    ),
    dict(
        id='random-multivariate-normal-method-typo',
        code=('import jax\n'
              'import jax.numpy as jnp\n'
              'key = jax.random.key(0)\n'
              "jax.random.multivariate_normal(key, jnp.zeros(2), jnp.eye(2), method='choleski')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.random.multivariate_normal.html',
        api='jax.random.multivariate_normal',
        names=['method'],
        condition="method not in {'svd', 'eigh', 'cholesky'}",
        accepted=['svd', 'eigh', 'cholesky'],
        did_you_mean='cholesky',
        text="ValueError: method must be one of {'svd', 'eigh', 'cholesky'}",
    ),
    dict(
        id='random-bernoulli-mode-typo',
        code=('import jax\n'
              'key = jax.random.key(0)\n'
              "jax.random.bernoulli(key, 0.5, mode='hihg')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.random.bernoulli.html',
        api='jax.random.bernoulli',
        names=['mode'],
        condition="mode not in ['high', 'low']",
        accepted=['high', 'low'],
        did_you_mean='high',
        text="ValueError: got mode='hihg', expected 'high' or 'low'",
    ),
    dict(
        id='random-gumbel-mode-typo',
        code=('import jax\n'
              'key = jax.random.key(0)\n'
              "jax.random.gumbel(key, (3,), mode='lwo')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.random.gumbel.html',
        api='jax.random.gumbel',
        names=['mode'],
        condition='mode not in ("highest", "high", "low")',
        accepted=['highest', 'high', 'low'],
        did_you_mean='low',
        text='ValueError: Must provide valid mode for gumbel got: lwo',
    ),
    dict(
        id='image-resize-rank-mismatch',
        code=('import jax\n'
              'import jax.numpy as jnp\n'
              'img = jnp.ones((32, 32))\n'
              "jax.image.resize(img, (64, 64, 3), method='linear')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.image.resize.html',
        api='jax.image.resize',
        names=['shape', 'image'],
        condition='len(shape) != image.ndim',
        accepted=[],
        did_you_mean=None,
        text='ValueError: shape must have length equal to the number of dimensions of x;  (64, 64, 3) vs (32, 32)',
    ),
    dict(
        id='nn-variance-scaling-1d',
        code=('import jax\n'
              "init = jax.nn.initializers.variance_scaling(1.0, 'fan_in', 'normal')\n"
              'init(jax.random.key(0), (4,))'),
        source='jax tests/nn_test.py::NNInitializersTest::testVarianceScalingError',
        api='jax.nn.initializers.variance_scaling',
        names=['in_axis', 'shape'],
        condition='len(shape) <= 1',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Can't compute input and output sizes of a 1-dimensional weights tensor with default in_axis. Must be at least 2D or specify in_axis explicitly.",
    ),
    dict(
        id='nn-orthogonal-1d',
        code=('import jax\n'
              'init = jax.nn.initializers.orthogonal()\n'
              'init(jax.random.key(0), (4,))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.nn.initializers.orthogonal.html',
        api='jax.nn.initializers.orthogonal',
        names=['shape'],
        condition='len(shape) < 2',
        accepted=[],
        did_you_mean=None,
        text='ValueError: orthogonal initializer requires at least a 2D shape',
    ),
    dict(
        id='nn-delta-orthogonal-2d',
        code=('import jax\n'
              'init = jax.nn.initializers.delta_orthogonal()\n'
              'init(jax.random.key(0), (4, 4))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.nn.initializers.delta_orthogonal.html',
        api='jax.nn.initializers.delta_orthogonal',
        names=['shape'],
        condition='len(shape) not in [3, 4, 5]',
        accepted=['3', '4', '5'],
        did_you_mean=None,
        text='ValueError: Delta orthogonal initializer requires a 3D, 4D or 5D shape.',
    ),
    dict(
        id='nn-one-hot-axis-out-of-bounds',
        code=('import jax\n'
              'import jax.numpy as jnp\n'
              'jax.nn.one_hot(jnp.array([1, 2]), 3, axis=5)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.nn.one_hot.html',
        api='jax.nn.one_hot',
        names=['axis', 'num_dims'],
        condition='not -num_dims <= axis < num_dims',
        accepted=[],
        did_you_mean=None,
        text='ValueError: axis 5 is out of bounds for array of dimension 2',
    ),
    dict(
        id='tree-flatten-one-level-leaf',
        code=('from jax import tree_util\n'
              'tree_util.flatten_one_level(1)'),
        source='jax tests/tree_util_test.py::TreeTest::testFlattenOneLevel',
        api='jax.tree_util.flatten_one_level',
        names=['out'],
        condition='out is None',
        accepted=[],
        did_you_mean=None,
        text="ValueError: can't tree-flatten type: <class 'int'>",
    ),
    dict(
        id='tree-register-dataclass-no-fields',
        code=('from jax import tree_util\n'
              'class Foo:\n'
              '  x: int\n'
              '  y: int\n'
              '\n'
              'tree_util.register_dataclass(Foo)'),
        source='jax tests/tree_util_test.py::RegistrationTest::test_register_dataclass_field_errors',
        api='jax.tree_util.register_dataclass',
        names=['nodetype'],
        condition='dataclasses.is_dataclass(nodetype)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: register_dataclass: data_fields and meta_fields are required when nodetype is not a dataclass. Got nodetype=<class '__main__.Foo'>.",
    ),
    dict(
        id='tree-register-dataclass-one-field-list',
        code=('from jax import tree_util\n'
              'class Foo:\n'
              '  x: int\n'
              '  y: int\n'
              '\n'
              "tree_util.register_dataclass(Foo, data_fields=['x'])"),
        source='jax tests/tree_util_test.py::RegistrationTest::test_register_dataclass_field_errors',
        api='jax.tree_util.register_dataclass',
        names=['data_fields', 'meta_fields'],
        condition='(data_fields is None) != (meta_fields is None)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: register_dataclass: data_fields and meta_fields must both be specified when either is specified. Got data_fields=['x'] meta_fields=None.",
    ),
    dict(
        id='tree-register-dataclass-overlap',
        code=('import dataclasses\n'
              'from jax import tree_util\n'
              '\n'
              '@dataclasses.dataclass\n'
              'class Foo:\n'
              '  x: int\n'
              '  y: float\n'
              '\n'
              "tree_util.register_dataclass(Foo, data_fields=['x', 'y'], meta_fields=['x'])"),
        source='jax tests/tree_util_test.py::RegistrationTest::test_register_dataclass_overlapping_fields',
        api='jax.tree_util.register_dataclass',
        names=['overlap'],
        condition='overlap := set(data_fields) & set(meta_fields)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: data_fields and meta_fields must not overlap. Overlapping fields: {'x'}.",
    ),
    dict(
        id='scipy-linalg-leslie-short-f',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.leslie(jnp.array([1.0]), jnp.array([]))'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testLeslieInvalidLength',
        api='jax.scipy.linalg.leslie',
        names=['f_arr'],
        condition='f_arr.shape[-1] < 2',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The length of f along the last axis must be at least 2; got shape (1,).',
    ),
    dict(
        id='scipy-linalg-leslie-lengths',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.leslie(jnp.array([1., 2., 3.]), jnp.array([0.5]))'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testLeslieInvalidLength',
        api='jax.scipy.linalg.leslie',
        names=['s_arr', 'f_arr'],
        condition='s_arr.shape[-1] != f_arr.shape[-1] - 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Incorrect lengths for f and s. The length of s along the last axis must be one less than the length of f; got f shape (3,) and s shape (1,).',
    ),
    dict(
        id='scipy-linalg-companion-short',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.companion(jnp.array([1.0]))'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testCompanionInvalidLength',
        api='jax.scipy.linalg.companion',
        names=['a'],
        condition='a.shape[-1] < 2',
        accepted=[],
        did_you_mean=None,
        text='ValueError: The length of `a` along the last axis must be at least 2; got shape (1,).',
    ),
    dict(
        id='scipy-linalg-fiedler-companion-empty',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.fiedler_companion(jnp.array([]))'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testFiedlerCompanionEmptyInput',
        api='jax.scipy.linalg.fiedler_companion',
        names=['a'],
        condition='a.shape[-1] == 0',
        accepted=[],
        did_you_mean=None,
        text="ValueError: fiedler_companion requires the last axis of 'a' to have nonzero length, but got an array of shape (0,).",
    ),
    dict(
        id='scipy-linalg-convolution-matrix-n',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.convolution_matrix(jnp.array([1.0, 2.0]), 0)'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testConvolutionMatrixInvalidArgs',
        api='jax.scipy.linalg.convolution_matrix',
        names=['n'],
        condition='n <= 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: n must be a positive integer; got 0.',
    ),
    dict(
        id='scipy-linalg-convolution-matrix-mode',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.linalg.convolution_matrix(jnp.array([1.0, 2.0]), 3, mode='bad')"),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testConvolutionMatrixInvalidArgs',
        api='jax.scipy.linalg.convolution_matrix',
        names=['mode'],
        condition="mode not in ('full', 'valid', 'same')",
        accepted=['full', 'valid', 'same'],
        did_you_mean=None,
        text="ValueError: mode must be one of 'full', 'valid', 'same'; got 'bad'.",
    ),
    dict(
        id='scipy-linalg-convolution-matrix-mode-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.linalg.convolution_matrix(jnp.array([1.0, 2.0]), 3, mode='vaild')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.convolution_matrix.html',
        api='jax.scipy.linalg.convolution_matrix',
        names=['mode'],
        condition="mode not in ('full', 'valid', 'same')",
        accepted=['full', 'valid', 'same'],
        did_you_mean='valid',
        text="ValueError: mode must be one of 'full', 'valid', 'same'; got 'vaild'.",
    ),
    dict(
        id='scipy-linalg-convolution-matrix-empty',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.convolution_matrix(jnp.zeros((0,)), 3)'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testConvolutionMatrixInvalidArgs',
        api='jax.scipy.linalg.convolution_matrix',
        names=['m'],
        condition='m < 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: len(a) must be at least 1; got shape (0,).',
    ),
    dict(
        id='scipy-linalg-convolution-matrix-scalar',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.convolution_matrix(jnp.array(5.0), 3)'),
        source='jax tests/linalg_test.py::ScipyLinalgTest::testConvolutionMatrixInvalidArgs',
        api='jax.scipy.linalg.convolution_matrix',
        names=['a_arr'],
        condition='a_arr.ndim == 0',
        accepted=[],
        did_you_mean=None,
        text='ValueError: convolution_matrix: a must be at least 1-dimensional, got a scalar.',
    ),
    dict(
        id='scipy-linalg-hadamard-not-power-of-2',
        code=('import jax.scipy as jsp\n'
              'jsp.linalg.hadamard(3)'),
        source='jax tests/linalg_test.py::LaxLinalgTest::testHadamardInvalidN',
        api='jax.scipy.linalg.hadamard',
        names=['n'],
        condition='math.log2(n).is_integer()',
        accepted=[],
        did_you_mean=None,
        text='ValueError: n must be a positive power of 2; got 3.',
    ),
    dict(
        id='scipy-linalg-helmert-zero',
        code=('import jax.scipy as jsp\n'
              'jsp.linalg.helmert(0)'),
        source='jax tests/linalg_test.py::LaxLinalgTest::testHelmertInvalidN',
        api='jax.scipy.linalg.helmert',
        names=['n'],
        condition='n < 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: n must be a positive integer; got 0.',
    ),
    dict(
        id='scipy-linalg-dft-scale',
        code=('import jax.scipy as jsp\n'
              "jsp.linalg.dft(4, scale='bad')"),
        source='jax tests/linalg_test.py::LaxLinalgTest::testDftInvalidScale',
        api='jax.scipy.linalg.dft',
        names=['scale'],
        condition="scale not in ('sqrtn', 'n')",
        accepted=['sqrtn', 'n'],
        did_you_mean=None,
        text="ValueError: scale must be None, 'sqrtn', or 'n'; got 'bad'.",
    ),
    dict(
        id='scipy-linalg-dft-scale-typo',
        code=('import jax.scipy as jsp\n'
              "jsp.linalg.dft(8, scale='sqrt')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.dft.html',
        api='jax.scipy.linalg.dft',
        names=['scale'],
        condition="scale not in ('sqrtn', 'n')",
        accepted=['sqrtn', 'n'],
        did_you_mean='sqrtn',
        text="ValueError: scale must be None, 'sqrtn', or 'n'; got 'sqrt'.",
    ),
    dict(
        id='scipy-linalg-dft-real-dtype',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.linalg.dft(4, dtype=jnp.float32)'),
        source='jax tests/linalg_test.py::LaxLinalgTest::testDftInvalidDtype',
        api='jax.scipy.linalg.dft',
        names=['dtype'],
        condition='dtypes.issubdtype(dtype, np.complexfloating)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: dtype must be a complex floating-point type; got float32.',
    ),
    dict(
        id='scipy-linalg-invpascal-kind',
        code=('import jax.scipy as jsp\n'
              "jsp.linalg.invpascal(3, kind='bad')"),
        source='jax tests/linalg_test.py::LaxLinalgTest::testInvpascalInvalidKind',
        api='jax.scipy.linalg.invpascal',
        names=['kind'],
        condition='kind not in valid_kind',
        accepted=['symmetric', 'lower', 'upper'],
        did_you_mean=None,
        text="ValueError: Expected kind to be one of: ['symmetric', 'lower', 'upper']; got bad",
    ),
    dict(
        id='scipy-linalg-invpascal-kind-typo',
        code=('import jax.scipy as jsp\n'
              "jsp.linalg.invpascal(4, kind='lowr')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.invpascal.html',
        api='jax.scipy.linalg.invpascal',
        names=['kind'],
        condition='kind not in valid_kind',
        accepted=['symmetric', 'lower', 'upper'],
        did_you_mean='lower',
        text="ValueError: Expected kind to be one of: ['symmetric', 'lower', 'upper']; got lowr",
    ),
    dict(
        id='scipy-linalg-schur-output-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.linalg.schur(jnp.eye(3), output='reel')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.schur.html',
        api='jax.scipy.linalg.schur',
        names=['output'],
        condition="output not in ('real', 'complex')",
        accepted=['real', 'complex'],
        did_you_mean='real',
        text="ValueError: Expected 'output' to be either 'real' or 'complex', got output='reel'.",
    ),
    dict(
        id='scipy-linalg-qr-multiply-mode-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.linalg.qr_multiply(jnp.eye(3), jnp.ones(3), mode='rigth')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.qr_multiply.html',
        api='jax.scipy.linalg.qr_multiply',
        names=['mode'],
        condition="mode not in ('right', 'left')",
        accepted=['right', 'left'],
        did_you_mean='right',
        text="ValueError: mode must be 'right' or 'left', got 'rigth'",
    ),
    dict(
        id='scipy-linalg-polar-side-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.linalg.polar(jnp.eye(3), side='lefft')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.linalg.polar.html',
        api='jax.scipy.linalg.polar',
        names=['side'],
        condition='side not in ["right", "left"]',
        accepted=['right', 'left'],
        did_you_mean='left',
        text="ValueError: The argument `side` must be either 'right' or 'left'.",
    ),
    dict(
        id='scipy-ndimage-map-coordinates-length',
        code=('import jax.numpy as jnp\n'
              'from jax.scipy import ndimage\n'
              'x = jnp.ones((3, 3, 3))\n'
              'c = jnp.zeros(2)\n'
              'ndimage.map_coordinates(x, [c, c], order=1)'),
        source='jax tests/scipy_ndimage_test.py::NdimageTest::testMapCoordinatesErrors',
        api='jax.scipy.ndimage.map_coordinates',
        names=['coordinates', 'input_arr'],
        condition='len(coordinates) != input_arr.ndim',
        accepted=[],
        did_you_mean=None,
        text='ValueError: coordinates must be a sequence of length input.ndim, but 2 != 3',
    ),
    dict(
        id='scipy-fft-dctn-s-too-long',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.fft.dctn(jnp.ones((2, 3)), s=(2, 3, 4))'),
        source='jax tests/scipy_fft_test.py::LaxBackedScipyFftTests::testDctnSShapeTooLargeError',
        api='jax.scipy.fft.dctn',
        names=['s', 'x'],
        condition='len(s) > x.ndim',
        accepted=[],
        did_you_mean=None,
        text='ValueError: s must have at most x.ndim (2) elements, got 3',
    ),
    dict(
        id='scipy-fft-dct-norm-forward',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.fft.dct(jnp.ones(4), norm='forward')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.fft.dct.html',
        api='jax.scipy.fft.dct',
        names=['norm'],
        condition="norm not in ['backward', 'ortho']",
        accepted=['backward', 'ortho'],
        did_you_mean=None,
        text="ValueError: jax.scipy.fft.dct: norm='forward' is not implemented",
    ),
    dict(
        id='scipy-fft-idctn-norm-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.fft.idctn(jnp.ones((2, 2)), norm='orto')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.fft.idctn.html',
        api='jax.scipy.fft.idctn',
        names=['norm'],
        condition="norm not in ['backward', 'ortho']",
        accepted=['backward', 'ortho'],
        did_you_mean='ortho',
        text="ValueError: jax.scipy.fft.idctn: norm='orto' is not implemented",
    ),
    dict(
        id='scipy-optimize-minimize-args-not-tuple',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy.optimize\n'
              'f = lambda x, a: (x ** 2).sum()\n'
              "jax.scipy.optimize.minimize(f, jnp.ones(2), args=45, method='BFGS')"),
        source='jax tests/scipy_optimize_test.py::TestBFGS::test_args_must_be_tuple',
        api='jax.scipy.optimize.minimize',
        names=['args'],
        condition='isinstance(args, tuple)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: args argument to jax.scipy.optimize.minimize must be a tuple, got 45',
    ),
    dict(
        id='scipy-special-sici-complex',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.special.sici(jnp.array([1.0 + 1.0j]))'),
        source='jax tests/lax_scipy_special_functions_test.py::LaxScipySpecialFunctionsTest::testSiciRaiseOnComplexInput',
        api='jax.scipy.special.sici',
        names=['x'],
        condition='dtypes.issubdtype(x.dtype, np.complexfloating)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Argument `x` to sici must be real-valued. Got dtype complex64.',
    ),
    dict(
        id='scipy-signal-fftconvolve-mode-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.signal.fftconvolve(jnp.ones(5), jnp.ones(3), mode='sam')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.signal.fftconvolve.html',
        api='jax.scipy.signal.fftconvolve',
        names=['mode'],
        condition='mode not in ["same", "full", "valid"]',
        accepted=['same', 'full', 'valid'],
        did_you_mean='same',
        text="ValueError: mode must be one of ['same', 'full', 'valid']",
    ),
    dict(
        id='scipy-signal-fftconvolve-ndim',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              'jsp.signal.fftconvolve(jnp.ones(5), jnp.ones((3, 3)))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.signal.fftconvolve.html',
        api='jax.scipy.signal.fftconvolve',
        names=['in1', 'in2'],
        condition='in1.ndim != in2.ndim',
        accepted=[],
        did_you_mean=None,
        text='ValueError: in1 and in2 should have the same dimensionality',
    ),
    dict(
        id='scipy-signal-convolve-mode-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.signal.convolve(jnp.ones(5), jnp.ones(3), mode='ful', method='direct')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.signal.convolve.html',
        api='jax.scipy.signal.convolve',
        names=['mode'],
        condition='mode not in ["full", "same", "valid"]',
        accepted=['full', 'same', 'valid'],
        did_you_mean='full',
        text="ValueError: mode must be one of ['full', 'same', 'valid']",
    ),
    dict(
        id='scipy-signal-detrend-type-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.signal.detrend(jnp.arange(5.0), type='linaer')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.signal.detrend.html',
        api='jax.scipy.signal.detrend',
        names=['type'],
        condition="type not in ['constant', 'linear']",
        accepted=['constant', 'linear'],
        did_you_mean='linear',
        text="ValueError: Trend type must be 'linear' or 'constant'.",
    ),
    dict(
        id='scipy-stats-mode-nan-policy-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.stats.mode(jnp.array([1, 2, 2, 3]), nan_policy='ommit')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.stats.mode.html',
        api='jax.scipy.stats.mode',
        names=['nan_policy'],
        condition='nan_policy not in ["propagate", "omit", "raise"]',
        accepted=['propagate', 'omit', 'raise'],
        did_you_mean='omit',
        text="ValueError: Illegal nan_policy value 'ommit'; expected one of {'propagate', 'omit', 'raise'}",
    ),
    dict(
        id='scipy-stats-rankdata-method-typo',
        code=('import jax.numpy as jnp\n'
              'import jax.scipy as jsp\n'
              "jsp.stats.rankdata(jnp.array([3.0, 1.0, 2.0]), method='averge')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.stats.rankdata.html',
        api='jax.scipy.stats.rankdata',
        names=['method'],
        condition='method not in ("average", "min", "max", "dense", "ordinal")',
        accepted=['average', 'min', 'max', 'dense', 'ordinal'],
        did_you_mean='average',
        text="ValueError: unknown method 'averge'",
    ),
    dict(
        id='scipy-interpolate-rgi-method',
        code=('import jax.numpy as jnp\n'
              'from jax.scipy.interpolate import RegularGridInterpolator\n'
              'x = jnp.arange(3.0)\n'
              "RegularGridInterpolator((x,), x, method='cubic')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.interpolate.RegularGridInterpolator.html',
        api='jax.scipy.interpolate.RegularGridInterpolator',
        names=['method'],
        condition='method not in ("linear", "nearest")',
        accepted=['linear', 'nearest'],
        did_you_mean=None,
        text="ValueError: method 'cubic' is not defined",
    ),
    dict(
        id='jit-not-callable',
        code=('import jax\n'
              'jax.jit(3)'),
        source='jax tests/api_test.py::JitTest::test_jit_of_noncallable',
        api='jax.jit',
        names=['fun'],
        condition='callable(fun)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: Expected a callable value, got 3',
    ),
    dict(
        id='jit-static-argnums-out-of-range',
        code=('import jax\n'
              '\n'
              'def f(a, b):\n'
              '  return a + b\n'
              '\n'
              'jax.jit(f, static_argnums=(0, 1, 3))'),
        source='jax tests/api_test.py::JitTest::test_jit_argnums_overflow_error',
        api='jax.jit',
        names=['argnums', 'n_pos_args'],
        condition='max(argnums) >= n_pos_args',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Jitted function has static_argnums=(0, 1, 3), but only accepts 2 positional arguments.',
    ),
    dict(
        id='jit-static-argnames-unknown',
        code=('import jax\n'
              '\n'
              'def f(a, b, c):\n'
              '  return a\n'
              '\n'
              "jax.jit(f, static_argnames=('b', 'c', 'not_defined'))"),
        source='jax tests/api_test.py::JitTest::test_jit_argnames_validation',
        api='jax.jit',
        names=['invalid_argnames'],
        condition='invalid_argnames := (set(argnames) - valid_kwargs)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Jitted function has invalid argnames {'not_defined'} in static_argnames. Function does not take these args.",
    ),
    dict(
        id='grad-has-aux-not-pair',
        code=('import jax\n'
              'jax.grad(lambda x: (1, 2, 3), has_aux=True)(1.)'),
        source='jax tests/api_test.py::APITest::test_grad_and_aux_error',
        api='jax.grad',
        names=['ans'],
        condition='len(ans) != 2',
        accepted=[],
        did_you_mean=None,
        text="TypeError: expected function with aux output to return a two-element tuple, but got type <class 'tuple'> with value (1, 2, 3)",
    ),
    dict(
        id='jvp-tree-mismatch',
        code=('import jax\n'
              'import numpy as np\n'
              'jax.jvp(lambda x, y: x * y, (np.float32(2),), ())'),
        source='jax tests/api_test.py::APITest::test_jvp_mismatched_arguments',
        api='jax.jvp',
        names=['ps_ft', 'ts_ft'],
        condition='ps_ft.tree != ts_ft.tree',
        accepted=[],
        did_you_mean=None,
        text='TypeError: primal and tangent arguments to jax.jvp must have the same tree structure; primals have tree structure PyTreeDef((*,)) whereas tangents have tree structure PyTreeDef(()).',
    ),
    dict(
        id='jvp-dtype-mismatch',
        code=('import jax\n'
              'import numpy as np\n'
              'jax.jvp(lambda x: -x, (np.float16(2),), (np.float32(4),))'),
        source='jax tests/api_test.py::APITest::test_jvp_mismatched_arguments',
        api='jax.jvp',
        names=['p', 't'],
        condition='core.primal_dtype_to_tangent_dtype(_dtype(p)) != _dtype(t)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype float16 and so expected tangent dtype float16, but got tangent dtype float32 instead.',
    ),
    dict(
        id='jvp-shape-mismatch',
        code=('import jax\n'
              'import jax.numpy as jnp\n'
              'jax.jvp(lambda x: x + 1, (jnp.array([1., 2., 3.]),), (jnp.array([1., 2., 3., 4.]),))'),
        source='jax tests/api_test.py::APITest::test_jvp_mismatched_arguments',
        api='jax.jvp',
        names=['p', 't'],
        condition='np.shape(p) != np.shape(t)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jvp called with different primal and tangent shapes;Got primal shape (3,) and tangent shape as (4,)',
    ),
    dict(
        id='jvp-primals-not-tuple',
        code=('import jax\n'
              'jax.jvp(lambda x, y: x + y, 0., (1.,))'),
        source='jax tests/api_test.py::APITest::test_jvp_non_tuple_arguments',
        api='jax.jvp',
        names=['primals'],
        condition='isinstance(primals, (tuple, list))',
        accepted=[],
        did_you_mean=None,
        text='TypeError: primal and tangent arguments to jax.jvp must be tuples or lists; found float and tuple.',
    ),
    dict(
        id='shape-dtype-struct-no-dtype',
        code=('import jax\n'
              'jax.ShapeDtypeStruct(shape=(), dtype=None)'),
        source='jax tests/api_test.py::APITest::test_shape_dtype_struct_dtype_none',
        api='jax.ShapeDtypeStruct',
        names=['dtype'],
        condition='dtype is None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: ShapeDtypeStruct: dtype must be specified.',
    ),
    dict(
        id='vmap-in-axes-wrong-length',
        code=('import jax\n'
              'import jax.numpy as jnp\n'
              "jax.vmap(lambda x: x['a'], in_axes=(0, {'a': 0}))({'a': jnp.zeros((3, 3))})"),
        source='jax tests/api_test.py::APITest::test_vmap_in_axes_wrong_length_tuple_error',
        api='jax.vmap',
        names=['in_axes', 'args'],
        condition='len(in_axes) != len(args)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional arguments passed to the function, but got len(in_axes)=2, len(args)=1',
    ),
    dict(
        id='vmap-no-array-args',
        code=('import jax\n'
              'jax.vmap(lambda x: x)({})'),
        source='jax tests/api_test.py::APITest::test_vmap_empty_arguments',
        api='jax.vmap',
        names=['vals', 'axis_size'],
        condition='not vals',
        accepted=[],
        did_you_mean=None,
        text='ValueError: vmap wrapped function must be passed at least one argument containing an array or axis_size must be specified, got empty *args=({},) and **kwargs={}',
    ),
    dict(
        id='grad-argnums-kwargs-only',
        code=('import jax\n'
              'df = jax.grad(lambda x, y: x + y, argnums=0)\n'
              'df(x=0., y=1.)'),
        source='jax tests/api_test.py::APITest::test_grad_without_enough_args_error_message',
        api='jax.grad',
        names=['max_argnum', 'args'],
        condition='max_argnum >= len(args)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: differentiating with respect to argnums=0 requires at least 1 positional arguments to be passed by the caller, but got only 0 positional arguments.',
    ),
    dict(
        id='grad-complex-output',
        code=('import jax\n'
              'jax.grad(lambda x: x * 1j)(1.)'),
        source='jax tests/api_test.py::APITest::test_grad_complex_result_errors',
        api='jax.grad',
        names=['aval'],
        condition='dtypes.issubdtype(aval.dtype, np.complexfloating)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), but got complex64. For holomorphic differentiation, pass holomorphic=True. For differentiation of non-holomorphic functions involving complex outputs, use jax.vjp directly.',
    ),
    dict(
        id='custom-jvp-undefined',
        code=('import jax\n'
              '\n'
              '@jax.custom_jvp\n'
              'def f(x):\n'
              '  return x\n'
              '\n'
              'jax.jvp(f, (1.,), (1.,))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html',
        api='jax.custom_jvp',
        names=['self'],
        condition='not self.jvp',
        accepted=[],
        did_you_mean=None,
        text='AttributeError: No JVP defined for custom_jvp function f using defjvp.',
    ),
    dict(
        id='named-scope-not-string',
        code=('import jax\n'
              'with jax.named_scope(3):\n'
              '  pass'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.named_scope.html',
        api='jax.named_scope',
        names=['name'],
        condition='isinstance(name, str)',
        accepted=[],
        did_you_mean=None,
        text='TypeError: named_scope name argument must be a string.',
    ),
    dict(
        id='sharding-mesh-ndim-mismatch',
        code=('import jax\n'
              "jax.sharding.Mesh(jax.devices(), ('x', 'y'))"),
        source='jax tests/api_test.py::APITest::test_mesh_creation_error_message',
        api='jax.sharding.Mesh',
        names=['devices', 'axis_names'],
        condition='devices.ndim != len(axis_names)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Mesh requires the ndim of its first argument (`devices`) to equal the length of its second argument (`axis_names`), but got devices.ndim == 1 and len(axis_names) == 2.',
    ),
    dict(
        id='sharding-mesh-axis-name-none',
        code=('import jax\n'
              "jax.sharding.Mesh(jax.devices(), (None, 'x'))"),
        source='jax tests/array_test.py::ShardingTest::test_mesh_with_axis_name_none',
        api='jax.sharding.Mesh',
        names=['axis_names'],
        condition='any(i is None for i in axis_names)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Mesh axis names cannot be None. Got: (None, 'x')",
    ),
    dict(
        id='sharding-abstract-mesh-axis-types-str',
        code=('from jax.sharding import AbstractMesh\n'
              "AbstractMesh((2,), ('x',), axis_types=('explicit',))"),
        source='jax tests/array_test.py::ShardingTest::test_mesh_axis_types_mismatch',
        api='jax.sharding.AbstractMesh',
        names=['axis_types'],
        condition='all(isinstance(a, AxisType) for a in axis_types)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: axis_types passed to AbstractMesh must be of type `jax.sharding.AxisType`. Got ('explicit',) of type (<class 'str'>,)",
    ),
    dict(
        id='sharding-make-mesh-axis-types-length',
        code=('import jax\n'
              'from jax.sharding import AxisType\n'
              "jax.make_mesh((1,), ('x',), axis_types=(AxisType.Explicit, AxisType.Explicit))"),
        source='jax tests/array_test.py::ShardingTest::test_make_mesh_axis_types',
        api='jax.make_mesh',
        names=['axis_names', 'axis_types'],
        condition='len(axis_names) != len(axis_types)',
        accepted=[],
        did_you_mean=None,
        text="ValueError: Number of axis names should match the number of axis_types. Got axis_names=('x',) and axis_types=(Explicit, Explicit)",
    ),
    dict(
        id='debug-callback-not-callable',
        code=('import jax\n'
              "jax.debug.callback('this is not debug.print!')"),
        source='jax tests/debugging_primitives_test.py::DebugCallbackTest::test_error_with_non_callable',
        api='jax.debug.callback',
        names=['callback'],
        condition='callable(callback)',
        accepted=[],
        did_you_mean=None,
        text="TypeError: first argument to jax.debug.callback must be callable, but got an object of type <class 'str'>",
    ),
    dict(
        id='debug-print-unused-kwargs',
        code=('import jax\n'
              "jax.debug.print('x = {x}', x=1, y=2)"),
        source='jax tests/debugging_primitives_test.py::DebugPrintParallelTest::test_format_string_errors_with_unused_args',
        api='jax.debug.print',
        names=['unused_kwargs'],
        condition='unused_kwargs',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Unused keyword arguments to `jax.debug.print`: [\'y\']. You may be passing an f-string (i.e, `f"{x}"`) into `jax.debug.print` and instead should pass in a regular string.',
    ),
    dict(
        id='dtypes-itemsize-bits-none',
        code=('import jax\n'
              'jax.dtypes.itemsize_bits(None)'),
        source='jax tests/dtypes_test.py::DtypesTest::test_itemsize_none_raises',
        api='jax.dtypes.itemsize_bits',
        names=['dtype'],
        condition='dtype is None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: dtype cannot be None.',
    ),
    dict(
        id='scipy-special-polygamma-float-n',
        code=('import jax.scipy.special as sp\n'
              'sp.polygamma(1.0, 2.0)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.scipy.special.polygamma.html',
        api='jax.scipy.special.polygamma',
        names=['n'],
        condition='dtypes.issubdtype(lax.dtype(n), np.integer)',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Argument `n` to polygamma must be of integer type. Got dtype float32.',
    ),
    dict(
        id='jnp-ravel-order-k',
        code=('import jax.numpy as jnp\n'
              "jnp.ravel(jnp.ones((2, 2)), order='K')"),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ravel.html',
        api='jax.numpy.ravel',
        names=['order'],
        condition='order == "K"',
        accepted=[],
        did_you_mean=None,
        text="NotImplementedError: Ravel not implemented for order='K'.",
    ),
    dict(
        id='jnp-trace-out-argument',
        code=('import jax.numpy as jnp\n'
              'jnp.trace(jnp.eye(2), out=jnp.zeros(()))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.trace.html',
        api='jax.numpy.trace',
        names=['out'],
        condition='out is not None',
        accepted=[],
        did_you_mean=None,
        text="NotImplementedError: The 'out' argument to jnp.trace is not supported.",
    ),
    dict(
        id='jnp-nanquantile-overwrite-input',
        code=('import jax.numpy as jnp\n'
              'jnp.nanquantile(jnp.ones(3), 0.5, overwrite_input=True)'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.nanquantile.html',
        api='jax.numpy.nanquantile',
        names=['overwrite_input', 'out'],
        condition='overwrite_input or out is not None',
        accepted=[],
        did_you_mean=None,
        text='ValueError: jax.numpy.nanquantile does not support overwrite_input=True or out != None',
    ),
    dict(
        id='jnp-linalg-outer-2d',
        code=('import jax.numpy as jnp\n'
              'jnp.linalg.outer(jnp.ones((2, 2)), jnp.ones(2))'),
        source='https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linalg.outer.html',
        api='jax.numpy.linalg.outer',
        names=['x1', 'x2'],
        condition='x1.ndim != 1 or x2.ndim != 1',
        accepted=[],
        did_you_mean=None,
        text='ValueError: Input arrays must be one-dimensional, but they are x1.ndim=2 x2.ndim=1',
    ),
    dict(
        id='sharding-partition-spec-subclass',
        code=('import jax\n'
              '\n'
              'class MyP(jax.P):\n'
              '  pass'),
        source='jax tests/array_test.py::ShardingTest::test_pspec_subclass_error',
        api='jax.sharding.PartitionSpec',
        names=[],
        condition='',
        accepted=[],
        did_you_mean=None,
        text='TypeError: Subclassing `jax.P` is prohibited.',
    ),
    dict(
        id='jnp-asarray-masked-array',
        code=('import jax.numpy as jnp\n'
              'import numpy as np\n'
              'x = np.ma.array([1.0, 2.0], mask=[0, 1])\n'
              'jnp.asarray(x)'),
        source='jax tests/lax_numpy_test.py::LaxBackedNumpyTests::testArrayFromMasked',
        api='jax.numpy.asarray',
        names=[],
        condition='',
        accepted=[],
        did_you_mean=None,
        text='ValueError: numpy masked arrays are not supported as direct inputs to JAX functions. Use arr.filled() to convert the value to a standard numpy array.',
    ),
]
