"""Capture real TPU-only JAX errors as text, for the knowledge base's message-only records.

Run on a machine with a TPU: ``python tests/data/tpu/capture_tpu_errors.py OUTDIR``. Each error is raised in
a child process, as a script would (JAX's default traceback filtering), and written as ``OUTDIR/<name>.txt``
(the script's whole stderr); ``versions.txt`` records what produced them. The ``tpu_busy_*`` snippets run
while another process holds the TPU, with ``JAX_PLATFORMS`` as the machine sets it and with it empty (JAX
then starts the platforms it can, quietly).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

SNIPPETS = {
    # One array larger than the chip's HBM, created eagerly.
    "tpu_oom_eager": ("""
        import jax.numpy as jnp
        x = jnp.ones((8, 1024, 1024, 1024), jnp.float32)   # 32 GiB
        print(x[0, 0, 0, 0])
    """, None),
    # The same inside a jitted function.
    "tpu_oom_jit": ("""
        import jax, jax.numpy as jnp
        @jax.jit
        def make(a):
            return jnp.broadcast_to(a, (8, 1024, 1024, 1024)) * 2
        print(make(jnp.float32(1.0))[0, 0, 0, 0])
    """, None),
    # Many moderately large arrays kept alive until the chip is full.
    "tpu_oom_many": ("""
        import jax.numpy as jnp
        kept = []
        for i in range(64):
            kept.append(jnp.full((256, 1024, 1024), float(i), jnp.float32))   # 1 GiB each
            kept[-1].block_until_ready()
    """, None),
    # Asking for the TPU by name while another process holds it.
    "tpu_busy_platforms_set": ("""
        import jax
        print(jax.devices("tpu"))
    """, None),
    "tpu_busy_platforms_empty": ("""
        import jax
        print(jax.devices())
        print(jax.devices("tpu"))
    """, {"JAX_PLATFORMS": ""}),
}

HOLD = "import jax, time, sys; jax.devices(); print('held', flush=True); time.sleep(600)"


def _run(code: str, env_extra: dict | None) -> str:
    env = dict(os.environ)
    env.update(env_extra or {})
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                       timeout=600)
    return p.stderr


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (code, env_extra) in SNIPPETS.items():
        holder = None
        if name.startswith("tpu_busy"):
            holder = subprocess.Popen([sys.executable, "-c", HOLD], stdout=subprocess.PIPE, text=True)
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        try:
            (out / f"{name}.txt").write_text(_run(code, env_extra))
        finally:
            if holder is not None:
                holder.kill()
                holder.wait()
                time.sleep(2)
        print(name, "captured", flush=True)
    import jax

    (out / "versions.txt").write_text(f"{jax.__version__} {jax.lib.__version__}\n{jax.devices()}\n"
                                      f"JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS', '(unset)')}\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
