"""Checkers endgame databases by retrograde analysis (docs/endgame.md).

``solve.build(pieces)`` solves every position with up to ``pieces`` pieces
in memory: win, loss or draw for the side to move and the distance in
plies (``index.py`` places a position in the database, ``solve.py`` solves
it); ``store.py`` builds slice by slice on disk, resumably, and opens a
finished build; ``oracle.py`` is the database as the players use it
(checkers' ``EndgameDatabases`` ability, ``CheckersGame.endgame_oracle``:
the ``endgame`` option of alphabeta, mcts and alphazero, the AlphaZero
trainer's self-play); ``command.py`` is ``plyground endgame build|probe``.
"""
