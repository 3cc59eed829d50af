"""The flow network under the smallest cut: whether an edge is in some minimum cut, as a
search from the edge's start in the residual network says, on generated networks."""

from __future__ import annotations

import random

import pytest

from importlinter_contracts.eager.smallest_cut import _Network


def _reaches(network: _Network, start: object, end: object) -> bool:
    """Whether `start` reaches `end` in the residual network: a plain search, written here."""
    residual = network._residual
    seen = {start}
    queue = [start]
    for node in queue:
        for ahead, capacity in residual[node].items():
            if capacity > 0 and ahead not in seen:
                seen.add(ahead)
                queue.append(ahead)
    return end in seen


@pytest.mark.parametrize("seed", range(40))
def test_an_edge_is_in_some_minimum_cut_where_the_residual_network_says(seed: int) -> None:
    chosen = random.Random(seed)
    nodes = list(range(chosen.randint(3, 14)))
    network = _Network()
    edges = set()
    for _ in range(chosen.randint(2, 40)):
        start, end = chosen.sample(nodes, 2)
        network.add(start, end, chosen.choice([1, 1, 2, 1 << 62]))
        edges.add((start, end))
    network.add("root", nodes[0], 1 << 62)
    network.add(nodes[-1], "sink", 1 << 62)
    network.maximum_flow("root", "sink")
    for start, end in sorted(edges):
        expected = network._residual[start][end] == 0 and not _reaches(network, start, end)
        assert network.filled(start, end) is expected, (seed, start, end)


def test_a_cycle_of_filled_edges_is_in_no_cut() -> None:
    network = _Network()
    for start, end in [("s", "a"), ("a", "b"), ("b", "a"), ("b", "t")]:
        network.add(start, end, 1)
    network.maximum_flow("s", "t")
    assert network.filled("s", "a")
    assert network.filled("b", "t")
    assert not network.filled("b", "a")
