"""A conformance kit for game plugins: run it from your plugin's own tests.

::

    from plyground.testing import check_game
    from my_game import MyGame

    def test_my_game_conforms():
        check_game(MyGame(), playouts=50, seed=0)

:func:`check_game` plays seeded random games and, at every position on the
way, checks what players, the match runner and the learners rely on, layer
by layer (the layers of :mod:`plyground.protocols`: a game must be
*playable*; the *searchable* and *learnable* checks run when it implements
those layers, and a half-implemented layer fails):

playable (random and human players, the match runner)
    ``legal_moves()`` is deterministic (same moves, same order, from the
    state, its clone and its reloaded text) and empty exactly when
    ``is_terminal()``; ``current_player()`` is 0 or 1 while the game goes on;
    ``returns()`` is ``(0, 0)`` until the end, then in [-1, 1] and zero-sum,
    with a non-empty ``outcome_reason()`` (and ``outcome()`` agrees);
    ``move_to_text`` / ``parse_move`` round-trip every legal move, the texts
    are distinct, and unreadable text raises :class:`~plyground.errors.MoveError`;
    ``clone()`` is independent: moves on the clone never change the original,
    nor the other way round; ``game.new_state(state.to_text())`` gives back
    the same position (where the game implements ``new_state``); a finished
    game's record is written by ``format_records`` and, where the game reads
    records, read back to the same moves.
searchable (mcts, alphabeta, alphazero)
    ``apply(move)`` then ``undo()`` restores the position text, ``key()``, the
    side to move, the legal moves, ``ply`` and the result, for *every* legal
    move; ``ply`` counts moves; undoing a whole game on a clone walks back
    through every position.
learnable (alphazero, expert iteration)
    ``observation()`` has the game's ``observation_shape``, dtype float32,
    finite values and a fresh array per call (searches keep them);
    ``action_index(move)`` is an int in ``range(num_actions)``, distinct for
    distinct legal moves unless the state offers ``moves_for_action`` (the
    ``SharedActions`` capability), inverted by ``move_for_action`` where there
    is one; ``legal_mask()`` is True exactly at those indices;
    ``game.augment`` keeps shapes, includes the example itself and permutes
    the policy.

compiled kernels (the compiled mcts and AlphaZero search; docs/kernels.md)
    where ``game.kernels()`` is not ``None``: the object has every attribute
    of the contract, and at every position ``gen_moves`` lists the legal
    moves in ``legal_moves()`` order, ``outcome`` agrees with
    ``is_terminal()``/``returns()`` (positions the State ends as a draw by
    repetition, which kernels cannot see, are left out), ``current_player``
    agrees, ``apply_move`` of each legal move gives ``state_to_pos`` of the
    State after it, ``playout`` is seeded and ends; with the learner kernels
    ``encode`` is ``observation()``, ``action_of`` is ``action_index`` and
    ``position_key`` is ``key()`` (as unsigned 64-bit numbers).

What no generic check can see (that the observation is drawn from the side
to move's view, that the rules are the right ones) belongs in your own tests:
``examples/connect-four/tests`` shows both.

Every failure is a plain ``AssertionError`` naming the game, the position
text and the move, so pytest shows exactly where a rule broke.  The finer
functions (:func:`check_position`, :func:`check_apply_undo`,
:func:`check_clone`, ...) check one position, e.g. a tricky one of your own.
"""
from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .capabilities import (LEARNER_KERNEL_ATTRIBUTES, capabilities_of, decodes_actions, missing_kernel_attributes,
                           record_reader, shares_action_indices)
from .errors import MoveError
from .protocols import LEARNABLE, PLAYABLE, SEARCHABLE, Game, GameRecord, State, unsupported_reason
from .registry import get_registry

#: Text that no game's notation reads as a move.
UNREADABLE_MOVE = "?! not a move !?"

__all__ = ["ConformanceReport", "check_game", "check_position", "check_apply_undo", "check_clone",
           "check_notation", "check_text_round_trip", "check_returns", "check_encodings", "check_augment",
           "check_undo_history", "check_records", "check_kernels", "layers_of"]
