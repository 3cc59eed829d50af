"""The smallest cut of the shipped R4 on the newest vllm-omni release, its allowlist emptied:
no more imports than the allowlist has entries, and deferring them keeps the contract."""

from __future__ import annotations

import pytest
from test_deferral_cut import defer
from test_real_tree_eager import R4_ID

import ast_walk as oracle
from helpers import Project, imports_of, shipped_entries

pytestmark = pytest.mark.real_tree

# What to defer on 0.30.0: the package root's imports of vllm_omni.patch and of the configs
# package (each in a module-level try, so not lazily) and of vllm_omni.config, which the
# chains of two entries each pass, and the voxtral parser's import of its config module, by
# which the root's import of the parsers (in the same try) reaches the configs package. Four,
# as few as the config package's imports of two config registrations (instead of the root's
# import of the configs package and the parser's import), which it makes only for what
# importing them does, so that deferred they would never run: the cut with two imports that
# can be made lazy is preferred to that with one. (Not the registrations' own imports of their
# model's configuration module, as near the forbidden code: the classes they bind are
# registered with transformers at import time, so that a lazy import would load them then.)
CUT = [
    ("vllm_omni", 22, ["vllm_omni.patch"]),
    ("vllm_omni", 31, ["vllm_omni.transformers_utils.configs"]),
    ("vllm_omni", 39, ["vllm_omni.config"]),
    (
        "vllm_omni.transformers_utils.parsers.voxtral_tts",
        14,
        ["vllm_omni.transformers_utils.configs.voxtral_tts"],
    ),
]
IN_TRY = (
    "it is inside a `try` statement, where an import cannot be lazy (an ImportError it "
    "catches would be raised at the first use instead)"
)


def without_allowlist(project: Project) -> Project:
    """The shipped configuration, R4's allowlist (and the comment over it) left out."""
    config = project.root / ".importlinter"
    text = config.read_text()
    start = text.index("# The chains into forbidden code")
    end = text.index("require_reasons = true", start)
    config.write_text(text[:start] + text[end:])
    return project


def test_the_cut_without_the_allowlist_is_no_larger_and_deferring_it_keeps_r4(
    copy: Project,
) -> None:
    entries = shipped_entries(R4_ID)
    report = without_allowlist(copy).contract(R4_ID)
    assert not report["kept"]
    assert imports_of(report["violations"]) == entries
    assert oracle.vllm_omni_r4(copy.root, "vllm_omni") == (entries, set())
    cut = report["smallest_cut"]
    assert cut["exact"] is True
    assert len(cut["statements"]) <= len(entries)
    assert [(s["importer"], s["line"], s["imported"]) for s in cut["statements"]] == CUT
    assert [s["import_time_use"] for s in cut["statements"]] == [None] * len(CUT)
    assert [s["not_lazy"] for s in cut["statements"]] == [IN_TRY, IN_TRY, None, None]
    # Each violation's chain is cut by an import of the cut.
    assert {(c["importer"], c["imported"]) for s in cut["statements"] for c in s["cuts"]} == (
        entries
    )
    # Each statement moved into a function that nothing calls (later lines first).
    for statement in sorted(cut["statements"], key=lambda s: -s["line"]):
        defer(copy.root / statement["location"]["path"], statement["line"])
    report = copy.contract(R4_ID)
    assert report["kept"], report["violations"]
    assert "smallest_cut" not in report
    # The independent walk agrees: nothing forbidden is reached any more.
    assert oracle.vllm_omni_r4(copy.root, "vllm_omni") == (set(), set())
