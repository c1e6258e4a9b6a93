"""plyground.boardview.geometry.Rect does what pygame.Rect does, to the pixel: the views lay the board out with it
for the window and the page alike, and the window's pictures must not move (issue #75 point 1)."""
from __future__ import annotations

import random

import pytest

from plyground.boardview.geometry import Rect

pygame = pytest.importorskip("pygame")

POINTS = ("topleft", "topright", "bottomleft", "bottomright", "midleft", "midright", "midtop", "midbottom", "center")
EDGES = ("x", "y", "left", "top", "right", "bottom", "centerx", "centery", "width", "height", "w", "h")


def _value(rng: random.Random) -> float:
    return rng.choice([rng.randint(-40, 40), rng.randint(-40, 40) + rng.choice([0.5, -0.5, 0.49, 0.51, 0.25])])


def test_rect_agrees_with_pygame_on_random_rectangles():
    rng = random.Random(7)
    for _ in range(3000):
        args = [_value(rng) for _ in range(2)] + [abs(_value(rng)) for _ in range(2)]
        ours, theirs = Rect(*args), pygame.Rect(*args)
        assert tuple(ours) == tuple(theirs) and ours == theirs
        for name in POINTS + EDGES + ("size",):
            assert getattr(ours, name) == getattr(theirs, name), name
        other = [_value(rng) for _ in range(2)] + [abs(_value(rng)) for _ in range(2)]
        dx, dy = _value(rng), _value(rng)
        assert tuple(ours.move(dx, dy)) == tuple(theirs.move(dx, dy))
        assert tuple(ours.inflate(dx, dy)) == tuple(theirs.inflate(dx, dy))
        assert tuple(ours.clip(other)) == tuple(theirs.clip(pygame.Rect(other)))
        assert tuple(ours.union(other)) == tuple(theirs.union(pygame.Rect(other)))
        assert ours.colliderect(other) == theirs.colliderect(pygame.Rect(other))
        assert ours.contains(other) == theirs.contains(pygame.Rect(other))
        assert bool(ours) == bool(theirs)
        point = (rng.randint(-45, 45), rng.randint(-45, 45))
        assert ours.collidepoint(point) == theirs.collidepoint(point) == ours.collidepoint(*point)
        name, value = rng.choice(POINTS), (_value(rng), _value(rng))
        setattr(ours, name, value)
        setattr(theirs, name, value)
        assert tuple(ours) == tuple(theirs), (name, value)
        name, value = rng.choice(EDGES), _value(rng)
        setattr(ours, name, value)
        setattr(theirs, name, value)
        assert tuple(ours) == tuple(theirs), (name, value)


def test_pygame_draws_a_rect_as_its_own():
    surface = pygame.Surface((20, 20))
    pygame.draw.rect(surface, (255, 0, 0), Rect(2, 3, 4, 5))
    assert pygame.Rect(Rect(2, 3, 4, 5)) == pygame.Rect(2, 3, 4, 5)
    assert surface.get_at((2, 3))[:3] == (255, 0, 0) and surface.get_at((6, 3))[:3] == (0, 0, 0)
    assert Rect(pygame.Rect(1, 2, 3, 4)) == (1, 2, 3, 4) and Rect((1, 2), (3, 4)) == Rect(1, 2, 3, 4)
    with pytest.raises(TypeError, match="x, y, width and height"):
        Rect(1, 2, 3)