_MASK64 = 0xFFFF_FFFF_FFFF_FFFF


@dataclass
class ConformanceReport:
    """What :func:`check_game` looked at (handy to print, or to assert that it ran)."""

    game: str
    layers: list[str] = field(default_factory=list)   # the layers the game implements, checked
    playouts: int = 0
    positions: int = 0           # positions checked
    moves: int = 0               # legal moves played and taken back (searchable games)
    finished: int = 0            # playouts that reached the end of the game (the rest hit max_plies)
    kernel_positions: int = 0    # positions where the compiled kernels were compared with the State
    skipped: list[str] = field(default_factory=list)   # checks the game gives nothing to run on
    #: The capabilities the game offers (docs/capabilities.md), whether or not a check here uses them.
    capabilities: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        text = (f"{self.game} ({', '.join(self.layers)}): {self.playouts} random playouts "
                f"({self.finished} to the end), {self.positions} positions, "
                f"{self.moves} moves applied and undone"
                + (f", {self.kernel_positions} positions compared with the kernels" if self.kernel_positions else ""))
        text += f"; capabilities: {', '.join(self.capabilities) or 'none'}"
        return text + (f"; not checked: {'; '.join(self.skipped)}" if self.skipped else "")


# ---------------------------------------------------------------------------- the whole game

def reachable_positions(game: Game, keep: Callable[[State], bool] | None = None) -> list[str]:
    """The text of every position reachable from the initial one that is not over, each once, in the order a
    depth-first walk in move-generation order meets them, less those ``keep`` refuses: for games small enough
    to walk whole (tic-tac-toe has 4,520 such positions), to score a player on every position."""
    found: list[str] = []
    seen: set[str] = set()

    def walk(state: State) -> None:
        text = state.to_text()
        if text in seen or state.is_terminal():
            return
        seen.add(text)
        if keep is None or keep(state):
            found.append(text)
        for move in state.legal_moves():
            state.apply(move)
            walk(state)
            state.undo()

    walk(game.new_initial_state())
    return found


def check_game(game: Game | str, playouts: int = 50, seed: int = 0, max_plies: int | None = None,
               zero_sum: bool = True) -> ConformanceReport:
    """Check ``game`` (an instance, or a spec such as ``"connect-four"`` to build it through the
    installed plugins) on ``playouts`` seeded random games of at most ``max_plies`` plies each."""
    if isinstance(game, str):
        game = get_registry().make_game(game)
    layers = layers_of(game)
    report = ConformanceReport(game.name, [layer.name for layer in layers], capabilities=capabilities_of(game))
    searchable, learnable = SEARCHABLE in layers, LEARNABLE in layers
    _check_declarations(game, layers)
    if not searchable:
        report.skipped.append(f"apply/undo ({unsupported_reason(game, SEARCHABLE)})")
    if not learnable:
        report.skipped.append(f"learner encodings ({unsupported_reason(game, LEARNABLE)})")
    if _reloaded_start(game) is None:
        report.skipped.append("text round trip (new_state is not implemented)")
    if _key(game.new_initial_state()) is None:
        report.skipped.append("key (not implemented)")
    kernels = _kernels(game)
    if kernels is not None and not _has_learner_kernels(kernels) and learnable:
        report.skipped.append(f"learner kernels (the kernels have no {', '.join(LEARNER_KERNEL_ATTRIBUTES)})")

    rng = random.Random(seed)
    for _ in range(playouts):
        state = game.new_initial_state()
        path, played = [], []                   # a snapshot of every position, the moves as text
        while True:
            check_position(state, rng=rng, zero_sum=zero_sum, searchable=searchable, learnable=learnable)
            if kernels is not None and not _repetition_draw(state, path):
                check_kernels(state, kernels, playout_seed=seed + report.playouts if not path else None,
                              learnable=learnable)
                report.kernel_positions += 1
            if learnable and report.playouts == 0 and not state.is_terminal():
                check_augment(state)            # along the first game: symmetries of real positions
            report.positions += 1
            report.moves += len(state.legal_moves()) if searchable else 0
            path.append(_Snapshot.of(state))
            if state.is_terminal() or (max_plies is not None and len(played) >= max_plies):
                break
            move = rng.choice(state.legal_moves())
            played.append(state.move_to_text(move))
            state.apply(move)
        report.playouts += 1
        report.finished += state.is_terminal()
        if searchable:
            check_undo_history(state, path)
        if state.is_terminal():
            check_records(state, path[0].text, played)
    return report


