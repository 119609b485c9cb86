"""Live values of the cell's expressions, read from the failing frame (see :mod:`jaxerrs.rewrite.analysis`).

A rule may only propose what it can check, and what it checks is often the value a name holds right now
(an int seed, a config dict, an array's dtype). The implementation lives in the shared analysis; this
module keeps the names rules import.
"""

from __future__ import annotations

from jaxerrs.rewrite.analysis import (
    MISSING,
    frame_function,
    is_array,
    is_tracer,
    literal,
    live_value,
    locals_of,
    lookup,
    lookup_dotted,
    read_names,
    traced,
)

__all__ = ["MISSING", "frame_function", "is_array", "is_tracer", "literal", "live_value", "locals_of", "lookup",
           "lookup_dotted", "read_names", "traced"]
