"""Hub lines, positions and moves for English checkers: the one reader and writer of Hub in plyground.

Lines (Scan's protocol.txt, "general syntax"): ``command arg=value ...``; a
value with a space, an '=' or nothing in it is quoted (``pv="11-15 23-19"``,
``author=""``); an argument without ``=value`` is a flag (``go think``).

Positions follow pydraughts, the Hub client that plays English checkers
(variant "english"): one letter for the side to move, then one per square.
pydraughts stores English checkers as its own draughts board, on which White
moves first, seen from the other side; so in its position text

* the letters are those of that board: ``w``/``W`` are the men/kings of the
  side that moves first (Black in checkers), ``b``/``B`` those of White,
  ``e`` an empty square, and the first letter is ``W`` when Black is to move;
* the squares run backwards: letter k (1-32, after the side) is square 33-k.

The starting position is ``Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww``.  Moves, on
the other hand, use the ordinary square numbers 1-32: ``11-15`` for a move,
``from x to x captured x captured ...`` for a capture (``15x22x18``: from 15
to 22, taking the piece on 18; a multi-jump lists every piece it takes, in
any order, and none of the squares it lands on in between).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from plyground.errors import MoveError, PositionError, UsageError, clip

from ..board import KING_ROW
from ..kernels import BLACK_KINGS, BLACK_MEN, SIDE, WHITE_KINGS, WHITE_MEN, state_to_pos
from ..notation import format_fen, move_captured, move_from, move_to

SQUARES = 32
#: The variant names a client may set (pydraughts calls English checkers "english", and "american" too).
VARIANTS = ("english", "american")
#: Letters of the position text, by the position array's piece index (kernels.py).
_LETTERS = {BLACK_MEN: "w", BLACK_KINGS: "W", WHITE_MEN: "b", WHITE_KINGS: "B"}
_PIECE_OF = {letter: kind for kind, letter in _LETTERS.items()}
#: The side letter for each player (0: Black, who moves first, is pydraughts' "W").
_SIDE_LETTERS = ("W", "B")
#: Scores are in men; a win (loss) in N plies is +(-) WIN_SCORE - N/100, as Scan writes 99.xx for the end in sight.
WIN_SCORE = 100.0
_WIN_THRESHOLD = 90.0

INITIAL_POSITION = "W" + "b" * 12 + "e" * 8 + "w" * 12


# ------------------------------------------------------------------ lines

@dataclass(frozen=True)
class HubLine:
    """One line: its command and its arguments in order (a flag has the value "")."""

    command: str
    args: dict[str, str]

    def has(self, name: str) -> bool:
        return name in self.args


_ARGUMENT = re.compile(r'\s*(?P<name>[^\s="]+)(?:=(?:"(?P<quoted>[^"]*)"|(?P<plain>[^\s"]*)))?(?=\s|$)')


def command_of(line: str) -> str:
    """The command of a Hub line (its first word), whether its arguments can be read or not."""
    return line.strip().partition(" ")[0]


def parse_line(line: str) -> HubLine:
    """The command and arguments of ``line``; UsageError saying what cannot be read."""
    text = line.strip()
    if not text:
        raise UsageError("empty line: a Hub line is a command followed by arguments name=value")
    command, rest = command_of(text), text.partition(" ")[2]
    args: dict[str, str] = {}
    at = 0
    while rest[at:].strip():
        match = _ARGUMENT.match(rest, at)
        if match is None:
            left = rest[at:].strip()
            problem = "a quote is not closed" if left.count('"') % 2 else "it is not name=value"
            raise UsageError(f"cannot read {clip(left)!r} in {clip(text)!r}: {problem} (arguments are "
                             f'name=value, name="value with spaces" or a flag name)')
        value = match.group("quoted") if match.group("quoted") is not None else match.group("plain") or ""
        args[match.group("name")] = value
        at = match.end()
    return HubLine(command, args)


def format_line(command: str, args: Mapping[str, Any] | None = None) -> str:
    """``command name=value ...``: None makes a flag, True/False are true/false, values are quoted as needed."""
    parts = [command]
    for name, value in (args or {}).items():
        if value is None:
            parts.append(name)
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        text = text.replace('"', "'")            # the protocol has no escapes: a '"' would end the value
        if not text or any(c.isspace() or c == "=" for c in text):
            text = f'"{text}"'
        parts.append(f"{name}={text}")
    return " ".join(parts)



# ------------------------------------------------------------------ positions

def format_position(pos) -> str:
    """The Hub position text of a position array (kernels.py layout)."""
    letters = [_SIDE_LETTERS[int(pos[SIDE])]]
    for k in range(1, SQUARES + 1):
        square = SQUARES - k                     # letter k is square 33-k, 0-based here
        letter = "e"
        for kind, name in _LETTERS.items():
            if (int(pos[kind]) >> square) & 1:
                letter = name
        letters.append(letter)
    return "".join(letters)


def parse_position(text: str) -> list[int]:
    """A position array (as a list, counters at zero) from Hub position text; PositionError naming the problem."""
    body = text.strip() if isinstance(text, str) else ""
    if len(body) != SQUARES + 1:
        draughts = " (a 50-square draughts position: this engine plays English checkers)" if len(body) == 51 else ""
        raise PositionError(f"bad position {clip(body)!r}: it has {len(body)} characters, expected 33, the side to "
                            f"move (W: Black, B: White) then 32 squares of w, b, W, B or e{draughts}; the start "
                            f"is {INITIAL_POSITION}")
    if body[0] not in _SIDE_LETTERS:
        raise PositionError(f"bad position {clip(body)!r}: it starts with {body[0]!r}; the side to move is W "
                            f"(Black, who moves first) or B (White)")
    pos = [0] * 7
    pos[SIDE] = _SIDE_LETTERS.index(body[0])
    for k, letter in enumerate(body[1:], start=1):
        if letter == "e":
            continue
        kind = _PIECE_OF.get(letter)
        if kind is None:
            raise PositionError(f"bad position {clip(body)!r}: letter {k + 1} is {letter!r}; a square is w, b "
                                f"(men), W, B (kings) or e (empty)")
        square = SQUARES - k
        owner = 0 if kind in (BLACK_MEN, BLACK_KINGS) else 1
        if kind in (BLACK_MEN, WHITE_MEN) and (KING_ROW[owner] >> square) & 1:
            raise PositionError(f"bad position {clip(body)!r}: a {('Black', 'White')[owner]} man on square "
                                f"{square + 1}, its king row, would have been crowned")
        pos[kind] |= 1 << square
    for owner in (0, 1):
        count = bin(pos[2 * owner] | pos[2 * owner + 1]).count("1")
        if count > 12:
            raise PositionError(f"bad position {clip(body)!r}: {('Black', 'White')[owner]} has {count} pieces; "
                                f"a side has at most 12")
    return pos


def state_position(state) -> str:
    """The Hub position text of a checkers state."""
    return format_position(state_to_pos(state))


def state_from_position(game, text: str):
    """A new state of ``game`` (checkers) at the Hub position ``text``."""
    return game.new_state(format_fen(parse_position(text)))


def game_position(state) -> tuple[str, list[str]]:
    """The start of ``state``'s game as Hub position text, and the moves played since, as Hub moves."""
    played = state.history()
    start = state.clone()
    for _ in played:
        start.undo()
    text = state_position(start)
    moves = []
    for move in played:
        moves.append(state_move(start, move))
        start.apply(move)
    return text, moves


