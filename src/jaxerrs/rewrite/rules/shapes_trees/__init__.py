"""Shapes, pytrees, leaked tracers and donated buffers: rewrites for the cases where the intent is clear.

Every rule here reads the live values (``ctx.locals`` / ``ctx.namespace``) to learn shapes and tree
structures, and only rewrites when exactly one edit makes the failing expression consistent. Values
are looked up, never computed: names, instance attributes, constant subscripts of dicts, lists and
tuples; shapes of simple array expressions are inferred without running anything.
"""
