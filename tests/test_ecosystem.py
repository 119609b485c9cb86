"""The JAX ecosystem (Flax, Optax, Equinox, Chex, Orbax): their errors get panels, their frames are not "your code".

Driven through a real InteractiveShell with ``%load_ext jaxerrs``; each test skips when its library is missing.
"""

from __future__ import annotations

import textwrap
import tomllib
import traceback

import pytest
from tests.conftest import run
from tests.ecosystem_cells import NNX_MLP

import jaxerrs
from jaxerrs.extension import get_state
from jaxerrs.kb import records as records_mod


def _last(shell):
    state = get_state(shell)
    assert state is not None
    return state.last


def _cell(shell, code: str):
    shell.run_line_magic("load_ext", "jaxerrs")
    state = get_state(shell)
    state.last = None
    cap, result = run(shell, textwrap.dedent(code))
    assert result.error_in_exec is not None, "the cell was meant to raise"
    return cap, result, state.last


# ---------------------------------------------------------------------------- the four cases of the issue


def test_nnx_wrong_in_features_points_at_the_users_line(shell):
    pytest.importorskip("flax.nnx")
    cap, _, d = _cell(shell, NNX_MLP)
    assert d is not None and d.is_jax
    assert d.ecosystem == "flax"
    uf = d.to_dict()["user_frame"]
    assert uf is not None
    assert "flax" not in uf["file"] and "site-packages" not in uf["file"]
    assert uf["code"].strip() == "return self.l2(h)"
    assert d.evidence.user_frame.function.endswith("__call__")
    assert d.record is not None and d.record.id == "flax-nnx-linear-in-features"
    assert "in_features" in cap.stdout[cap.stdout.index("── jaxerrs:"):]


def test_the_panel_names_the_layer_whose_input_size_disagrees(shell):
    """Read from the frames' locals: the layer's attribute name, what it expects, what it got, who gives that."""
    pytest.importorskip("flax.nnx")
    cap, _, d = _cell(shell, NNX_MLP)
    note = "`self.l2` (Linear) expects 4 input features (in_features=4); the input it was called with has 8"
    assert any(n.startswith(note) for n in d.notes), d.notes
    assert "`l1` has out_features=8." in d.notes[0]
    panel = cap.stdout[cap.stdout.index("── jaxerrs:"):]
    assert "self.l2" in panel and "expects 4 input features" in panel


def test_an_equinox_layer_given_the_wrong_width_is_named(shell):
    pytest.importorskip("equinox")
    _, _, d = _cell(shell, """
    import jax
    import jax.numpy as jnp
    import equinox as eqx

    encoder = eqx.nn.Linear(5, 3, key=jax.random.key(0))
    encoder(jnp.ones(4))
    """)
    assert d.record is not None and d.record.id == "equinox-linear-shape"
    assert d.notes == ["`encoder` (Linear) expects 5 input features (in_features=5); the input it was called "
                       "with has 4 (shape (4,))."]


def test_linen_params_for_another_width_get_the_scope_param_shape_record(shell):
    pytest.importorskip("flax.linen")
    cap, result, d = _cell(shell, """
        import jax, jax.numpy as jnp
        import flax.linen as nn

        model = nn.Dense(4)
        variables = model.init(jax.random.key(0), jnp.ones((1, 3)))
        model.apply(variables, jnp.ones((2, 5)))
        """)
    assert type(result.error_in_exec).__name__ == "ScopeParamShapeError"
    assert d.is_jax and d.ecosystem == "flax"
    assert d.record.id == "flax-linen-param-shape-mismatch"
    assert d.site is not None and d.site.path == "flax/core/scope.py"
    assert d.site.url.startswith("https://github.com/google/flax/blob/v")
    panel = cap.stdout[cap.stdout.index("── jaxerrs: ScopeParamShapeError"):]
    assert "init" in panel
    assert d.to_dict()["user_frame"]["code"].startswith("model.apply(")


