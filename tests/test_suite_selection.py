"""Which tests a run takes (tests/conftest.py): a run chosen by a `-m` expression that does
not name `slow`, as the fast loop is, leaves the slow tests out and its summary says how many
and how to run them; the whole suite runs them, first."""

from __future__ import annotations

from helpers import pytest_lines

# A file with slow tests (those that measure) and others.
SUBJECT = "tests/test_closure_measure.py"
LEFT_OUT = (
    "slow test{} left out (each starts real programs for seconds): the whole suite "
    '(`python3 tools/dev.py test`, no -m) runs them, as `-m "slow and not real_tree"` does.'
)


def test_the_fast_loop_leaves_the_slow_tests_out_and_the_whole_suite_runs_them_first() -> None:
    def collected(*arguments: str) -> tuple[list[str], list[str]]:
        lines = pytest_lines("--collect-only", "-n0", *arguments, SUBJECT)
        return [line for line in lines if "::" in line], [
            line for line in lines if "::" not in line
        ]

    (whole, whole_said), (slow, slow_said) = collected(), collected("-m", "slow and not real_tree")
    fast, fast_said = collected("-m", "not real_tree")
    assert slow and fast
    assert whole == slow + fast
    assert f"{len(slow)} {LEFT_OUT.format('s')}" in fast_said
    assert [line for line in whole_said + slow_said if "left out" in line] == []


def test_under_xdist_the_summary_has_the_count_of_the_workers() -> None:
    # The controller collects nothing: each worker sends it its count.
    lines = pytest_lines(
        "-n1",
        "-m",
        "not real_tree",
        f"{SUBJECT}::test_the_child_failure_line_is_not_taken_from_the_module_s_output",
        f"{SUBJECT}::test_a_python_that_does_not_exist",
    )
    assert lines[-2:-1] == [f"1 {LEFT_OUT.format('')}"]
    assert lines[-1].startswith("1 passed")