def layers_of(game: Game) -> list:
    """The layers of the game contract (``protocols.LAYERS``) that ``game`` implements, lowest first.

    Fails when the game is not even playable, or declares learner encodings
    (``observation_shape``, ``num_actions``) without the states' side of them."""
    name = game.name or type(game).__name__
    reason = unsupported_reason(game, PLAYABLE)
    assert reason is None, f"{name}: not playable: {reason}"
    layers = [PLAYABLE]
    if unsupported_reason(game, SEARCHABLE) is None:
        layers.append(SEARCHABLE)
        if game.supports_learning:
            reason = unsupported_reason(game, LEARNABLE)
            assert reason is None, f"{name} declares learner encodings, but {reason}"
            layers.append(LEARNABLE)
    else:
        assert not game.supports_learning, (f"{name} declares learner encodings, but learning players "
                                            f"search: {unsupported_reason(game, SEARCHABLE)}")
    return layers


def _reloaded_start(game: Game) -> State | None:
    """The starting position read back from its text, or ``None`` if the game cannot read positions."""
    try:
        return game.new_state(game.new_initial_state().to_text())
    except NotImplementedError:
        return None


def _check_declarations(game: Game, layers: list) -> None:
    name = game.name or type(game).__name__
    assert isinstance(game.side_names, tuple) and len(game.side_names) == 2 \
        and all(isinstance(n, str) and n for n in game.side_names) and len(set(game.side_names)) == 2, \
        f"{name}: side_names must be two distinct names, first mover first, not {game.side_names!r}"
    if LEARNABLE in layers:
        assert isinstance(game.num_actions, int) and game.num_actions > 0, \
            f"{name}: num_actions must be a positive int, not {game.num_actions!r}"
        shape = tuple(game.observation_shape)
        assert shape and all(isinstance(n, int) and n > 0 for n in shape), \
            f"{name}: observation_shape must be positive ints, not {game.observation_shape!r}"
    first, again = game.new_initial_state(), game.new_initial_state()
    assert first.to_text() == again.to_text(), \
        f"{name}: new_initial_state() gives different positions: {first.to_text()!r} and {again.to_text()!r}"
    assert first.legal_moves() == again.legal_moves(), (f"{name}: at {first.to_text()!r}: legal_moves() changed "
                                                        f"between two calls: {first.legal_moves()!r} then "
                                                        f"{again.legal_moves()!r}")
    for state in (first, again):
        assert state.game is game, f"{name}: a state's .game must be the game that created it"


# ---------------------------------------------------------------------------- one position

def check_position(state: State, rng: random.Random | None = None, zero_sum: bool = True,
                   searchable: bool | None = None, learnable: bool | None = None) -> None:
    """Every per-position check: legal moves, returns, notation, clone, text round trip and, for the
    layers the game implements (found out when not given), apply/undo of each legal move and the
    learner encodings.  ``state`` is left as it was."""
    rng = rng or random.Random(0)
    if searchable is None or learnable is None:
        layers = layers_of(state.game)
        searchable, learnable = SEARCHABLE in layers, LEARNABLE in layers
    moves = state.legal_moves()
    where = _where(state)
    assert isinstance(moves, list), f"{where}: legal_moves() must return a list, not {type(moves).__name__}"
    again = state.legal_moves()
    assert again == moves, f"{where}: legal_moves() changed between two calls: {moves!r} then {again!r}"
    assert bool(moves) != bool(state.is_terminal()), (
        f"{where}: is_terminal() is {state.is_terminal()} but there are {len(moves)} legal moves "
        f"(legal moves must be empty exactly when the game is over)")
    if moves:
        player = state.current_player()
        assert player in (0, 1), f"{where}: current_player() must be 0 or 1, not {player!r}"
    check_returns(state, zero_sum)
    check_notation(state)
    if searchable:
        for move in moves:
            check_apply_undo(state, move)
    check_clone(state, rng, searchable)
    check_text_round_trip(state)
    if learnable:
        check_encodings(state)
    rendered = state.game.render_text(state)
    assert isinstance(rendered, str) and rendered, f"{where}: render_text must return the picture as text"


