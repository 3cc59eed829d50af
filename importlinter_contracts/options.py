"""Option types that the contract types here share."""

from __future__ import annotations

from typing import Any

from importlinter import fields


class NonEmptyListField(fields.ListField):
    """A list option that, when given, holds at least one value: an empty list (`option =`
    in INI, `[]` in TOML) would check nothing and pass, so it is an error instead."""

    def parse(self, raw_data: str | list[str]) -> list[Any]:
        values: list[Any] = super().parse(raw_data)
        if not values:
            raise fields.ValidationError("This list is empty; give at least one value.")
        return values
