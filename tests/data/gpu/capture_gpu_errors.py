"""Capture real GPU-only JAX errors as text, for the knowledge base's message-only records.

Run on a machine with an NVIDIA GPU: ``python tests/data/gpu/capture_gpu_errors.py OUTDIR``. Each error is
raised in a child process, as a script would (JAX's default traceback filtering), and written as
``OUTDIR/<name>.txt`` (the script's whole stderr); ``versions.txt`` records what produced them.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SNIPPETS = {
    # One array larger than the GPU's memory, created eagerly.
    "gpu_oom_eager": """
        import jax.numpy as jnp
        x = jnp.ones((300 * 1024**3 // 4,), dtype=jnp.float32)
        print(x[0])
    """,
    # The same inside a jitted function: XLA fails to allocate the output buffer.
    "gpu_oom_jit": """
        import jax, jax.numpy as jnp
        @jax.jit
        def make(a):
            return jnp.broadcast_to(a, (300 * 1024**3 // 4,)) * 2
        print(make(jnp.float32(1.0))[0])
    """,
    # Many moderately large arrays kept alive until the device is full.
    "gpu_oom_accumulate": """
        import jax.numpy as jnp
        keep = []
        for i in range(100):
            keep.append(jnp.full((10 * 1024**3 // 4,), float(i), dtype=jnp.float32))
        print(len(keep))
    """,
    # A matmul whose temporaries do not fit: raised while compiling/executing.
    "gpu_oom_matmul": """
        import jax, jax.numpy as jnp
        a = jnp.ones((150_000, 150_000), dtype=jnp.float32)
        b = (a @ a).block_until_ready()
    """,
    # Preallocation larger than the device.
    "gpu_mem_fraction_too_large": """
        import os
        os.environ["XLA_PYTHON_CLIENT_MEM_FRACTION"] = "1.5"
        import jax.numpy as jnp
        print(jnp.ones(3) + 1)
    """,
}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, code in SNIPPETS.items():
        try:
            p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                               timeout=240)
            text = p.stderr[-20000:] + (f"\n[stdout]\n{p.stdout[-2000:]}" if p.stdout.strip() else "")
            text += f"\n[exit {p.returncode}]\n"
        except subprocess.TimeoutExpired:
            text = "[timed out]\n"
        (out / f"{name}.txt").write_text(text)
        print(name, text.strip().splitlines()[-2:] if text.strip() else "")
    v = subprocess.run([sys.executable, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__);"
                        "print(jax.devices())"], capture_output=True, text=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv"],
                         capture_output=True, text=True)
    (out / "versions.txt").write_text(v.stdout + v.stderr[-2000:] + smi.stdout)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
