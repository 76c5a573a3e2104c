"""What every request body the API takes has in common: :class:`RequestBody` (no field the
endpoint does not know), :func:`one_of` (a choice of whole numbers that refuses ``true`` and
``5.0``, which pydantic's ``Literal`` takes as 1 and 5), :data:`Flag` (every yes-or-no field:
``true`` or ``false``, not ``"yes"`` or ``1``), :data:`Text` (every free text field: no control
characters), :data:`Username` (a player's name, refused in words rather than by
its regular expression) and :data:`Password` (a new password, refused saying the rule, never
quoting it). A refused value is quoted as JSON, as the client wrote it (``true``, ``"5"``), not
as Python would print it, except a password's (:func:`secret`). :func:`problem` words a
validation error, the same for an HTTP body and a WebSocket message."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal

from fastapi import Path as PathParam
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from boardgammon.dice.ids import MATCH_ID_PATTERN, ROLL_ID_PATTERN

USERNAME_PATTERN = r"^[A-Za-z0-9_-]{3,20}$"
USERNAME_RULE = "3 to 20 characters, each a letter A-Z or a-z, a digit, _ or -"
MIN_PASSWORD = 8
MAX_PASSWORD = 1024  # argon2 hashes anything, but a megabyte password is only a DoS


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


def text_first(value: Any) -> Any:
    """:data:`Text`'s check as a ``BeforeValidator``, for a string field with a pattern: a
    control character is then refused as such, before the pattern's own message."""
    return _no_control(value) if isinstance(value, str) else value


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


def _password(value: Any) -> Any:
    if isinstance(value, str):
        if len(value) < MIN_PASSWORD:
            raise ValueError(f"a password needs at least {MIN_PASSWORD} characters")
        if len(value) > MAX_PASSWORD:
            raise ValueError(f"a password has at most {MAX_PASSWORD} characters")
        if control_character(value) is not None:
            raise ValueError("a password holds no control characters (tabs, line breaks and "
                             "the like)")
    return value


Password = Annotated[str, Field(min_length=MIN_PASSWORD, max_length=MAX_PASSWORD,
                                description=f"{MIN_PASSWORD} to {MAX_PASSWORD} characters, "
                                            f"no control characters"),
                     BeforeValidator(_password)]
"""A new password (at register, upgrade and a change): one that breaks the rule is refused
saying the rule, never quoting the password (nor which control character it holds). Anything
but a string is refused as such (``expected a string``)."""


def secret(path: Sequence[Any]) -> bool:
    """Whether a field at ``path`` holds a secret whose value no message may quote: any field
    whose name holds ``password`` (``password``, ``new_password``)."""
    return any("password" in str(part).lower() for part in path)


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


Said = tuple[str, str | None]
"""A validation error in words: the rule broken and the refused value as the client wrote it
(``None``: not quoted)."""


def _not_an_object(value: Any, _ctx: Mapping[str, Any]) -> Said:
    if isinstance(value, bytes | bytearray):
        # The framework reads a body as JSON only when its Content-Type says JSON.
        return ("expected a JSON object sent with Content-Type: application/json; this body "
                "was not read as JSON (its Content-Type is not JSON)", None)
    return "expected a JSON object", shown(value)


def _unit(value: Any, count: Any) -> str:
    unit = "character" if isinstance(value, str) else "item"
    return unit if count == 1 else f"{unit}s"


def _too_short(value: Any, ctx: Mapping[str, Any]) -> Said:
    least = ctx.get("min_length", 1)
    return f"expected at least {least} {_unit(value, least)}", shown(value)


def _too_long(value: Any, ctx: Mapping[str, Any]) -> Said:
    # The length, not the value: a value that is too long is too long to quote.
    most = ctx.get("max_length", "?")
    length = len(value) if isinstance(value, str | list | dict) else None
    return (f"expected at most {most} {_unit(value, most)}",
            None if length is None else f"{length} {_unit(value, length)}")


_HEX = re.compile(r"\^\[0-9a-fA-F\]\{(\d+)\}\$")
_PATTERNS = {
    MATCH_ID_PATTERN: "a match ID looks like mat_… (letters and digits)",
    ROLL_ID_PATTERN: "a roll ID looks like rol_… (letters and digits)",
    USERNAME_PATTERN: f"a username is {USERNAME_RULE}",
}
"""The rule of each regular expression of the API's input, in words."""

