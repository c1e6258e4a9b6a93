"""What the page may send, checked before anything acts on it: as console input is, a bad message gets its reason.

Every message is a JSON object with a ``type`` and that type's fields (:data:`FIELDS`); anything else -- not
JSON, not an object, an unknown type, a missing or extra field, a field of the wrong kind or out of range, a
message longer than :data:`MAX_MESSAGE` -- is refused by :func:`check` with one sentence naming what was wrong
and what would be valid.
"""
from __future__ import annotations

import json
import math

#: The longest message the page sends (a start page's choices are the longest, well under this), in bytes.
MAX_MESSAGE = 4096
#: Coordinates on the board's picture are within this of it (the picture is some 700 units across).
MAX_COORDINATE = 100_000


class BadMessage(ValueError):
    """A message from the page that is refused; its text says why."""


class Refused(ValueError):
    """What the page asked for cannot be done now (its text says why); the page shows the text."""


def _text(limit: int):
    def check(value, name):
        if not isinstance(value, str):
            raise BadMessage(f"{name} must be text")
        if len(value) > limit:
            raise BadMessage(f"{name} is {len(value)} characters long; at most {limit}")
        return value
    return check


def _integer(low: int, high: int):
    def check(value, name):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadMessage(f"{name} must be a whole number from {low} to {high}, not {json.dumps(value)[:40]}")
        return value
    return check


def _coordinate(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_COORDINATE:
        raise BadMessage(f"{name} must be a number between -{MAX_COORDINATE} and {MAX_COORDINATE}, "
                         f"not {json.dumps(value)[:40]}")
    return value


def _players(value, name):
    if not isinstance(value, list) or len(value) != 2:
        raise BadMessage(f"{name} must be a list of two player specs (the first side's, then the second's)")
    return [_text(300)(spec, f"{name}[{i}]") for i, spec in enumerate(value)]


_POINT = {"x": (_coordinate, True), "y": (_coordinate, True)}
#: The start page's choices (Start, Set up position).
_CHOICES = {"game": (_text(60), True), "players": (_players, True), "clock": (_text(40), False),
            "position": (_text(300), False)}

#: Each message type's fields: name -> (check, required).
FIELDS: dict[str, dict] = {
    "button": {"name": (_text(40), True)},
    "key": {"key": (_text(20), True)},
    "ply": {"ply": (_integer(0, 1_000_000), True)},
    "press": {**_POINT, "button": (_integer(0, 2), False)},
    "drag": _POINT,
    "release": _POINT,
    # the start page
    "start": _CHOICES,
    "resume": {"game": (_text(60), True)},
    "open": {"game": (_text(60), True), "file": (_text(300), True)},
    "setup": _CHOICES,
    # the position editor (its board takes press, its buttons button)
    "piece": {"symbol": (_text(20), True)},
    "side": {"side": (_integer(0, 1), True)},
}


def check(text: str | bytes) -> dict:
    """The message ``text`` as a dict, every field checked; :class:`BadMessage` if it is refused."""
    if isinstance(text, bytes):
        raise BadMessage("binary messages are not taken; send JSON text")
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
        raise BadMessage(f"the message is longer than {MAX_MESSAGE} bytes")
    try:
        message = json.loads(text)
    except ValueError as exc:
        raise BadMessage(f"the message is not JSON ({exc.args[0] if exc.args else exc})") from None
    except RecursionError:
        raise BadMessage("the message nests too deeply; a message is one flat JSON object") from None
    if not isinstance(message, dict):
        raise BadMessage('a message must be a JSON object with a "type"')
    kind = message.get("type")
    if kind not in FIELDS:
        raise BadMessage(f"unknown message type {json.dumps(kind)[:40]}; the types are {', '.join(FIELDS)}")
    fields = FIELDS[kind]
    extra = sorted(set(message) - set(fields) - {"type"})
    if extra:
        raise BadMessage(f"a {kind} message has no field {extra[0]!r}; its fields are "
                         f"{', '.join(fields) or 'none'}")
    for name, (field_check, required) in fields.items():
        if name in message:
            message[name] = field_check(message[name], f"{kind}.{name}")
        elif required:
            raise BadMessage(f"a {kind} message needs its {name!r} field")
    return message
