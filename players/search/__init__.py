"""One search core: the array tree (:mod:`.tree`), selection rules (:mod:`.rules`) and move priors
(:mod:`.priors`); the ``mcts`` and ``alphazero`` searches are configurations of it."""