def check_returns(state: State, zero_sum: bool = True) -> None:
    """``(0, 0)`` until the end; then each in [-1, 1], zero-sum, with a reason."""
    where = _where(state)
    result = state.returns()
    assert len(result) == 2 and all(isinstance(r, (int, float, np.number)) for r in result), \
        f"{where}: returns() must be two numbers (one per player), not {result!r}"
    a, b = (float(r) for r in result)
    if not state.is_terminal():
        assert (a, b) == (0.0, 0.0), f"{where}: returns() is {result!r} before the game is over; expected (0, 0)"
        assert state.outcome() is None, f"{where}: outcome() is {state.outcome()!r} before the game is over"
        return
    assert -1.0 <= a <= 1.0 and -1.0 <= b <= 1.0, f"{where}: returns() {result!r} must lie in [-1, 1]"
    if zero_sum:
        assert math.isclose(a, -b, abs_tol=1e-9), f"{where}: returns() {result!r} must sum to zero"
    reason = state.outcome_reason()
    assert isinstance(reason, str) and reason.strip(), \
        f"{where}: outcome_reason() must say why the game ended, not {reason!r}"
    outcome = state.outcome()
    assert outcome is not None and tuple(map(float, outcome.returns)) == (a, b) and outcome.reason == reason, \
        f"{where}: outcome() is {outcome!r}, but returns() is {result!r} and outcome_reason() {reason!r}"


def check_notation(state: State) -> None:
    """``parse_move(move_to_text(m)) == m`` for every legal move; distinct texts; bad text refused."""
    where = _where(state)
    texts = {}
    for move in state.legal_moves():
        text = state.move_to_text(move)
        assert isinstance(text, str) and text.strip(), f"{where}: move_to_text({move!r}) gave {text!r}"
        assert text not in texts, f"{where}: moves {texts.get(text)!r} and {move!r} are both written {text!r}"
        texts[text] = move
        parsed = state.parse_move(text)
        assert parsed == move, f"{where}: parse_move({text!r}) gave {parsed!r}, not the move {move!r} it names"
    try:
        parsed = state.parse_move(UNREADABLE_MOVE)
    except MoveError as exc:
        assert str(exc), f"{where}: the MoveError for {UNREADABLE_MOVE!r} must say why"
    else:
        raise AssertionError(f"{where}: parse_move({UNREADABLE_MOVE!r}) gave {parsed!r} "
                             f"instead of raising plyground.errors.MoveError")


def check_apply_undo(state: State, move: Any) -> None:
    """``apply(move)`` changes the position and ``undo()`` restores everything."""
    before = _Snapshot.of(state)
    text = _move_text(state, move)
    state.apply(move)
    after = _Snapshot.of(state)
    if before.ply is not None:
        assert after.ply == before.ply + 1, \
            f"{_where(state, before.text, text)}: ply went from {before.ply} to {after.ply}, not up by 1"
    assert after.text != before.text or after.player != before.player, \
        f"{_where(state, before.text, text)}: neither the position text nor the side to move changed"
    state.undo()
    before.assert_same(_Snapshot.of(state), f"{_where(state, before.text, text)}: after apply and undo")


