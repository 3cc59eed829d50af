"""What an expression calls and what strings it spells out, read from its syntax tree: the
calls of dotted names it makes (`calls_in`), each name a callee expression may be
(`dotted_alternatives`), the module names a dynamic import may import (from the strings a
literal, a loop's variable or a module's literal tables make: `computed_strings`,
`read_module_tables`); with the helpers on statements that the readers share (the blocks of
a compound statement, whether one leaves its function, the names a target binds).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from .call_model import (
    ARGUMENT,
    DYNAMIC_IMPORT,
    PASSES,
    RETURNED,
    RETURNED_BY,
    SUPER_CALL,
    CalledName,
    ModuleTables,
)
from .conditions import ELSE, IF, Conditions, own_statements

_DYNAMIC_CALLEES = ("import_module", "__import__")


# What a variable holds where it is what calling a function returns, or a prefix of an
# argument: `_MARK` then ANCHOR:NAME, among the strings `computed_strings` works out (a
# `:` in it keeps any string joined with it from being read as a module name).
_MARK = "\x00"
_PREFIX_METHODS = ("rsplit", "rpartition", "partition", "split")
# The most names one such call is read as (a prefix joined with each of a few collections).
_MOST_NAMES = 256


def _marker(anchor: str, name: str) -> str:
    return f"{_MARK}{anchor}:{name}"


def read_module_tables(statements: list[ast.stmt]) -> ModuleTables:
    """Return the module's names bound (at module level, in its blocks) to literals only: each
    literal they are assigned, merged; not a name also bound to anything else."""
    strings: dict[str, set[str]] = {}
    values: dict[str, set[str]] = {}
    registries: dict[str, set[str]] = {}
    collections: dict[str, set[str]] = {}
    mappings: dict[str, set[tuple[str, str]]] = {}
    other: set[str] = set()
    single: set[str] = set()  # (bound to a string: not a collection)
    for node in own_statements(statements):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        for target, value in pairs:
            if not isinstance(target, ast.Name) or isinstance(node, ast.AugAssign):
                other |= target_names(target)
                continue
            found = _literal_strings(value)
            names = _literal_names(value)
            if found is None and not names:
                other.add(target.id)
                continue
            if found is not None:
                strings.setdefault(target.id, set()).update(found)
                if isinstance(value, ast.Constant):
                    single.add(target.id)
                else:
                    collections.setdefault(target.id, set()).update(found)
                if isinstance(value, ast.Dict):
                    values.setdefault(target.id, set()).update(_dict_string_values(value))
                    mappings.setdefault(target.id, set()).update(_string_items(value))
            if names:
                registries.setdefault(target.id, set()).update(names)

    def kept(table: dict[str, set[str]], dropped: set[str]) -> dict[str, tuple[str, ...]]:
        return {name: tuple(sorted(found)) for name, found in table.items() if name not in dropped}

    return ModuleTables(
        kept(strings, other),
        kept(values, other),
        kept(registries, other),
        kept(collections, other | single),
        {
            name: tuple(item for pair in sorted(pairs) for item in pair)
            for name, pairs in mappings.items()
            if name not in other
        },
    )


def _string_items(node: ast.Dict) -> set[tuple[str, str]]:
    return {
        (key.value, value.value)
        for key, value in zip(node.keys, node.values, strict=True)
        if isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    }


def _looked_up(table: tuple[str, ...], keys: set[str]) -> set[str]:
    """The values of a dict kept as its keys and values in turn, for these keys."""
    return {table[index + 1] for index in range(0, len(table), 2) if table[index] in keys}


def _literal_strings(node: ast.expr) -> set[str] | None:
    """The strings a literal string is, or a literal collection of strings iterates (a
    tuple, list or set's elements, a dict's keys); None for anything else."""
    if isinstance(node, ast.Dict):
        keys = [key for key in node.keys if key is not None]
        if len(keys) != len(node.keys):
            return None
        return strings_of(ast.Tuple(elts=keys)) if keys else None
    return strings_of(node)


def _dict_string_values(node: ast.Dict) -> set[str]:
    return {
        value.value
        for value in node.values
        if isinstance(value, ast.Constant) and isinstance(value.value, str)
    }


def _literal_names(node: ast.expr) -> list[str]:
    """The dotted names a literal registry holds: a dict's values, a tuple's or a list's
    elements, where they are names."""
    if isinstance(node, ast.Dict):
        elements = node.values
    elif isinstance(node, ast.Tuple | ast.List):
        elements = node.elts
    else:
        return []
    return [name for element in elements if (name := dotted_name(element))]


def dotted_alternatives(node: ast.expr, registries: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Return the dotted names an expression may be, as a callee or a name bound to one: a name
    (`f`, `m.C`), each branch of a conditional expression (`A if c else B`), each operand
    of `or` and `and`, each value of a literal dict or element of a tuple or list
    subscripted (`{"a": A, "b": B}[key]`), or of a module's name bound to one (`REG[key]`)."""
    dotted = dotted_name(node)
    if dotted is not None:
        return [dotted]
    if isinstance(node, ast.IfExp):
        return dotted_alternatives(node.body, registries) + dotted_alternatives(
            node.orelse, registries
        )
    if isinstance(node, ast.BoolOp):
        return [name for value in node.values for name in dotted_alternatives(value, registries)]
    if isinstance(node, ast.NamedExpr):
        return dotted_alternatives(node.value, registries)
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Name) and node.value.id in registries:
            return list(registries[node.value.id])
        return _literal_names(node.value)
    return []


