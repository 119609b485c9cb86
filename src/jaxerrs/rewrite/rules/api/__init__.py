"""Removed/renamed APIs, Python lists and ints where arrays and keys belong, NumPy on tracers, dtypes.

Every rule here resolves the names of the cell through its imports (``tu.tree_multimap`` is
``jax.tree_util.tree_multimap``) and checks the installed JAX before proposing anything: a
replacement is only offered when the old name is really missing and the new one really exists.
"""