def check_clone(state: State, rng: random.Random | None = None, searchable: bool = True) -> None:
    """A clone equals ``state``, and a move on either never shows in the other (for games without
    ``undo``, the move on the original is made on a second clone)."""
    rng = rng or random.Random(0)
    where = _where(state)
    original = _Snapshot.of(state)
    copy = state.clone()
    assert copy is not state and type(copy) is type(state), f"{where}: clone() must return a new {type(state).__name__}"
    original.assert_same(_Snapshot.of(copy), f"{where}: the clone")
    moves = state.legal_moves()
    if not moves:
        return
    move = rng.choice(moves)
    text = _move_text(state, move)
    copy.apply(move)
    at = _where(state, original.text, text)
    original.assert_same(_Snapshot.of(state), f"{at}: the original after a move on its clone")
    if not searchable:
        other, copy = state.clone(), state.clone()
        other.apply(move)
        original.assert_same(_Snapshot.of(copy), f"{at}: a clone after a move on another clone of the same state")
        return
    copy.undo()
    original.assert_same(_Snapshot.of(copy), f"{at}: the clone after apply and undo")
    state.apply(move)
    original.assert_same(_Snapshot.of(copy), f"{at}: a clone after a move on the original")
    state.undo()


def check_undo_history(state: State, path: list["_Snapshot"]) -> None:
    """Undo a clone of ``state`` move by move back through ``path`` (a snapshot of every position of
    its game, first to last: see :meth:`_Snapshot.of`), then check that the original did not move."""
    copy = state.clone()
    final = path[-1]
    for back, expected in enumerate(reversed(path[:-1]), start=1):
        copy.undo()
        expected.assert_same(_Snapshot.of(copy), f"{_where(state, final.text)}: undoing the game on a clone, "
                                                  f"the position {back} plies back")
    final.assert_same(_Snapshot.of(state), f"{_where(state, final.text)}: the original after undoing its clone")


def check_text_round_trip(state: State) -> None:
    """``game.new_state(state.to_text())`` is the same position (skipped if new_state is not implemented).

    Only the position is compared: history (repetitions, move counters a text
    format leaves out) may end a game that the reloaded position continues."""
    where = _where(state)
    text = state.to_text()
    try:
        loaded = state.game.new_state(text)
    except NotImplementedError:
        return
    assert loaded.to_text() == text, f"{where}: new_state(to_text()) reads back as {loaded.to_text()!r}"
    key = _key(state)
    if key is not None:
        assert _key(loaded) == key, f"{where}: new_state(to_text()) has key {_key(loaded)!r}, not {key!r}"
    if not state.is_terminal():
        assert loaded.current_player() == state.current_player(), \
            f"{where}: new_state(to_text()) has player {loaded.current_player()} to move, not {state.current_player()}"
        assert loaded.legal_moves() == state.legal_moves(), (
            f"{where}: new_state(to_text()) has legal moves {_moves_text(loaded)}, not {_moves_text(state)}")


# ---------------------------------------------------------------------------- compiled kernels

