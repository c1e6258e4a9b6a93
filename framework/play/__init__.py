"""Playing games: one game, a match of many, its clock, and looking back at it; a room above ``files``.

``session``   one game session: a game, its two players, how it is played, its record
``match``     the game loop (``play_game``) and a match of many games with a summary
``clock``     chess clocks (``--tc``) and the share of them a bot spends
``review``    stepping through a recorded game (``plyground play --review``)
``resume``    a game saved in the middle and played on later (``--resume``)
``report``    an engine's verdict on every move of a game; ``analyse_command``: ``plyground analyse``
``mistakes``  a player's mistakes against perfect play on labelled positions
``book``      opening books; ``book_command``: ``plyground book``
``command_options``  the click options and types of the commands that play (seconds, time controls, sides)
``stats``     scores, confidence intervals, Elo differences and the SPRT for match results
``ratings``   Elo ratings from game results (a Bradley-Terry fit)
"""
