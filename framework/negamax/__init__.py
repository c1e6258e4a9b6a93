"""What every alpha-beta (negamax) search shares, a layer below the players and the games that search:
the bounds and mate scores (:mod:`.bounds`), the transposition table, killers and history
(:mod:`.tables`), and iterative deepening with time control around a compiled root search
(:mod:`.deepening`).  The generic State-API search is ``plyground.players.search.alphabeta``; the games'
compiled ones are ``plyground.games.<game>.alphabeta`` (the ``AlphaBetaEngines`` capability)."""
