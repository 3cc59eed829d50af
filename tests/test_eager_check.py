"""An eager_imports check (`check`): where its walks go at a hop (`Decider`), and what it
finds (`find_eager_imports`), on in-memory graphs."""

from __future__ import annotations

import pytest
from grimp import ImportGraph

from importlinter_contracts.allowlist.entries import Allowlist, parse_entry
from importlinter_contracts.cache import using_cache_directory
from importlinter_contracts.eager.check import FORBIDDEN, Decider, EagerRule, find_eager_imports
from importlinter_contracts.eager.walk import EagerHop
from importlinter_contracts.errors import UnreadableSourceError


def graph_of(*imports: tuple[str, str]) -> ImportGraph:
    graph = ImportGraph()
    for importer, imported in imports:
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    return graph


def decider(graph: ImportGraph, *entries: str, allowed: set[str] | None = None) -> Decider:
    allowlist = Allowlist(graph, [parse_entry(entry) for entry in entries])
    return Decider({"pkg.heavy", "other.bad"}, allowed or set(), {"pkg"}, allowlist)


def test_a_hop_enters_a_followed_module_and_not_one_outside_the_follow_packages() -> None:
    decide = decider(graph_of(("pkg.a", "pkg.b"), ("pkg.a", "numpy"))).decide
    assert decide(EagerHop("pkg.a", "pkg.b", (1,))) is True
    assert decide(EagerHop("pkg.a", "numpy", (1,))) is False
    assert decide(EagerHop("pkg.a.x", "pkg.a")) is True  # a parent package


def test_a_hop_stops_at_a_forbidden_module_inside_the_follow_packages_or_not() -> None:
    decide = decider(graph_of(("pkg.a", "pkg.heavy.b"), ("pkg.a", "other.bad"))).decide
    assert decide(EagerHop("pkg.a", "pkg.heavy.b", (1,))) is FORBIDDEN
    assert decide(EagerHop("pkg.a", "other.bad", (1,))) is FORBIDDEN
    assert decide(EagerHop("pkg.heavy.b.c", "pkg.heavy.b")) is FORBIDDEN  # a parent package


def test_an_allowed_module_and_its_parent_packages_are_entered() -> None:
    graph = graph_of(("pkg.a", "pkg.heavy.ok.inner"), ("pkg.a", "pkg.heavy.other"))
    found = decider(graph, allowed={"pkg.heavy.ok"})
    assert found.decide(EagerHop("pkg.a", "pkg.heavy.ok.inner.x", (1,))) is True
    assert found.decide(EagerHop("pkg.heavy.ok", "pkg.heavy")) is True
    assert found.decide(EagerHop("pkg.a", "pkg.heavy.other", (1,))) is FORBIDDEN
    assert (found.is_forbidden("pkg.heavy"), found.is_forbidden("pkg.heavy.other")) == (
        False,
        True,
    )


def test_an_import_an_entry_excuses_stops_at_the_entry_marked_used() -> None:
    graph = graph_of(("pkg.a", "pkg.heavy.b"), ("pkg.a", "pkg.b"), ("pkg.c", "pkg.b"))
    entries = [parse_entry(text) for text in ("pkg.a -> pkg.heavy.b  # why", "pkg.a -> pkg.b")]
    allowlist = Allowlist(graph, [*entries, parse_entry("pkg.c -> pkg.b")])
    decide = Decider({"pkg.heavy"}, set(), {"pkg"}, allowlist).decide
    assert decide(EagerHop("pkg.a", "pkg.heavy.b", (1,))) == entries[0]
    # An excused import of a module that is not forbidden stops there too.
    assert decide(EagerHop("pkg.a", "pkg.b", (1,))) == entries[1]
    # A parent package is no import: no entry excuses it.
    assert decide(EagerHop("pkg.a", "pkg")) is True
    assert allowlist.stale() == [parse_entry("pkg.c -> pkg.b")]


def test_an_entry_excuses_a_dynamic_import_as_it_excuses_an_import_statement() -> None:
    # `importlib.import_module("pkg.heavy.b")` in pkg.a: a hop of the walks, no import of
    # the graph.
    graph = graph_of(("pkg.a", "importlib"), ("pkg.c", "importlib"))
    for module in ("pkg.heavy.b", "pkg.heavy.c"):
        graph.add_module(module)
    exact, wildcard = (
        parse_entry("pkg.a -> pkg.heavy.b  # why"),
        parse_entry("pkg.c -> pkg.heavy.*"),
    )
    allowlist = Allowlist(graph, [exact, wildcard])
    decide = Decider({"pkg.heavy"}, set(), {"pkg"}, allowlist).decide
    assert decide(EagerHop("pkg.a", "pkg.heavy.b", (5,))) == exact
    assert decide(EagerHop("pkg.c", "pkg.heavy.c", (5,))) == wildcard
    assert decide(EagerHop("pkg.a", "pkg.heavy.c", (5,))) is FORBIDDEN
    assert allowlist.stale() == []


def test_a_walk_may_enter_a_followed_module_that_is_not_forbidden() -> None:
    found = decider(graph_of(("pkg.a", "pkg.b")), allowed={"pkg.heavy.ok"})
    assert [
        found.may_enter(module)
        for module in ("pkg.b", "pkg.heavy.b", "pkg.heavy.ok.x", "numpy", "other.bad")
    ] == [True, False, True, False, False]


def test_a_source_without_a_file_is_an_error_that_names_the_contract() -> None:
    graph = graph_of(("nofile.a", "nofile.heavy"))
    rule = EagerRule(["nofile.a"], {"nofile"}, {"nofile.heavy"}, set(), True)
    with using_cache_directory(None), pytest.raises(UnreadableSourceError) as raised:
        find_eager_imports(
            graph, rule, Allowlist(graph, []), {"root_packages": ["nofile"]}, contract="R4"
        )
    assert str(raised.value) == 'Contract "R4": nofile.a: no source file found for this module.'
