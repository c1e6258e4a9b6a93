"""The fast builder: the reference builder's tables byte for byte, a slice-by-slice (windowed) build that
resumes, and probes against an independent solver written here over the game's own rules."""
from __future__ import annotations

import itertools
from collections import deque

import numpy as np
import pytest

from plyground.games.checkers import CheckersGame
from plyground.games.checkers.endgame import index, retrograde, solve, store
from plyground.games.checkers.kernels import state_to_pos
from plyground.files.storage import load_npz, pop_metadata

GAME = CheckersGame()


def stored(directory, s) -> tuple[dict, dict]:
    """(arrays, metadata) of slice ``s``'s file."""
    arrays = load_npz(store.slice_path(directory, s))
    return arrays, pop_metadata(arrays, "slice")


def test_the_fast_builder_writes_the_reference_builders_tables_byte_for_byte(four):
    """Every slice of up to 4 pieces: the reference solver's results and distances, as stored (2-bit
    results, distances of decided positions: the file's arrays and their SHA-256)."""
    db, directory = four
    reference = solve.build(4, reference=True)
    for s in index.slices(4):
        part = reference.part(s)
        expected = store.pack(reference.result[part], reference.dist[part])
        arrays, meta = stored(directory, s)
        for name in ("wld", "dist"):
            assert arrays[name].dtype == expected[name].dtype and arrays[name].tobytes() == expected[name].tobytes(), s
        assert meta["sha256"] == store.checksum(expected, s, int(reference.dist[part].max())), s
    assert (db.result == reference.result).all() and (db.dist == reference.dist).all()


def test_one_thread_and_mirror_slices_give_the_same_results():
    """The solver alone on one thread, and every slice solved (none copied from its mirror slice), against
    the usual build."""
    usual = solve.build(3)
    alone = solve.Database.empty(3)
    farthest = 0
    for s in index.slices(3):
        _, far = retrograde.solve_slice(s, alone.offsets, alone.sizes, alone.result, alone.dist, farthest)
        farthest = max(farthest, far)
    assert (alone.result == usual.result).all() and (alone.dist == usual.dist).all()
    assert retrograde.mirror((1, 2, 0, 1)) == (0, 1, 1, 2)


def test_a_windowed_build_writes_the_same_slices_and_resumes(four, tmp_path, monkeypatch):
    """Built slice by slice above 3 pieces (as 6 pieces is built): the same files; a rerun reads every
    slice back and solves only what is missing or damaged, with its mirror or crowning slices read from disk."""
    _, whole = four
    monkeypatch.setattr(store, "HELD_WHOLE", 3)
    lines = []
    assert store.build(4, tmp_path, log=lines.append) is None
    assert len(lines) == len(index.slices(4)) + 1 and "ETA" in lines[-2]
    assert lines[-1].startswith("endgame: packed for probing (packed-4.npz, distances-4.npy) in ")
    for s in index.slices(4):
        assert stored(tmp_path, s)[1]["sha256"] == stored(whole, s)[1]["sha256"], s
    mirrored, crowned = (1, 1, 1, 1), (2, 0, 1, 1)     # 1m1k-1m1k solved; 2m0k-1m1k: mirror 1m1k-2m0k first
    assert solve.needs(crowned, index.slices(4)) == [(1, 1, 2, 0)]
    assert solve.needs(mirrored, index.slices(4)) == [(0, 2, 1, 1), (1, 1, 0, 2)]
    store.slice_path(tmp_path, mirrored).unlink()          # as if the build stopped while solving it
    damaged = store.slice_path(tmp_path, crowned)
    damaged.write_bytes(store.slice_path(tmp_path, (0, 1, 0, 1)).read_bytes())
    lines.clear()
    store.build(4, tmp_path, log=lines.append)
    solved = [line.split()[3] for line in lines if "solved in" in line]
    assert solved == ["1m1k-1m1k", "2m0k-1m1k"], lines
    assert any("slice-2011.npz does not hold slice" in line and "solving it again" in line for line in lines)
    for s in (mirrored, crowned):
        assert stored(tmp_path, s)[1]["sha256"] == stored(whole, s)[1]["sha256"], s
    assert store.counts(4, tmp_path) == store.counts(4, whole) == {"win": 5_350_540, "loss": 4_009_594,
                                                                  "draw": 3_457_538}


