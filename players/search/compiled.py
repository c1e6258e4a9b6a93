"""PUCT search compiled with numba over a game's kernels: AlphaZero with no Python in the simulation loop.

The configuration of the search core for games whose kernels include the
learner kernels (docs/kernels.md: ``encode``, ``action_of``,
``position_key``).  It grows the same tree as the State-API loop
(:class:`~.puct.PUCTSearch` over :class:`~.loop.StateSearch`) -- same
selection (the core's compiled :func:`~.rules.puct_select`), virtual loss,
first-play urgency, backup, ``pass_forced``, repetition draws, the endgame
oracle, the evaluation cache and Dirichlet noise at the root -- but one call
of :meth:`CompiledPUCTSearch.gather` runs a whole batch of simulations in
compiled code: the descent, the moves replayed with the game's kernels, the
rules and the oracle at the leaf, and the leaf encoded straight into the
network's input batch with its legal moves' action indices.  Python only
hands that batch to the network and its logits and values to
:meth:`~CompiledPUCTSearch.complete` (compiled too: cache, priors,
expansion, backup).  Given the same evaluations both loops grow the same
tree, node by node (tests/players/test_compiled_puct.py).

Both loops keep MCTS-Solver proofs (``proven``, ``proof``) of the nodes
whose result is certain -- finished games, endgame database positions, and
the ancestors they decide -- and both use them alike: a proven child's Q is
its exact result (:func:`~.rules.puct_select`), a descent stops at a proven
node below its start and backs its result up, and the final choice plays a
proven win even when a move searched longer has more visits and never a move
proven lost while another is left (:func:`.results.proven_choice`).

What the kernels do not know, the compiled loop does not either: a
repetition the game's rules call a draw is seen only with ``repetition_draws``
(on by default: any return to a position of the game or of the line is a
draw, which covers threefold repetition).

The evaluation cache (:class:`LeafCache`) is a 4-way set-associative table
of the network's results by position (key, side to move and a hash of the
observation, as the State-API cache's key), holding the logits at the legal
action indices; it can be shared by many trees (self-play).  Leaves with
more legal moves than its width are not cached.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from plyground.protocols import State

from plyground.util.closure_cache import cache_on_disk
from .evaluators import Evaluate, NetworkEvaluator
from .gumbel import GumbelRoot
from .loop import MAX_PASSES
from .priors import priors_from_legal
from .puct import PUCTSearch
from .rules import puct_descend
from .settings import SearchSettings
from .tree import (DRAW, EXPANDED, LOSS, NO_NODE, PENDING, TERMINAL, UNEXPANDED, UNKNOWN, WIN, backup,
                   backup_proven, prove)

#: The kernel attributes the compiled search needs (docs/kernels.md): the contract's and the learner kernels.
COMPILED_PUCT_KERNELS = ("gen_moves", "apply_move", "outcome", "current_player", "state_to_pos", "code_to_move",
                         "move_to_code", "pos_size", "max_moves", "encode", "action_of", "position_key")

# what a gather call ended on
GATHERED, ROOT_EXPANDED, PATH_FULL = 0, 1, 2
WAYS = 4                # cache associativity
CACHE_WIDTH = 64        # legal moves a cache entry holds at most


def compiled_kernels(game) -> Any | None:
    """The game's kernels if they have everything the compiled search needs, else None."""
    kernels_of = getattr(game, "kernels", None)
    if kernels_of is None:
        return None
    try:
        kernels = kernels_of()
    except NotImplementedError:
        return None
    if kernels is None or any(not hasattr(kernels, name) for name in COMPILED_PUCT_KERNELS):
        return None
    return kernels


# ------------------------------------------------------------ the evaluation cache

class LeafCache:
    """The network's results by position, in arrays compiled code reads and writes (see module doc)."""

    def __init__(self, size: int, width: int) -> None:
        self.size = int(size)
        sets = 1
        while sets * WAYS < self.size:
            sets *= 2
        entries = sets * WAYS if self.size > 0 else 0
        self.width = int(width)
        self.keys = np.zeros(entries, dtype=np.int64)
        self.stamp = np.zeros(entries, dtype=np.int64)      # insertion order; 0: empty
        self.n = np.zeros(entries, dtype=np.int64)
        self.values = np.zeros(entries, dtype=np.float64)
        self.logits = np.zeros((entries, self.width), dtype=np.float32)
        self.meta = np.zeros(3, dtype=np.int64)             # clock, hits, misses

    hits = property(lambda self: int(self.meta[1]))
    misses = property(lambda self: int(self.meta[2]))

    def clear(self) -> None:
        self.stamp[:] = 0
        self.meta[:] = 0

    def arrays(self) -> tuple:
        return self.keys, self.stamp, self.n, self.values, self.logits, self.meta


