"""What a name in the cell stands for: ``jnp.sum`` -> "jax.numpy.sum" (see :mod:`jaxerrs.rewrite.analysis`).

Every rule keys its decisions on full dotted names, never on how the user spelled them; the shared
analysis turns the spelling into the name (the cell's imports, LibCST scopes, the namespace of earlier
cells). This module keeps the names rules import.
"""

from __future__ import annotations

from jaxerrs.rewrite.analysis import full_name, module_aliases, public_name, refers_to, shadowed

__all__ = ["full_name", "module_aliases", "public_name", "refers_to", "shadowed"]
