"""The ``nnue`` trainer: checkers' NNUE evaluation taught from its own games (docs/nnue.md; in progress)."""
