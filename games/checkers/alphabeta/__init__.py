"""Checkers' own engine for the ``alphabeta`` player (docs/bonanza.md).

``features.py`` is the evaluation (the feature set ``checkers-psq`` and its
compiled linear evaluation), ``compiled.py`` the alpha-beta search compiled
over the checkers kernels, ``engine.py`` the checkers ``AlphaBetaEngines``
ability that hands both to the player, and ``weights/checkers.npz`` the
evaluation learned from the ACF archive (``eval=learned``).  The generic
player (players/alphabeta) knows none of them by name: it asks
``plyground.capabilities.alphabeta_engine(game)``.
"""
