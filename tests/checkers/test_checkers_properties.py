"""Property-based tests: random games keep every invariant, and random or mutated
move text, FEN and PDN either read correctly or fail with the documented error.

Derandomized with modest example counts, so the suite is fast and repeatable.
"""
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plyground.errors import MoveError, PositionError, RecordError
from plyground.games.checkers import CheckersGame
from plyground.games.checkers.notation import INITIAL_FEN, capture_paths, full_text
from plyground.games.checkers.pdn import PdnError, read_pdn

GAME = CheckersGame()
PROPERTY = settings(max_examples=60, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

choices = st.lists(st.integers(min_value=0, max_value=10_000), max_size=80)
NOISE = "0123456789-xX :,.KBWk\t!?{}()[]$*/\"\n"


def walk(picks, game=GAME):
    state = game.new_initial_state()
    for pick in picks:
        moves = state.legal_moves()
        if not moves:
            break
        state.apply(moves[pick % len(moves)])
    return state


def mutate(text, edits, alphabet=NOISE):
    """Apply (kind, place, char) edits: 0 delete, 1 insert, 2 replace, 3 duplicate a slice."""
    chars = list(text)
    for kind, place, char in edits:
        i = place % (len(chars) + 1)
        c = alphabet[char % len(alphabet)]
        if kind == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif kind == 1:
            chars.insert(i, c)
        elif kind == 2 and chars:
            chars[min(i, len(chars) - 1)] = c
        elif kind == 3:
            chars[i:i] = chars[i:i + 1 + char % 7]
    return "".join(chars)


edits = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 10_000), st.integers(0, 1000)),
                 min_size=1, max_size=4)


# ------------------------------------------------------------- random games

@PROPERTY
@given(choices)
def test_random_games_keep_every_invariant(picks):
    state = GAME.new_initial_state()
    start = (state.to_text(), state.key())
    for pick in picks:
        moves = state.legal_moves()
        if not moves:
            assert state.is_terminal() and state.outcome_reason()
            break
        # FEN round trip; the incremental key equals the key computed from scratch.
        again = GAME.new_state(state.to_text())
        assert again.to_text() == state.to_text() and again.key() == state.key()
        assert again.legal_moves() == moves or state.repetition_count() > 1
        # Every legal move reads back from its text, short and full.
        for move in moves:
            assert state.parse_move(state.move_to_text(move)) == move
            assert state.parse_move(full_text(state._pos, move)) == move
        mask = state.legal_mask()
        assert mask.sum() <= len(moves) and all(mask[state.action_index(m)] for m in moves)
        assert all(move in state.moves_for_action(state.action_index(move)) for move in moves)
        state.apply(moves[pick % len(moves)])
    for _ in range(state.ply):
        state.undo()
    assert (state.to_text(), state.key(), state.ply, state.history()) == (*start, 0, [])


@PROPERTY
@given(choices, choices)
def test_clones_do_not_share_anything(first, second):
    state = walk(first)
    copy = state.clone()
    before = (state.to_text(), state.key(), state.ply, state.history(), state.legal_moves())
    for pick in second:
        moves = copy.legal_moves()
        if not moves:
            break
        copy.apply(moves[pick % len(moves)])
    while copy.ply:
        copy.undo()
    assert (state.to_text(), state.key(), state.ply, state.history(), state.legal_moves()) == before


# --------------------------------------------------------------- move text

def _check_parse(state, text):
    try:
        move = state.parse_move(text)
    except MoveError as exc:
        assert str(exc)
        return
    # Accepted: it must be a legal move whose ends are the text's first and last squares.
    assert move in state.legal_moves()
    numbers = [int(n) for n in re.findall(r"[0-9]+", text)]
    assert numbers[0] == (move & 31) + 1 and numbers[-1] == ((move >> 5) & 31) + 1
    if len(numbers) > 2:       # the inner squares lie on one of the move's paths, in order
        paths = [[s + 1 for s in p] for p in capture_paths(state._pos, move)]
        assert any(_in_order(numbers[1:-1], p[1:-1]) for p in paths)


