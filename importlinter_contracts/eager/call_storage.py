"""The call reading as the cache keeps it: nested tuples of strings and numbers, which
`marshal` writes (`to_tuples`, `from_tuples`, `function_to_tuple`); a function read from
its own lines (`calls.FunctionBodies`) is kept with those lines, read or not yet.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from .call_model import (
    Binding,
    Body,
    CalledName,
    CallReading,
    Function,
    ModuleTables,
    NeverRuns,
)
from .calls import FunctionBodies
from .conditions import (
    Conditions,
    is_condition,
)

Stored = tuple[object, ...]

# The cache stores a reading as nested tuples of strings and numbers (`marshal` writes those):
# these two functions are each other's inverse, and `from_tuples` refuses (ValueError)
# anything that `to_tuples` does not write.


def to_tuples(reading: CallReading) -> Stored:
    """Return the reading as tuples: a function is kept with its lines where it is read from them
    (`FunctionBodies`), read or not yet."""
    functions = reading.functions
    stored: Stored
    if isinstance(functions, FunctionBodies):
        stored = tuple(
            (
                name,
                bodies,
                function_to_tuple(functions.read[name]) if name in functions.read else None,
                tuple(tuple(call) for call in functions.decorated.get(name, ())),
            )
            for name, bodies in functions.bodies.items()
        )
        lazy = functions.lazy_annotations
        tables = tuple(_table_to_tuple(table) for table in functions.tables)
    else:
        stored = tuple(
            (name, None, function_to_tuple(function), ()) for name, function in functions.items()
        )
        lazy = False  # (every function is read)
        tables = ((),) * len(ModuleTables._fields)
    calls, bindings, classes, aliases = calls_to_tuples(reading)
    return calls, stored, bindings, lazy, tuple(sorted(reading.names)), classes, aliases, tables


def calls_to_tuples(reading: CallReading) -> tuple[Stored, Stored, Stored, Stored]:
    """Return a reading's calls at import time, the names its imports bind, its classes and
    the names it binds to functions or classes, as tuples."""
    return (
        tuple(tuple(call) for call in reading.calls),
        tuple(tuple(binding) for binding in reading.bindings),
        _table_to_tuple(reading.classes),
        _table_to_tuple(reading.aliases),
    )


def _table_to_tuple(table: Mapping[str, tuple[str, ...]]) -> Stored:
    return tuple(sorted(table.items()))


def _table_from_tuple(data: object) -> dict[str, tuple[str, ...]]:
    found = {}
    for item in _tuple(data):
        name, values = _tuple(item, 2)
        found[_str(name)] = tuple(_str(value) for value in _tuple(values))
    return found


def from_tuples(data: object, lines: Callable[[], list[str]], never_runs: NeverRuns) -> CallReading:
    """Return the reading `to_tuples` made; `lines` gives the file's lines, for the functions
    kept with their lines and not read yet.

    Raises ValueError where `data` does not have the shape `to_tuples` gives.
    """
    calls, functions, bindings, lazy, names, classes, aliases, tables = _tuple(data, 8)
    read: dict[str, Function] = {}
    bodies: dict[str, tuple[Body, ...]] = {}
    decorated: dict[str, tuple[CalledName, ...]] = {}
    for function in _tuple(functions):
        name, lines_of, stored, decorators = _tuple(function, 4)
        name = _str(name)
        if decorators:
            decorated[name] = _calls_from_tuples(decorators)
        if lines_of is not None:
            bodies[name] = tuple(_body(body) for body in _tuple(lines_of))
        if stored is not None:
            read[name] = _function_from_tuple(stored)
        elif lines_of is None:
            raise ValueError("a function neither read nor with its lines")
    if lazy is not None and type(lazy) is not bool:
        raise ValueError("not a boolean")
    module = ModuleTables._make(
        _table_from_tuple(table) for table in _tuple(tables, len(ModuleTables._fields))
    )
    return CallReading(
        _calls_from_tuples(calls),
        FunctionBodies(bodies, lines, never_runs, lazy, read, decorated, module)
        if bodies
        else read,
        _bindings_from_tuples(bindings),
        frozenset(_str(name) for name in _tuple(names)),
        _table_from_tuple(classes),
        _table_from_tuple(aliases),
    )


def _body(data: object) -> Body:
    first, second, third, fourth = _tuple(data, 4)
    return _int(first), _int(second), _int(third), _int(fourth)


def function_to_tuple(function: Function) -> Stored:
    """Return a function's reading as tuples (what `from_tuples` reads back)."""
    return (
        function.imports,
        tuple(tuple(call) for call in function.calls),
        tuple(tuple(binding) for binding in function.bindings),
        function.conditions,
        tuple(tuple(returned) for returned in function.returns),
    )


def _function_from_tuple(data: object) -> Function:
    imports, calls, bindings, conditions, returns = _tuple(data, 5)
    return Function(
        cast(tuple[int, ...], _tuple(imports)),
        _calls_from_tuples(calls),
        _bindings_from_tuples(bindings),
        tuple(_line_conditions(item) for item in _tuple(conditions)),
        _calls_from_tuples(returns),
    )


def _line_conditions(data: object) -> tuple[int, Conditions]:
    line, tests = _tuple(data, 2)
    return _int(line), _conditions(tests)


# The cache is sealed (`scope_cache`): what it holds was written by this version, and only
# its shape is checked here.


def _bindings_from_tuples(data: object) -> tuple[Binding, ...]:
    return tuple(Binding._make(_tuple(binding, 5)) for binding in _tuple(data))


def _calls_from_tuples(data: object) -> tuple[CalledName, ...]:
    found = []
    for call in _tuple(data):
        line, target, conditions = _tuple(call, 3)
        found.append(CalledName(_int(line), _str(target), _conditions(conditions)))
    return tuple(found)


def _conditions(data: object) -> Conditions:
    found = _tuple(data)
    if not all(is_condition(condition) for condition in found):
        raise ValueError("not a condition")
    return cast(Conditions, found)


def _tuple(value: object, length: int | None = None) -> Stored:
    if not isinstance(value, tuple) or (length is not None and len(value) != length):
        raise ValueError("not a tuple of the expected length")
    return value


def _int(value: object) -> int:
    if type(value) is not int:
        raise ValueError("not an integer")
    return value


def _str(value: object) -> str:
    if type(value) is not str:
        raise ValueError("not a string")
    return value
