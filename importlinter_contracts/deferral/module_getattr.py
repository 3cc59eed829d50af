"""The edit that defers a package `__init__`'s re-export on every Python: the `from` import
leaves the module body, and a module `__getattr__` (PEP 562), added at the end of the file
with its `__dir__`, imports the name at its first use from outside (`pkg.Name`, `from pkg
import Name`, and `from pkg import *`, which reads each name of `__all__`), and serves the
submodule the import used to bind as an attribute of the package (`pkg.models`).

Where that cannot be proven safe the import is left, with why: a statement inside a block; an
`import` statement (it binds a package, not a name to serve); a name the file itself uses or
binds again (a module's own code does not go through its `__getattr__`); a name its `__all__`
does not list (`from pkg import *` would no longer bind it); and a file whose `__getattr__`
is other than one plain def of one parameter (the served names go at the start of such a
one, after its docstring), or whose `__dir__` is other than one plain def of none that ends in
its only `return` (the served names join what that returns: `sorted({*(value), "Name"})`).
"""

from __future__ import annotations

import ast
import copy
from pathlib import Path

from ..eager.lazy import bound_names
from .functions import Moved, module_name, with_blank_lines_left, with_names

_SERVED = ("__getattr__", "__dir__")


def served_by_getattr(
    lines: list[str], module: ast.Module, path: str, nodes: list[ast.Import | ast.ImportFrom]
) -> Moved:
    """Return the package `__init__` of `lines` (each with its end; parsed: `module`) with
    the names each import of `nodes` binds served by a module `__getattr__` (the file's own,
    where it has one that can take them), where that can be proven safe."""
    listed = _all_names(module)
    package = module_name(Path(path))
    existing, problem = _existing(module)
    own_dir, dir_problem = _existing_dir(module)
    problem = problem or dir_problem
    refused: dict[int, str] = {}
    served: list[ast.ImportFrom] = []
    for node in nodes:
        why = problem or _why_not(module, node, listed)
        if why:
            refused[node.lineno] = why
        else:
            assert isinstance(node, ast.ImportFrom)
            served.append(node)
    if not served:
        return Moved(None, (), refused)
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] or "\n"
    parameter = existing.args.args[0].arg if existing is not None else "name"
    branches, names = _branches(served, package, parameter)
    if existing is None:
        appended = _new_getattr(branches, names, own_dir is None)
        inserted: list[str] = []
        at = len(lines)
    else:
        appended = _dir(names) if own_dir is None else []
        # (After the docstring, else before the first statement and the comments over it.)
        first = existing.body[0]
        at = (first.end_lineno or first.lineno) if _docstring(existing) else first.lineno - 1
        start = lines[first.lineno - 1]
        indentation = start[: len(start) - len(start.lstrip(" \t"))]
        inserted = [f"{indentation}{line}" if line else "" for line in branches]
    if own_dir is not None:
        lines = _joined(lines, own_dir, names)
    removed = with_blank_lines_left(
        lines, {index for node in served for index in range(node.lineno - 1, node.end_lineno or 0)}
    )
    edited: list[str] = []
    for index, line in enumerate(lines):
        if index == at:
            edited += [f"{branch}{ending}" for branch in inserted]
        if index not in removed:
            edited.append(line)
    if edited and not edited[-1].endswith(("\n", "\r")):
        edited[-1] += ending
    text = "".join(edited) + "".join(f"{line}{ending}" for line in appended)
    made = tuple(node.lineno for node in served)
    if not _reads_back(text, module, served, existing, own_dir, names, branches, appended):
        why = "the served import does not read back as the same syntax tree, moved"
        return Moved(None, (), {**refused, **dict.fromkeys(made, why)})
    return Moved(text, made, refused)