def test_jax_jit_over_an_equinox_model_suggests_filter_jit(shell):
    pytest.importorskip("equinox")
    cap, _, d = _cell(shell, """
        import jax, jax.numpy as jnp
        import equinox as eqx

        model = eqx.nn.MLP(2, 2, 4, 1, key=jax.random.key(0))
        jax.jit(lambda m, x: m(x))(model, jnp.ones(2))
        """)
    assert d.is_jax and d.ecosystem == "equinox"
    assert d.record.id == "equinox-jit-non-array-field"
    assert any("eqx.filter_jit" in s for s in d.record.solutions)
    assert "eqx.filter_jit" in cap.stdout[cap.stdout.index("── jaxerrs:"):]


def test_optax_update_with_grads_missing_a_key(shell):
    pytest.importorskip("optax")
    _, _, d = _cell(shell, """
        import jax, jax.numpy as jnp
        import optax

        params = {"w": jnp.ones(3), "b": jnp.ones(1)}
        opt = optax.adam(1e-3)
        state = opt.init(params)
        grads = {"w": jnp.ones(3)}
        opt.update(grads, state, params)
        """)
    assert d.is_jax and d.ecosystem == "optax"
    assert d.record.id == "optax-update-tree-mismatch"
    assert d.to_dict()["user_frame"]["code"].startswith("opt.update(")


# ---------------------------------------------------------------------------- not JAX errors


@pytest.mark.parametrize("code", [
    "import flax.linen as nn\nundefined_name",
    "import optax\n\ndef schedule(step):\n    raise ValueError('my own schedule refuses')\n\n"
    "opt = optax.sgd(schedule)\nimport jax.numpy as jnp\nstate = opt.init(jnp.ones(2))\nopt.update(jnp.ones(2), state)",
    "import equinox as eqx\n\nclass M(eqx.Module):\n    def __call__(self, x):\n        raise KeyError(x)\n\nM()(1)",
    # Python's frozen dataclass says what a frozen Equinox module says; without Equinox's frame it is Python's.
    "import jax, dataclasses\n\n@dataclasses.dataclass(frozen=True)\nclass P:\n    a: int\n\nP(1).a = 2",
])
def test_plain_python_errors_in_cells_using_the_ecosystem_get_no_panel(shell, code):
    for lib in ("flax", "optax", "equinox"):
        if f"import {lib}" in code or f"import {lib}." in code:
            pytest.importorskip(lib)
    shell.run_line_magic("load_ext", "jaxerrs")
    cap, result = run(shell, code)
    assert result.error_in_exec is not None
    assert "jaxerrs" not in cap.stdout + cap.stderr
    d = jaxerrs.diagnose(result.error_in_exec)
    assert not d.is_jax


# ---------------------------------------------------------------------------- from text


def test_frozen_equinox_module_is_explained(shell):
    pytest.importorskip("equinox")
    _, _, d = _cell(shell, """
        import jax, jax.numpy as jnp
        import equinox as eqx

        layer = eqx.nn.Linear(2, 2, key=jax.random.key(0))
        layer.weight = jnp.zeros((2, 2))
        """)
    assert d.is_jax and d.ecosystem == "equinox" and d.record.id == "equinox-frozen-module-field"


@pytest.mark.parametrize("code, library, line", [
    ("import jax.numpy as jnp, optax\nfrom flax.training import train_state\n"
     "state = train_state.TrainState.create(apply_fn=None, params={'w': jnp.ones(2)}, tx=optax.sgd(0.1))\n"
     "state.params = {'w': jnp.zeros(2)}", "flax", 4),
    ("import jax.numpy as jnp, chex\n\n@chex.dataclass(frozen=True)\nclass C:\n    n: jnp.ndarray\n\n"
     "c = C(n=jnp.array(0))\nc.n = jnp.array(1)", "chex", 8),
])
def test_a_frozen_library_dataclass_is_explained_at_the_users_line(shell, code, library, line):
    """Python's dataclasses module writes the ``__setattr__`` that raises (a ``<string>`` frame); the instance
    it ran on is a library's (a Flax ``TrainState``, a chex dataclass), so it is that library's error, no raise
    site is named for it, and the user's line is the assignment."""
    pytest.importorskip(library)
    _, _, d = _cell(shell, code)
    assert d.is_jax and d.ecosystem == library and d.record.id == "frozen-dataclass-field-assignment"
    assert d.site is None
    assert d.evidence.user_frame is not None and d.evidence.user_frame.lineno == line