def check_kernels(state: State, kernels: Any = None, playout_seed: int | None = None,
                  learnable: bool | None = None) -> None:
    """The compiled kernels (docs/kernels.md) agree with ``state``: legal moves in order, outcome, side to
    move, the position after each legal move and, where present, the learner kernels.  ``kernels``
    defaults to ``state.game.kernels()``; with ``playout_seed``, the kernels' own ``playout`` (where they
    have one) from here, seeded, must end with an outcome code and repeat itself.  A position the State has ended by repetition is not for this
    check (the kernels cannot know it).  The learner kernels are compared where the game is learnable
    (found out when not given).  ``state`` is left as it was."""
    game = state.game
    kernels = _kernels(game) if kernels is None else kernels
    assert kernels is not None, f"{game.name}: kernels() is None: the game has no compiled kernels to check"
    if learnable is None:
        learnable = LEARNABLE in layers_of(game)
    where = _where(state)
    pos = kernels.state_to_pos(state)
    assert isinstance(pos, np.ndarray) and pos.dtype == np.int64 and pos.shape == (kernels.pos_size,), \
        (f"{where}: state_to_pos gave {type(pos).__name__} {getattr(pos, 'dtype', '')} "
         f"{getattr(pos, 'shape', '')}; expected an int64 array of shape ({kernels.pos_size},) (pos_size)")
    kept = pos.copy()
    out = np.empty(kernels.max_moves, dtype=np.int64)
    n = kernels.gen_moves(pos, out)
    assert np.array_equal(pos, kept), f"{where}: gen_moves changed the position array {kept.tolist()} to {pos.tolist()}"
    codes = [int(c) for c in out[:n]]
    moves = state.legal_moves()
    listed = [kernels.code_to_move(state, code) for code in codes]
    assert listed == moves, (f"{where}: the kernels' gen_moves gives {len(codes)} moves (codes {codes}, i.e. "
                             f"{_moves_text(state, listed)}), but legal_moves() is {_moves_text(state)}, in that order")
    if state.is_terminal():
        a, b = (float(r) for r in state.returns())
        expected = 0 if a > b else 1 if b > a else 2
    else:
        expected = -1
    result = kernels.outcome(pos, n)
    assert result == expected, (f"{where}: the kernels' outcome is {result}, but the State's is {expected} "
                                f"(-1 goes on, 0/1 that player won, 2 draw; returns() {state.returns()!r})")
    if moves:
        player = kernels.current_player(pos)
        assert player == state.current_player(), \
            f"{where}: the kernels' current_player is {player}, the State's {state.current_player()}"
    learner = learnable and _has_learner_kernels(kernels)
    if learner:
        observation = np.full(tuple(game.observation_shape), np.nan, dtype=np.float32)
        kernels.encode(pos, observation)
        expected_observation = state.observation()
        differ = np.argwhere(~(observation == expected_observation))
        assert len(differ) == 0, (f"{where}: the kernels' encode differs from observation() at "
                                  f"{len(differ)} entries, first at index {tuple(differ[0].tolist())}: "
                                  f"{observation[tuple(differ[0])]} instead of "
                                  f"{expected_observation[tuple(differ[0])]}")
        key, state_key = int(kernels.position_key(pos)) & _MASK64, _key(state)
        assert state_key is not None, f"{where}: the kernels have position_key, but the State has no key()"
        assert key == state_key & _MASK64, \
            f"{where}: the kernels' position_key is {key:#x}, key() is {state_key & _MASK64:#x} (as unsigned 64-bit)"
    for code, move in zip(codes, moves):
        at = _where(state, None, _move_text(state, move))
        back = kernels.move_to_code(state, move)
        assert back == code, f"{at}: move_to_code gave {back!r}, but gen_moves lists the move as code {code}"
        if learner:
            index, expected_index = kernels.action_of(pos, code), state.action_index(move)
            assert index == expected_index, f"{at}: the kernels' action_of is {index}, action_index {expected_index}"
        child = pos.copy()
        kernels.apply_move(child, code)
        played = state.clone()               # not apply and undo: kernels need no undo (playable games)
        played.apply(move)
        after = kernels.state_to_pos(played)
        assert np.array_equal(child, after), (f"{at}: the kernels' apply_move gives the position array "
                                              f"{child.tolist()}, state_to_pos after apply() {after.tolist()}")
    if playout_seed is not None and hasattr(kernels, "playout"):
        ends = []
        for _ in range(2):
            _seed_numba()(playout_seed)
            played = pos.copy()
            ends.append((kernels.playout(played, 10_000), played.tolist()))
        assert ends[0][0] in (0, 1, 2), f"{where}: playout returned {ends[0][0]}, not an outcome code 0, 1 or 2"
        assert ends[0] == ends[1], (f"{where}: two playouts after seed({playout_seed}) differ: they end with "
                                    f"{ends[0]} and {ends[1]} (the playout must draw from the seeded generator)")


@functools.cache
def _seed_numba():
    """A compiled function seeding numba's generator, which compiled playouts draw from (not NumPy's)."""
    from numba import njit

    @njit
    def seed(s):
        np.random.seed(s)
    return seed


def _kernels(game: Game) -> Any | None:
    """``game.kernels()``, checked for the whole contract (and all or none of the learner kernels)."""
    kernels = game.kernels()
    if kernels is None:
        return None
    missing = missing_kernel_attributes(kernels)
    assert not missing, f"{game.name}: kernels() lacks {', '.join(missing)} of the contract in docs/kernels.md"
    present = [name for name in LEARNER_KERNEL_ATTRIBUTES if hasattr(kernels, name)]
    assert not present or len(present) == len(LEARNER_KERNEL_ATTRIBUTES), (
        f"{game.name}: kernels() has {', '.join(present)} but not "
        f"{', '.join(n for n in LEARNER_KERNEL_ATTRIBUTES if n not in present)}: the learner kernels come as all three")
    return kernels