def _find_dynamic_imports(
    node: ast.Call, callee: str, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The targets (`DYNAMIC_IMPORT`) of a call of `import_module` or `__import__`: one
    per name it may import, or one that says its name is computed otherwise."""
    arguments = {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
    positional = list(node.args)
    name_node = positional[0] if positional else arguments.get("name")
    is_import = callee.rpartition(".")[2] == "__import__"
    anchor = ""
    fromlist: tuple[str, ...] = ()
    dots = ""
    if is_import:
        level = positional[4] if len(positional) > 4 else arguments.get("level")
        listed = positional[3] if len(positional) > 3 else arguments.get("fromlist")
        if listed is not None:
            fromlist = tuple(sorted(strings_of(listed) or ()))
        if level is not None:
            if not (isinstance(level, ast.Constant) and type(level.value) is int):
                name_node = None
            elif level.value > 0:
                anchor, dots = "__package__", "." * level.value
    else:
        package = positional[1] if len(positional) > 1 else arguments.get("package")
        if isinstance(package, ast.Name) and package.id in ("__name__", "__package__"):
            anchor = package.id
        elif package is not None:
            name_node = None
    names = None if name_node is None else computed_strings(name_node, tables, loops)
    marked = [name for name in names or () if name.startswith(_MARK)]
    if marked:
        # (A name that a function returns, or a prefix of an argument: followed where the
        # call stands, absolute and whole, for `import_module`.)
        if is_import or anchor or len(marked) != len(names or ()):
            return [f"{DYNAMIC_IMPORT}{callee}::"]
        return [f"{DYNAMIC_IMPORT}{callee}:{name.removeprefix(_MARK)}" for name in sorted(marked)]
    if dots and names is not None:
        names = {dots + name for name in names}
    if not names or any(":" in name for name in names):
        return [f"{DYNAMIC_IMPORT}{callee}::"]
    found = set(names)
    found |= {f"{name}.{item}" for name in names for item in fromlist if item != "*"}
    return [f"{DYNAMIC_IMPORT}{callee}:{anchor}:{name}" for name in sorted(found)]


def computed_strings(
    node: ast.expr, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> set[str] | None:
    """Return the strings an expression may be, where the text spells them out: a literal, a name
    a loop takes from a literal collection (`for name in ("a", "b")`) or the module binds to
    a literal, and these joined (an f-string, `+`, `"%s" % x`, `"{}".format(x)`); None
    otherwise."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        found = loops.get(node.id)
        if found is None:
            found = tables.strings.get(node.id)
        return None if found is None else set(found)
    if isinstance(node, ast.JoinedStr):
        parts: list[set[str]] = []
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                if value.format_spec is not None or value.conversion not in (-1, 115):
                    return None
                inner = computed_strings(value.value, tables, loops)
            else:
                inner = computed_strings(value, tables, loops)
            if inner is None:
                return None
            parts.append(inner)
        return _joined(parts)
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id in tables.mappings
    ):
        keys = computed_strings(node.slice, tables, loops)
        return None if keys is None else _looked_up(tables.mappings[node.value.id], keys)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = computed_strings(node.left, tables, loops)
        right = computed_strings(node.right, tables, loops)
        return None if left is None or right is None else _joined([left, right])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        formats = computed_strings(node.left, tables, loops)
        items = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return _formatted(formats, items, tables, loops, lambda f, a: f % tuple(a))
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and not node.keywords
    ):
        formats = computed_strings(node.func.value, tables, loops)
        return _formatted(formats, node.args, tables, loops, lambda f, a: f.format(*a))
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        # What calling a function returns: known where the resolver follows the call (not a
        # method of a variable's value, `name.strip()`).
        callees = dotted_alternatives(node.func, tables.registries)
        if not callees or any(callee.partition(".")[0] in loops for callee in callees):
            return None
        return {_marker(RETURNED_BY, callee) for callee in callees}
    if isinstance(node, ast.Subscript) and _is_zero(node.slice):
        prefix = split_prefix(node.value, loops)
        return None if prefix is None else {prefix}
    return None