def test_library_class_on_the_final_line_is_a_jax_error():
    d = jaxerrs.diagnose_text(
        'flax.errors.ScopeParamShapeError: For parameter "kernel" in "/", the given initializer is expected to '
        "generate shape (5, 4), but the existing parameter it received has shape (3, 4).")
    assert d.is_jax and d.ecosystem == "flax"
    assert d.record is not None and d.record.id == "flax-linen-param-shape-mismatch"


@pytest.mark.parametrize("line, flax", [
    ('AttributeError: "Net" object has no attribute "dense".', True),   # Flax's quotes: not Python's repr
    ("AttributeError: 'Net' object has no attribute 'dense'", False),  # Python's own words
])
def test_double_quoted_attribute_error_is_flaxs_first_sentence(line, flax):
    """Python quotes a name with ``repr`` (single quotes); Flax's ``Module.__getattr__`` writes double quotes,
    and a paste that kept only its first sentence is still Flax's, a best guess."""
    d = jaxerrs.diagnose_text(line)
    assert d.is_jax is flax
    if flax:
        assert d.ecosystem == "flax" and d.record.id == "flax-linen-setup-attribute-outside-apply"
        assert d.confidence < 0.5


def test_pasted_traceback_raised_inside_a_library_names_it():
    text = textwrap.dedent('''\
        Traceback (most recent call last):
          File "/home/me/train.py", line 30, in <module>
            updates, state = opt.update(grads, state)
          File "/opt/venv/lib/python3.11/site-packages/optax/_src/base.py", line 339, in update
            return self.update_fn(updates, state, params)
          File "/opt/venv/lib/python3.11/site-packages/optax/transforms/_adding.py", line 61, in update_fn
            raise ValueError(base.NO_PARAMS_MSG)
        ValueError: You are using a transformation that requires the current value of parameters, but you are not passing `params` when calling `update`.
        ''')
    d = jaxerrs.diagnose_text(text)
    assert d.is_jax and d.ecosystem == "optax"
    assert d.record.id == "optax-update-needs-params"
    assert d.to_dict()["user_frame"]["file"] == "/home/me/train.py"
    assert d.site.path == "optax/transforms/_adding.py"


def test_user_raise_in_a_file_passed_to_a_library_is_not_jax():
    text = textwrap.dedent('''\
        Traceback (most recent call last):
          File "/home/me/train.py", line 30, in <module>
            opt.update(grads, state)
          File "/opt/venv/lib/python3.11/site-packages/optax/_src/base.py", line 339, in update
            return self.update_fn(updates, state, params)
          File "/home/me/train.py", line 12, in schedule
            raise ValueError("learning rate schedule ran past its end")
        ValueError: learning rate schedule ran past its end
        ''')
    assert not jaxerrs.diagnose_text(text).is_jax


def test_shared_jax_words_fall_back_to_the_jax_record_without_the_library():
    pytest.importorskip("flax")
    d = jaxerrs.diagnose_text(
        "TypeError: dot_general requires contracting dimensions to have the same shape, got (8,) and (4,).")
    assert d.record is not None and d.record.id == "dot-general-contracting-mismatch"


# ---------------------------------------------------------------------------- requires