def test_six_pieces_is_built_slice_by_slice_in_a_few_gigabytes():
    assert store.HELD_WHOLE == 5
    assert solve.entries(6) == 7_479_456_080
    assert 6e9 < solve.windowed_bytes(6) < 8e9 < solve.entries(6) * solve.ENTRY_BYTES


# ---------------------------------------------------------------------------------------------------
# An independent solver: positions as the game's own states (text in, legal moves out), a graph of them
# and plain retrograde analysis over it, in Python.

def placements(s):
    """Every FEN of slice s = (black men, black kings, white men, white kings), both sides to move."""
    bm, bk, wm, wk = s
    black_men = [q for q in range(1, 33) if q <= 28]          # a black man on 29-32 would have been crowned
    white_men = [q for q in range(1, 33) if q >= 5]
    for a in itertools.combinations(black_men, bm):
        for b in itertools.combinations(sorted(set(range(1, 33)) - set(a)), bk):
            for c in itertools.combinations([q for q in white_men if q not in a + b], wm):
                for d in itertools.combinations(sorted(set(range(1, 33)) - set(a + b + c)), wk):
                    white = ",".join([str(q) for q in c] + [f"K{q}" for q in d])
                    black = ",".join([str(q) for q in a] + [f"K{q}" for q in b])
                    for side in "BW":
                        yield f"{side}:W{white}:B{black}"


def position_text(state) -> str:
    """A state's FEN without the move counters (two states of one position are one position)."""
    return ":".join(state.to_text().split(":")[:3])


def solve_by_hand(starts) -> dict[str, tuple[str, int]]:
    """(result, plies) for the side to move of every position reachable from ``starts``: retrograde
    analysis on the explicit graph of positions -- the game's ``legal_moves`` and ``apply``, each position
    a fresh state from its text (no draw rule ends it) -- by layers of distance, with a counter of
    unresolved moves per position."""
    moves, parents = {}, {}
    todo = deque(starts)
    while todo:
        text = todo.popleft()
        if text in moves:
            continue
        state = GAME.new_state(text)
        children = []
        for move in state.legal_moves():
            child = state.clone()
            child.apply(move)
            children.append(position_text(child))
        moves[text] = children
        for child in children:
            parents.setdefault(child, []).append(text)
            if child not in moves:
                todo.append(child)
    value = {text: ("loss", 0) for text, children in moves.items() if not children}
    left = {text: len(children) for text, children in moves.items()}
    longest = {text: 0 for text in moves}
    layer = list(value)
    plies = 0
    while layer:
        plies += 1
        following = []
        for text in layer:
            for parent in parents.get(text, ()):
                if parent in value:
                    continue
                if value[text][0] == "loss":
                    value[parent] = ("win", plies)
                    following.append(parent)
                else:
                    left[parent] -= 1
                    longest[parent] = max(longest[parent], value[text][1] + 1)
                    if left[parent] == 0:
                        value[parent] = ("loss", longest[parent])
                        following.append(parent)
        # a parent reached twice in one layer by a win and a loss is settled by the loss (won first)
        layer = following
    return {text: value.get(text, ("draw", 0)) for text in moves}


@pytest.mark.parametrize("s, sample", [((0, 2, 0, 1), None), ((1, 0, 1, 0), None), ((1, 0, 0, 2), 2000)])
def test_probes_agree_with_an_independent_solver(four, s, sample):
    """Two kings against one and a man against a man, every position; a man against two kings, 2,000
    positions: the database's result and distance are the independent solver's (which solves every
    position they lead to: crownings of either side, captures)."""
    db, _ = four
    positions = list(placements(s))
    if sample:
        positions = [positions[i] for i in np.random.default_rng(7).choice(len(positions), sample, replace=False)]
    truth = solve_by_hand(positions)
    wrong = [text for text in positions if db.probe(state_to_pos(GAME.new_state(text))) != truth[text]]
    assert not wrong, (len(wrong), wrong[:3], [truth[t] for t in wrong[:3]])
    assert {result for result, _ in truth.values()} == {"win", "loss", "draw"}


