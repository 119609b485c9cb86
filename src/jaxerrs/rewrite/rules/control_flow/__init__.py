"""Python control flow and Python scalars on traced values, rewritten into code JAX can trace.

Under ``jit``, ``vmap`` or ``grad`` a value is a tracer: Python cannot branch on it, loop on it or
turn it into an ``int``/``float``/list. These rules rewrite the construct on the failing line:
``if``/ternary -> ``jnp.where`` (or ``lax.cond`` for multi-statement branches), ``and``/``or``/``not``
-> ``jnp.logical_*``, ``min``/``max`` -> ``jnp.minimum``/``jnp.maximum``, ``while`` ->
``lax.while_loop``, ``for ... in range(traced)`` -> ``lax.fori_loop``, a count or flag parameter of
the user's own jitted function -> a static argument, ``lst[i]`` -> ``jnp.asarray(lst)[i]``, and
``float()``/``int()``/``.item()``/``.tolist()`` dropped where the number only fed array math.
Every rule returns None when the code has an unusual shape: no rewrite beats a wrong one.
"""
