"""Detectors that return qualified names: a function whose returns are strings (or `None`),
whose value `importlib.import_module` is given directly or through a helper that imports a
prefix of its argument (vllm's `resolve_obj_by_qualname`), is followed to each string's
module, each hop under the tests the string is returned under. The reading is checked on
in-memory sources; what the walks make of it on small packages."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import pytest

from helpers import Project, call_reading, run_cli
from importlinter_contracts.eager import call_storage
from importlinter_contracts.eager.call_model import CalledName
from importlinter_contracts.eager.outline import never_runs

pytestmark = pytest.mark.matrix


DETECTORS = """\
import importlib
import os


def cuda_plugin():
    is_cuda = os.environ.get("CUDA") == "1"
    return "pkg.platforms.cuda.CudaPlatform" if is_cuda else None


def cpu_plugin():
    if os.environ.get("DEVICE") != "cpu":
        return None
    return "pkg.platforms.cpu.CpuPlatform"


def tpu_plugin():
    try:
        import libtpu
        return "pkg.platforms.tpu.TpuPlatform"
    except ImportError:
        return None


def only_cpu():
    return "pkg.platforms.cpu.CpuPlatform"


def name_from_environment():
    return os.environ["PLATFORM"]
"""


def test_what_a_detector_returns_is_read_with_the_tests_it_is_returned_under() -> None:
    functions = call_reading(DETECTORS).functions
    assert functions["cuda_plugin"].returns == (
        CalledName(
            7, '"pkg.platforms.cuda.CudaPlatform', (("if", "is_cuda", 7),)
        ),  # (a conditional expression's branch)
    )
    assert functions["cpu_plugin"].returns == (
        CalledName(
            13,
            '"pkg.platforms.cpu.CpuPlatform',
            (("unless", 'os.environ.get("DEVICE") != "cpu"', 11),),
        ),
    )
    # Returned under no test of its own, by a function that may return None: `returns`.
    assert functions["tpu_plugin"].returns == (
        CalledName(
            19,
            '"pkg.platforms.tpu.TpuPlatform',
            (("returns", 'tpu_plugin() == "pkg.platforms.tpu.TpuPlatform"', 19),),
        ),
    )
    # The one thing a function returns is certain; anything else is "" (not known).
    assert functions["only_cpu"].returns == (CalledName(25, '"pkg.platforms.cpu.CpuPlatform'),)
    assert functions["name_from_environment"].returns == ()


def test_a_returned_variable_is_each_value_it_is_assigned_on_a_way_to_the_return() -> None:
    source = DETECTORS + textwrap.dedent(
        """\
        REGISTRY = {"cuda": cuda_plugin, "cpu": cpu_plugin}


        def resolve():
            if os.environ.get("ONLY"):
                name = only_cpu()
                return name
            for key, func in REGISTRY.items():
                name = func()
            if len(os.sys.argv) == 1:
                name = REGISTRY[os.sys.argv[0]]()
            else:
                name = "pkg.platforms.interface.Unspecified"
            return name
        """
    )
    unless = ("unless", 'os.environ.get("ONLY")', 34)
    picked = ("if", "len(os.sys.argv) == 1", 39)
    # (Each assignment counts, the loop's too: `func` is not a function of the file, and so
    # what it returns is not known.)
    assert call_reading(source).functions["resolve"].returns == (
        CalledName(35, "only_cpu", (("if", 'os.environ.get("ONLY")', 34),)),
        CalledName(38, "func", (unless,)),
        CalledName(40, "cpu_plugin", (unless, picked)),
        CalledName(40, "cuda_plugin", (unless, picked)),
        CalledName(
            42,
            '"pkg.platforms.interface.Unspecified',
            (unless, ("else", "len(os.sys.argv) == 1", 39)),
        ),
    )


@pytest.mark.parametrize(
    ("body", "recipe"),
    [
        (
            'module_name, obj_name = qualname.rsplit(".", 1)\n    m = import_module(module_name)',
            "0:rsplit:.",
        ),
        ('m = import_module(qualname.rsplit(".", 1)[0])', "0:rsplit:."),
        ('m = import_module(qualname.rpartition(".")[0])', "0:rpartition:."),
        (
            'module_name, _, obj_name = qualname.rpartition(".")\n    m = import_module(module_name)',
            "0:rpartition:.",
        ),
        (
            'module_name, _, attribute = qualname.partition(":")\n    m = import_module(module_name)',
            "0:partition::",
        ),
        ('m = import_module(qualname.split(".")[0])', "0:split:."),
        ("m = import_module(qualname)", "0::"),
    ],
)
def test_a_helper_that_imports_a_prefix_of_its_argument_is_read_as_such(
    body: str, recipe: str
) -> None:
    source = f"from importlib import import_module\n\ndef resolve(qualname):\n    {body}\n"
    (dynamic,) = [
        call.target
        for call in call_reading(source).functions["resolve"].calls
        if call.target.startswith("<import>")
    ]
    assert dynamic == f"<import>import_module:(argument):{recipe}"


@pytest.mark.parametrize(
    "body",
    [
        'import_module(qualname.rsplit(".", 2)[0])',  # (a prefix of two parts less)
        'import_module(qualname.rsplit(".", 1)[1])',  # (the last part)
        'import_module("pkg." + qualname)',
        "qualname = qualname.strip()\n    import_module(qualname)",
    ],
)
def test_another_name_computed_from_an_argument_is_not_followed(body: str) -> None:
    # (Beside a prefix that is followed, in the same function.)
    source = (
        "from importlib import import_module\n\ndef resolve(qualname):\n"
        f"    import_module(qualname.rpartition('.')[0])\n    {body}\n"
    )
    dynamic = [
        call.target
        for call in call_reading(source).functions["resolve"].calls
        if call.target.startswith("<import>")
    ]
    assert dynamic == ["<import>import_module:(argument):0:rpartition:.", "<import>import_module::"]


def test_a_call_that_passes_what_a_function_returns_is_kept_with_the_call() -> None:
    source = DETECTORS + textwrap.dedent(
        """\
        from pkg.utils import resolve_obj
        resolve_obj(cuda_plugin())
        name = cpu_plugin()
        resolve_obj(name)
        resolve_obj("pkg.platforms.cpu.CpuPlatform")
        importlib.import_module(only_cpu())
        """
    )
    calls = [call.target for call in call_reading(source).calls]
    assert calls == [
        "<passes>resolve_obj:0:cuda_plugin",
        "cuda_plugin",
        "resolve_obj",
        "cpu_plugin",
        "<passes>resolve_obj:0:cpu_plugin",
        "resolve_obj",
        "resolve_obj",
        "<import>importlib.import_module:():only_cpu",
        "importlib.import_module",
        "only_cpu",
    ]


def test_what_a_function_returns_and_passes_is_kept_in_the_cache_as_read() -> None:
    source = DETECTORS + "from pkg.utils import resolve_obj\nresolve_obj(tpu_plugin())\n"
    found = call_reading(source)
    again = call_storage.from_tuples(
        call_storage.to_tuples(found), lambda: source.splitlines(), never_runs
    )
    assert again.calls == found.calls
    assert again.calls[0].target == "<passes>resolve_obj:0:tpu_plugin"
    for name in ("cuda_plugin", "cpu_plugin", "tpu_plugin", "only_cpu"):
        assert again.functions[name].returns == found.functions[name].returns
    assert again.functions["tpu_plugin"].returns[0].conditions[0][0] == "returns"


# A small tree in vllm's shape: detectors that return qualified names, a literal registry of
# them, a function that picks one, and a helper that imports the module of the name.
HELPER = """\
import importlib


