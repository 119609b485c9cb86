"""Static arguments, shapes from traced values and boolean masks.

- ``static-argnames``: a size, shape, count or axis that is traced because it is a parameter of the
  user's own jitted function -> that parameter becomes static on the user's ``jit``.
- ``static-arithmetic``: a size computed with ``jnp`` from shapes and constants (``jnp.add(x.size, 1)``)
  -> the same arithmetic in Python, a static int (``arithmetic.py``).
- ``dynamic-slice``: ``x[i:i + k]`` with a traced start and a static length -> ``lax.dynamic_slice_in_dim``.
- ``static-arg-hashable``: a list passed for a static argument -> a tuple.
- ``jit-method``: ``@jax.jit`` on a method -> ``@partial(jax.jit, static_argnums=0)``.
- ``boolean-mask``: ``x.at[mask].set(v)`` -> ``jnp.where(mask, v, x)``; ``x[mask]`` -> the selections
  followed through the function (``selections.py``): the reductions that read them take ``where=``.
- ``selection-where``: positions from ``jnp.nonzero``/``where``/``argwhere``/``flatnonzero`` used to index
  and to count -> the mask itself, ``where=`` and ``jnp.count_nonzero`` (``selections.py``).
- ``size-argument``: ``jnp.nonzero``/one-argument ``jnp.where``/``argwhere``/``flatnonzero``/``unique``
  under ``jit`` -> a static ``size=``.
- ``static-argnames-typo``: ``static_argnames`` naming a parameter that does not exist -> the close name.

Every rule returns None as soon as the code is not of a shape it fully understands.
"""
