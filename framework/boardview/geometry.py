"""Rectangles in pixels, as board views and screens lay things out: :class:`Rect`, pygame's ``Rect`` without pygame.

A view lays its board out, and a screen its panel, in whole pixels from the top left; the window draws them with
pygame and the web page writes them as SVG, so the arithmetic is written once here, with no GUI library.  It
behaves as ``pygame.Rect`` does, to the pixel (``tests/renderers/test_geometry.py`` compares the two): coordinates
are integers; a constructor, :meth:`Rect.move` or :meth:`Rect.inflate` given fractions cuts them towards zero,
and setting a point (``rect.center = (10.5, 3)``) rounds half away from zero.  A Rect is a sequence of four
numbers ``(x, y, w, h)``, so pygame's drawing functions take it as they take their own.
"""
from __future__ import annotations

import math
from typing import Iterator, Sequence


def _round(value: float) -> int:
    """``value`` rounded half away from zero, as pygame rounds a coordinate it is given."""
    return int(math.floor(value + 0.5)) if value >= 0 else -int(math.floor(-value + 0.5))


def _overlap(a: int, a_size: int, b: int, b_size: int) -> tuple[int, int] | None:
    """Where two spans ``[a, a + a_size)`` and ``[b, b + b_size)`` overlap, as (start, size), by pygame's rules
    for ``clip`` (one span's start must lie inside the other, its end inside or on the other's); None if not."""
    if b <= a < b + b_size:
        start = a
    elif a <= b < a + a_size:
        start = b
    else:
        return None
    if b < a + a_size <= b + b_size:
        return start, a + a_size - start
    if a < b + b_size <= a + a_size:
        return start, b + b_size - start
    return None


class Rect:
    """A rectangle: ``Rect(x, y, w, h)``, ``Rect((x, y), (w, h))`` or ``Rect(rect)`` (any four numbers)."""

    __slots__ = ("_x", "_y", "_w", "_h")

    def __init__(self, *args) -> None:
        if len(args) == 1:
            args = tuple(args[0])
        if len(args) == 2:
            args = (*args[0], *args[1])
        if len(args) != 4:
            raise TypeError(f"a Rect is x, y, width and height (or two pairs, or one rectangle), not {args!r}")
        self._x, self._y, self._w, self._h = (int(v) for v in args)

    # ------------------------------------------------------------ a sequence of four, as pygame takes rectangles
    def __iter__(self) -> Iterator[int]:
        return iter((self.x, self.y, self.w, self.h))

    def __len__(self) -> int:
        return 4

    def __getitem__(self, index):
        return (self.x, self.y, self.w, self.h)[index]

    def __eq__(self, other) -> bool:
        try:
            return len(other) == 4 and tuple(self) == tuple(other)
        except TypeError:
            return NotImplemented

    __hash__ = None

    def __bool__(self) -> bool:
        return self.w != 0 and self.h != 0

    def __repr__(self) -> str:
        return f"<rect({self.x}, {self.y}, {self.w}, {self.h})>"

    # ------------------------------------------------------------ edges, sizes and points
    def _edge(name: str):
        return property(lambda self: getattr(self, name), lambda self, v: setattr(self, name, _round(v)))

    x = left = _edge("_x")
    y = top = _edge("_y")
    w = width = _edge("_w")
    h = height = _edge("_h")
    del _edge

    def _far(start: str, size: str, part):
        """The coordinate ``start + part(size)`` (right and bottom: the whole size; the centre: half of it); setting
        it moves the rectangle."""
        return property(lambda self: getattr(self, start) + part(getattr(self, size)),
                        lambda self, v: setattr(self, start, _round(v) - part(getattr(self, size))))

    right, bottom = _far("_x", "_w", lambda n: n), _far("_y", "_h", lambda n: n)
    centerx, centery = _far("_x", "_w", lambda n: n // 2), _far("_y", "_h", lambda n: n // 2)
    del _far

    @property
    def size(self) -> tuple[int, int]:
        return self.w, self.h

    @size.setter
    def size(self, value: Sequence[float]) -> None:
        self.w, self.h = value

    def _point(xname: str, yname: str):
        def get(self) -> tuple[int, int]:
            return getattr(self, xname), getattr(self, yname)

        def put(self, value: Sequence[float]) -> None:
            setattr(self, xname, value[0])
            setattr(self, yname, value[1])
        return property(get, put)

    topleft, topright = _point("left", "top"), _point("right", "top")
    bottomleft, bottomright = _point("left", "bottom"), _point("right", "bottom")
    midleft, midright = _point("left", "centery"), _point("right", "centery")
    midtop, midbottom = _point("centerx", "top"), _point("centerx", "bottom")
    center = _point("centerx", "centery")
    del _point

    # ------------------------------------------------------------ new rectangles
    def copy(self) -> "Rect":
        return Rect(self.x, self.y, self.w, self.h)

    def move(self, dx: float, dy: float) -> "Rect":
        return Rect(self.x + int(dx), self.y + int(dy), self.w, self.h)

    def inflate(self, dx: float, dy: float) -> "Rect":
        """Grown by ``dx`` and ``dy`` (shrunk when negative) about its centre."""
        dx, dy = int(dx), int(dy)
        return Rect(self.x - int(dx / 2), self.y - int(dy / 2), self.w + dx, self.h + dy)

    def clip(self, other) -> "Rect":
        """The part of this rectangle inside ``other`` (an empty one at this one's corner when they do not meet)."""
        other = Rect(other)
        across = _overlap(self.x, self.w, other.x, other.w)
        down = _overlap(self.y, self.h, other.y, other.h)
        if across is None or down is None:
            return Rect(self.x, self.y, 0, 0)
        return Rect(across[0], down[0], across[1], down[1])

    def union(self, other) -> "Rect":
        other = Rect(other)
        left, top = min(self.x, other.x), min(self.y, other.y)
        return Rect(left, top, max(self.right, other.right) - left, max(self.bottom, other.bottom) - top)

    # ------------------------------------------------------------ questions
    def collidepoint(self, *point) -> bool:
        """Whether the point (``x, y`` or one pair) is inside: the left and top edges are, the right and bottom
        are not."""
        x, y = point[0] if len(point) == 1 else point
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h

    def colliderect(self, other) -> bool:
        other = Rect(other)
        return (self.x < other.right and other.x < self.right and self.y < other.bottom and other.y < self.bottom
                and bool(self) and bool(other))

    def contains(self, other) -> bool:
        other = Rect(other)
        return (self.x <= other.x and self.y <= other.y and other.right <= self.right
                and other.bottom <= self.bottom)


__all__ = ["Rect"]
