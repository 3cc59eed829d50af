"""How the allowlists' debt moved over vllm-omni's releases: for each release, how many
entries each static contract of this repository's `.importlinter` needs to be kept (its
exact allowlist, as `importlinter-contracts allowlist` would write it), as a table and as a
PNG chart.

    python tools/debt_history.py [--releases 0.18.0,0.20.0,...] [--chart docs/debt-history.png]

Each release is downloaded into the git-ignored cache (tools/vllm_omni_tree.py). The chart
needs matplotlib (`.venv/bin/pip install matplotlib`); the table does not.
"""

from __future__ import annotations

import argparse
import configparser
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from vllm_omni_tree import (
    CONFIG,
    RELEASES,
    ToolError,
    contract_ids,
    contract_options,
    tree,
    use_project_environment,
)

FIRST = "0.18.0"  # the first release the chart shows by default


def _number(release: str) -> tuple[int, ...]:
    return tuple(map(int, release.split(".")))


def needed_entries(version: str, scripts: Path) -> dict[str, int]:
    """Each static contract's allowlist size for the release: the imports it would report
    with an empty allowlist (checked with the importlinter-contracts of `scripts`)."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(CONFIG)
    static = contract_ids(runtime=False)
    for contract in static:
        config.remove_option(f"importlinter:contract:{contract}", "ignore_imports")
    with tempfile.TemporaryDirectory() as folder:
        empty = Path(folder, ".importlinter")
        with empty.open("w") as handle:
            config.write(handle)
        found = subprocess.run(
            [
                str(scripts / "importlinter-contracts"),
                *("check", "--no-cache", "--config", str(empty), "--format", "json"),
                *contract_options(runtime=False),
            ],
            cwd=tree(version),
            capture_output=True,
            text=True,
            check=False,
        )
    try:
        report = json.loads(found.stdout) if found.returncode in (0, 1) else None
    except ValueError:
        report = None
    if report is None:
        raise ToolError(f"{version}: the check failed: {found.stderr.strip()}")
    return {
        contract["id"]: len({(v["importer"], v["imported"]) for v in contract["violations"]})
        for contract in report["contracts"]
    }


def chart(history: dict[str, dict[str, int]], path: Path) -> None:
    try:
        import matplotlib
    except ImportError:
        raise SystemExit(
            "debt_history: the chart needs matplotlib: pip install matplotlib"
        ) from None
    matplotlib.use("Agg")
    from matplotlib import pyplot

    releases = list(history)
    contracts = sorted({c for counts in history.values() for c in counts})
    # One panel per contract, each with its own scale: a contract's debt reads at a glance.
    figure = pyplot.figure(figsize=(8, 1.2 + 1.9 * len(contracts)), dpi=100)
    panels = figure.subplots(len(contracts), 1, sharex=True, squeeze=False)[:, 0]
    for axes, contract in zip(panels, contracts, strict=True):
        counts = [history[r].get(contract, 0) for r in releases]
        axes.plot(releases, counts, marker="o")
        for release, count in zip(releases, counts, strict=True):
            axes.annotate(
                str(count),
                (release, count),
                textcoords="offset points",
                xytext=(0, 6),
                ha="center",
                fontsize=8,
            )
        axes.set_title(contract, fontsize=10)
        axes.set_ylim(0, max(counts) * 1.3 + 1)
        axes.yaxis.get_major_locator().set_params(integer=True)
        axes.grid(alpha=0.3)
    panels[-1].set_xlabel("vllm-omni release")
    figure.supylabel("allowlist entries needed", fontsize=10)
    figure.suptitle("Import-boundary debt per contract")
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format="png", metadata={"Software": None})
    path.parent.mkdir(parents=True, exist_ok=True)
    # As every file this project writes: whole or not at all.
    from importlinter_contracts.files import write_atomically

    write_atomically(path, image.getvalue())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    default = ",".join(r for r in RELEASES if _number(r) >= _number(FIRST))
    parser.add_argument("--releases", default=default, help=f"default: {default}")
    parser.add_argument("--chart", type=Path, help="write the chart to this PNG file")
    args = parser.parse_args()
    try:
        scripts = use_project_environment()
        history = {
            version: needed_entries(version, scripts) for version in args.releases.split(",")
        }
        if args.chart:
            chart(history, args.chart)
    except ToolError as error:
        print(f"debt_history.py: {error}", file=sys.stderr)
        return 2
    contracts = sorted({c for counts in history.values() for c in counts})
    print("| release | " + " | ".join(f"`{c}`" for c in contracts) + " |")
    print("| --- | " + " | ".join("---:" for _ in contracts) + " |")
    for version, counts in history.items():
        print(f"| {version} | " + " | ".join(str(counts.get(c, 0)) for c in contracts) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
