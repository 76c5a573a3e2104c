"""What every request body the API takes has in common: :class:`RequestBody` (no field the
endpoint does not know), :func:`one_of` (a choice of whole numbers that refuses ``true`` and
``5.0``, which pydantic's ``Literal`` takes as 1 and 5), :data:`Flag` (every yes-or-no field:
``true`` or ``false``, not ``"yes"`` or ``1``), :data:`Text` (every free text field: no control
characters) and :data:`Username` (a player's name, refused in words rather than by
its regular expression). A refused value is quoted as JSON, as
the client wrote it (``true``, ``"5"``), not as Python would print it. :func:`problem` words a
validation error, the same for an HTTP body and a WebSocket message."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

USERNAME_PATTERN = r"^[A-Za-z0-9_-]{3,20}$"
USERNAME_RULE = "3 to 20 characters, each a letter A-Z or a-z, a digit, _ or -"


CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Control characters (Unicode category Cc: C0, DEL, C1). No ID, name, play or password of
ours holds one; NUL cannot even be stored in a PostgreSQL text column."""


def control_character(text: str) -> str | None:
    """The first control character in ``text`` as its code point (``U+0009`` for a tab), or
    ``None`` if there is none."""
    found = CONTROL.search(text)
    return f"U+{ord(found.group()):04X}" if found else None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(raw: str | bytes) -> str | None:
    """The first lone UTF-16 surrogate the JSON text ``raw`` decodes to, as its code point
    (``U+D800``), or ``None``: an escape such as ``\\ud800`` without its pair, which JSON
    allows and Python's parser keeps, but which is no character (neither database can store it,
    and pydantic fails on it). A pair (an emoji as two escapes) decodes to one character and is
    fine; text that is not JSON is ``None`` (its parser says why)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if not _SURROGATE_ESCAPE.search(text):
        return None
    try:
        decoded = json.dumps(json.loads(text), ensure_ascii=False)
    except (ValueError, RecursionError):
        return None
    found = _SURROGATE.search(decoded)
    return f"U+{ord(found.group()):04X}" if found else None


def _no_control(value: str) -> str:
    if (found := control_character(value)) is not None:
        raise ValueError(f"control characters are not allowed (found {found})")
    return value


Text = Annotated[str, AfterValidator(_no_control)]
"""A string of the API's input: one with a control character is refused (422)."""


class RequestBody(BaseModel):
    """Base of the API's request bodies: an unknown field is refused (422) rather than ignored,
    so a misspelt option is never silently dropped."""

    model_config = ConfigDict(extra="forbid")


def shown(value: Any, limit: int = 20) -> str:
    """``value`` as the client sent it (JSON), cut to ``limit`` characters with ``…``."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not from JSON: say it as Python would
        text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}…"


def _whole_number(value: Any) -> Any:
    if isinstance(value, bool) or (not isinstance(value, int) and value is not None):
        raise ValueError(f"expected a whole number, got {shown(value)}")
    return value


def _boolean(value: Any) -> Any:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {shown(value)}")
    return value


Flag = Annotated[bool, BeforeValidator(_boolean)]
"""A yes-or-no field of the API's input: JSON ``true`` or ``false`` only (422 otherwise).
pydantic alone takes ``1``, ``"yes"``, ``"on"`` and ``"0"`` as well, so ``"rated": "no"`` would
not read as the client meant, and a client's bug would go unnoticed."""


def _number(value: Any) -> Any:
    if isinstance(value, bool) or (not isinstance(value, int | float) and value is not None):
        raise ValueError(f"expected a number, got {shown(value)}")
    return value


Number = Annotated[float, BeforeValidator(_number)]
"""A number field of the API's input (a rating): a JSON number only (422 otherwise); pydantic
alone takes ``"1500"`` and ``true`` as well."""


def _username(value: Any) -> Any:
    if isinstance(value, str) and not re.fullmatch(USERNAME_PATTERN, value):
        raise ValueError(f"a username is {USERNAME_RULE}; got {shown(value, 30)}")
    return value


# Field before the validator: the schema keeps the pattern, and the validator (outermost) runs
# first, so the pattern's own message is never shown.
Username = Annotated[str, Field(pattern=USERNAME_PATTERN, description=USERNAME_RULE),
                     BeforeValidator(_username)]