def _is_zero(node: ast.expr) -> bool:
    return _int_constant(node) == 0


def _int_constant(node: ast.expr) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def split_prefix(node: ast.expr, loops: Mapping[str, tuple[str, ...]]) -> str | None:
    """Return the prefix of an argument that `node` splits (`qualname.rsplit(".", 1)`,
    `qualname.rpartition(".")`, `qualname.partition(":")`, `qualname.split(".")`), whose
    first part is the prefix; None for anything else."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in _PREFIX_METHODS
        and isinstance(node.func.value, ast.Name)
        and not node.keywords
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
        and node.args[0].value
    ):
        return None
    method = node.func.attr
    limit = [_int_constant(argument) for argument in node.args[1:]]
    if "partition" in method and limit:
        return None
    if method == "rsplit" and limit != [1]:
        # (Split at every separator, the first part is the same from either end.)
        method = "split" if not limit else ""
    if method == "split" and not (not limit or (len(limit) == 1 and (limit[0] or 0) >= 1)):
        return None
    if not method:
        return None
    whole = loops.get(node.func.value.id, ())
    if len(whole) != 1 or not whole[0].startswith(_MARK + ARGUMENT + ":"):
        return None
    index, method_before, _ = whole[0].removeprefix(_MARK + ARGUMENT + ":").split(":", 2)
    if method_before:
        return None  # (a prefix of a prefix: not read)
    return _marker(ARGUMENT, f"{index}:{method}:{node.args[0].value}")


def _joined(parts: list[set[str]]) -> set[str] | None:
    found = {""}
    for part in parts:
        found = {before + after for before in found for after in part}
        if len(found) > _MOST_NAMES:
            return None
    return found


def _formatted(
    formats: set[str] | None,
    items: list[ast.expr],
    tables: ModuleTables,
    loops: Mapping[str, tuple[str, ...]],
    apply: Callable[[str, list[str]], str],
) -> set[str] | None:
    if formats is None:
        return None
    values = []
    for item in items:
        taken = computed_strings(item, tables, loops)
        if taken is None:
            return None
        values.append(sorted(taken))
    combinations: list[list[str]] = [[]]
    for found_values in values:
        combinations = [[*before, value] for before in combinations for value in found_values]
        if len(combinations) * len(formats) > _MOST_NAMES:
            return None
    found: set[str] = set()
    for text in formats:
        for combination in combinations:
            try:
                found.add(apply(text, combination))
            except (TypeError, ValueError, IndexError, KeyError):
                return None
    return found


def iterated_alternatives(
    target: ast.expr, iterable: ast.expr, tables: ModuleTables
) -> dict[str, list[str]]:
    """Return the functions or classes a loop's variable takes from a module's literal registry
    of them that the loop iterates: a dict's `.values()`, the second variable of its
    `.items()`, a tuple's or a list's elements (through `chain`, `sorted`, `list`, `tuple`
    or `set`); none where it cannot tell."""
    found: dict[str, list[str]] = {}
    for chained in _chained(iterable):
        method, part = _dict_method(chained)
        if method == "keys" or not isinstance(part, ast.Name) or part.id not in tables.registries:
            continue
        variable = target
        if method == "items":
            if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
                continue
            variable = target.elts[1]
        elif method is None and part.id in tables.strings:
            continue  # (a dict iterates its keys)
        if isinstance(variable, ast.Name):
            found.setdefault(variable.id, []).extend(tables.registries[part.id])
    return found


def _chained(iterable: ast.expr) -> list[ast.expr]:
    """The collections a loop iterates one after another: `chain(a, b)`'s, else the one, each
    without a `sorted`, `list`, `tuple` or `set` around it."""
    parts = [iterable]
    if isinstance(iterable, ast.Call) and dotted_name(iterable.func) in (
        "chain",
        "itertools.chain",
    ):
        parts = list(iterable.args)
    return [_unwrapped(part) for part in parts]


def _unwrapped(iterable: ast.expr) -> ast.expr:
    """A collection a loop iterates, without a `sorted`, `list`, `tuple` or `set` around it."""
    while (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id in ("sorted", "list", "tuple", "set")
        and len(iterable.args) == 1
    ):
        iterable = iterable.args[0]
    return iterable


def _dict_method(iterable: ast.expr) -> tuple[str | None, ast.expr]:
    """Of `D.keys()`, `D.values()` or `D.items()`: the method and `D`; else None and the
    collection itself."""
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Attribute)
        and iterable.func.attr in ("keys", "values", "items")
        and not iterable.args
    ):
        return iterable.func.attr, iterable.func.value
    return None, iterable


def iterated_strings(
    target: ast.expr,
    iterable: ast.expr,
    tables: ModuleTables,
    loops: Mapping[str, tuple[str, ...]],
) -> dict[str, tuple[str, ...]]:
    """Return the strings a loop's variables take from a literal collection it iterates (`for name
    in ("a", "b")`, a module's name bound to one, a dict's `.keys()`, `.values()` or
    `.items()`, through `sorted`, `list`, `tuple` or `set`): none where it cannot tell."""
    method, iterable = _dict_method(_unwrapped(iterable))
    keys: set[str] | None
    dict_values: set[str] | None = None
    if isinstance(iterable, ast.Name) and iterable.id not in loops:
        keys = set(tables.strings.get(iterable.id, ())) or None
        dict_values = set(tables.values.get(iterable.id, ())) or None
    elif isinstance(iterable, ast.Dict):
        keys = _literal_strings(iterable)
        dict_values = _dict_string_values(iterable) or None
    elif method is None and not isinstance(iterable, ast.Constant):
        keys = _literal_strings(iterable)  # (a string iterates its characters: not read)
    else:
        keys = None
    if method == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        found = {}
        first, second = target.elts
        if isinstance(first, ast.Name) and keys:
            found[first.id] = tuple(sorted(keys))
        if isinstance(second, ast.Name) and dict_values:
            found[second.id] = tuple(sorted(dict_values))
        return found
    taken = dict_values if method == "values" else keys
    if isinstance(target, ast.Name) and taken:
        return {target.id: tuple(sorted(taken))}
    return {}


def strings_of(node: ast.expr) -> set[str] | None:
    """Return the strings a literal is, or holds (a tuple, list or set of strings); None for
    anything else."""
    if isinstance(node, ast.Constant):
        return {node.value} if isinstance(node.value, str) else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        found: set[str] = set()
        for element in node.elts:
            if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
                return None
            found.add(element.value)
        return found
    return None


def target_names(target: ast.expr) -> set[str]:
    """Return the names an assignment's target binds itself (not an attribute's, an item's)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        return {name for item in target.elts for name in target_names(item)}
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return set()


def parameter_strings(node: ast.FunctionDef) -> dict[str, tuple[str, ...]]:
    """Return a function's positional parameters, each as the whole of an argument (`ARGUMENT`)."""
    arguments = [*node.args.posonlyargs, *node.args.args]
    return {
        argument.arg: (_marker(ARGUMENT, f"{index}::"),) for index, argument in enumerate(arguments)
    }


def leaves_function(block: list[ast.stmt]) -> bool:
    """Return whether a block ends by leaving its function (`return`, `raise`)."""
    return bool(block) and isinstance(block[-1], ast.Return | ast.Raise)


# The nodes that hold no call: a name (its child is its context), a constant, an operator.
_LEAVES = (
    ast.Name,
    ast.Constant,
    ast.expr_context,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
)
# Of the kinds of node that most expressions are made of, the fields that may hold a call, in
# the order `ast.iter_child_nodes` gives them, no context, operator or string among them:
# `calls_in` reads them straight, where `iter_child_nodes` takes a generator step for each
# child, a leaf too. The kinds it reads otherwise, a lambda, a comprehension, an operand
# chosen by a test, and any other are not here.
_CALL_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.Attribute: ("value",),
    ast.Call: ("func", "args", "keywords"),
    ast.keyword: ("value",),
    ast.Compare: ("left", "comparators"),
    ast.BinOp: ("left", "right"),
    ast.UnaryOp: ("operand",),
    ast.Subscript: ("value", "slice"),
    ast.Slice: ("lower", "upper", "step"),
    ast.Starred: ("value",),
    ast.Tuple: ("elts",),
    ast.List: ("elts",),
    ast.Set: ("elts",),
    ast.Dict: ("keys", "values"),
    ast.JoinedStr: ("values",),
    ast.FormattedValue: ("value", "format_spec"),
    ast.NamedExpr: ("target", "value"),
    ast.Await: ("value",),
    ast.Yield: ("value",),
    ast.YieldFrom: ("value",),
    ast.withitem: ("context_expr", "optional_vars"),
    ast.comprehension: ("target", "iter", "ifs"),
}
# The leaves those fields hold, which `calls_in` leaves out of its walk.
_LEAF_KINDS: frozenset[type[ast.AST]] = frozenset({ast.Name, ast.Constant})


def calls_in(
    nodes: Sequence[ast.AST],
    tables: ModuleTables | None = None,
    loops: Mapping[str, tuple[str, ...]] | None = None,
    shown: Callable[[ast.expr], str] | None = None,
) -> list[CalledName]:
    """Return every call of a dotted name in these expressions, in source order, except in a
    lambda's body (which runs only when called); of each name a callee expression may be
    (`(a if c else b)()`, `REG[key]()`, `(a or b).f()`); through `super()` (`<super>.f`);
    and each dynamic import (`DYNAMIC_IMPORT`), whose name may use a variable that a loop
    around it (`loops`, or a comprehension's) takes from a literal collection. With `shown` (a
    test's text), a call in an operand that runs only as the operands before it decide
    (`a and f()`, `a or f()`, `f() if a else g()`) carries those tests as its conditions."""
    tables = tables or ModuleTables()
    outer = loops or {}
    none: Conditions = ()
    # Each node's parts go on the stack last first: the calls come off it in the order the
    # source spells them, which the calls of one name on one line keep (`calls._in_order`).
    stack = [(node, outer, none) for node in reversed(nodes)]
    found: list[CalledName] = []
    while stack:
        node, taken, under = stack.pop()
        fields = _CALL_FIELDS.get(type(node))
        if fields is None:
            _push_parts(node, taken, under, stack, tables, shown)
            continue
        if isinstance(node, ast.Call):
            called = _called(node, tables, taken)
            if shown is not None and isinstance(_callee(node.func), ast.BoolOp | ast.IfExp):
                found += _chosen(node, called, under, shown)
            elif under:
                found += [CalledName(call.line, call.target, under) for call in called]
            else:
                found += called
        # The fields in `iter_child_nodes` order, pushed last first; leaves left out.
        for field in reversed(fields):
            value = getattr(node, field)
            if type(value) is list:
                for item in reversed(value):
                    if item is not None and type(item) not in _LEAF_KINDS:
                        stack.append((item, taken, under))
            elif value is not None and type(value) not in _LEAF_KINDS:
                stack.append((value, taken, under))
    return found


# A node of `calls_in`'s walk, with the strings its loops' variables take and its tests.
_Walked = tuple[ast.AST, Mapping[str, tuple[str, ...]], Conditions]


def _push_parts(
    node: ast.AST,
    taken: Mapping[str, tuple[str, ...]],
    under: Conditions,
    stack: list[_Walked],
    tables: ModuleTables,
    shown: Callable[[ast.expr], str] | None,
) -> None:
    """Put on `calls_in`'s `stack` the parts of a node of a kind that `_CALL_FIELDS` does not
    list, which may hold a call, last first."""
    if isinstance(node, _LEAVES):
        return
    parts: list[_Walked]
    if isinstance(node, ast.Lambda):
        defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]
        parts = [(default, taken, under) for default in defaults]
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        inner = dict(taken)
        for generator in node.generators:
            inner.update(iterated_strings(generator.target, generator.iter, tables, inner))
        if shown is None:
            parts = [(child, inner, under) for child in ast.iter_child_nodes(node)]
        else:
            parts = [(child, inner, tests) for child, tests in _clauses(node, under, shown)]
    elif shown is not None and isinstance(node, ast.BoolOp | ast.IfExp):
        parts = [(child, taken, tests) for child, tests in _operands(node, under, shown)]
    else:
        parts = [(child, taken, under) for child in ast.iter_child_nodes(node)]
    stack.extend(reversed(parts))


def _clauses(
    node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
    under: Conditions,
    shown: Callable[[ast.expr], str],
) -> Iterator[tuple[ast.expr, Conditions]]:
    """The parts of a comprehension, each with the tests it runs under: those around it, then
    each `if` clause before it true (a later `for`'s collection and the elements run only where
    the earlier clauses' tests hold)."""
    tests = under
    for generator in node.generators:
        yield generator.iter, tests
        yield generator.target, tests
        for test in generator.ifs:
            yield test, tests
            tests = (*tests, (IF, shown(test), test.lineno))
    elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
    for element in elements:
        yield element, tests


def _callee(function: ast.expr) -> ast.expr:
    """What a call's callee names: the object whose attribute it is (`(a or b).f`), or itself."""
    return function.value if isinstance(function, ast.Attribute) else function


def _chosen(
    node: ast.Call, found: Iterable[CalledName], under: Conditions, shown: Callable[[ast.expr], str]
) -> Iterator[CalledName]:
    """The calls of a callee that is one of alternatives (`(a if c else b)()`, `(a or b).f()`),
    each with the tests that choose its alternative."""
    function = node.func
    attribute = f".{function.attr}" if isinstance(function, ast.Attribute) else ""
    tests: dict[str, Conditions] = {}
    for name, chosen_by in _alternatives(_callee(function), under, shown):
        tests.setdefault(name + attribute, chosen_by)
    for call in found:
        yield call._replace(conditions=tests.get(call.target, under))


def _alternatives(
    node: ast.expr, under: Conditions, shown: Callable[[ast.expr], str]
) -> Iterator[tuple[str, Conditions]]:
    """The dotted names an expression may be (`dotted_alternatives`) among its operands, each
    with the tests that choose it (the first found of a name that stands twice)."""
    if isinstance(node, ast.BoolOp | ast.IfExp):
        for operand, tests in _operands(node, under, shown):
            if not (isinstance(node, ast.IfExp) and operand is node.test):
                yield from _alternatives(operand, tests, shown)
    elif (dotted := dotted_name(node)) is not None:
        yield dotted, under


def _operands(
    node: ast.BoolOp | ast.IfExp, under: Conditions, shown: Callable[[ast.expr], str]
) -> Iterator[tuple[ast.expr, Conditions]]:
    """The operands of `and`, `or` or a conditional expression, each with the tests it runs
    under: those around it, then each operand before it true (`and`) or false (`or`), or the
    conditional expression's test true for its body, false for the other."""
    if isinstance(node, ast.IfExp):
        test = (node.test.lineno, shown(node.test))
        yield node.test, under
        yield node.body, (*under, (IF, test[1], test[0]))
        yield node.orelse, (*under, (ELSE, test[1], test[0]))
        return
    kind = IF if isinstance(node.op, ast.And) else ELSE
    tests = under
    for value in node.values:
        yield value, tests
        tests = (*tests, (kind, shown(value), value.lineno))


def _called(
    node: ast.Call, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> list[CalledName]:
    """What one call calls (`calls_in`)."""
    line = node.lineno
    function = node.func
    target = dotted_name(function)
    found: list[CalledName] = []
    if target is not None:
        found.append(CalledName(line, target))
        if target.rpartition(".")[2] in _DYNAMIC_CALLEES:
            for imported in _find_dynamic_imports(node, target, tables, loops):
                found.append(CalledName(line, imported))
        else:
            for index, argument in enumerate(node.args):
                for returning in _returned_by(argument, tables, loops):
                    found.append(CalledName(line, f"{PASSES}{target}:{index}:{returning}"))
    elif isinstance(function, ast.Call) and (called := dotted_name(function.func)):
        found.append(CalledName(line, called + RETURNED))  # `f(x)(y)`: what `f(x)` returns
    elif isinstance(function, ast.Attribute):
        base = function.value
        if isinstance(base, ast.Call) and dotted_name(base.func) == "super":
            found.append(CalledName(line, SUPER_CALL + function.attr))
        else:
            for name in dotted_alternatives(base, tables.registries):
                found.append(CalledName(line, f"{name}.{function.attr}"))
    else:
        for name in dotted_alternatives(function, tables.registries):
            found.append(CalledName(line, name))
    return found


def _returned_by(
    node: ast.expr, tables: ModuleTables, loops: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The functions whose return value an argument is (`f()`, `REG[key]()`, a variable
    assigned one of these), where it is nothing else."""
    if isinstance(node, ast.Name):
        if node.id not in loops:
            return []
    elif not (isinstance(node, ast.Call) and not node.args and not node.keywords):
        return []
    found = computed_strings(node, tables, loops) or ()
    marker = _MARK + RETURNED_BY + ":"
    if not all(name.startswith(marker) for name in found):
        return []
    return sorted(name.removeprefix(marker) for name in found)


def decorator_calls(decorators: list[ast.expr]) -> Iterator[CalledName]:
    """Return the calls that decorators make: one written as a name (`@f`, `@m.f`) is called
    with what it decorates; one written as a call (`@f(x)`) calls what that call returns."""
    for decorator in decorators:
        target = dotted_name(decorator)
        if target is not None:
            yield CalledName(decorator.lineno, target)
        elif isinstance(decorator, ast.Call) and (called := dotted_name(decorator.func)):
            yield CalledName(decorator.lineno, called + RETURNED)


def dotted_name(node: ast.expr) -> str | None:
    """Return the dotted name an expression is (`f`, `m.f`, `a.b.f`); None for any other."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