def _existing(module: ast.Module) -> tuple[ast.FunctionDef | None, str]:
    """The file's module `__getattr__`, where it has one the served names can go into (a
    plain def of one positional parameter, the only binding of the name), and why the
    edit cannot be made ("" where it can)."""
    defined = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name == "__getattr__"
    ]
    bound = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Name) and node.id in _SERVED and isinstance(node.ctx, ast.Store)
    ]
    if bound:
        return None, f"the file binds {bound[0].id} already (l.{bound[0].lineno})"
    if not defined:
        return None, ""
    node = defined[0]
    arguments = node.args if isinstance(node, ast.FunctionDef) else None
    if (
        len(defined) > 1
        or not isinstance(node, ast.FunctionDef)
        or node not in module.body
        or node.decorator_list
        or arguments is None
        or len(arguments.posonlyargs + arguments.args) != 1
        or node.body[0].lineno == node.lineno
    ):
        return None, (
            f"the file's __getattr__ (l.{node.lineno}) is not one plain def of one parameter, "
            "which fix would add to"
        )
    return node, ""


def _existing_dir(module: ast.Module) -> tuple[ast.Return | None, str]:
    """The `return` of the file's module `__dir__`, where it has one the served names can
    join (a plain def of no parameter whose only `return` ends it, the only definition of
    the name), and why the edit cannot be made ("" where it can)."""
    defined = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.name == "__dir__"
    ]
    if not defined:
        return None, ""
    node = defined[0]
    returns = [each for each in ast.walk(node) if isinstance(each, ast.Return)]
    if (
        len(defined) > 1
        or not isinstance(node, ast.FunctionDef)
        or node not in module.body
        or node.decorator_list
        or _parameters(node.args)
        or len(returns) != 1
        or returns[0] is not node.body[-1]
        or returns[0].value is None
        or any(
            isinstance(each, ast.FunctionDef | ast.Lambda)
            for each in ast.walk(node)
            if each is not node
        )
    ):
        return None, (
            f"the file's __dir__ (l.{node.lineno}) is not one plain def of no parameter "
            "ending in its only return, which fix would add to"
        )
    return returns[0], ""


def _parameters(arguments: ast.arguments) -> bool:
    """Whether `arguments` declare any parameter."""
    return bool(
        arguments.posonlyargs
        or arguments.args
        or arguments.vararg
        or arguments.kwonlyargs
        or arguments.kwarg
    )


def _joined(lines: list[str], returned: ast.Return, names: list[str]) -> list[str]:
    """Return `lines` with the value of `returned` wrapped so that it also lists `names`:
    `sorted({*(value), "Name"})`, every byte of the value kept."""
    value = returned.value
    assert value is not None and value.end_lineno is not None and value.end_col_offset is not None
    listed = "".join(f', "{name}"' for name in names)
    joined = list(lines)
    # (Offsets count UTF-8 bytes; the end first, so that the start stays where it is.)
    for index, offset, text in (
        (value.end_lineno - 1, value.end_col_offset, f"){listed}}})"),
        (value.lineno - 1, value.col_offset, "sorted({*("),
    ):
        encoded = joined[index].encode()
        joined[index] = (encoded[:offset] + text.encode() + encoded[offset:]).decode()
    return joined


def _docstring(node: ast.FunctionDef) -> bool:
    first = node.body[0]
    return (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )


def _why_not(module: ast.Module, node: ast.Import | ast.ImportFrom, listed: set[str]) -> str:
    if node not in module.body:
        return (
            "it is inside a block (`if`, `with`, ...): only a statement of the module body is "
            "served by a module __getattr__"
        )
    if isinstance(node, ast.Import):
        return (
            "an `import` statement in a package's __init__ binds a module, not a name a "
            "module __getattr__ would serve"
        )
    names = bound_names(node)
    for found in ast.walk(module):
        if isinstance(found, ast.Name) and found.id in names:
            return (
                f"`{found.id}` is used in the file at l.{found.lineno}, and a module's own "
                "code does not go through its __getattr__"
            )
        if isinstance(found, ast.Import | ast.ImportFrom) and found is not node:
            again = set(bound_names(found)) & set(names)
            if again:
                return f"`{sorted(again)[0]}` is bound again at l.{found.lineno}"
    for name in names:
        if name not in listed:
            return (
                f"`{name}` is not in the file's __all__, so `from package import *` would no "
                "longer bind it"
            )
    return ""