def resolve_obj_by_qualname(qualname):
    module_name, obj_name = qualname.rsplit(".", 1)
    module = importlib.import_module(module_name)
    return getattr(module, obj_name)
"""
TREE = {
    "pkg/utils.py": HELPER,
    "pkg/platforms/__init__.py": DETECTORS
    + textwrap.dedent(
        """\


        builtin_platform_plugins = {"cuda": cuda_plugin, "cpu": cpu_plugin}


        def resolve_current_platform_cls_qualname():
            activated = [name for name, func in builtin_platform_plugins.items() if func()]
            if len(activated) == 1:
                platform_cls_qualname = builtin_platform_plugins[activated[0]]()
            else:
                platform_cls_qualname = "pkg.platforms.interface.UnspecifiedPlatform"
            return platform_cls_qualname
        """
    ),
    "pkg/platforms/cuda.py": "import pkg.heavy\nclass CudaPlatform: ...\n",
    "pkg/platforms/cpu.py": "class CpuPlatform: ...\n",
    "pkg/platforms/tpu.py": "class TpuPlatform: ...\n",
    "pkg/platforms/interface.py": "class UnspecifiedPlatform: ...\n",
    "pkg/heavy.py": "",
}
UNSEEN = (
    "{path}:{line}: importlib.import_module runs at import time with a module name computed "
    "at run time: the modules it imports are not seen."
)


def closure_of(project: Project, source: str) -> dict[str, Any]:
    """The JSON closure of `pkg.source`, whose file is `source`, in the tree."""
    project.write({**TREE, "pkg/source.py": source})
    project.configure("")
    result = run_cli("closure", "pkg.source", "--format", "json", "--no-cache")
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def condition(line: int, kind: str, test: str, shown: str, path: str) -> dict[str, Any]:
    module = path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return {
        "module": module,
        "line": line,
        "kind": kind,
        "test": test,
        "shown": shown,
        "location": {"path": path, "line": line},
    }


PLATFORMS = "pkg/platforms/__init__.py"
CPU_TEST = condition(
    11,
    "unless",
    'os.environ.get("DEVICE") != "cpu"',
    'not (os.environ.get("DEVICE") != "cpu")',
    PLATFORMS,
)


def test_import_module_of_what_a_detector_returns_is_a_conditional_hop(project: Project) -> None:
    found = closure_of(
        project,
        "import importlib\nfrom pkg.platforms import cpu_plugin\nimportlib.import_module(cpu_plugin())\n",
    )
    assert found["warnings"] == []
    hop = found["modules"]["pkg.platforms.cpu"]["hop"]
    assert found["modules"]["pkg.platforms.cpu"]["conditional"] is True
    assert hop["why"] == ["importlib.import_module at l.3"]
    assert hop["conditions"] == [[CPU_TEST]]


def test_a_conditional_expression_returned_carries_its_test(project: Project) -> None:
    found = closure_of(
        project,
        "import importlib\nfrom pkg.platforms import cuda_plugin\n"
        "importlib.import_module(cuda_plugin().rsplit('.', 1)[0] if cuda_plugin() else 'pkg.heavy')\n"
        "name = cuda_plugin()\nimportlib.import_module(name)\n",
    )
    # (The first call's name is computed otherwise: a warning; the second is followed.)
    assert found["warnings"] == [UNSEEN.format(path="pkg/source.py", line=3)]
    hop = found["modules"]["pkg.platforms.cuda"]["hop"]
    assert hop["conditions"] == [[condition(7, "if", "is_cuda", "is_cuda", PLATFORMS)]]
    assert found["modules"]["pkg.heavy"]["conditional"] is True


def test_a_detector_returning_under_no_test_of_its_own_carries_its_return(project: Project) -> None:
    found = closure_of(
        project,
        "from pkg.platforms import tpu_plugin\nfrom pkg.utils import resolve_obj_by_qualname\nresolve_obj_by_qualname(tpu_plugin())\n",
    )
    hop = found["modules"]["pkg.platforms.tpu"]["hop"]
    assert hop["conditions"] == [
        [
            condition(
                19,
                "returns",
                'tpu_plugin() == "pkg.platforms.tpu.TpuPlatform"',
                'tpu_plugin() == "pkg.platforms.tpu.TpuPlatform"',
                PLATFORMS,
            )
        ]
    ]
    # What a detector always returns is certain.
    found = closure_of(
        project,
        "from pkg.platforms import only_cpu\nfrom pkg.utils import resolve_obj_by_qualname\nresolve_obj_by_qualname(only_cpu())\n",
    )
    assert "conditional" not in found["modules"]["pkg.platforms.cpu"]
    assert found["warnings"] == []


REGISTRY_SOURCE = (
    "from pkg.platforms import resolve_current_platform_cls_qualname\n"
    "from pkg.utils import resolve_obj_by_qualname\n"
    "\n"
    "platform_cls_qualname = resolve_current_platform_cls_qualname()\n"
    "current_platform = resolve_obj_by_qualname(platform_cls_qualname)()\n"
)


def test_a_registry_of_detectors_passed_to_a_helper_reaches_each_platform(
    project: Project,
) -> None:
    found = closure_of(project, REGISTRY_SOURCE)
    assert found["warnings"] == []
    modules = found["modules"]
    assert {m for m in modules if m.startswith("pkg.platforms.")} == {
        "pkg.platforms.cpu",
        "pkg.platforms.cuda",
        "pkg.platforms.interface",
    }
    assert all(modules[m]["conditional"] for m in modules if m.startswith("pkg.platforms."))
    assert modules["pkg.heavy"]["conditional"] is True
    picked = condition(37, "if", "len(activated) == 1", "len(activated) == 1", PLATFORMS)
    assert modules["pkg.platforms.cpu"]["hop"]["conditions"] == [[picked, CPU_TEST]]
    assert modules["pkg.platforms.interface"]["hop"]["conditions"] == [
        [condition(37, "else", "len(activated) == 1", "not (len(activated) == 1)", PLATFORMS)]
    ]


def test_why_shows_the_helper_s_import_and_the_detector_s_test(project: Project) -> None:
    closure_of(project, REGISTRY_SOURCE)
    result = run_cli("why", "pkg.source", "pkg.platforms.cpu", "--no-cache")
    assert result.output.splitlines()[-2:] == [
        "  pkg.utils -> pkg.platforms.cpu: l.6 eager, importlib.import_module at l.6, inside "
        "def resolve_obj_by_qualname, called at import time at l.5 of pkg.source "
        "(pkg/utils.py:6)",
        "    only if len(activated) == 1 (pkg/platforms/__init__.py:37) and not "
        '(os.environ.get("DEVICE") != "cpu") (pkg/platforms/__init__.py:11)',
    ]


# Beside each, a detector's name that is followed (`FOLLOWED`).
FOLLOWED = (
    "\nimport importlib\nfrom pkg.platforms import cpu_plugin\n"
    "importlib.import_module(cpu_plugin())\n"
)


@pytest.mark.parametrize(
    ("source", "path", "line"),
    [
        # A string from the environment: not spelled out.
        (
            "import importlib\nfrom pkg.platforms import name_from_environment\n"
            "importlib.import_module(name_from_environment())\n",
            "pkg/source.py",
            3,
        ),
        # A helper passed a literal, or nothing a function returns.
        (
            "from pkg.utils import resolve_obj_by_qualname\n"
            "resolve_obj_by_qualname('pkg.platforms.tpu.TpuPlatform')\n",
            "pkg/utils.py",
            6,
        ),
        # A function not found (a plugin's, a loop's variable).
        (
            "import importlib\nfor plugin in load_plugins():\n"
            "    importlib.import_module(plugin())\n",
            "pkg/source.py",
            3,
        ),
    ],
)
def test_a_name_computed_otherwise_keeps_the_warning(
    project: Project, source: str, path: str, line: int
) -> None:
    found = closure_of(project, source + FOLLOWED)
    assert found["warnings"] == [UNSEEN.format(path=path, line=line)]
    assert "pkg.platforms.tpu" not in found["modules"]
    assert found["modules"]["pkg.platforms.cpu"]["hop"]["conditions"] == [[CPU_TEST]]


def test_an_external_helper_given_a_detector_s_names_is_warned_of(project: Project) -> None:
    # vllm-omni's platforms call vllm's `resolve_obj_by_qualname`, whose code is not read.
    found = closure_of(
        project,
        "from extlib import resolve_obj_by_qualname\n"
        "from pkg.platforms import resolve_current_platform_cls_qualname\n"
        "resolve_obj_by_qualname(resolve_current_platform_cls_qualname())\n",
    )
    assert found["warnings"] == [
        "pkg/source.py:3: resolve_obj_by_qualname runs at import time with a module name "
        "computed at run time: the modules it imports are not seen."
    ]


@pytest.mark.parametrize(
    "source",
    [
        "print(resolve_current_platform_cls_qualname())\n",  # (a builtin)
        "logger = make()\nlogger.info(resolve_current_platform_cls_qualname())\n",
        "from extlib import show\nshow(name_from_environment())\n",  # (no name known)
    ],
    ids=["builtin", "not imported", "no name known"],
)
def test_a_call_given_names_that_no_import_binds_is_not_warned_of(
    project: Project, source: str
) -> None:
    found = closure_of(
        project,
        "from pkg.platforms import resolve_current_platform_cls_qualname\n"
        "from pkg.platforms import name_from_environment\n" + source,
    )
    assert found["warnings"] == []


def test_a_detector_among_names_not_known_is_followed_and_still_warned_of(
    project: Project,
) -> None:
    # A second call of the helper with a name it cannot know, after one it can: both seen.
    found = closure_of(
        project,
        REGISTRY_SOURCE + "import os\nresolve_obj_by_qualname(os.environ['PLATFORM'])\n",
    )
    assert found["warnings"] == [UNSEEN.format(path="pkg/utils.py", line=6)]
    assert found["modules"]["pkg.platforms.cpu"]["conditional"] is True


def test_a_nested_function_s_argument_is_not_its_caller_s() -> None:
    source = (
        "from importlib import import_module\n\ndef resolve(qualname):\n"
        "    import_module(qualname.rpartition('.')[0])\n"
        "    def inner(name):\n        import_module(name)\n    inner('pkg.x')\n"
    )
    dynamic = [
        call.target
        for call in call_reading(source).functions["resolve"].calls
        if call.target.startswith("<import>")
    ]
    assert dynamic == ["<import>import_module:(argument):0:rpartition:.", "<import>import_module::"]
