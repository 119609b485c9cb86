"""The public API stays the same functions whatever is imported (DESIGN.md, "Public surface")."""

from __future__ import annotations

import importlib
import pkgutil

import jax
import pytest

import jaxerrs

PUBLIC = ("diagnose", "diagnose_text", "search", "render_html", "render_text")


def _every_submodule() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(jaxerrs.__path__, "jaxerrs."):
        if info.name.endswith("__main__"):
            continue
        importlib.import_module(info.name)
        names.append(info.name)
    return names


def test_public_functions_survive_every_import_and_a_second_call():
    before = {name: getattr(jaxerrs, name) for name in PUBLIC}
    assert len(_every_submodule()) > 20
    for name in PUBLIC:
        assert getattr(jaxerrs, name) is before[name] and callable(before[name]), name
    try:
        jax.jit(lambda x: x if x > 0 else -x)(1.0)
    except Exception as e:  # noqa: BLE001
        exc = e
    for _ in range(2):  # the second call must be the same function as the first
        d = jaxerrs.diagnose(exc)
        assert d.is_jax and d.record.id == "tracer-bool-conversion"
        assert jaxerrs.diagnose_text(f"{type(exc).__name__}: {exc}").is_jax
        assert jaxerrs.search("boolean conversion of traced array", limit=3)
        assert "jaxerrs-panel" in jaxerrs.render_html(d)
        assert d.record.title in jaxerrs.render_text(d)
    for name in PUBLIC:
        assert getattr(jaxerrs, name) is before[name], name


@pytest.mark.parametrize("name", PUBLIC)
def test_no_submodule_shares_a_public_name(name):
    assert importlib.util.find_spec(f"jaxerrs.{name}") is None
