"""Checkers endgame databases by retrograde analysis (work in progress, issue #23).

``solve.build(pieces)`` solves every position with up to ``pieces`` pieces
in memory: win, loss or draw for the side to move and the distance in
plies (``index.py`` places a position in the database, ``solve.py`` solves
it).  Storage on disk, the ``plyground endgame`` command and the players'
use of the database are not built yet.
"""
