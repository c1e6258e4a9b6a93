"""UCT search compiled with numba over a game's kernels (docs/kernels.md).

The tree lives in preallocated parallel arrays, one slot per node; a node's
children occupy one contiguous block (``first[n] .. first[n] + nchild[n]``),
created all at once when the node is first reached.  Positions are not stored:
each simulation copies the root position and replays the moves down the path,
which is how the search "undoes" moves.  When the arrays are full the compiled
loop stops and Python doubles them.

The simulation loop must call the game's kernel functions, so it is built as a
closure over them by :func:`compiled_search` and cached per kernels object for
the life of the process (numba cannot cache such closures on disk).  The
game-independent parts (backup, solver, re-rooting) are module-level functions
with ``cache=True``.
"""
from __future__ import annotations

import math
import numpy as np
from llvmlite import ir as llvmir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .common import DRAW, LOSS, UNKNOWN, WIN, ChildStats, outcome_of_returns, proven_of_outcome

# status codes of the compiled loop
RAN, FULL, SOLVED = 0, 1, 2
MAX_DEPTH = 4096            # deeper paths stop growing the tree and just play out

KERNEL_FUNCTIONS = ("gen_moves", "apply_move", "outcome", "playout", "seed", "current_player")
KERNEL_ATTRIBUTES = KERNEL_FUNCTIONS + ("pos_size", "max_moves", "state_to_pos", "code_to_move",
                                        "move_to_code")


def missing_kernel_attributes(kernels) -> list[str]:
    return [name for name in KERNEL_ATTRIBUTES if not hasattr(kernels, name)]


# ------------------------------------------------------------ game-independent parts

@njit(cache=True)
def _seed_numba(seed):
    np.random.seed(seed)


@njit(cache=True)
def _backup(path, depth, visits, score, mover, n_results, wins0, wins1, draws):
    for i in range(depth, -1, -1):
        node = path[i]
        visits[node] += n_results
        if mover[node] == 0:
            score[node] += wins0 + 0.5 * draws
        else:
            score[node] += wins1 + 0.5 * draws


@njit(cache=True)
def _prove(path, depth, first, nchild, mover, proven, proof):
    """The node at ``path[depth]`` was just proven: settle the ancestors that are now decided.

    Children hold values for the player to move at their parent, who need not be
    the parent's own mover (a side may move twice), hence the flip at the end.
    """
    for i in range(depth - 1, -1, -1):
        node = path[i]
        f = first[node]
        n = nchild[node]
        to_move = mover[f]
        win_plies = 1 << 30
        draw_plies = 1 << 30
        loss_plies = -1
        unknown = False
        for j in range(f, f + n):
            p = proven[j]
            if p == WIN:
                win_plies = min(win_plies, proof[j])
            elif p == DRAW:
                draw_plies = min(draw_plies, proof[j])
            elif p == LOSS:
                loss_plies = max(loss_plies, proof[j])
            else:
                unknown = True
        if win_plies < (1 << 30):
            value, plies = WIN, win_plies
        elif unknown:
            return
        elif draw_plies < (1 << 30):
            value, plies = DRAW, draw_plies
        else:
            value, plies = LOSS, loss_plies
        proven[node] = value if mover[node] == to_move else -value
        proof[node] = plies + 1


@njit(cache=True)
def _reroot(new_root, visits, score, code, first, nchild, mover, outcome, proven, proof,
            n_visits, n_score, n_code, n_first, n_nchild, n_mover, n_outcome, n_proven, n_proof):
    """Copy the subtree under ``new_root`` into the ``n_*`` arrays (root at 0); returns its size."""
    queue = np.empty(len(visits), dtype=np.int64)   # old index of the node now at each new index
    queue[0] = new_root
    size = 1
    head = 0
    while head < size:
        old = queue[head]
        n_visits[head] = visits[old]
        n_score[head] = score[old]
        n_code[head] = code[old]
        n_mover[head] = mover[old]
        n_outcome[head] = outcome[old]
        n_proven[head] = proven[old]
        n_proof[head] = proof[old]
        n = nchild[old]
        n_nchild[head] = n
        if n > 0:
            n_first[head] = size
            f = first[old]
            for j in range(n):
                queue[size + j] = f + j
            size += n
        else:
            n_first[head] = -1
        head += 1
    return size


