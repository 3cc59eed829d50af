"""Option types that the contract types here share, and the check of an option's type that
their fields leave to the configuration reader."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from importlinter import fields

# The fields of import-linter that read one string, as INI gives every value. TOML gives
# numbers, tables and dates as they are, and these fields then fail with Python's own message
# ("'int' object has no attribute 'lower'"); a field of another class reads any value itself.
_ONE_STRING_FIELDS = (
    fields.StringField,
    fields.TextField,
    fields.BooleanField,
    fields.EnumField,
    fields.ModuleField,
    fields.ModuleExpressionField,
    fields.ImportExpressionField,
)

_KINDS = {
    str: "a string",
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    list: "a list",
    dict: "a table",
}


class NonEmptyListField(fields.ListField):
    """A list option that, when given, holds at least one value, each once: an empty list
    (`option =` in INI, `[]` in TOML) would check nothing and pass, or says nothing where the
    option left out says the same, and a value given twice is a slip (the second was meant
    to be another), so both are errors. Every list option of the contracts here is one."""

    def parse(self, raw_data: str | list[str]) -> list[Any]:
        values: list[Any] = super().parse(raw_data)
        if not values:
            raise fields.ValidationError("This list is empty; give at least one value.")
        repeated = self.repeated(values)
        if repeated:
            raise fields.ValidationError(repeated)
        return values

    def repeated(self, values: list[Any]) -> str | None:
        """Return the error of the values given more than once, or None when there are none."""
        texts = [str(value) for value in values]
        repeated = sorted({text for text in texts if texts.count(text) > 1}, key=texts.index)
        if not repeated:
            return None
        listed = " and ".join(f"'{text}'" for text in repeated)
        verb = "is" if len(repeated) == 1 else "are"
        return f"{listed} {verb} given more than once; give each value once."


class BooleanField(fields.BooleanField):
    """import-linter's boolean field, whose message for another value ("Could not parse a
    boolean from 'yes'") says neither that the option takes true or false nor what to write."""

    def parse(self, raw_data: str | list[str]) -> bool:
        try:
            return super().parse(raw_data)
        except fields.ValidationError:
            if isinstance(raw_data, list):
                raise
            raise fields.ValidationError(
                f"'{raw_data}' is not a boolean: give true or false."
            ) from None


_WILDCARDS = ("*", "**")


def not_a_module_name(name: str, wildcards: bool = True) -> str | None:
    """Return why `name` can name no module (a hyphen, a space, an empty part: a leading,
    trailing or doubled dot; a file's path), with the module name it may stand for; None for
    a dotted name of identifiers (or, with `wildcards`, `*` and `**` standing for one)."""

    def valid(parts: list[str]) -> bool:
        return all(part.isidentifier() or (wildcards and part in _WILDCARDS) for part in parts)

    if valid(name.split(".")):
        return None
    text = name.strip()
    if text.endswith(".py") or "/" in text or "\\" in text:  # a file's path
        path = text.removesuffix(".py").replace("\\", "/").strip("/")
        text = path.removesuffix("/__init__").replace("/", ".")
    meant = [part.strip().replace("-", "_") for part in text.split(".")]
    guess = ".".join(part for part in meant if part)
    advice = (
        f"did you mean '{guess}'?"
        if guess and valid(guess.split("."))
        else "give a dotted name of identifiers."
    )
    return f"'{name}' is not a module name: {advice}"


class ModuleExpressionField(fields.ModuleExpressionField):
    """import-linter's module expression field, whose parts must be names (or wildcards): a
    pip distribution's name (`torch-xla`) or a stray dot would match no module and pass."""

    def parse(self, expression: str | list[str]) -> Any:
        parsed = super().parse(expression)
        error = not_a_module_name(parsed.expression)
        if error:
            raise fields.ValidationError(error)
        return parsed


class ModuleNameField(fields.StringField):
    """A module's name, without wildcards, as a string."""

    def parse(self, raw_data: str | list[str]) -> str:
        name = super().parse(raw_data)
        error = not_a_module_name(name, wildcards=False)
        if error:
            raise fields.ValidationError(error)
        return name


def wrongly_typed(contract_class: type, options: Mapping[str, Any]) -> dict[str, str]:
    """Return, for each option of a contract whose value its field (the class attribute of the
    option's name) cannot read: what was found and what to give.

    A list field takes strings, or one string as one entry (a one-line INI value); a field
    that reads one string takes a string that is not empty (import-linter's fields read `''`
    as a module, a marker or the default), or a list (its own message refuses that).
    """
    errors = {}
    for option, value in options.items():
        field = getattr(contract_class, option, None)
        if isinstance(field, fields.BaseMultipleValueField):
            items = value if isinstance(value, list) else [value]
            wrong = [item for item in items if not isinstance(item, str)]
            if wrong:
                found = (
                    f"{toml_value(value)} (a list holding {_kind(wrong[0])})"
                    if isinstance(value, list)
                    else describe(value)
                )
                errors[option] = f"found {found}; give a list of strings."
        elif isinstance(field, _ONE_STRING_FIELDS) and not isinstance(value, str | list):
            errors[option] = f"found {describe(value)}; give {_expected(field)}."
        elif isinstance(field, _ONE_STRING_FIELDS) and isinstance(value, str) and not value.strip():
            errors[option] = f"This option is empty; give {_expected(field)}."
    return errors


def describe(value: object) -> str:
    """Return a value as TOML writes it, and its kind: `5 (an integer)`."""
    return f"{toml_value(value)} ({_kind(value)})"


def _expected(field: fields.Field) -> str:  # type: ignore[type-arg]
    if isinstance(field, fields.BooleanField):
        return "true or false"
    if isinstance(field, fields.ModuleField | ModuleNameField):
        return "a module's name"
    if isinstance(field, fields.EnumField):
        *others, last = (f'"{member.value}"' for member in field.enum)
        return f"{', '.join(others)} or {last}"
    return "a string"


def _kind(value: object) -> str:
    return _KINDS.get(type(value), "a date or time")  # the TOML types that remain


def toml_value(value: object) -> str:
    """Return the value as TOML writes it (inline), to quote it as the user wrote it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)
