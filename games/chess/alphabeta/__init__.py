"""Chess's own engine for the ``alphabeta`` player (docs/chess.md, "The compiled alpha-beta engine").

``features.py`` is the evaluation (the feature set ``chess-psq`` and its compiled
linear evaluation), ``compiled.py`` the alpha-beta search compiled over the
bitboard kernels of ``games/chess/kernels.py``, and ``engine.py`` the chess
``AlphaBetaEngines`` ability that hands both to the player.  The generic player
(players/alphabeta) knows none of them by name: it asks
``plyground.capabilities.alphabeta_engine(game)``.
"""
