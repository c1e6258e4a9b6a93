"""UCT search compiled with numba over a game's kernels (docs/kernels.md).

The configuration of the search core (:mod:`plyground.players.search`) for
games with compiled kernels: the shared array tree (moves stored as kernel
codes), the shared compiled UCB1 rule, backup and solver, and the game's
compiled playout as the evaluator.  Positions are not stored: each
simulation copies the root position and replays the moves down the path,
which is how the search "undoes" moves.  When the arrays are full the
compiled loop stops and Python doubles them.

The simulation loop must call the game's kernel functions, so it is built as a
closure over them by :func:`compiled_search`, kept per kernels object for the
life of the process and cached on disk by :mod:`plyground.util.closure_cache` (numba's
own cache would compile it again in every process).  The game-independent
parts (selection, backup, solver, re-rooting) are the search core's
``cache=True`` functions.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir as llvmir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from plyground.util.closure_cache import cache_on_disk
from .compiled import NO_TABLES, nothing_known
from .evaluators import outcome_of_returns
from .kernel_playout import compiled_playout, seed_compiled
from .rules import ucb1_select
from .tree import DRAW, EXPANDED, LOSS, NO_NODE, TERMINAL, UNEXPANDED, UNKNOWN, WIN, Tree, backup, prove
from .results import ChildStats, proven_of_outcome

# status codes of the compiled loop
RAN, FULL, SOLVED = 0, 1, 2
MAX_DEPTH = 4096            # deeper paths stop growing the tree and just play out

KERNEL_FUNCTIONS = ("gen_moves", "apply_move", "outcome", "current_player")


# ------------------------------------------------------------ the compiled loop

_COMPILED: dict[tuple, object] = {}


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (llvm.readcyclecounter), for the profiling build only."""
    def codegen(context, builder, signature, args):
        fnty = llvmir.FunctionType(llvmir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])
    return types.int64(), codegen


def compiled_search(kernels, profile: bool = False, known_outcome=nothing_known):
    """The simulation loop for these kernels, compiled once (a few seconds) and then loaded from disk.

    ``profile=True`` builds a variant that adds the cycles spent in selection,
    expansion, playout and backup to its ``cycles`` argument (benchmarks only).
    ``known_outcome(pos, tables)`` is an oracle -- (winner 0/1 or 2 for a draw, plies to the end) or
    (-1, 0) -- whose positions below the root are terminal (an endgame database).
    """
    key = (*(getattr(kernels, name) for name in KERNEL_FUNCTIONS), compiled_playout(kernels),
           int(kernels.max_moves), profile, known_outcome)
    loop = _COMPILED.get(key)
    if loop is None:
        loop = _COMPILED[key] = _build_loop(*key)
    return loop


