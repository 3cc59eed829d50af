"""The accelerator layout of DeepSpeed (one module per accelerator, a selector function that
returns an accelerator object, accelerators that import SDKs the machine lacks), on a
synthetic package shaped like `deepspeed/accelerator/`: the examples of
docs/other-codebases.md ("One module per backend"), run as written, by all three contract types with no wrapper module.
The configuration is kept outside the tree, as it was when DeepSpeed was tried."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import REPO, Project

pytestmark = pytest.mark.matrix

DOC = REPO / "docs" / "other-codebases.md"

DEEPSPEED = {
    "deepspeed/__init__.py": "from deepspeed.runtime import engine\nfrom deepspeed.ops import op_builder\n",
    "deepspeed/runtime/engine.py": """\
        from deepspeed.accelerator import get_accelerator

        DEVICE = get_accelerator().device_name()
        """,
    # A neutral module that takes the base class from the container, which re-exports it.
    "deepspeed/ops/op_builder.py": "from deepspeed.accelerator import DeepSpeedAccelerator\n",
    "deepspeed/accelerator/__init__.py": """\
        from .abstract_accelerator import DeepSpeedAccelerator
        from .real_accelerator import get_accelerator, set_accelerator
        """,
    "deepspeed/accelerator/abstract_accelerator.py": """\
        import abc


        class DeepSpeedAccelerator(abc.ABC):
            @abc.abstractmethod
            def device_name(self): ...
        """,
    "deepspeed/accelerator/real_accelerator.py": """\
        ds_accelerator = None


        def set_accelerator(accel_obj):
            global ds_accelerator
            ds_accelerator = accel_obj


        def get_accelerator():
            global ds_accelerator
            if ds_accelerator is not None:
                return ds_accelerator
            name = None
            try:
                import torch_npu  # noqa: F401
                name = "npu"
            except ImportError:
                pass
            if name is None:
                try:
                    import pynvml  # noqa: F401
                    name = "cuda"
                except ImportError:
                    name = "cpu"
            if name == "cpu":
                from .cpu_accelerator import CPU_Accelerator
                ds_accelerator = CPU_Accelerator()
            elif name == "cuda":
                from .cuda_accelerator import CUDA_Accelerator
                ds_accelerator = CUDA_Accelerator()
            else:
                from .npu_accelerator import NPU_Accelerator
                ds_accelerator = NPU_Accelerator()
            return ds_accelerator
        """,
    "deepspeed/accelerator/cuda_accelerator.py": """\
        try:
            import pynvml
        except ImportError:
            pynvml = None

        from .abstract_accelerator import DeepSpeedAccelerator


        class CUDA_Accelerator(DeepSpeedAccelerator):
            def device_name(self):
                return "cuda"
        """,
    "deepspeed/accelerator/npu_accelerator.py": """\
        import torch_npu

        from .abstract_accelerator import DeepSpeedAccelerator


        class NPU_Accelerator(DeepSpeedAccelerator):
            def device_name(self):
                return "npu"
        """,
    "deepspeed/accelerator/cpu_accelerator.py": """\
        from .abstract_accelerator import DeepSpeedAccelerator


        class CPU_Accelerator(DeepSpeedAccelerator):
            def device_name(self):
                return "cpu"
        """,
}

LEAK = "from deepspeed.accelerator.cuda_accelerator import CUDA_Accelerator\n"


def doc_block(after: str, language: str) -> str:
    """The first ```language block of the document after the text `after`."""
    text = DOC.read_text()
    start = text.index(f"```{language}\n", text.index(after)) + len(language) + 4
    return text[start : text.index("```", start)]


EXAMPLE = doc_block("### DeepSpeed's accelerators", "ini")


@pytest.fixture
def deepspeed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """The tree in one folder, on sys.path; the configuration, and the working directory,
    in another."""
    tree, config = tmp_path / "DeepSpeed", tmp_path / "config"
    config.mkdir()
    Project(tree).write(DEEPSPEED)
    monkeypatch.chdir(config)
    monkeypatch.syspath_prepend(str(tree))
    project = Project(config)
    project.configure(EXAMPLE, root_package="deepspeed")
    yield project