@njit(cache=True)
def _subtree_size(root, first, nchild):
    stack = [root]
    size = 0
    while len(stack) > 0:
        node = stack.pop()
        size += 1
        n = nchild[node]
        if n > 0:
            for j in range(first[node], first[node] + n):
                stack.append(j)
    return size


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


def compiled_search(kernels, profile: bool = False):
    """The simulation loop for these kernels, compiled once per process (a few seconds).

    ``profile=True`` builds a variant that adds the cycles spent in selection,
    expansion, playout and backup to its ``cycles`` argument (benchmarks only).
    """
    key = tuple(getattr(kernels, name) for name in KERNEL_FUNCTIONS) + (kernels.max_moves, profile)
    loop = _COMPILED.get(key)
    if loop is None:
        loop = _COMPILED[key] = _build_loop(kernels, profile)
    return loop


def _build_loop(kernels, profile):
    gen_moves = kernels.gen_moves
    apply_move = kernels.apply_move
    game_outcome = kernels.outcome
    playout = kernels.playout
    current_player = kernels.current_player
    max_moves = int(kernels.max_moves)
    PROFILE = bool(profile)   # a compile-time constant: the normal build has no timing code

    @njit
    def run(root_pos, n_sims, c, playouts, solver, max_plies, meta, cycles,
            visits, score, code, first, nchild, mover, outcome, proven, proof):
        """Run up to ``n_sims`` simulations from the root (node 0).

        ``meta[0]`` is the number of nodes in use.  Returns (simulations run, status).
        """
        capacity = len(visits)
        pos = np.empty_like(root_pos)
        scratch = np.empty_like(root_pos)
        moves = np.empty(max_moves, dtype=np.int64)
        path = np.empty(MAX_DEPTH, dtype=np.int64)
        t0 = t1 = t2 = t3 = 0
        for sim in range(n_sims):
            if solver and proven[0] != UNKNOWN:
                return sim, SOLVED
            if PROFILE:
                t0 = _cycles()
            # --- selection: UCB1 down to a leaf, skipping children proven lost for the side to move
            pos[:] = root_pos
            node = 0
            depth = 0
            path[0] = 0
            while True:
                if outcome[node] >= 0 or nchild[node] < 0 or depth + 1 >= MAX_DEPTH:
                    break
                if solver and depth > 0 and proven[node] != UNKNOWN:
                    break
                f = first[node]
                log_n = math.log(visits[node])
                best = -1
                best_value = -1e300
                for j in range(f, f + nchild[node]):
                    if solver and proven[j] == LOSS:
                        continue
                    v = visits[j]
                    if v == 0:
                        best = j
                        break
                    u = score[j] / v + c * math.sqrt(log_n / v)
                    if u > best_value:
                        best_value = u
                        best = j
                if best < 0:
                    best = f
                apply_move(pos, code[best])
                node = best
                depth += 1
                path[depth] = node
            if PROFILE:
                t1 = _cycles()
            # --- the leaf: a known result, or expansion and playouts
            wins0 = 0
            wins1 = 0
            draws = 0
            result = -1
            newly_proven = False
            if outcome[node] >= 0:
                result = outcome[node]
            elif solver and depth > 0 and proven[node] != UNKNOWN:
                p = proven[node]
                result = 2 if p == DRAW else (mover[node] if p == WIN else 1 - mover[node])
            else:
                n = gen_moves(pos, moves)
                o = game_outcome(pos, n)
                if o >= 0:
                    outcome[node] = o
                    nchild[node] = 0
                    result = o
                    if solver:
                        if o == 2:
                            proven[node] = DRAW
                        elif o == mover[node]:
                            proven[node] = WIN
                        else:
                            proven[node] = LOSS
                        proof[node] = 0
                        newly_proven = True
                elif nchild[node] < 0:
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
                        visits[f + j] = 0
                        score[f + j] = 0.0
                        first[f + j] = -1
                        nchild[f + j] = -1
                        mover[f + j] = to_move
                        outcome[f + j] = -1
                        proven[f + j] = UNKNOWN
                        proof[f + j] = 0
                    first[node] = f
                    nchild[node] = n
            if PROFILE:
                t2 = _cycles()
            n_results = 1
            if result == 0:
                wins0 = 1
            elif result == 1:
                wins1 = 1
            elif result == 2:
                draws = 1
            else:
                n_results = playouts
                for _ in range(playouts):
                    scratch[:] = pos
                    r = playout(scratch, max_plies)
                    if r == 0:
                        wins0 += 1
                    elif r == 1:
                        wins1 += 1
                    else:
                        draws += 1
            if PROFILE:
                t3 = _cycles()
            # --- backup: results for each node's mover; then settle what the solver now knows
            _backup(path, depth, visits, score, mover, n_results, wins0, wins1, draws)
            if newly_proven:
                _prove(path, depth, first, nchild, mover, proven, proof)
            if PROFILE:
                t4 = _cycles()
                cycles[0] += t1 - t0
                cycles[1] += t2 - t1
                cycles[2] += t3 - t2
                cycles[3] += t4 - t3
        return n_sims, RAN

    return run


