"""The randomized sweep of platform packages (`platform_sweep.py`) against CPython: a few
seeded packages here; `IMPORTLINTER_CONTRACTS_SWEEP=520` runs that many (the note of issue 35
reports such a run)."""

from __future__ import annotations

import os

import pytest
from platform_sweep import sweep

pytestmark = pytest.mark.matrix


def test_generated_platform_packages_load_what_python_loads_or_a_documented_difference() -> None:
    count = int(os.environ.get("IMPORTLINTER_CONTRACTS_SWEEP", "6"))
    counts, cases = sweep(count, seed=0)
    assert cases == []
    assert counts["agree"] > 0
    assert counts["packages"] == count