MatchId = PathParam(pattern=MATCH_ID_PATTERN, description="mat_… match ID")
"""A match ID in an address (``path.match_id``): another shape is 422 ``invalid_request`` with
:data:`_PATTERNS`' rule, on every route that names a match."""
RollId = PathParam(pattern=ROLL_ID_PATTERN, description="rol_… roll ID")
"""A roll ID in an address (``path.roll_id``), checked the same way."""


def _pattern(value: Any, ctx: Mapping[str, Any]) -> Said:
    pattern = str(ctx.get("pattern", ""))
    if pattern in _PATTERNS:
        rule = _PATTERNS[pattern]
    elif hexes := _HEX.fullmatch(pattern):
        rule = f"expected exactly {hexes.group(1)} hex characters (0-9, a-f)"
    else:
        rule = f"expected text of the form {pattern}"
    return rule, shown(value, 30)


def _expected(rule: str) -> Callable[[Any, Mapping[str, Any]], Said]:
    """The wording of an error as ``expected <rule>, got <value>``; ``{key}`` in ``rule`` is
    filled from the error's context (``{ge}`` for ``greater_than_equal``)."""
    return lambda value, ctx: (f"expected {rule.format_map(dict(ctx))}", shown(value))


def _bound(rule: str) -> Callable[[Any, Mapping[str, Any]], Said]:
    """As :func:`_expected`, for a number out of bounds: one given as text (an address's
    ``?limit=0``) is quoted as it stands, a number without quotes."""
    def said(value: Any, ctx: Mapping[str, Any]) -> Said:
        if isinstance(value, str):
            given = value if len(value) <= 20 else f"{value[:20]}…"
        else:
            given = shown(value)
        return f"expected {rule.format_map(dict(ctx))}", given
    return said


_SAID: dict[str, Callable[[Any, Mapping[str, Any]], Said]] = {
    "missing": lambda _, __: ("field required", None),
    "extra_forbidden": lambda _, __: ("unknown field", None),
    "string_type": _expected("a string"),
    "model_attributes_type": _not_an_object,
    "model_type": _not_an_object,
    "dict_type": _not_an_object,
    "list_type": _expected("a list"),
    "too_short": _too_short,
    "string_too_short": _too_short,
    "too_long": _too_long,
    "string_too_long": _too_long,
    "string_pattern_mismatch": _pattern,
    "int_type": _expected("a whole number"),
    "int_parsing": _expected("a whole number"),
    "int_from_float": _expected("a whole number"),
    "int_parsing_size": _expected("a whole number"),
    "float_type": _expected("a number"),
    "float_parsing": _expected("a number"),
    "finite_number": _expected("a finite number"),
    "bool_type": _expected("true or false"),
    "bool_parsing": _expected("true or false"),
    "greater_than_equal": _bound("at least {ge}"),
    "greater_than": _bound("more than {gt}"),
    "less_than_equal": _bound("at most {le}"),
    "less_than": _bound("less than {lt}"),
    "literal_error": _expected("one of {expected}"),
    "enum": _expected("one of {expected}"),
}
"""pydantic's errors for which its own message is not what we say ("Input should be a valid
dictionary or object to extract fields from", "Value should have at most 100 items after
validation" for a string, "String should match pattern '^mat_…$'"), each given the input and
the error's context."""


def problem(error: Mapping[str, Any], data: Any, root: str) -> str:
    """One validation error of ``data`` for people, the same for a request body and a
    WebSocket message: where (the field path, or ``root`` for the whole of ``data``) and what
    (a missing or unknown ``type`` in words; pydantic's "Value error, " prefix dropped). The
    value of a :func:`secret` field is never quoted.

    Args:
        error: one of pydantic's ``errors()``, its ``loc`` within ``data``.
        data: what was validated (parsed JSON).
        root: the name of ``data`` as a whole ("body", "message").
    """
    path = _field_path(error["loc"], data)
    where = ".".join(path) or root
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
        rule, got = _SAID[kind](error.get("input"), ctx)
        return f"{where}: {rule}" if got is None or secret(path) else f"{where}: {rule}, got {got}"
    msg = str(error["msg"]).removeprefix("Value error, ")
    if msg[1:2].islower():  # our messages start in lower case; pydantic's do not
        msg = msg[:1].lower() + msg[1:]
    return f"{where}: {msg}"
