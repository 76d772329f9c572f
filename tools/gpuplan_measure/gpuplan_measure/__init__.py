"""gpuplan-measure: time your own training step on the machine you rented, and write a signed file
gpuplan reads beside its prediction (`gpuplan verify`, `gpuplan estimate --probe FILE`).

    with gpuplan_measure.Recorder(steps=50, out="measured.json") as m:
        for batch in loader:
            ...; optimizer.step()
            m.step()
            if m.done: break

or, without changing the script: python3 -m gpuplan_measure --script train.py --steps 50 --out measured.json
Standard library and torch only. See tools/gpuplan_measure/README.md.
"""
from .recorder import KIND, SCHEMA_VERSION, VERSION, Recorder  # noqa: F401
from .signing import SigningError  # noqa: F401

_active = None


def step(batch_size=None):
    """Marks a step on the recorder `python3 -m gpuplan_measure --script` runs (no-op otherwise)."""
    if _active is not None:
        _active.step(batch_size)
