from chess_helpers import game, registry  # noqa: F401 - fixtures shared with the UCI tests
