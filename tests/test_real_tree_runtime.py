"""vllm-omni's runtime contract, run for real in the prepared runtime environment."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

from helpers import Project
from vllm_omni_tree import runtime_environment

RUNTIME_ID = "optional-sdks-stay-optional"

pytestmark = [
    pytest.mark.real_tree,
    pytest.mark.skipif(
        runtime_environment() is None,
        reason="the runtime environment is not prepared: python tools/vllm_omni_tree.py runtime",
    ),
]


def runtime_report(project: Project) -> dict[str, Any]:
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
        ],
        cwd=project.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode in (0, 1), completed.stderr
    (contract,) = json.loads(completed.stdout)["contracts"]
    return contract


def test_runtime_contract_is_kept_on_the_newest_release(copy: Project) -> None:
    report = runtime_report(copy)
    assert report["kept"], report["violations"]
    # No accelerator here: detection falls back to the unspecified platform.
    assert report["detected"] == "vllm_omni.platforms.interface.UnspecifiedOmniPlatform"
    assert not any(m.endswith(".platform") for m in report["loaded_container_modules"])


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
        "the platform modules of backends other than the detected one "
        "(detected: vllm_omni.platforms.interface.UnspecifiedOmniPlatform) were loaded: "
        "vllm_omni.platforms.xpu.platform"
    ]


def test_stricter_rule_finds_the_npu_connector_that_neutral_code_loads(copy: Project) -> None:
    config = copy.root / ".importlinter"
    config.write_text(
        config.read_text() + "forbidden_loaded_modules =\n    vllm_omni.platforms.*\n"
    )
    report = runtime_report(copy)
    (violation,) = report["violations"]
    assert violation["kind"] == "forbidden_loaded"
    assert violation["modules"] == [
        "vllm_omni.platforms.interface",
        "vllm_omni.platforms.npu",
        "vllm_omni.platforms.npu.omni_connectors",
        "vllm_omni.platforms.npu.omni_connectors.yuanrong_transfer_engine_connector",
    ]


def test_a_probe_that_needs_a_blocked_sdk_breaks_it(copy: Project) -> None:
    registry = copy.root / "vllm_omni/diffusion/attention/backends/registry.py"
    registry.write_text(registry.read_text() + "\nimport torch_npu\n")
    report = runtime_report(copy)
    kinds = {v["kind"] for v in report["violations"]}
    assert "probe_failed" in kinds
    failed = [v for v in report["violations"] if v["kind"] == "probe_failed"]
    assert failed[0]["module"] == "vllm_omni.diffusion.attention.backends.registry"
    assert failed[0]["message"] == (
        "importing vllm_omni.diffusion.attention.backends.registry failed: "
        "ModuleNotFoundError: import of torch_npu halted; None in sys.modules"
    )