# ------------------------------------------------------------------ moves

def format_move(pos, code: int) -> str:
    """``11-15``, or ``from x to x captured ...`` (captured squares in increasing order)."""
    frm, to, captured = move_from(code) + 1, move_to(code) + 1, move_captured(code)
    if not captured:
        return f"{frm}-{to}"
    taken = [s + 1 for s in range(SQUARES) if (captured >> s) & 1]
    return "x".join(str(n) for n in (frm, to, *taken))


def moves_text(pos, legal: Sequence[int]) -> str:
    return ", ".join(format_move(pos, m) for m in legal) or "(none)"


_MOVE_SHAPE = re.compile(r"[0-9]{1,2}(?:[-xX][0-9]{1,2})+")


def parse_move(pos, legal: Sequence[int], text: str) -> int:
    """The legal move (a code of ``legal``) that the Hub move ``text`` names; MoveError saying why none.

    ``from-to`` and ``fromxto`` name a move by its ends when only one legal
    move has them; the captured squares after them tell captures apart.
    """
    stripped = text.strip() if isinstance(text, str) else ""
    if not _MOVE_SHAPE.fullmatch(stripped):
        raise MoveError(f"cannot read move {clip(stripped)!r}: a Hub move is from-to (11-15) or "
                        f"from x to x captured... (15x22x18); legal moves: {moves_text(pos, legal)}")
    numbers = [int(n) for n in re.split("[-xX]", stripped)]
    bad = [n for n in numbers if not 1 <= n <= SQUARES]
    if bad:
        raise MoveError(f"cannot read move {stripped!r}: there is no square {bad[0]} (squares are 1-32)")
    frm, to, taken = numbers[0] - 1, numbers[1] - 1, numbers[2:]
    candidates = [m for m in legal if move_from(m) == frm and move_to(m) == to]
    if taken:
        mask = sum(1 << (n - 1) for n in set(taken))
        candidates = [m for m in candidates if move_captured(m) == mask]
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        raise MoveError(f"{stripped} is ambiguous: it could be "
                        f"{' or '.join(format_move(pos, m) for m in candidates)}; list the captured squares")
    raise MoveError(f"{stripped} is not a legal move here; legal moves: {moves_text(pos, legal)}")


def state_move(state, move) -> str:
    """A checkers state's legal ``move`` as a Hub move."""
    return format_move(state_to_pos(state), int(move))


def parse_state_move(state, text: str) -> int:
    """The legal move of a checkers state that the Hub move ``text`` names (MoveError otherwise)."""
    return parse_move(state_to_pos(state), state.legal_moves(), text)


# ------------------------------------------------------------------ scores

def win_score(plies: int, winning: bool) -> float:
    """The score of a win (or loss) in ``plies``: 99.95 is a win in 5 plies, as pydraughts reads it."""
    value = WIN_SCORE - plies / 100
    return value if winning else -value


def score_words(score: float) -> str:
    """A Hub score in words: ``+0.42 men``, or ``win in 5 plies`` for the scores of :func:`win_score`."""
    if abs(score) >= _WIN_THRESHOLD:
        plies = max(0, int(round((WIN_SCORE - abs(score)) * 100)))
        return f"{'win' if score > 0 else 'loss'} in {plies} {'ply' if plies == 1 else 'plies'}"
    return f"{score + 0.0:+.2f} men"