def _has_learner_kernels(kernels: Any) -> bool:
    return all(hasattr(kernels, name) for name in LEARNER_KERNEL_ATTRIBUTES)


def _repetition_draw(state: State, path: list["_Snapshot"]) -> bool:
    """Whether the State ended the game as a draw at a position seen before (a repetition rule, which
    kernels do not know: docs/kernels.md)."""
    if not state.is_terminal() or any(float(r) for r in state.returns()):
        return False
    key = _key(state)
    text = state.to_text()
    return any((snap.key == key) if key is not None else (snap.text == text) for snap in path)


# ---------------------------------------------------------------------------- learner encodings

def check_encodings(state: State) -> None:
    """Observation shape/dtype/values/freshness; action indices in range, distinct, legal mask."""
    game = state.game
    where = _where(state)
    shape, n = tuple(game.observation_shape), game.num_actions
    observation = state.observation()
    assert isinstance(observation, np.ndarray), f"{where}: observation() must be a numpy array"
    assert observation.shape == shape, f"{where}: observation() has shape {observation.shape}, not {shape}"
    assert observation.dtype == np.float32, f"{where}: observation() has dtype {observation.dtype}, not float32"
    assert np.isfinite(observation).all(), f"{where}: observation() holds NaN or infinity"
    kept = observation.copy()
    moves = state.legal_moves()
    if moves:                                  # a search keeps observations while it moves on
        state.apply(moves[0])
        state.observation()
        state.undo()
    assert np.array_equal(observation, kept), (f"{where}: an observation changed after a later observation() "
                                               f"call: return a new array each time")
    assert np.array_equal(state.observation(), kept), f"{where}: observation() differs between two calls"

    indices: dict[int, list] = {}
    for move in moves:
        index = state.action_index(move)
        assert isinstance(index, (int, np.integer)) and not isinstance(index, bool), \
            f"{_where(state, None, _move_text(state, move))}: action_index gave {index!r}, not an int"
        assert 0 <= index < n, \
            f"{_where(state, None, _move_text(state, move))}: action_index {index} is outside range({n})"
        indices.setdefault(int(index), []).append(move)
    shared = {i: ms for i, ms in indices.items() if len(ms) > 1}
    if shares_action_indices(state):
        for index, expected in indices.items():
            found = list(state.moves_for_action(index))
            assert found == expected, (f"{where}: moves_for_action({index}) gave {found!r}; the legal moves "
                                       f"at that index, in legal-move order, are {expected!r}")
    else:
        assert not shared, (f"{where}: legal moves share action indices "
                            f"({', '.join(f'{i}: {_moves_text(state, ms)}' for i, ms in shared.items())}); "
                            f"give every legal move its own index, or offer moves_for_action(index)")
    if decodes_actions(state):
        for index, expected in indices.items():
            found = state.move_for_action(index)
            assert found == expected[0], f"{where}: move_for_action({index}) gave {found!r}, not {expected[0]!r}"
    mask = state.legal_mask()
    assert isinstance(mask, np.ndarray) and mask.dtype == bool and mask.shape == (n,), \
        f"{where}: legal_mask() must be a bool array of shape ({n},), not {getattr(mask, 'dtype', type(mask))} " \
        f"{getattr(mask, 'shape', '')}"
    assert set(np.flatnonzero(mask).tolist()) == set(indices), \
        (f"{where}: legal_mask() is True at {np.flatnonzero(mask).tolist()}, "
         f"but the legal moves' indices are {sorted(indices)}")


