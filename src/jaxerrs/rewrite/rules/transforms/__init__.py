"""Rewrites for the transformations: ``vmap`` axes, ``scan``/``while_loop``/``fori_loop`` carries,
``cond``/``switch`` branch outputs and ``fori_loop`` bounds.

The messages of these errors print the types on both sides (the carry before and after one step, the
two branches' outputs, each mapped argument's axis size), so the rules read the target type from the
message and change the one expression that disagrees: the initial carry, the odd branch's returned
literal, the ``in_axes`` entry of a shared argument. Anything less clear-cut returns None.
"""
