"""`fix` on the newest vllm-omni release, the shipped R4's allowlist emptied and the tree read
for Python 3.15: what it would change of the smallest cut, and why it leaves the rest."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from test_real_tree_deferral import without_allowlist
from test_real_tree_eager import R4_ID

from helpers import Project
from importlinter_contracts.cli import main

pytestmark = pytest.mark.real_tree

DIFF = "".join(
    f"{line}\n"
    for line in [
        "--- a/vllm_omni/__init__.py",
        "+++ b/vllm_omni/__init__.py",
        "@@ -36,7 +36,7 @@",
        "     # Allow importing vllm_omni without vllm (e.g., documentation builds)",
        "     pass",
        " ",
        "-from .config import OmniModelConfig",
        "+lazy from .config import OmniModelConfig",
        " ",
        " ",
        " def __getattr__(name: str):",
        "--- a/vllm_omni/transformers_utils/parsers/voxtral_tts.py",
        "+++ b/vllm_omni/transformers_utils/parsers/voxtral_tts.py",
        "@@ -11,7 +11,7 @@",
        "     _download_mistral_config_file,",
        " )",
        " ",
        "-from vllm_omni.transformers_utils.configs.voxtral_tts import VoxtralTTSConfig",
        "+lazy from vllm_omni.transformers_utils.configs.voxtral_tts import VoxtralTTSConfig",
        " ",
        " logger = init_logger(__name__)",
        " ",
    ]
)

IN_TRY = (
    "not made lazy: it is inside a `try` statement, where an import cannot be lazy (an "
    "ImportError it catches would be raised at the first use instead)."
)

# The root imports the patch, and the configs package, each in a `try`.
REFUSED = [f"vllm_omni/__init__.py:22: {IN_TRY}", f"vllm_omni/__init__.py:31: {IN_TRY}"]


def test_fix_makes_two_imports_of_the_cut_lazy_and_says_why_not_the_others(
    copy: Project,
) -> None:
    without_allowlist(copy)
    config = copy.root / ".importlinter"
    text = config.read_text().replace(
        "[importlinter]\n", "[importlinter]\npython_version = 3.15\n", 1
    )
    config.write_text(text)
    before = (copy.root / "vllm_omni/__init__.py").read_text()
    result = CliRunner().invoke(
        main, ["fix", "--no-cache", "--form", "lazy", "--contract", R4_ID], catch_exceptions=False
    )
    assert (result.exit_code, result.stdout) == (1, DIFF)
    assert result.stderr.splitlines() == [f"importlinter-contracts: {line}" for line in REFUSED]
    assert (copy.root / "vllm_omni/__init__.py").read_text() == before