# ------------------------------------------------------------ the tree object

class FastSearch:
    """One array tree over kernel positions; :meth:`run` adds simulations to it."""

    kind = "fast"
    INITIAL_CAPACITY = 1 << 16

    def __init__(self, kernels, c: float, playouts: int, solver: bool, max_playout_plies: int,
                 profile: bool = False) -> None:
        self.k = kernels
        self.c = float(c)
        self.playouts = int(playouts)
        self.solver = bool(solver)
        self.max_playout_plies = int(max_playout_plies)
        self._run = compiled_search(kernels, profile)
        #: cycles spent in selection, expansion, playout and backup (profiling build only)
        self.cycles = np.zeros(4, dtype=np.int64)
        self.root_pos: np.ndarray | None = None
        self.meta = np.zeros(1, dtype=np.int64)
        self.arrays = _new_arrays(self.INITIAL_CAPACITY)
        self.state = None

    def warm_up(self) -> None:
        """Compile now (a throw-away zero-simulation call), so no search pays for it."""
        pos = np.zeros(int(self.k.pos_size), dtype=np.int64)
        self._run(pos, 0, self.c, self.playouts, self.solver, self.max_playout_plies,
                  np.zeros(1, dtype=np.int64), self.cycles, *_new_arrays(1))

    # ----------------------------------------------------------- the root
    def clear(self) -> None:
        self.root_pos = None
        self.state = None

    def set_root(self, state, reuse: bool) -> None:
        pos = np.ascontiguousarray(self.k.state_to_pos(state), dtype=np.int64)
        if not (reuse and self.root_pos is not None and np.array_equal(pos, self.root_pos)):
            self._fresh(1 - state.current_player())
        self.root_pos = pos
        self.state = state.clone()

    def apply_root_rules(self, state) -> int:
        """Let the Python rules judge the root's moves (kernels miss repetition, docs/kernels.md).

        A move that ends the game under the full rules (e.g. a threefold
        repetition) becomes a terminal child with that result.  Expands the root
        if needed; returns the simulations that took (0 or 1).
        """
        ran = 0 if self.arrays[4][0] >= 0 else self.run(1)
        visits, score, code, first, nchild, mover, outcome, proven, proof = self.arrays
        f, n = int(first[0]), int(nchild[0])
        changed = False
        for j in range(f, f + n if n > 0 else f):
            if outcome[j] >= 0:
                continue
            after = state.clone()
            after.apply(self.k.code_to_move(state, int(code[j])))
            if after.is_terminal():
                result = outcome_of_returns(after.returns())
                outcome[j], nchild[j] = result, 0
                if self.solver:
                    proven[j], proof[j] = proven_of_outcome(result, int(mover[j])), 0
                changed = True
        if changed and self.solver:
            proven[0] = UNKNOWN
            _prove(np.array([0, f], dtype=np.int64), 1, first, nchild, mover, proven, proof)
        return ran

    def _fresh(self, root_mover: int) -> None:
        visits, score, code, first, nchild, mover, outcome, proven, proof = self.arrays
        visits[0], score[0], code[0], first[0], nchild[0] = 0, 0.0, -1, -1, -1
        mover[0], outcome[0], proven[0], proof[0] = root_mover, -1, UNKNOWN, 0
        self.meta[0] = 1

    def observe(self, state, move) -> None:
        """``move`` was played from ``state``: make its subtree the tree."""
        if self.root_pos is None:
            return
        pos = np.ascontiguousarray(self.k.state_to_pos(state), dtype=np.int64)
        _, _, code, first, nchild, *_ = self.arrays
        if not np.array_equal(pos, self.root_pos) or nchild[0] <= 0:
            self.clear()
            return
        move_code = int(self.k.move_to_code(state, move))
        f, n = int(first[0]), int(nchild[0])
        hits = np.nonzero(code[f:f + n] == move_code)[0]
        if len(hits) == 0:
            self.clear()
            return
        self._adopt(f + int(hits[0]))
        self.k.apply_move(pos, move_code)
        self.root_pos = pos

    def _adopt(self, new_root: int) -> None:
        visits, score, code, first, nchild, *_ = self.arrays
        size = _subtree_size(new_root, first, nchild)
        target = _new_arrays(max(self.INITIAL_CAPACITY, 2 * size))
        used = _reroot(new_root, *self.arrays, *target)
        self.arrays = target
        self.meta[0] = used

    @property
    def size(self) -> int:
        return int(self.meta[0]) if self.root_pos is not None else 0

    # ----------------------------------------------------------- search
    def seed(self, seed: int) -> None:
        seed = int(seed) % (2**31)
        self.k.seed(seed)        # the kernels' playout generator
        _seed_numba(seed)        # numba's generator, used here to shuffle new children

    def run(self, simulations: int) -> int:
        done = 0
        while done < simulations:
            n, status = self._run(self.root_pos, simulations - done, self.c, self.playouts, self.solver,
                                  self.max_playout_plies, self.meta, self.cycles, *self.arrays)
            done += n
            if status == FULL:
                self._grow()
            elif status == SOLVED:
                break
        return done

    def _grow(self) -> None:
        old = self.arrays
        self.arrays = _new_arrays(2 * len(old[0]))
        used = int(self.meta[0])
        for new, arr in zip(self.arrays, old):
            new[:used] = arr[:used]

    # ----------------------------------------------------------- results
    def root_children(self) -> list[ChildStats]:
        visits, score, code, first, nchild, mover, outcome, proven, proof = self.arrays
        if self.root_pos is None or nchild[0] <= 0:
            return []
        f, n = int(first[0]), int(nchild[0])
        stats = []
        for j in range(f, f + n):
            v = int(visits[j])
            stats.append(ChildStats(self.k.code_to_move(self.state, int(code[j])), v,
                                    float(score[j]) / v if v else 0.5, int(proven[j]), int(proof[j])))
        return stats


def _new_arrays(capacity: int) -> tuple[np.ndarray, ...]:
    """visits, score, code, first, nchild, mover, outcome, proven, proof."""
    return (np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.float64),
            np.zeros(capacity, dtype=np.int64), np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int8),
            np.zeros(capacity, dtype=np.int8), np.zeros(capacity, dtype=np.int8),
            np.zeros(capacity, dtype=np.int32))