@njit(cache=True, inline="always")
def _mix(h, x):
    h ^= x + np.int64(-7046029254386353131) + (h << 6) + (h >> 2)
    return h


@njit(cache=True)
def hash_leaf(key, to_move, observation):
    """The cache key of a leaf: its position key, the side to move and a hash of its observation."""
    h = _mix(np.int64(key), np.int64(to_move) + 1)
    bits = observation.reshape(-1).view(np.int32)
    for i in range(bits.shape[0]):
        h = _mix(h, np.int64(bits[i]))
    return h


@njit(cache=True)
def cache_find(key, n, c_keys, c_stamp, c_n):
    """The entry holding ``key`` (with ``n`` legal moves), or -1."""
    entries = c_keys.shape[0]
    if entries == 0:
        return -1
    base = (key & (entries // WAYS - 1)) * WAYS
    for e in range(base, base + WAYS):
        if c_stamp[e] > 0 and c_keys[e] == key and c_n[e] == n:
            return e
    return -1


@njit(cache=True)
def cache_put(key, n, legal_logits, value, c_keys, c_stamp, c_n, c_values, c_logits, c_meta):
    """Store a leaf's legal logits and value (the set's empty or oldest way makes room)."""
    entries = c_keys.shape[0]
    if entries == 0 or n > c_logits.shape[1]:
        return
    base = (key & (entries // WAYS - 1)) * WAYS
    victim = base
    for e in range(base, base + WAYS):
        if c_stamp[e] == 0 or (c_keys[e] == key and c_n[e] == n):
            victim = e
            break
        if c_stamp[e] < c_stamp[victim]:
            victim = e
    c_meta[0] += 1
    c_stamp[victim] = c_meta[0]
    c_keys[victim] = key
    c_n[victim] = n
    c_values[victim] = value
    for j in range(n):
        c_logits[victim, j] = legal_logits[j]


# ------------------------------------------------------------ compiled pieces shared by gather and complete

@njit(cache=True)
def move_priors(legal_logits, actions, temperature):
    """:func:`.priors.move_priors_from_legal`, compiled (float32 logits widened as the State loop does)."""
    n = actions.shape[0]
    if n == 1:
        return np.ones(1)
    return priors_from_legal(legal_logits.astype(np.float64), actions, temperature)


@njit(cache=True)
def expand(node, n, codes, priors, to_move, size, first, count, mover, flag, visits, value_sum, vloss, prior,
           returns, proven, proof, code, pkey, parent):
    """Give ``node`` its ``n`` children at ``size[0]`` (the caller made room); the new size."""
    f = size[0]
    for j in range(n):
        c = f + j
        first[c] = NO_NODE
        count[c] = 0
        mover[c] = to_move
        flag[c] = UNEXPANDED
        visits[c] = 0.0
        value_sum[c] = 0.0
        vloss[c] = 0.0
        prior[c] = priors[j]
        returns[c, 0] = 0.0
        returns[c, 1] = 0.0
        proven[c] = UNKNOWN
        proof[c] = 0
        code[c] = codes[j]
        pkey[c] = 0
        parent[c] = node
    first[node] = f
    count[node] = n
    flag[node] = EXPANDED
    size[0] = f + n


@njit(cache=True)
def back_up_value(node, root, value, to_move, parent, visits, value_sum, mover):
    """One visit and the leaf's ``value`` (for ``to_move``) for each node's mover, leaf to root."""
    while True:
        visits[node] += 1.0
        value_sum[node] += value if mover[node] == to_move else -value
        if node == root:
            return
        node = parent[node]


@njit(cache=True)
def complete_leaves(root, n_leaves, logits, values, temperature, leaf_node, leaf_n, leaf_actions, leaf_to_move,
                    leaf_key, root_value, size, first, count, mover, flag, visits, value_sum, vloss, prior, returns,
                    proven, proof, code, pkey, parent, leaf_codes, c_keys, c_stamp, c_n, c_values, c_logits, c_meta):
    """Expand the pending leaves with the network's rows (priors at softmax ``temperature``; the cache keeps
    the network's own logits) and back their values up; True when the root was among them (its network
    value in ``root_value[0]``)."""
    root_done = False
    for i in range(n_leaves):
        node = leaf_node[i]
        n = leaf_n[i]
        actions = leaf_actions[i, :n]
        legal = np.empty(n, dtype=np.float32)
        for j in range(n):
            legal[j] = logits[i, actions[j]]
        value = np.float64(values[i])
        cache_put(leaf_key[i], n, legal, value, c_keys, c_stamp, c_n, c_values, c_logits, c_meta)
        p = node
        while True:
            vloss[p] -= 1.0
            if p == root:
                break
            p = parent[p]
        expand(node, n, leaf_codes[i, :n], move_priors(legal, actions, temperature), leaf_to_move[i], size, first,
               count, mover, flag, visits, value_sum, vloss, prior, returns, proven, proof, code, pkey, parent)
        if node == root:
            root_value[0] = value
            root_done = True
        back_up_value(node, root, value, leaf_to_move[i], parent, visits, value_sum, mover)
    return root_done


@njit(cache=True)
def fix_parents(size, first, count, parent):
    """Each node's parent from the children blocks (after re-rooting moved the nodes)."""
    for node in range(size):
        f = first[node]
        if f >= 0:
            for c in range(f, f + count[node]):
                parent[c] = node


@njit(cache=True)
def nothing_known(pos, tables):
    """The outcome oracle of a search without one: no position's result is known before the game ends."""
    return -1, 0


#: The tables argument of :func:`nothing_known`.
NO_TABLES = (np.zeros(1, dtype=np.int64),)


# ------------------------------------------------------------ the gather loop, per kernels

_GATHER: dict[tuple, Any] = {}


def compiled_gather(kernels, known_outcome=nothing_known):
    """The gather loop over these kernels (and oracle), compiled once and then loaded from disk."""
    key = tuple(getattr(kernels, name) for name in ("gen_moves", "apply_move", "outcome", "current_player",
                                                    "encode", "action_of", "position_key")) + (
        int(kernels.max_moves), known_outcome)
    loop = _GATHER.get(key)
    if loop is None:
        loop = _GATHER[key] = _build_gather(kernels, known_outcome)
    return loop


def _build_gather(kernels, known_outcome):
    gen_moves = kernels.gen_moves
    apply_move = kernels.apply_move
    game_outcome = kernels.outcome
    current_player = kernels.current_player
    encode = kernels.encode
    action_of = kernels.action_of
    position_key = kernels.position_key
    max_moves = int(kernels.max_moves)

    @njit(nogil=True)
    def gather(root, root_pos, limit, c_puct, fpu, virtual_loss, temperature, repetition_draws, pass_forced,
               use_oracle, known, history, queue, counts, path, root_value, obs, obs_offset,
               leaf_node, leaf_n, leaf_codes, leaf_actions, leaf_to_move, leaf_key,
               size, first, count, mover, flag, visits, value_sum, vloss, prior, returns, proven, proof, code,
               pkey, parent, c_keys, c_stamp, c_n, c_values, c_logits, c_meta):
        """Simulate until ``limit`` simulations are finished or pending (as ``StateSearch.gather``).

        ``counts`` gets (pending leaves, finished simulations, root-queue entries used).  Pending
        leaves are written to the ``leaf_*`` rows and their observations to ``obs[obs_offset:]``.
        ``queue`` names the root child (an offset) each descent must take, in order, while it lasts
        (Gumbel's sequential halving).  Returns GATHERED, ROOT_EXPANDED (the root was expanded from
        the cache: the caller adds root noise, then gathers on) or PATH_FULL (a longer path buffer).
        """
        pos = np.empty_like(root_pos)
        moves = np.empty(max_moves, dtype=np.int64)
        n_leaves = counts[0]
        finished = counts[1]
        used = counts[2]
        max_depth = path.shape[0]
        while n_leaves + finished < limit:
            # --- descent: PUCT from the root (or from the root child the queue names)
            node = root
            path[0] = root
            start = 0
            if flag[root] == EXPANDED and used < queue.shape[0]:
                node = first[root] + queue[used]
                used += 1
                start = 1
            # the State loop's descent (it stops at a proven node below its start: backed up below)
            length = puct_descend(node, flag, first, count, visits, vloss, value_sum, prior, mover, proven, c_puct,
                                  fpu, virtual_loss, path[start:])
            if length < 0:
                counts[0], counts[1], counts[2] = n_leaves, finished, used
                return PATH_FULL
            depth = start + length - 1
            node = path[depth]
            f = flag[node]
            if f == PENDING:
                break                   # waiting for the network: evaluate what we have
            if f == TERMINAL:
                backup(path[:depth + 1], visits, value_sum, mover, 1.0, returns[node, 0], returns[node, 1])
                finished += 1
                continue
            if f == EXPANDED:           # a proven node below the start: its exact result
                backup_proven(path[:depth + 1], visits, value_sum, mover, proven)
                finished += 1
                continue
            pos[:] = root_pos
            for i in range(1, depth + 1):
                apply_move(pos, code[path[i]])
            passes = 0
            status = GATHERED
            while True:
                n = gen_moves(pos, moves)
                o = game_outcome(pos, n)
                plies = 0
                if o < 0 and use_oracle and depth > 0:
                    o, plies = known_outcome(pos, known)
                if o >= 0:
                    r0 = 0.0 if o == 2 else (1.0 if o == 0 else -1.0)
                    flag[node] = TERMINAL
                    returns[node, 0] = r0
                    returns[node, 1] = -r0
                    backup(path[:depth + 1], visits, value_sum, mover, 1.0, r0, -r0)
                    proven[node] = DRAW if o == 2 else (WIN if o == mover[node] else LOSS)
                    proof[node] = plies
                    if depth > 0:
                        prove(path, depth, first, count, mover, proven, proof)
                    finished += 1
                    break
                key = position_key(pos)
                pkey[node] = key
                repeated = False
                if repetition_draws and node != root:
                    at = np.searchsorted(history, key)
                    repeated = at < history.shape[0] and history[at] == key
                    for i in range(depth):
                        if pkey[path[i]] == key:
                            repeated = True
                if repeated:
                    flag[node] = TERMINAL           # returns stay (0, 0): a draw
                    backup(path[:depth + 1], visits, value_sum, mover, 1.0, 0.0, 0.0)
                    finished += 1
                    break
                to_move = current_player(pos)
                if pass_forced and depth > 0 and passes < MAX_PASSES and n == 1:
                    one = np.ones(1)
                    expand(node, 1, moves[:1], one, to_move, size, first, count, mover, flag, visits, value_sum,
                           vloss, prior, returns, proven, proof, code, pkey, parent)
                    node = first[node]
                    apply_move(pos, moves[0])
                    if depth + 1 >= max_depth:
                        counts[0], counts[1], counts[2] = n_leaves, finished, used
                        return PATH_FULL
                    depth += 1
                    path[depth] = node
                    passes += 1
                    continue
                # --- a leaf for the network: encoded into the batch, unless the cache knows it
                row = obs[obs_offset + n_leaves]
                encode(pos, row)
                h = hash_leaf(key, to_move, row)
                actions = leaf_actions[n_leaves]
                for j in range(n):
                    actions[j] = action_of(pos, moves[j])
                hit = cache_find(h, n, c_keys, c_stamp, c_n)
                if hit >= 0:
                    c_meta[1] += 1
                    value = c_values[hit]
                    expand(node, n, moves[:n], move_priors(c_logits[hit, :n], actions[:n], temperature), to_move,
                           size, first, count, mover, flag, visits, value_sum, vloss, prior, returns, proven, proof,
                           code, pkey, parent)
                    back_up_value(node, root, value, to_move, parent, visits, value_sum, mover)
                    finished += 1
                    if node == root:
                        root_value[0] = value
                        status = ROOT_EXPANDED
                    break
                if c_keys.shape[0] > 0:
                    c_meta[2] += 1
                flag[node] = PENDING
                for i in range(depth + 1):
                    vloss[path[i]] += 1.0
                leaf_node[n_leaves] = node
                leaf_n[n_leaves] = n
                leaf_codes[n_leaves, :n] = moves[:n]
                leaf_to_move[n_leaves] = to_move
                leaf_key[n_leaves] = h
                n_leaves += 1
                break
            if status == ROOT_EXPANDED:
                counts[0], counts[1], counts[2] = n_leaves, finished, used
                return ROOT_EXPANDED
        counts[0], counts[1], counts[2] = n_leaves, finished, used
        return GATHERED

    return cache_on_disk(gather)


# ------------------------------------------------------------ the search object

class BatchEvaluator(NetworkEvaluator):
    """The network over the search's own batch of encoded leaves (the State-API loop's ``run`` calls it)."""

    def __init__(self, evaluate: Evaluate, search: "CompiledPUCTSearch") -> None:
        super().__init__(evaluate, 0)
        self.search = search

    def evaluate(self, leaves: range) -> tuple[np.ndarray, np.ndarray]:
        self.network_calls += 1
        return self.evaluate_fn(self.search.observations[:len(leaves)])


class CompiledPUCTSearch(PUCTSearch):
    """:class:`~.puct.PUCTSearch` with its simulations in compiled code over ``kernels`` (see module doc).

    Same interface: ``set_root``, ``run``, ``gather``/``complete`` (a batch
    of pending leaves is ``range(n)``: rows of the search's leaf buffers, and
    of :attr:`observations` or of the ``out`` array ``gather`` was given),
    ``advance``, ``root_children``, ``policy_target``, ``choose_move``.
    """

    compiled = True
    FIELDS = ("first", "count", "mover", "flag", "visits", "value_sum", "vloss", "prior", "returns", "proven",
              "proof", "code", "pkey", "parent")
    LISTS = False

    def __init__(self, evaluate: Evaluate, settings: SearchSettings = SearchSettings(), *, kernels,
                 observation_shape: tuple[int, ...], rng: np.random.Generator | None = None) -> None:
        self.k = kernels
        self.observation_shape = tuple(int(d) for d in observation_shape)
        self._oracle = None
        self._gather, self._known = compiled_gather(kernels), NO_TABLES
        self._root_pos: np.ndarray | None = None
        self._history_array = np.zeros(0, dtype=np.int64)
        self._history_dirty = False
        self._counts = np.zeros(3, dtype=np.int64)
        self._size = np.zeros(1, dtype=np.int64)
        self._root_value = np.zeros(1, dtype=np.float64)
        self._pathbuf = np.empty(512, dtype=np.int64)
        self._no_queue = np.zeros(0, dtype=np.int64)
        super().__init__(evaluate, settings, rng=rng)
        self._leaf_capacity = 0
        self._leaf_buffers(self.leaf_batch)
        # the settings' cache_size, as a compiled cache
        self._cache = LeafCache(self.evaluator.cache.size, min(CACHE_WIDTH, int(kernels.max_moves)))
        self.evaluator = BatchEvaluator(evaluate, self)       # the network and its counters; the cache is ours

    # ------------------------------------------------------------ buffers
    def _leaf_buffers(self, rows: int) -> None:
        """Room for ``rows`` pending leaves (their moves, actions, observations)."""
        if rows <= self._leaf_capacity:
            return
        m = int(self.k.max_moves)
        self._leaf_capacity = rows
        self.leaf_node = np.zeros(rows, dtype=np.int64)
        self.leaf_n = np.zeros(rows, dtype=np.int64)
        self.leaf_codes = np.zeros((rows, m), dtype=np.int64)
        self.leaf_actions = np.zeros((rows, m), dtype=np.int64)
        self.leaf_to_move = np.zeros(rows, dtype=np.int64)
        self.leaf_key = np.zeros(rows, dtype=np.int64)
        #: The observations of the pending leaves (when ``gather`` is not given an ``out`` array).
        self.observations = np.zeros((rows,) + self.observation_shape, dtype=np.float32)

    def _room(self, nodes: int) -> None:
        if self.size + nodes > self.capacity:
            self._grow(self.size + nodes)

    def _compact(self, minimum: int = 1024) -> None:
        super()._compact(minimum)
        fix_parents(self.size, self.first, self.count, self.parent)

    # ------------------------------------------------------------ settings
    @property
    def cache(self) -> LeafCache:
        return self._cache

    @cache.setter
    def cache(self, cache: LeafCache) -> None:
        self._cache = cache

    @property
    def oracle(self):
        return self._oracle

    @oracle.setter
    def oracle(self, oracle) -> None:
        self._oracle = oracle
        if oracle is None:
            self._gather, self._known = compiled_gather(self.k), NO_TABLES
        else:
            self._gather, self._known = compiled_gather(self.k, oracle.compiled_outcome), oracle.tables

    # ------------------------------------------------------------ the root and the game
    def new_game(self) -> None:
        super().new_game()
        self._history_array = np.zeros(0, dtype=np.int64)
        self._history_dirty = False

    def note_position(self, state: State) -> None:
        if self.repetition_draws:
            self.history.add(int(self.k.position_key(self._pos_of(state))))
            self._history_dirty = True

    def _pos_of(self, state: State) -> np.ndarray:
        return np.ascontiguousarray(self.k.state_to_pos(state), dtype=np.int64)

    def clear(self) -> None:
        super().clear()
        self._root_pos = None

    def _mark_root(self, state: State) -> None:
        """The root's position array and key; a root valued as a repetition before is searched afresh."""
        self._root_pos = self._pos_of(state)
        self.proven[self.root] = UNKNOWN if self.flag[self.root] != EXPANDED else self.proven[self.root]
        self.pkey[self.root] = int(self.k.position_key(self._root_pos))

    def child_with_move(self, node: int, move: Any) -> int | None:
        code = int(self.k.move_to_code(self.state, move))
        return next((c for c in self.children(node) if int(self.code[c]) == code), None)

    def _step_root(self, state: State, move: Any) -> bool:
        if not super()._step_root(state, move):
            return False
        self._root_pos = self._pos_of(self.state)
        return True

    def _child_moves(self, children: slice) -> list:
        """The State moves of the children in ``children`` (root children: moves from the root)."""
        return [self.k.code_to_move(self.state, int(c)) for c in self.code[children]]

    # ------------------------------------------------------------ search
    def gather(self, limit: int, out: np.ndarray | None = None, offset: int = 0) -> tuple[range, int]:
        """Simulate until ``limit`` simulations are finished or pending; returns the pending leaves
        (``range(n)``: rows of the leaf buffers, observations in ``out[offset:offset + n]`` or in
        :attr:`observations`) and the number of simulations finished."""
        if limit <= 0:
            return range(0), 0
        self._leaf_buffers(limit)
        if out is None:
            out, offset = self.observations, 0
        if self._history_dirty:
            self._history_array = np.array(sorted(self.history), dtype=np.int64)
            self._history_dirty = False
        counts = self._counts
        counts[:] = 0
        queue = self._root_queue()
        queue = self._no_queue if queue is None else queue
        while True:
            self._room(limit * (int(self.k.max_moves) + MAX_PASSES + 1))
            self._size[0] = self.size
            status = self._gather(
                self.root, self._root_pos, limit, self.c_puct, self.fpu, self.virtual_loss,
                self.policy_temperature, self.repetition_draws, self.pass_forced, self._oracle is not None,
                self._known, self._history_array, queue, counts, self._pathbuf, self._root_value, out, offset,
                self.leaf_node, self.leaf_n, self.leaf_codes, self.leaf_actions, self.leaf_to_move, self.leaf_key,
                self._size, *self._tree_arrays(), *self._cache.arrays())
            self.size = int(self._size[0])
            if status == PATH_FULL:
                self._pathbuf = np.empty(2 * len(self._pathbuf), dtype=np.int64)
            elif status == ROOT_EXPANDED:
                self._root_network_value = (self.root, float(self._root_value[0]))
                self._noise_root()
            else:
                break
            if counts[0] + counts[1] >= limit:
                break
        self._queue_used(int(counts[2]))
        return range(int(counts[0])), int(counts[1])

    def complete(self, leaves: range, logits: np.ndarray, values: np.ndarray) -> None:
        """Expand the pending leaves with the network's rows (in leaf order) and back their values up."""
        n = len(leaves)
        if n == 0:
            return
        self._room(n * int(self.k.max_moves))
        self._size[0] = self.size
        logits = np.ascontiguousarray(logits[:n], dtype=np.float32)
        values = np.ascontiguousarray(np.asarray(values[:n]).reshape(n), dtype=np.float64)
        root_done = complete_leaves(self.root, n, logits, values, self.policy_temperature, self.leaf_node,
                                    self.leaf_n, self.leaf_actions, self.leaf_to_move, self.leaf_key, self._root_value,
                                    self._size, *self._tree_arrays(), self.leaf_codes, *self._cache.arrays())
        self.size = int(self._size[0])
        self.evaluator.evaluations += n
        if root_done:
            self._root_network_value = (self.root, float(self._root_value[0]))
            self._noise_root()

    def _tree_arrays(self) -> tuple:
        return (self.first, self.count, self.mover, self.flag, self.visits, self.value_sum, self.vloss, self.prior,
                self.returns, self.proven, self.proof, self.code, self.pkey, self.parent)

    def _root_queue(self) -> np.ndarray | None:
        """Root-child offsets the next descents must take (a root rule such as Gumbel's); None: PUCT."""
        return None

    def _queue_used(self, used: int) -> None:
        """``used`` entries of :meth:`_root_queue` were taken by the last gather."""


class CompiledGumbelSearch(GumbelRoot, CompiledPUCTSearch):
    """The Gumbel root rule (:mod:`.gumbel`) over the compiled PUCT search: the halving's root moves go to
    the compiled gather as its queue."""
