"""vllm-omni's runtime contract, run for real in the prepared runtime environment (and, for
what it says when the environment lacks vllm-omni's dependencies, in this one)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from typing import Any

import pytest
from test_interrupts import MARK, _alive_with, _survivors

from helpers import REPO, Project
from vllm_omni_tree import runtime_environment

RUNTIME_ID = "optional-sdks-stay-optional"
NPU_MODULES = [
    "vllm_omni.platforms.npu",
    "vllm_omni.platforms.npu.omni_connectors",
    "vllm_omni.platforms.npu.omni_connectors.yuanrong_transfer_engine_connector",
]

pytestmark = pytest.mark.real_tree
needs_runtime_environment = pytest.mark.skipif(
    runtime_environment() is None,
    reason="the runtime environment is not prepared: python tools/vllm_omni_tree.py runtime",
)


def runtime_report(project: Project, *args: str) -> dict[str, Any]:
    venv = runtime_environment()
    assert venv is not None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    completed = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "importlinter_contracts",
            "check",
            "--contract",
            RUNTIME_ID,
            "--format",
            "json",
            "--no-cache",
            *args,
        ],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stderr
    (contract,) = json.loads(completed.stdout)["contracts"]
    return dict(contract)


@needs_runtime_environment
def test_runtime_contract_is_kept_on_the_newest_release_with_its_three_entries(
    copy: Project,
) -> None:
    report = runtime_report(copy)
    assert report["kept"], report["violations"]
    assert report["unmatched_ignores"] == []
    # No accelerator here: detection falls back to the unspecified platform.
    assert report["detected"] == "vllm_omni.platforms.interface.UnspecifiedOmniPlatform"
    assert report["loaded_container_modules"] == [
        "vllm_omni.platforms",
        "vllm_omni.platforms.interface",
        *NPU_MODULES,
    ]
    assert [item["module"] for item in report["ignored"]] == NPU_MODULES
    assert all("RFC 6691 NPU group 3 / step 9" in item["reason"] for item in report["ignored"])


@needs_runtime_environment
def test_without_the_try_import_the_three_entries_are_stale(copy: Project) -> None:
    package = copy.root / "vllm_omni/distributed/omni_connectors/__init__.py"
    try_import = (
        "try:\n"
        "    from vllm_omni.platforms.npu.omni_connectors.yuanrong_transfer_engine_connector "
        "import (\n"
        "        YuanrongTransferEngineConnector,\n"
        "    )\n"
        "except ImportError:\n"
        "    YuanrongTransferEngineConnector = None\n"
    )
    assert try_import in package.read_text()
    # The name stays, as other modules import it; only the import goes.
    package.write_text(
        package.read_text().replace(try_import, "YuanrongTransferEngineConnector = None\n")
    )
    report = runtime_report(copy)
    assert (report["kept"], report["violations"], report["ignored"]) == (False, [], [])
    assert [entry.partition(" #")[0] for entry in report["unmatched_ignores"]] == NPU_MODULES


@needs_runtime_environment
def test_the_static_eager_walk_reaches_all_that_loads_on_the_newest_release(
    copy: Project,
) -> None:
    # With calls at import time followed (vllm_omni/patch.py calls functions that import
    # vllm_omni.quantization), the static walk from the probes reaches every module of
    # vllm_omni that the run loads.
    report = runtime_report(copy)
    assert len(report["loaded_modules"]) == 109
    assert report["loaded_outside_eager_closure"] == []


@needs_runtime_environment
def test_a_module_imported_by_a_name_chosen_at_run_time_is_listed_with_its_importer(
    copy: Project,
) -> None:
    factory = copy.root / "vllm_omni/distributed/omni_connectors/factory.py"
    source = factory.read_text()
    factory.write_text(
        source
        + "\nimport importlib\n"
        # (A name computed at run time: the static walk follows a literal's, and a literal
        # dict's looked up.)
        + '_SUFFIX = "QUANTIZATION".lower()\n'
        + 'importlib.import_module("vllm_omni.diffusion." + _SUFFIX)\n'
    )
    line = len(source.splitlines()) + 4
    assert runtime_report(copy)["loaded_outside_eager_closure"] == [
        {
            "module": "vllm_omni.diffusion.quantization",
            "importer": "vllm_omni.distributed.omni_connectors.factory",
            "function": None,
            "location": {"path": "vllm_omni/distributed/omni_connectors/factory.py", "line": line},
            "why": "through importlib from module level of "
            "vllm_omni.distributed.omni_connectors.factory: a name chosen at run time "
            "(a registry, a plugin)",
        }
    ]


@needs_runtime_environment
def test_a_probe_that_registers_another_backends_platform_module_breaks_it(copy: Project) -> None:
    # No backend's platform module imports on a machine without its SDK, so the probe
    # registers one by hand, as a module that puts itself in sys.modules would.
    factory = copy.root / "vllm_omni/distributed/omni_connectors/factory.py"
    factory.write_text(
        factory.read_text()
        + "\nimport sys, types\n"
        + "sys.modules['vllm_omni.platforms.xpu.platform'] = types.ModuleType('p')\n"
    )
    report = runtime_report(copy)
    assert [v["message"] for v in report["violations"]] == [
        "modules of backends other than the detected one "
        "(detected: vllm_omni.platforms.interface.UnspecifiedOmniPlatform) were loaded: "
        "vllm_omni.platforms.xpu.platform"
    ]


@needs_runtime_environment
def test_a_probe_that_needs_a_blocked_sdk_breaks_it(copy: Project) -> None:
    registry = copy.root / "vllm_omni/diffusion/attention/backends/registry.py"
    registry.write_text(registry.read_text() + "\nimport torch_npu\n")
    report = runtime_report(copy)
    failed = [v for v in report["violations"] if v["kind"] == "probe_failed"]
    assert failed[0]["module"] == "vllm_omni.diffusion.attention.backends.registry"
    assert failed[0]["message"] == (
        "importing vllm_omni.diffusion.attention.backends.registry failed: "
        "ModuleNotFoundError: import of torch_npu halted; None in sys.modules"
    )


def test_without_the_dependencies_the_contract_names_the_missing_one_and_the_way_out(
    copy: Project,
) -> None:
    # This environment has the linter but not vllm-omni's dependencies.
    report = copy.contract(RUNTIME_ID)
    assert report["kept"] is False
    # One finding: every probe and the detector miss torch, one cause.
    (finding,) = report["violations"]
    assert (finding["kind"], finding["missing_dependency"]) == ("probe_failed", "torch")
    message = (
        "importing vllm_omni.platforms failed: ModuleNotFoundError: No module named 'torch' "
        "(so did 4 other probes and the detector). This contract imports the code it checks, "
        "so it needs that code's dependencies where it runs: install the one that provides "
        "'torch', or leave this contract out (importlinter-contracts check --static)"
    )
    assert finding["message"] == message
    output = copy.lint_imports("--contract", RUNTIME_ID).output
    assert [line for line in output.splitlines() if line.startswith("-   ")] == [f"-   {message}"]
    text = " ".join(output.split())
    assert (
        "This contract imports vllm-omni, so it needs vllm-omni's dependencies (vllm, torch) "
        "installed where it runs; without them, run importlinter-contracts check --static, "
        "which leaves this contract out. A module of another backend that loads must move "
        "behind a platform hook (RFC 6691); for existing debt only, add an "
        "ignore_loaded_modules entry."
    ) in text


@needs_runtime_environment
@pytest.mark.parametrize("signal_number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_the_probe_ends_it_with_the_run(copy: Project, signal_number: int) -> None:
    """The probe imports vllm and torch in a session of its own: it ends with the run, which
    exits with 128 + the signal's number. (This repository's package first on PYTHONPATH:
    the runtime environment holds the package of the repository that prepared it.)"""
    venv = runtime_environment()
    assert venv is not None
    mark = uuid.uuid4().hex
    check = ["-m", "importlinter_contracts", "check", "--no-cache", "--contract", RUNTIME_ID]
    process = subprocess.Popen(
        [str(venv / "bin" / "python"), *check],
        cwd=copy.root,
        env={**os.environ, "PYTHONPATH": str(REPO), MARK: mark},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Until the probe has started importing (its interpreter carries the mark too).
    while process.poll() is None and len(_alive_with(mark)) < 2:
        time.sleep(0.05)
    time.sleep(2)
    assert len(_alive_with(mark)) == 2, "the probe ended before the signal: nothing is tested"
    process.send_signal(signal_number)
    _, stderr = process.communicate(timeout=120)
    name = signal.Signals(signal_number).name
    assert (process.returncode, stderr) == (
        128 + signal_number,
        f"importlinter-contracts: interrupted by {name}.\n",
    )
    assert _survivors(mark) == []
