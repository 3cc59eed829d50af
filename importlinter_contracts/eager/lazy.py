"""PEP 810 lazy imports, as CPython 3.15 runs them, read from a parsed file.

A lazy import binds a proxy and loads nothing; the first use of a name it binds loads the
module then (reification). An import is lazy where it is written `lazy import` / `lazy from
... import`, where `__lazy_modules__` (read where the file assigns it a literal list, tuple or
set of strings) names its module (`import a.b`: `"a.b"`; `from a import b`: `"a"`), or under
`lazy_imports = all`; in each case only at module level (an `if`, `for`, `while`, `match` or
`with` block included), never in a `try` statement, a class body or a function, and never a
star import: CPython runs those eagerly (and refuses `lazy` there). A lazy import whose name
code running at import time loads (an expression at module level or in a class body, a
decorator, a default, a base, an evaluated annotation) is eager, from its first use; one whose
name only a function loads is eager where that function is called at import time
(`calls.py`, which adds the import's line to the function's imports).

What cannot be read is taken as eager: a `__lazy_modules__` that is not such a literal lists
nothing, a relative `from` import is not looked up in it, and after a call of
`set_lazy_imports_filter` (which may refuse any lazy import) every import is eager.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import UnreadableSourceError
from .conditions import BLOCK_NODES, Clause, clauses, walk
from .target import Target

_LAZY_MODULES = "__lazy_modules__"
_FILTER = "set_lazy_imports_filter"
_UNUSED = "not used at import time"

# Names bound lazily and not used at import time, with the lines of the imports binding
# them: a function that loads one, called at import time, runs those imports.
LazyNames = dict[str, tuple[int, ...]]


def read_lazy(
    module: ast.Module,
    scopes: dict[int, Any],
    target: Target,
    annotations_run: Callable[[ast.AST], bool],
) -> LazyNames:
    """Give each lazy import of `module` its scope in `scopes` (eager from its first use at
    import time, else deferred); return the names of those not used then.

    `annotations_run(node)`: whether the annotations of a def, a class body (or, for the
    module, the module body) run at import time.

    Raises UnreadableSourceError for a `lazy` import where CPython refuses one.
    """
    lazy: list[tuple[ast.Import | ast.ImportFrom, str]] = []
    found = list(_module_imports(module.body))
    may_be_lazy = {id(node) for node, eligible, _, _ in found if eligible}
    for node in ast.walk(module):
        if getattr(node, "is_lazy", 0) and id(node) not in may_be_lazy:
            raise UnreadableSourceError(
                f"line {getattr(node, 'lineno', 0)}: a `lazy` import is a syntax error here in "
                "Python 3.15"
                " (in a function, a class body or a `try` statement, or of `*`)"
            )
    for node, eligible, declared, filtered in found:
        if not scopes[node.lineno].eager:
            continue  # (under `if TYPE_CHECKING:` and the like: it never runs)
        explicit = bool(getattr(node, "is_lazy", 0))
        how = None
        if explicit:
            how = "lazy import"
        elif eligible and target.lazy_imports == "all":
            how = "lazy by lazy_imports = all"
        elif eligible and declared is not None and (listed := declared[1]) is not None:
            keys = _keys(node)
            if keys and all(key in listed for key in keys):
                how = f"lazy by __lazy_modules__ (l.{declared[0]})"
        elif eligible and declared is not None and _keys(node):
            line = declared[0]
            scope = scopes[node.lineno]
            scopes[node.lineno] = scope._replace(
                reason=f"{scope.reason} (__lazy_modules__ at l.{line} is not a literal: "
                "taken as listing nothing)"
            )
        if how is not None and filtered is not None:
            scope = scopes[node.lineno]
            scopes[node.lineno] = scope._replace(
                reason=f"{scope.reason} ({how}, but {_FILTER} at l.{filtered} may refuse "
                "it: taken as eager)"
            )
        elif how is not None:
            lazy.append((node, how))
    if not lazy:
        return {}
    uses = import_time_loads(module, annotations_run)
    names: LazyNames = {}
    for node, how in lazy:
        used = [line for name in bound_names(node) for line, _ in uses.get(name, ())]
        after = [line for line in used if line > node.lineno]
        if used:
            first = min(after or used)
            reason = f"{how} at l.{node.lineno}, first used at import time at l.{first}"
            scopes[node.lineno] = scopes[node.lineno]._replace(eager=True, reason=reason, lazy=how)
        else:
            reason = f"{how}, {_UNUSED}"
            scopes[node.lineno] = scopes[node.lineno]._replace(
                eager=False, reason=reason, conditions=(), lazy=how
            )
            for name in bound_names(node):
                names[name] = (*names.get(name, ()), node.lineno)
    return names


def _keys(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The names `__lazy_modules__` is asked for, for an import (none for a relative one)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module] if node.module and not node.level else []


def bound_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    """Return the names an import statement binds (`import a.b`: `a`)."""
    if isinstance(node, ast.Import):
        return [alias.asname or alias.name.partition(".")[0] for alias in node.names]
    return [alias.asname or alias.name for alias in node.names]


# An import at module level: whether it may be lazy there (not in a `try`, not a star
# import), the `__lazy_modules__` in force (its line, and what it lists: None where it is not
# a literal), and the line of a `set_lazy_imports_filter` call before it.
_Found = tuple[
    ast.Import | ast.ImportFrom, bool, tuple[int, frozenset[str] | None] | None, int | None
]


def _module_imports(statements: list[ast.stmt]) -> Iterator[_Found]:
    declared: tuple[int, frozenset[str] | None] | None = None
    filtered: int | None = None
    for node, in_try in walk(statements, False, _at_module_level):
        if isinstance(node, ast.Import | ast.ImportFrom):
            star = any(alias.name == "*" for alias in node.names)
            yield node, not (in_try or star), declared, filtered
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if filtered is None and any(
            isinstance(n, ast.Attribute | ast.Name) and _name(n) == _FILTER for n in ast.walk(node)
        ):
            filtered = node.lineno
        if isinstance(node, ast.Assign | ast.AnnAssign) and any(
            isinstance(t, ast.Name) and t.id == _LAZY_MODULES for t in _targets(node)
        ):
            declared = (node.lineno, _literal_names(node.value))


def _at_module_level(in_try: bool, clause: Clause) -> bool | None:
    """Whether a clause's statements stand in a `try` statement; None for a def's or a class's
    (not at module level)."""
    if clause.statement in ("def", "class"):
        return None
    return in_try or clause.statement == "try"


def _name(node: ast.Attribute | ast.Name) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _literal_names(value: ast.expr | None) -> frozenset[str] | None:
    if not isinstance(value, ast.List | ast.Tuple | ast.Set):
        return None
    names = [e.value for e in value.elts if isinstance(e, ast.Constant)]
    if len(names) != len(value.elts) or not all(isinstance(n, str) for n in names):
        return None
    return frozenset(str(n) for n in names)


def import_time_loads(
    module: ast.Module, annotations_run: Callable[[ast.AST], bool]
) -> dict[str, list[tuple[int, str]]]:
    """Return, for each name that code running at import time loads (not in the bodies of
    functions and lambdas, which run when called), the lines it loads it on, each with how
    that code runs then ("at module level", "in a decorator of f", ...)."""
    uses: dict[str, list[tuple[int, str]]] = {}

    def enter(around: tuple[bool, str], clause: Clause) -> tuple[bool, str] | None:
        if clause.statement == "def":
            return None
        if clause.statement == "class":
            return annotations_run(clause.node), f"in the body of class {clause.name}"
        return around

    module_level = annotations_run(module), "at module level"
    for node, (evaluated, where) in walk(module.body, module_level, enter):
        found: list[tuple[ast.AST | None, str]] = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            arguments = node.args
            found += [(d, f"in a decorator of {node.name}") for d in node.decorator_list]
            found += [
                (d, f"in a default value of {node.name}")
                for d in [*arguments.defaults, *arguments.kw_defaults]
            ]
            if annotations_run(node):
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                every += [a for a in (arguments.vararg, arguments.kwarg) if a]
                annotated = [a.annotation for a in every] + [node.returns]
                found += [(a, f"in an annotation of {node.name}") for a in annotated]
        elif isinstance(node, ast.ClassDef):
            found += [(d, f"in a decorator of class {node.name}") for d in node.decorator_list]
            found += [(b, f"in a base of class {node.name}") for b in [*node.bases, *node.keywords]]
        elif isinstance(node, ast.AnnAssign):
            found += [(node.value, where), (node.target, where)]
            if evaluated:
                found.append((node.annotation, f"in an annotation {where}"))
        else:
            found += [
                (child, where)
                for child in ast.iter_child_nodes(node)
                if not isinstance(child, BLOCK_NODES)
            ]
            for clause in clauses(node):
                if clause.keyword in ("except", "case"):
                    found += [(clause.test, where), (clause.guard, where)]
        for expression, how in found:
            if expression is not None:
                for name in _loads(expression):
                    uses.setdefault(name.id, []).append((name.lineno, how))
    return uses


def _loads(node: ast.AST) -> Iterator[ast.Name]:
    """The names an expression loads, but not in the bodies of its lambdas."""
    if isinstance(node, ast.Lambda):
        arguments = node.args
        for each in [*arguments.defaults, *arguments.kw_defaults]:
            if each is not None:
                yield from _loads(each)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, BLOCK_NODES):
            yield from _loads(child)
