"""Autodiff and custom derivatives: grad of non-scalars, integer inputs, ``has_aux``, loops, custom rules.

Every rule finds the differentiated function or the custom rule in the user's own cell and edits
it as little as possible. A rule returns None whenever the intent is not plain from the code: the
gradient transform is not visible in the cell, the function is defined elsewhere, several
candidates fit, or the loop has no visible bound.
"""
