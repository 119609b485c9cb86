"""Text that is not a traceback: JAX's own log lines, and non-JAX errors through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import jaxerrs

CUDNN = ("CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against version 8900, "
         "which is newer. (Set TF_CPP_MIN_LOG_LEVEL=0 and rerun for more info.)")


@pytest.mark.parametrize("log", [
    f"2026-11-29 10:00:01 step 0 loss 1.0\nWARNING:jax._src.xla_bridge:{CUDNN}\n",
    f"W1129 10:00:00.000000 1234 xla_bridge.py:879] {CUDNN}\n",
])
def test_jax_log_warning_is_explained(log):
    d = jaxerrs.diagnose_text(log)
    assert d.is_jax and d.record is not None and d.record.id == "cuda-backend-init-failed"
    assert d.evidence.module == "jax._src.xla_bridge"


def test_unknown_jax_log_line_is_not_claimed():
    assert not jaxerrs.diagnose_text("WARNING:jax._src.xla_bridge:something else happened\n").is_jax


def _explain(text: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jaxerrs", "explain", "-", *args], input=text,
                          capture_output=True, text=True, timeout=300)


def test_cli_says_a_non_jax_error_is_not_jax():
    r = _explain("ZeroDivisionError: division by zero\n")
    assert r.returncode == 1 and r.stdout == ""
    assert "not a JAX error (ZeroDivisionError: division by zero)" in r.stderr
    j = _explain("ZeroDivisionError: division by zero\n", "--format", "json")
    assert j.returncode == 1 and json.loads(j.stdout)["is_jax"] is False


def test_cli_explains_a_log_line_as_html():
    r = _explain(f"WARNING:jax._src.xla_bridge:{CUDNN}\n", "--format", "html")
    assert r.returncode == 0 and 'data-record="cuda-backend-init-failed"' in r.stdout


GPU = Path(__file__).parent / "data" / "gpu"


@pytest.mark.parametrize("name", ["gpu_oom_eager", "gpu_oom_jit", "gpu_oom_matmul"])
def test_real_gpu_out_of_memory_tracebacks(name):
    """Captured on an NVIDIA H200 (JAX 0.11.2) by tests/data/gpu/capture_gpu_errors.py, script form."""
    d = jaxerrs.diagnose_text((GPU / f"{name}.txt").read_text())
    assert d.is_jax and d.record is not None and d.record.id == "gpu-out-of-memory", d.to_dict()
    assert "GiB" in d.values.get("size", "")