def test_requires_is_parsed_validated_and_kept():
    rec = records_mod.all_records()["flax-linen-param-shape-mismatch"]
    # The file's own line, read as plain TOML: reviews raise floors, the test must not pin one.
    with open(records_mod.RECORDS_DIR / f"{rec.id}.toml", "rb") as f:
        written = tomllib.load(f)["requires"]
    assert written.startswith("flax>=")
    assert rec.requires == written and rec.library == "flax"
    assert rec.to_dict()["requires"] == written
    assert records_mod.all_records()["orbax-restore-tree-mismatch"].library == "orbax"
    base = rec.to_dict()
    base["requires"] = "flax >= not a version !"
    with pytest.raises(records_mod.RecordError, match="requires"):
        records_mod.from_dict(base, "bad.toml")


def test_requirement_checks():
    assert records_mod.requirement_met("")
    assert records_mod.requirement_met("jax>=0.4")
    assert not records_mod.requirement_met("jax<0.1")
    assert not records_mod.requirement_met("no-such-distribution-jaxerrs>=1")
    assert records_mod._in_range_minimal("0.12.8", ">=0.10,<1")
    assert not records_mod._in_range_minimal("0.9.1", ">=0.10")
    assert records_mod._in_range_minimal("0.2.8", "~=0.2.1")


def test_a_record_for_a_missing_library_is_skipped_by_kb_check_and_not_offered_live(monkeypatch):
    from jaxerrs.kb import verify
    from jaxerrs.matcher import diagnose_exception

    rec = records_mod.all_records()["optax-update-needs-params"]
    missing = records_mod.from_dict({**rec.to_dict(), "requires": "optax>=999"}, "x.toml")
    res = verify.check_record(missing)
    assert res.ok and res.skipped == "needs optax>=999"
    assert res.checks == {"prose": "ok", "requires": "skipped: needs optax>=999"}  # prose is checked even so
    assert "skip" in verify.table([res]) and "1 skipped" in verify.table([res])

    pytest.importorskip("optax")
    monkeypatch.setattr(rec, "requires", "optax>=999")
    try:
        exec(compile(rec.reproducer, "<cell>", "exec"), {})
    except ValueError as e:
        exc = e
    d = diagnose_exception(exc)
    assert d.is_jax and d.ecosystem == "optax"
    assert d.record is None or d.record.id != rec.id
    # From text the record is still offered: the traceback may come from another machine.
    d = jaxerrs.diagnose_text("".join(traceback.format_exception(exc)))
    assert d.record is not None and d.record.id == rec.id


def test_library_sites_are_checked_against_the_installed_source():
    pytest.importorskip("flax")
    from jaxerrs.kb.verify import _library_site_check

    assert _library_site_check("flax/core/scope.py", "Scope.param") == "ok"
    assert _library_site_check("flax/core/scope.py", "Scope.no_such_method").startswith("stale")
    assert _library_site_check("flax/no_such_file.py", "f").startswith("stale")


def test_words_orbax_and_jax_share_name_the_library_only_when_its_code_raised(shell):
    """``Checkpoint path should be absolute`` is raised by Orbax and by JAX's own array serialization (which Orbax
    builds on). Its record covers both; the panel names Orbax only when Orbax's code raised it."""
    pytest.importorskip("orbax.checkpoint")
    _, _, d = _cell(shell, """
        from jax.experimental.array_serialization import serialization
        spec = serialization.get_tensorstore_spec('weights/w', ocdbt=True)
    """)
    assert d is not None and d.record is not None and d.record.id == "orbax-checkpoint-path-not-absolute"
    assert d.ecosystem is None and d.site.path.startswith("jax/experimental/array_serialization/")
    _, _, d = _cell(shell, """
        import os, tempfile
        import jax.numpy as jnp
        import orbax.checkpoint as ocp
        start = os.getcwd()
        os.chdir(tempfile.mkdtemp())   # the relative path below lands in a scratch folder
        try:   # a synchronous checkpointer: nothing is left running when the cell raises
            ocp.PyTreeCheckpointer().save('checkpoints/run1', {'w': jnp.ones(3)})
        finally:
            os.chdir(start)
    """)
    assert d is not None and d.record is not None and d.record.id == "orbax-checkpoint-path-not-absolute"
    assert d.ecosystem == "orbax" and d.site.path.startswith("orbax/checkpoint/")
