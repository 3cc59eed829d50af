"""The static eager closure checked against the interpreter on vllm-omni itself: importing
the runtime contract's probes one by one, in the prepared runtime environment with the
optional SDKs blocked, loads exactly the vllm_omni modules the closures predict."""

from __future__ import annotations

import configparser
import json
import os
import subprocess
import textwrap

import pytest

from helpers import REPO, Project
from importlinter_contracts import explore
from vllm_omni_tree import runtime_environment

pytestmark = [
    pytest.mark.real_tree,
    pytest.mark.skipif(
        runtime_environment() is None,
        reason="the runtime environment is not prepared: python tools/vllm_omni_tree.py runtime",
    ),
]


def runtime_contract() -> configparser.SectionProxy:
    config = configparser.ConfigParser()
    config.read(REPO / ".importlinter")
    return config["importlinter:contract:optional-sdks-stay-optional"]


def lines(option: str) -> list[str]:
    return [line.strip() for line in runtime_contract()[option].splitlines() if line.strip()]


# Runs in the runtime environment: block the SDKs as the runtime contract does, import each
# probe in turn and record which vllm_omni modules are loaded after each.
STEPS = textwrap.dedent(
    """\
    import importlib, json, sys
    blocked, probes, result = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
    for name in blocked:
        sys.modules[name] = None
    steps = []
    for probe in probes:
        importlib.import_module(probe)
        steps.append(sorted(m for m in sys.modules if m == "vllm_omni" or m.startswith("vllm_omni.")))
    with open(result, "w") as handle:
        json.dump(steps, handle)
    """
)


def loaded_at_each_probe(project: Project, probes: list[str]) -> list[set[str]]:
    venv = runtime_environment()
    assert venv is not None
    result = project.root / "loaded.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            STEPS,
            json.dumps(lines("blocked_modules")),
            json.dumps(probes),
            str(result),
        ],
        cwd=project.root,
        env=env,
        capture_output=True,
        check=True,
    )
    return [set(step) for step in json.loads(result.read_text())]


def test_the_static_eager_closure_is_what_python_loads_at_each_probe(copy: Project) -> None:
    probes = lines("probe_modules")
    loaded = loaded_at_each_probe(copy, probes)
    explorer = explore.load(cache_dir=None)
    reached: set[str] = set()
    for probe, found in zip(probes, loaded, strict=True):
        closure = explorer.eager_closure(probe)
        reached |= set(closure)
        # Everything Python loads is in the closures so far; every module more is conditional:
        # every chain to it crosses a test that only the machine decides (the XPU detector's
        # `if hasattr(torch, "xpu") and torch.xpu.is_available():`, say).
        assert found <= reached, (probe, sorted(found - reached))
        beyond = set(closure) - found
        assert beyond <= closure.conditional, (probe, sorted(beyond - closure.conditional))
    # The XPU platform is among them, and its detector's test is on its chain.
    xpu = explorer.eager_closure(probes[0])["vllm_omni.platforms.xpu"]
    assert xpu.conditional
    tests = [c["test"] for hop in xpu.as_data() for line in hop.get("conditions", []) for c in line]
    assert 'hasattr(torch, "xpu") and torch.xpu.is_available()' in tests
    # The quantization package runs only because vllm_omni.patch calls a function at import
    # time (patch.py:481) whose body imports it; its chain says so.
    assert "vllm_omni.quantization" in loaded[0]
    chain = explorer.eager_closure(probes[0])["vllm_omni.quantization"]
    assert [
        call["location"]
        for hop in chain.as_data()
        for calls in hop.get("calls", [])
        for call in calls
    ] == [{"path": "vllm_omni/patch.py", "line": 481}]
