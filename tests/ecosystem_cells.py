"""Cells shared by the ecosystem tests in a shell (tests/test_ecosystem.py) and in JupyterLab (tests/browser)."""

# A Flax NNX model whose second layer expects 4 input features and gets the first layer's 8: the error is
# raised inside flax, and "In your code" must be `return self.l2(h)` (line 11 of the cell).
NNX_MLP = """import jax.numpy as jnp
from flax import nnx

class MLP(nnx.Module):
    def __init__(self, rngs):
        self.l1 = nnx.Linear(3, 8, rngs=rngs)
        self.l2 = nnx.Linear(4, 2, rngs=rngs)

    def __call__(self, x):
        h = self.l1(x)
        return self.l2(h)

MLP(nnx.Rngs(0))(jnp.ones((1, 3)))"""