def _all_names(module: ast.Module) -> set[str]:
    """The strings of the file's literal `__all__`s at module level."""
    found: set[str] = set()
    for node in module.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            assert isinstance(node, ast.Assign)
            if isinstance(node.value, ast.List | ast.Tuple):
                found |= {
                    each.value
                    for each in node.value.elts
                    if isinstance(each, ast.Constant) and isinstance(each.value, str)
                }
    return found


def _branches(
    served: list[ast.ImportFrom], package: str, parameter: str
) -> tuple[list[str], list[str]]:
    """The lines (indented within the function) of the `if` branches of a module
    `__getattr__` of `parameter` that serve the names `served` binds, and the submodules of
    `package` those imports used to bind; and those names."""
    lines: list[str] = []
    names: list[str] = []
    for node in served:
        for name in bound_names(node):
            statement = ast.unparse(with_names(node, [name]))
            lines += [
                f'if {parameter} == "{name}":',
                f"    {statement}",
                "",
                f'    globals()["{name}"] = {name}',
                f"    return {name}",
            ]
            names.append(name)
    for child in dict.fromkeys(_submodule(node, package) for node in served):
        if child and child not in names:
            lines += [
                f'if {parameter} == "{child}":',
                f"    from . import {child}",
                "",
                f"    return {child}",
            ]
            names.append(child)
    return lines, names


def _new_getattr(branches: list[str], names: list[str], with_dir: bool) -> list[str]:
    """The lines of a new module `__getattr__` of `branches`, and of its `__dir__` where
    `with_dir`."""
    return [
        "",
        "",
        "def __getattr__(name):",
        '    """Import, at its first use, a name whose import fix deferred (PEP 562)."""',
        *(f"    {line}" if line else "" for line in branches),
        '    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")',
        *(_dir(names) if with_dir else []),
    ]


def _dir(names: list[str]) -> list[str]:
    """The lines of a module `__dir__` that adds `names` to the module's own."""
    listed = ", ".join(f'"{name}"' for name in names)
    return ["", "", "def __dir__():", f"    return sorted({{*globals(), {listed}}})"]


def _submodule(node: ast.ImportFrom, package: str) -> str | None:
    """The child of `package` whose import `node` runs (and binds as its attribute), if
    any."""
    if node.level == 1:
        return (node.module or "").partition(".")[0] or None
    if node.level == 0 and node.module and node.module.startswith(f"{package}."):
        return node.module.removeprefix(f"{package}.").partition(".")[0]
    return None


def _reads_back(
    text: str,
    module: ast.Module,
    served: list[ast.ImportFrom],
    existing: ast.FunctionDef | None,
    own_dir: ast.Return | None,
    names: list[str],
    branches: list[str],
    appended: list[str],
) -> bool:
    """Whether the edited `text` parses to the original's syntax tree without the served
    imports, with the branches at the start of the existing `__getattr__` (after its
    docstring), `names` joined to what the existing `__dir__` returns, followed by what was
    appended."""
    try:
        edited = ast.parse(text.lstrip("\ufeff"))
        added = ast.parse("\n".join(appended))
        branched = ast.parse("\n".join(branches))
    except (SyntaxError, ValueError):
        return False
    expected = copy.deepcopy(module)
    expected.body = [
        node
        for node in expected.body
        if not (isinstance(node, ast.ImportFrom) and node.lineno in {n.lineno for n in served})
    ]
    if existing is not None:
        function = next(
            node
            for node in expected.body
            if isinstance(node, ast.FunctionDef) and node.lineno == existing.lineno
        )
        at = 1 if _docstring(function) else 0
        function.body[at:at] = branched.body
    if own_dir is not None:
        returned = next(
            node.body[-1]
            for node in expected.body
            if isinstance(node, ast.FunctionDef) and node.name == "__dir__"
        )
        assert isinstance(returned, ast.Return) and returned.value is not None
        returned.value = ast.Call(
            ast.Name("sorted", ast.Load()),
            [
                ast.Set(
                    [
                        ast.Starred(returned.value, ast.Load()),
                        *(ast.Constant(name) for name in names),
                    ]
                )
            ],
            [],
        )
    expected.body += added.body
    return ast.dump(edited) == ast.dump(expected)