def _build_loop(gen_moves, apply_move, game_outcome, current_player, playout, max_moves, profile, known_outcome):
    PROFILE = bool(profile)   # a compile-time constant: the normal build has no timing code

    @njit(nogil=True)
    def run(root, root_pos, n_sims, c, playouts, solver, max_plies, meta, cycles, known,
            first, count, mover, flag, visits, value_sum, proven, proof, code, returns):
        """Run up to ``n_sims`` simulations from ``root`` on the tree arrays (:class:`FastSearch.FIELDS`).

        ``meta[0]`` is the number of nodes in use.  Returns (simulations run, status).
        """
        capacity = len(visits)
        pos = np.empty_like(root_pos)
        scratch = np.empty_like(root_pos)
        moves = np.empty(max_moves, dtype=np.int64)
        path = np.empty(MAX_DEPTH, dtype=np.int64)
        t0 = t1 = t2 = t3 = 0
        for sim in range(n_sims):
            if solver and proven[root] != UNKNOWN:
                return sim, SOLVED
            if PROFILE:
                t0 = _cycles()
            # --- selection: UCB1 down to a leaf (the core's rule; children proven lost are skipped)
            pos[:] = root_pos
            node = root
            depth = 0
            path[0] = root
            while flag[node] == EXPANDED and depth + 1 < MAX_DEPTH:
                if solver and depth > 0 and proven[node] != UNKNOWN:
                    break
                node = ucb1_select(node, first, count, visits, value_sum, proven, c, solver)
                apply_move(pos, code[node])
                depth += 1
                path[depth] = node
            if PROFILE:
                t1 = _cycles()
            # --- the leaf: a known result, or expansion and playouts
            score0 = 0.0
            score1 = 0.0
            n_results = 1
            result = -1
            play = False
            newly_proven = False
            if flag[node] == TERMINAL:
                score0 = returns[node, 0]
                score1 = returns[node, 1]
            elif solver and depth > 0 and proven[node] != UNKNOWN:
                p = proven[node]
                result = 2 if p == DRAW else (mover[node] if p == WIN else 1 - mover[node])
            else:
                n = gen_moves(pos, moves)
                o = game_outcome(pos, n)
                plies = 0
                if o < 0 and depth > 0:
                    o, plies = known_outcome(pos, known)      # the oracle's result ends the game here
                if o >= 0:
                    flag[node] = TERMINAL
                    count[node] = 0
                    result = o
                    returns[node, 0] = 1.0 if o == 0 else (0.5 if o == 2 else 0.0)
                    returns[node, 1] = 1.0 if o == 1 else (0.5 if o == 2 else 0.0)
                    if solver:
                        if o == 2:
                            proven[node] = DRAW
                        elif o == mover[node]:
                            proven[node] = WIN
                        else:
                            proven[node] = LOSS
                        proof[node] = plies
                        newly_proven = True
                else:
                    play = True
                if play and flag[node] == UNEXPANDED:
                    f = meta[0]
                    if f + n > capacity:
                        return sim, FULL
                    meta[0] = f + n
                    to_move = current_player(pos)
                    for j in range(n):                  # shuffled: an unbiased order of first visits
                        k = j + np.random.randint(n - j)
                        m = moves[k]
                        moves[k] = moves[j]
                        code[f + j] = m
                        visits[f + j] = 0.0
                        value_sum[f + j] = 0.0
                        first[f + j] = NO_NODE
                        count[f + j] = 0
                        mover[f + j] = to_move
                        flag[f + j] = UNEXPANDED
                        proven[f + j] = UNKNOWN
                        proof[f + j] = 0
                    first[node] = f
                    count[node] = n
                    flag[node] = EXPANDED
            if PROFILE:
                t2 = _cycles()
            if play:
                n_results = playouts
                wins0 = 0
                wins1 = 0
                draws = 0
                for _ in range(playouts):
                    scratch[:] = pos
                    r = playout(scratch, max_plies)
                    if r == 0:
                        wins0 += 1
                    elif r == 1:
                        wins1 += 1
                    else:
                        draws += 1
                score0 = wins0 + 0.5 * draws
                score1 = wins1 + 0.5 * draws
            elif result >= 0:
                score0 = 1.0 if result == 0 else (0.5 if result == 2 else 0.0)
                score1 = 1.0 if result == 1 else (0.5 if result == 2 else 0.0)
            if PROFILE:
                t3 = _cycles()
            # --- backup: results for each node's mover; then settle what the solver now knows
            backup(path[:depth + 1], visits, value_sum, mover, n_results, score0, score1)
            if newly_proven:
                prove(path, depth, first, count, mover, proven, proof)
            if PROFILE:
                t4 = _cycles()
                cycles[0] += t1 - t0
                cycles[1] += t2 - t1
                cycles[2] += t3 - t2
                cycles[3] += t4 - t3
        return n_sims, RAN

    return cache_on_disk(run)


# ------------------------------------------------------------ the tree object