def sample_positions(db, pieces, per_slice=40, seed=11):
    """Kernel positions of random entries of every slice of up to ``pieces`` pieces (holes skipped)."""
    rng = np.random.default_rng(seed)
    boards = np.zeros(4, dtype=np.int64)
    for s in index.slices(pieces):
        for i in rng.integers(0, 2 * db.sizes[s], per_slice):
            side, k = divmod(int(i), int(db.sizes[s]))
            if index.position_at(k, *s, boards):
                yield s, np.array([*boards, side, 0, 0], dtype=np.int64)


def test_a_packed_database_holds_every_result_and_maps_every_distance(four, monkeypatch, tmp_path):
    """Opened packed above 3 pieces (as 6 pieces is opened): results in 2 bits, and every distance mapped
    from a distances file made on first opening -- the whole database's results and distances, in the
    compiled lookup too.  The packed arrays and the distances are kept for the next opening, unless a slice
    file changed."""
    from plyground.games.checkers.endgame.oracle import EndgameOracle, known_outcome
    whole, built = four
    for path in built.glob("slice-*.npz"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    monkeypatch.setattr(store, "HELD_WHOLE", 3)
    packed = store.open_database(4, tmp_path)
    assert packed.packed_from == 4 and packed.result.nbytes < whole.result.nbytes / 3
    assert store.packed_path(tmp_path, 4).exists() and store.distances_path(tmp_path, 4).exists()
    oracle = EndgameOracle(packed, tmp_path)
    checked = 0
    for s, pos in sample_positions(whole, 4):
        expected = whole.probe(pos)
        assert packed.probe(pos) == expected, s
        o, plies = known_outcome(pos, *oracle.tables)
        assert (o == 2) == (expected[0] == "draw") and plies == expected[1]
        checked += 1
    assert checked > 1000
    state = GAME.new_state("W:W20,K15:B12,K28")                  # First Position
    assert oracle.words(state) == "win in 81 plies"
    again = store.open_database(4, tmp_path)
    assert (again.result == packed.result).all() and (again.dist == packed.dist).all()
    assert store._read_packed(4, tmp_path, store._stamp(4, tmp_path)) is not None
    slice_file = store.slice_path(tmp_path, (0, 1, 0, 3))
    slice_file.write_bytes(slice_file.read_bytes())                   # a slice file written again
    assert store._read_packed(4, tmp_path, store._stamp(4, tmp_path)) is None
    assert (store.open_database(4, tmp_path).dist == packed.dist).all()


def test_without_its_distances_file_a_packed_database_holds_the_smaller_slices_distances(four, monkeypatch,
                                                                                        tmp_path):
    """Where the distances file cannot be made, the largest slices' wins and losses are DISTANCE_NOT_HELD
    plies away in the searches; ``probe`` reads their distances from the slice files."""
    from plyground.games.checkers.endgame.oracle import EndgameOracle, known_outcome, result_words
    whole, directory = four
    monkeypatch.setattr(store, "HELD_WHOLE", 3)
    monkeypatch.setattr(store, "distances_path", lambda folder, pieces: tmp_path / "no such folder" / "d.npy")
    monkeypatch.setattr(store, "packed_path", lambda folder, pieces: tmp_path / "packed.npz")
    packed = store.open_database(4, directory)
    assert len(packed.dist) < 4 * len(packed.result)
    oracle, exact = EndgameOracle(packed, directory), EndgameOracle(packed, directory, stored_distances=True)
    for s, pos in sample_positions(whole, 4, per_slice=10):
        result, plies = whole.probe(pos)
        held = sum(s) < 4 or result == "draw"
        assert packed.probe(pos) == (result, plies if held else solve.DISTANCE_NOT_HELD), s
        o, far = known_outcome(pos, *oracle.tables)
        assert (o == 2) == (result == "draw") and far == (plies if held else solve.DISTANCE_NOT_HELD)
    state = GAME.new_state("W:W20,K15:B12,K28")                  # First Position
    assert exact.words(state) == "win in 81 plies" and oracle.words(state) == "win"
    assert [state.move_to_text(m) for m in exact.perfect_moves(state)] == ["15-19"]
    assert result_words("loss", solve.DISTANCE_NOT_HELD) == "loss"
