"""One search core: the array tree (:mod:`.tree`), selection rules (:mod:`.rules`: ``UCB1``, ``PUCT``),
evaluators (:mod:`.evaluators`: ``RandomPlayout``, ``NetworkEvaluator``; move priors in :mod:`.priors`)
and the State-API simulation loop over a rule and an evaluator (:mod:`.loop`).  Its configurations:
``PUCTSearch`` (:mod:`.puct`), ``GumbelSearch`` (:mod:`.gumbel`, a root rule on PUCT), the mcts
player's ``UCTSearch`` and, fully compiled, ``FastSearch`` (UCB1, playouts) and ``CompiledPUCTSearch`` /
``CompiledGumbelSearch`` (:mod:`.compiled`: PUCT over the game's learner kernels)."""