def _in_order(inner, path):
    rest = iter(path)
    return all(any(n == p for p in rest) for n in inner)


@PROPERTY
@given(choices, st.integers(0, 100), edits)
def test_mutated_move_text(picks, which, changes):
    state = walk(picks)
    moves = state.legal_moves()
    text = full_text(state._pos, moves[which % len(moves)]) if moves else "11-15"
    _check_parse(state, mutate(text, changes))


@PROPERTY
@given(choices, st.text(max_size=20))
def test_arbitrary_move_text(picks, text):
    _check_parse(walk(picks), text)


# --------------------------------------------------------------------- FEN

def fen_oracle(text):
    """A deliberately plain reading of valid FEN: (side, {square: piece letter})."""
    body = text.strip()
    body = body[:-1] if body.endswith(".") else body
    side, *lists = [f.strip() for f in body.split(":")]
    lists = [f for f in lists if not re.fullmatch(r"[HhFf]\s*[0-9]+", f)]    # lidraughts' counters (:H0:F6)
    squares = {}
    for field in lists:
        colour = field[0].upper()
        for item in filter(None, (i.strip() for i in field[1:].split(","))):
            king = item[0] in "Kk"
            numbers = [int(n) for n in re.findall(r"[0-9]+", item)]
            for number in range(numbers[0], numbers[-1] + 1):
                squares[number] = (colour.lower() if not king else colour)
    return side.upper(), squares


def position_of(state):
    pos = state._pos
    letters = "bBwW"
    return ("B" if state.current_player() == 0 else "W",
            {s + 1: letters[k] for k in range(4) for s in range(32) if (int(pos[k]) >> s) & 1})


@PROPERTY
@given(choices, edits)
def test_mutated_fen(picks, changes):
    text = mutate(walk(picks).to_text(), changes)
    try:
        state = GAME.new_state(text)
    except PositionError as exc:
        assert str(exc).startswith("bad FEN") or "FEN must be text" in str(exc)
        return
    assert position_of(state) == fen_oracle(text)


@PROPERTY
@given(st.text(max_size=40))
def test_arbitrary_fen(text):
    try:
        state = GAME.new_state(text)
    except PositionError:
        return
    assert position_of(state) == fen_oracle(text)


# --------------------------------------------------------------------- PDN

PDN = f"""\
[Event "one"]
[Black "a"]
[White "b"]

1. 11-15 {{opening}} 22-18 2. 15x22 25x18 (2... 26x17 $2) 3. 8-11 29-25 1-0

[Event "two"]
[FEN "{INITIAL_FEN}"]

1. 9-13 22-18 2. 13-17 21x14 3. 10x17 *

[Event "three"]
1. 11-16 24-20 2. 16-19 23x16 3. 12x19 1/2-1/2
"""


@PROPERTY
@given(edits)
def test_mutated_pdn(changes):
    text = mutate(PDN, changes)
    try:
        strict = list(read_pdn(text))
    except RecordError as exc:
        assert isinstance(exc, PdnError) and exc.game_number >= 1 and exc.line >= 1
        strict = None
    reader = read_pdn(text, strict=False)
    lenient = list(reader)                      # never raises
    lines = text.count("\n") + 1
    assert all(isinstance(e, PdnError) and 1 <= e.line <= lines for e in reader.errors)
    if strict is not None:
        assert reader.errors == [] and [g.moves for g in lenient] == [g.moves for g in strict]
    for game in lenient:
        assert len(game.codes) == len(game.moves)
        state = game.start_state()
        for text_move, code in zip(game.moves, game.codes):
            numbers = [int(n) for n in re.findall(r"[0-9]+", text_move)]
            assert code in state.legal_moves()
            assert numbers[0] == (code & 31) + 1 and numbers[-1] == ((code >> 5) & 31) + 1
            state.apply(code)


@PROPERTY
@given(st.text(max_size=60))
def test_arbitrary_pdn(text):
    reader = read_pdn(text, strict=False)
    list(reader)
    assert all(isinstance(e, PdnError) for e in reader.errors)
