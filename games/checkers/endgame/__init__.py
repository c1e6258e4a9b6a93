"""Checkers endgame databases by retrograde analysis (work in progress, issue #23).

``solve.build(pieces)`` solves every position with up to ``pieces`` pieces
in memory: win, loss or draw for the side to move and the distance in
plies (``index.py`` places a position in the database, ``solve.py`` solves
it); ``store.py`` builds slice by slice on disk, resumably, and opens a
finished build; ``command.py`` is ``plyground endgame build|probe``.  The
players' use of the database is not built yet (docs/endgame.md).
"""
