"""What every request body the API takes has in common: :class:`RequestBody` (no field the
endpoint does not know) and :func:`one_of` (a choice of whole numbers that refuses ``true`` and
``5.0``, which pydantic's ``Literal`` takes as 1 and 5)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict


class RequestBody(BaseModel):
    """Base of the API's request bodies: an unknown field is refused (422) rather than ignored,
    so a misspelt option is never silently dropped."""

    model_config = ConfigDict(extra="forbid")


def _whole_number(value: Any) -> Any:
    if isinstance(value, bool) or (not isinstance(value, int) and value is not None):
        raise ValueError(f"expected a whole number, got {value!r}")
    return value


def one_of(*values: int) -> Any:
    """The type "one of ``values``", whole numbers only (in the OpenAPI schema: an enum). A whole
    number outside them is refused naming the choices (pydantic's own message for one past
    2**63 is "Unable to parse input string as an integer")."""
    choices = ", ".join(map(str, values))

    def check(value: Any) -> Any:
        value = _whole_number(value)
        if value is not None and value not in values:
            shown = str(value) if len(str(value)) <= 20 else f"{str(value)[:20]}…"
            raise ValueError(f"expected one of {choices}, got {shown}")
        return value

    return Annotated[Literal[values], BeforeValidator(check)]