"""A player's name (:data:`USERNAME_PATTERN`); one that does not match is refused saying the
rule in words. Anything but a string is refused as such (``expected a string, got 5``)."""


def one_of(*values: int) -> Any:
    """The type "one of ``values``", whole numbers only (in the OpenAPI schema: an enum). A whole
    number outside them is refused naming the choices (pydantic's own message for one past
    2**63 is "Unable to parse input string as an integer")."""
    choices = ", ".join(map(str, values))

    def check(value: Any) -> Any:
        value = _whole_number(value)
        if value is not None and value not in values:
            raise ValueError(f"expected one of {choices}, got {shown(value)}")
        return value

    return Annotated[Literal[values], BeforeValidator(check)]


def _field_path(loc: Sequence[Any], data: Any) -> list[str]:
    """The fields of ``loc`` (a pydantic error's location within ``data``), without the tags
    pydantic puts in it for a union chosen by ``type``: ``action.play.play`` of
    ``{"type": "action", "action": {"type": "play"}}`` is the field ``action.play``. A part is
    such a tag where the object there has it as its ``type`` (a tag never follows a tag)."""
    path: list[str] = []
    here, after_tag = data, False
    for part in loc:
        if not after_tag and isinstance(here, dict) and here.get("type") == part:
            after_tag = True
            continue
        after_tag = False
        path.append(str(part))
        if isinstance(here, dict):
            here = here.get(part)
        elif isinstance(here, list) and isinstance(part, int) and -len(here) <= part < len(here):
            here = here[part]
        else:
            here = None
    return path


def _not_an_object(value: Any, _ctx: Mapping[str, Any]) -> str:
    if isinstance(value, bytes | bytearray):
        # The framework reads a body as JSON only when its Content-Type says JSON.
        return ("expected a JSON object sent with Content-Type: application/json; this body "
                "was not read as JSON (its Content-Type is not JSON)")
    return f"expected a JSON object, got {shown(value)}"


def _too_short(value: Any, ctx: Mapping[str, Any]) -> str:
    least = ctx.get("min_length", 1)
    unit = "character" if isinstance(value, str) else "item"
    return f"expected at least {least} {unit}{'' if least == 1 else 's'}, got {shown(value)}"


_SAID: dict[str, Callable[[Any, Mapping[str, Any]], str]] = {
    "missing": lambda _, __: "field required",
    "extra_forbidden": lambda _, __: "unknown field",
    "string_type": lambda value, _: f"expected a string, got {shown(value)}",
    "model_attributes_type": _not_an_object,
    "model_type": _not_an_object,
    "dict_type": _not_an_object,
    "too_short": _too_short,
    "string_too_short": _too_short,
}
"""pydantic's errors for which its own message is not what we say ("Input should be a valid
dictionary or object to extract fields from", "Value should have at least 1 item after
validation" for an empty string), each given the input and the error's context."""


def problem(error: Mapping[str, Any], data: Any, root: str) -> str:
    """One validation error of ``data`` for people, the same for a request body and a
    WebSocket message: where (the field path, or ``root`` for the whole of ``data``) and what
    (a missing or unknown ``type`` in words; pydantic's "Value error, " prefix dropped).

    Args:
        error: one of pydantic's ``errors()``, its ``loc`` within ``data``.
        data: what was validated (parsed JSON).
        root: the name of ``data`` as a whole ("body", "message").
    """
    where = ".".join(_field_path(error["loc"], data)) or root
    ctx = error.get("ctx") or {}
    kind = error["type"]
    if kind == "union_tag_not_found":
        return f"{where}: {ctx.get('discriminator', 'the type')} is required"
    if kind == "union_tag_invalid":
        given = error.get("input")
        tag = given.get("type") if isinstance(given, dict) else None
        said = repr(ctx.get("tag")) if tag is None or isinstance(tag, str) else shown(tag)
        return (f"{where}: {ctx.get('discriminator', 'the type')} {said} is not one "
                f"of {ctx.get('expected_tags', '?')}")
    if kind in _SAID:
        return f"{where}: {_SAID[kind](error.get('input'), ctx)}"
    msg = str(error["msg"]).removeprefix("Value error, ")
    if msg[1:2].islower():  # our messages start in lower case; pydantic's do not
        msg = msg[:1].lower() + msg[1:]
    return f"{where}: {msg}"
