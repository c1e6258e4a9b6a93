"""The alphazero player's search: :class:`PUCTSearch` and its helpers, from the search core
(:mod:`plyground.players.search.puct`), under the names the alphazero modules import."""
from ..search.evaluators import Evaluate, EvaluationCache, Leaf, NetworkEvaluator  # noqa: F401
from ..search.priors import move_priors, move_priors_from_legal  # noqa: F401
from ..search.puct import ChildInfo, PUCTSearch, choose_from_visits  # noqa: F401
from ..search.tree import EXPANDED, PENDING, TERMINAL, UNEXPANDED, Tree  # noqa: F401