class FastSearch(Tree):
    """The shared array tree over kernel positions; :meth:`run` adds simulations to it."""

    kind = "fast"
    INITIAL_CAPACITY = 1 << 16
    FIELDS = ("first", "count", "mover", "flag", "visits", "value_sum", "proven", "proof", "code", "returns")
    LISTS = False

    def __init__(self, kernels, c: float, playouts: int, solver: bool, max_playout_plies: int,
                 profile: bool = False, oracle=None) -> None:
        super().__init__(self.INITIAL_CAPACITY)
        self.k = kernels
        self.c = float(c)
        self.playouts = int(playouts)
        self.solver = bool(solver)
        self.max_playout_plies = int(max_playout_plies)
        #: An endgame oracle (``capabilities.endgame_oracle``) whose positions are terminal, or None.
        self.oracle = oracle
        if oracle is None:
            self._run, self.known = compiled_search(kernels, profile), NO_TABLES
        else:
            self._run, self.known = compiled_search(kernels, profile, oracle.compiled_outcome), oracle.tables
        #: cycles spent in selection, expansion, playout and backup (profiling build only)
        self.cycles = np.zeros(4, dtype=np.int64)
        self.root_pos: np.ndarray | None = None
        self.meta = np.zeros(1, dtype=np.int64)
        self.state = None

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def warm_up(self) -> None:
        """Compile now (a throw-away zero-simulation call), so no search pays for it."""
        pos = np.zeros(int(self.k.pos_size), dtype=np.int64)
        self._run(0, pos, 0, self.c, self.playouts, self.solver, self.max_playout_plies,
                  np.zeros(1, dtype=np.int64), self.cycles, self.known, *self._arrays())

    # ----------------------------------------------------------- the root
    def clear(self) -> None:
        self.root_pos = None
        self.state = None
        self.root, self.size = NO_NODE, 0

    def set_root(self, state, reuse: bool) -> None:
        pos = np.ascontiguousarray(self.k.state_to_pos(state), dtype=np.int64)
        if not (reuse and self.root_pos is not None and np.array_equal(pos, self.root_pos)):
            self._new_root(1 - state.current_player())
        self.root_pos = pos
        self.state = state.clone()

    def apply_root_rules(self, state) -> int:
        """Let the Python rules judge the root's moves (kernels miss repetition, docs/kernels.md).

        A move that ends the game under the full rules (e.g. a threefold
        repetition) becomes a terminal child with that result.  Expands the root
        if needed; returns the simulations that took (0 or 1).
        """
        root = self.root
        ran = 0 if self.flag[root] != UNEXPANDED else self.run(1)
        if self.flag[root] != EXPANDED:
            return ran
        changed = False
        for j in self.children(root):
            if self.flag[j] == TERMINAL:
                continue
            after = state.clone()
            after.apply(self.k.code_to_move(state, int(self.code[j])))
            if after.is_terminal():
                result = outcome_of_returns(after.returns())
                self.flag[j], self.count[j] = TERMINAL, 0
                self.returns[j] = (1.0, 0.0) if result == 0 else (0.0, 1.0) if result == 1 else (0.5, 0.5)
                if self.solver:
                    self.proven[j], self.proof[j] = proven_of_outcome(result, int(self.mover[j])), 0
                changed = True
        if changed and self.solver:
            self.proven[root] = UNKNOWN
            prove(np.array([root, self.first[root]], dtype=np.int64), 1, self.first, self.count, self.mover,
                  self.proven, self.proof)
        return ran

    def observe(self, state, move) -> None:
        """``move`` was played from ``state``: make its subtree the tree."""
        if self.root_pos is None:
            return
        pos = np.ascontiguousarray(self.k.state_to_pos(state), dtype=np.int64)
        if not np.array_equal(pos, self.root_pos) or self.flag[self.root] != EXPANDED:
            self.clear()
            return
        move_code = int(self.k.move_to_code(state, move))
        f, n = int(self.first[self.root]), int(self.count[self.root])
        hits = np.nonzero(self.code[f:f + n] == move_code)[0]
        if len(hits) == 0:
            self.clear()
            return
        self.root = f + int(hits[0])
        self._compact(minimum=self.INITIAL_CAPACITY)
        self.k.apply_move(pos, move_code)
        self.root_pos = pos

    # ----------------------------------------------------------- search
    def seed(self, seed: int) -> None:
        seed = int(seed) % (2**31)
        seed_compiled(seed)      # numba's generator: the playouts', and the shuffle of new children

    def run(self, simulations: int) -> int:
        done = 0
        self.meta[0] = self.size
        while done < simulations:
            n, status = self._run(self.root, self.root_pos, simulations - done, self.c, self.playouts,
                                  self.solver, self.max_playout_plies, self.meta, self.cycles, self.known,
                                  *self._arrays())
            done += n
            self.size = int(self.meta[0])
            if status == FULL:
                self._grow(2 * self.capacity)
            elif status == SOLVED:
                break
        return done

    # ----------------------------------------------------------- results
    def root_children(self) -> list[ChildStats]:
        if self.root_pos is None or self.flag[self.root] != EXPANDED:
            return []
        stats = []
        for j in self.children(self.root):
            v = int(self.visits[j])
            stats.append(ChildStats(self.k.code_to_move(self.state, int(self.code[j])), v,
                                    float(self.value_sum[j]) / v if v else 0.5, int(self.proven[j]),
                                    int(self.proof[j])))
        return stats