def check_augment(state: State) -> None:
    """``game.augment`` on a real example: shapes kept, the example itself included, the policy's
    values only moved around (a symmetry permutes actions), its inputs left alone."""
    game = state.game
    where = f"{game.name}: augment() at {state.to_text()!r}"
    observation = np.array(state.observation(), dtype=np.float32, copy=True)
    policy = np.zeros(game.num_actions, dtype=np.float32)
    moves = state.legal_moves()
    for rank, move in enumerate(moves):     # distinct values, so a permutation is visible
        policy[state.action_index(move)] += (rank + 1) / (len(moves) * (len(moves) + 1) / 2)
    inputs = observation.copy(), policy.copy()
    copies = game.augment(observation, policy)
    assert np.array_equal(observation, inputs[0]) and np.array_equal(policy, inputs[1]), \
        f"{where}: augment() changed the arrays it was given"
    assert len(copies) >= 1, f"{where}: augment() must return at least the example itself"
    assert any(np.array_equal(o, observation) and np.array_equal(p, policy) for o, p in copies), \
        f"{where}: the example itself is not among augment()'s copies"
    for i, (o, p) in enumerate(copies):
        assert o.shape == observation.shape and p.shape == policy.shape, \
            f"{where}: copy {i} has shapes {o.shape} and {p.shape}, not {observation.shape} and {policy.shape}"
        assert np.allclose(np.sort(p), np.sort(policy)), \
            f"{where}: copy {i}'s policy is not a permutation of the policy"


# ---------------------------------------------------------------------------- records

def check_records(state: State, start: str, moves: list[str]) -> None:
    """The finished game from position text ``start`` by ``moves`` (move texts) to ``state`` as a
    record: ``game.format_records`` writes it; where the game reads its records back
    (``read_records``), the moves read back replay to the same final position."""
    game = state.game
    final = state.to_text()
    record = GameRecord(game=game.name, players=("first", "second"), start=start, moves=list(moves),
                        returns=tuple(float(r) for r in state.returns()), reason=state.outcome_reason())
    text = game.format_records([record])
    assert isinstance(text, str) and text.strip(), f"{game.name}: format_records gave {text!r} for a finished game"
    reader = record_reader(game)
    if reader is None:
        return
    records = reader(text)
    assert len(records) == 1, f"{game.name}: reading back one formatted game gave {len(records)} records"
    replay = game.new_state(records[0].start) if records[0].start else game.new_initial_state()
    for move_text in records[0].moves:
        replay.apply(replay.parse_move(move_text))
    assert replay.to_text() == final, (f"{game.name}: the game read back from its record ends at "
                                       f"{replay.to_text()!r}, not {final!r}")


# ---------------------------------------------------------------------------- helpers

@dataclass
class _Snapshot:
    """What must come back after undo: position text, key, side to move, legal moves, result, ply."""

    text: str
    key: int | None
    player: int | None
    legal: list
    terminal: bool
    returns: tuple
    ply: int | None

    @classmethod
    def of(cls, state: State) -> "_Snapshot":
        legal = state.legal_moves()
        terminal = state.is_terminal()
        try:
            ply = state.ply
        except NotImplementedError:
            ply = None
        return cls(state.to_text(), _key(state), None if terminal else state.current_player(), legal,
                   terminal, tuple(float(r) for r in state.returns()), ply)

    def assert_same(self, other: "_Snapshot", what: str) -> None:
        for name in ("text", "key", "terminal", "player", "legal", "returns", "ply"):
            mine, theirs = getattr(self, name), getattr(other, name)
            assert mine == theirs, f"{what}: {_FIELD[name]} is {theirs!r}, expected {mine!r}"


_FIELD = {"text": "to_text()", "key": "key()", "player": "current_player()", "legal": "legal_moves()",
          "terminal": "is_terminal()", "returns": "returns()", "ply": "ply"}


def _key(state: State) -> int | None:
    try:
        return state.key()
    except NotImplementedError:
        return None


def _where(state: State, text: str | None = None, move: str | None = None) -> str:
    where = f"{state.game.name}: at {text if text is not None else state.to_text()!r}"
    return where + (f", move {move}" if move else "")


def _move_text(state: State, move: Any) -> str:
    try:
        return repr(state.move_to_text(move))
    except Exception:
        return repr(move)


def _moves_text(state: State, moves: list | None = None) -> str:
    return "[" + ", ".join(_move_text(state, m) for m in (state.legal_moves() if moves is None else moves)) + "]"