def contracts(project: Project) -> dict[str, dict[str, object]]:
    return {c["id"]: c for c in project.report()["contracts"]}


def test_the_example_keeps_every_contract_and_detects_the_accelerator_object(
    deepspeed: Project,
) -> None:
    found = contracts(deepspeed)
    assert {name: c["kept"] for name, c in found.items()} == {
        "accelerators-private": True,
        "import-loads-no-accelerator": True,
        "only-the-detected-accelerator": True,
    }
    runtime = found["only-the-detected-accelerator"]
    assert runtime["detected"] == "deepspeed.accelerator.cpu_accelerator.CPU_Accelerator"
    assert runtime["loaded_container_modules"] == [
        "deepspeed.accelerator",
        "deepspeed.accelerator.abstract_accelerator",
        "deepspeed.accelerator.cpu_accelerator",
        "deepspeed.accelerator.real_accelerator",
    ]
    assert found["accelerators-private"]["backends"] == [
        "cpu_accelerator",
        "cuda_accelerator",
        "npu_accelerator",
    ]


def test_a_leak_into_a_second_accelerator_breaks_all_three(deepspeed: Project) -> None:
    Project(deepspeed.root.parent / "DeepSpeed").write({"deepspeed/ops/op_builder.py": LEAK})
    found = contracts(deepspeed)
    leak = ("deepspeed.ops.op_builder", "deepspeed.accelerator.cuda_accelerator")
    (r2,) = found["accelerators-private"]["violations"]
    assert (r2["importer"], r2["imported"], r2["locations"]) == (
        *leak,
        [{"path": "deepspeed/ops/op_builder.py", "line": 1}],
    )
    (r4,) = found["import-loads-no-accelerator"]["violations"]
    assert (r4["importer"], r4["imported"]) == leak
    (runtime,) = found["only-the-detected-accelerator"]["violations"]
    assert runtime["kind"] == "backend_loaded"
    assert runtime["modules"] == ["deepspeed.accelerator.cuda_accelerator"]
    # As the document shows it.
    shown = doc_block("breaks all three", "text").strip()
    assert shown == f"-   {runtime['message']}"
    assert shown + "\n" in deepspeed.lint_imports().output


def test_a_detector_that_returns_nothing_is_named_as_the_document_says(
    deepspeed: Project,
) -> None:
    tree = Project(deepspeed.root.parent / "DeepSpeed")
    tree.write(
        {
            "deepspeed/runtime/engine.py": "",
            "deepspeed/accelerator/real_accelerator.py": "def set_accelerator(accel_obj): ...\n"
            "def get_accelerator(): ...\n",
        }
    )
    (runtime,) = contracts(deepspeed)["only-the-detected-accelerator"]["violations"]
    assert runtime["kind"] == "detector_failed"
    assert (
        f"-   {runtime['message']}"
        == doc_block("returns nothing breaks the runtime contract", "text").strip()
    )


def test_the_chain_through_get_accelerator_reads_as_the_document_shows(
    deepspeed: Project,
) -> None:
    # Without the allowlist of the selector, R4 shows how importing deepspeed reaches an
    # accelerator: through the call of get_accelerator() in deepspeed.runtime.engine.
    config = deepspeed.root / ".importlinter"
    text = config.read_text()
    r4 = text.index("[importlinter:contract:import-loads-no-accelerator]")
    runtime = text.index("[importlinter:contract:only-the-detected-accelerator]")
    section = re.sub(r"ignore_imports =\n(    .*\n)+", "", text[r4:runtime])
    config.write_text(text[:r4] + section + text[runtime:])
    output = deepspeed.check("--contract", "import-loads-no-accelerator").stdout
    assert doc_block("Without the allowlist of the selector", "text") in output
