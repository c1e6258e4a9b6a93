"""Checkers notation: PDN move text (11-15, 15x22, 22x15x8) and PDN FEN positions.

Works on the engine's position arrays and move codes (see kernels.py) so the
same code serves the State, the PDN reader and the renderer.  Every user
mistake becomes a MoveError / PositionError whose message says what is wrong
and, for moves, what would be legal.
"""
from __future__ import annotations

import re
from typing import Sequence

from plyground.errors import MoveError, PositionError, clip

from .board import JUMP, KING_ROW, MAN_DIRECTIONS, STEP
from .kernels import BLACK_KINGS, BLACK_MEN, NO_PROGRESS, SIDE, WHITE_KINGS, WHITE_MEN

SIDE_NAMES = ("Black", "White")
_STEP = STEP.tolist()
_JUMP = JUMP.tolist()

INITIAL_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


class AmbiguousMoveError(MoveError):
    """Short move text that names two different legal captures; ``alternatives`` are their codes."""

    def __init__(self, message: str, alternatives: Sequence[int]) -> None:
        super().__init__(message)
        self.alternatives = list(alternatives)


# ------------------------------------------------------------------- moves

def move_from(code: int) -> int:
    return code & 31


def move_to(code: int) -> int:
    return (code >> 5) & 31


def move_captured(code: int) -> int:
    return code >> 10


def piece_at(pos, s: int) -> tuple[int, bool] | None:
    """(owner 0/1, is_king) of the piece on 0-based square ``s``, or None if empty."""
    for kind in range(4):
        if (int(pos[kind]) >> s) & 1:
            return kind // 2, kind % 2 == 1
    return None


def piece_name(owner: int, king: bool) -> str:
    return f"{SIDE_NAMES[owner]} {'king' if king else 'man'}"


def capture_paths(pos, code: int) -> list[tuple[int, ...]]:
    """Every landing sequence (0-based, start first) of capture ``code`` in ``pos``.

    A move is its start, end and captured set; when several jump orders give
    the same move (a king circling a group) they are all returned, in search order.
    """
    frm, to, remaining = move_from(code), move_to(code), move_captured(code)
    if not remaining:
        return [(frm, to)]
    owner_king = piece_at(pos, frm)
    if owner_king is None:
        return []
    owner, king = owner_king
    directions = range(4) if king else MAN_DIRECTIONS[owner]
    occupied = (int(pos[0]) | int(pos[1]) | int(pos[2]) | int(pos[3])) & ~(1 << frm)
    paths: list[tuple[int, ...]] = []
    path = [frm]

    def search(cur: int, left: int) -> None:
        if not left:
            if cur == to:
                paths.append(tuple(path))
            return
        for d in directions:
            over, land = _STEP[d][cur], _JUMP[d][cur]
            if land >= 0 and (left >> over) & 1 and not (occupied >> land) & 1:
                path.append(land)
                search(land, left & ~(1 << over))
                path.pop()

    search(frm, remaining)
    return paths


def full_text(pos, code: int) -> str:
    """The move with every landing square: 11-15, 15x22, 22x15x8."""
    if not move_captured(code):
        return f"{move_from(code) + 1}-{move_to(code) + 1}"
    paths = capture_paths(pos, code)
    squares = paths[0] if paths else (move_from(code), move_to(code))
    return "x".join(str(s + 1) for s in squares)


def move_text(pos, code: int, legal: Sequence[int]) -> str:
    """PDN text: the short form (22x8) unless another legal capture shares its ends."""
    frm, to = move_from(code), move_to(code)
    if not move_captured(code):
        return f"{frm + 1}-{to + 1}"
    ends = code & 1023
    if sum(1 for m in legal if m & 1023 == ends) > 1:
        return full_text(pos, code)
    return f"{frm + 1}x{to + 1}"


def moves_text(pos, legal: Sequence[int]) -> str:
    """All legal moves as text, comma separated, or '(none)'."""
    return ", ".join(move_text(pos, m, legal) for m in legal) or "(none)"


_MOVE_SHAPE = re.compile(r"[0-9]+(?:\s*[-xX]\s*[0-9]+){1,24}")   # at most 24 landings
_SEPARATOR = re.compile(r"\s*[-xX]\s*")


def parse_squares(text: str) -> list[int]:
    """0-based squares named by move text, or MoveError for text that is not a move at all."""
    if not isinstance(text, str):
        raise MoveError(f"move text must be a string, not {type(text).__name__}")
    stripped = text.strip()
    if not _MOVE_SHAPE.fullmatch(stripped):
        raise MoveError(f"cannot read move {clip(text)!r}: write squares 1-32 joined by '-' for a move "
                        f"or 'x' for a capture, e.g. 11-15, 15x22 or 22x15x8")
    squares = []
    for part in _SEPARATOR.split(stripped):
        number = digits_value(part)
        if not 1 <= number <= 32:
            raise MoveError(f"cannot read move {clip(text)!r}: there is no square {clip(part)} "
                            f"(squares are numbered 1-32)")
        squares.append(number - 1)
    return squares


def digits_value(digits: str) -> int:
    """The value of a run of digits, a long one (off any board) capped at a million."""
    # Python refuses to convert thousands of digits; any long number is off the board anyway.
    return int(digits) if len(digits) <= 6 else 10**6


def _follows(path: Sequence[int], squares: Sequence[int]) -> bool:
    """True if ``squares`` names ``path``: same ends, inner squares in order."""
    if path[0] != squares[0] or path[-1] != squares[-1]:
        return False
    inner = iter(path[1:-1])
    return all(any(s == p for p in inner) for s in squares[1:-1])


def match_move(pos, legal: Sequence[int], text: str, over_reason: str = "") -> int:
    """The legal move that ``text`` names; MoveError saying why when there is none.

    Accepts the short form (22x8) and the full path (22x15x8), '-' or 'x' for
    either kind of move, and spaces.  ``over_reason`` explains an empty ``legal``.
    """
    try:
        squares = parse_squares(text)
    except MoveError as exc:
        raise MoveError(f"{exc}. Legal moves: {moves_text(pos, legal)}") from None
    shown = text.strip()
    if not legal:
        raise MoveError(f"{shown} cannot be played: the game is over"
                        + (f" ({over_reason})" if over_reason else ""))
    frm, to = squares[0], squares[-1]
    same_ends = [m for m in legal if move_from(m) == frm and move_to(m) == to]
    if len(squares) > 2 or len(same_ends) > 1:
        same_ends = [m for m in same_ends if any(_follows(p, squares) for p in capture_paths(pos, m))]
    if len(same_ends) == 1:
        return same_ends[0]
    if len(same_ends) > 1:
        options = " or ".join(full_text(pos, m) for m in same_ends)
        raise AmbiguousMoveError(f"{shown} is ambiguous: it could be {options}; write the full path", same_ends)
    raise MoveError(f"{shown} is not a legal move: {_why_not(pos, legal, squares)}. "
                    f"Legal moves: {moves_text(pos, legal)}")


def _why_not(pos, legal: Sequence[int], squares: list[int]) -> str:
    side = int(pos[SIDE])
    frm = squares[0]
    piece = piece_at(pos, frm)
    if piece is None or piece[0] != side:
        held = "it is empty" if piece is None else f"it holds a {piece_name(*piece)}"
        return f"no piece of yours on {frm + 1} ({held})"
    name = piece_name(*piece)
    captures = [m for m in legal if move_captured(m)]
    if captures:
        own = [m for m in captures if move_from(m) == frm]
        if not own:
            return "a capture is available, you must capture: " + ", ".join(
                move_text(pos, m, legal) for m in captures)
        started = [m for m in own if any(p[:len(squares)] == tuple(squares) for p in capture_paths(pos, m))]
        if started:
            return "a capture must be completed: it continues as " + " or ".join(
                full_text(pos, m) for m in started)
        return f"the {name} on {frm + 1} must capture: " + ", ".join(move_text(pos, m, legal) for m in own)
    targets = [move_to(m) + 1 for m in legal if move_from(m) == frm]
    can_go = (f"the {name} on {frm + 1} can move to " + " or ".join(map(str, targets))
              if targets else f"the {name} on {frm + 1} cannot move")
    if len(squares) > 2 or any(_JUMP[d][frm] == squares[1] for d in range(4)):
        return "there is nothing to capture; " + can_go
    if targets and not piece[1] and (_row(squares[1]) - _row(frm)) * (1 if side == 0 else -1) < 0:
        return "a man moves forward only; " + can_go
    return can_go


def _row(s: int) -> int:
    return s // 4


# --------------------------------------------------------------------- FEN

_FEN_ITEM = re.compile(r"\s*(K?)\s*([0-9]+)\s*(?:-\s*([0-9]+)\s*)?", re.IGNORECASE)


def format_fen(pos, move_number: int | None = None) -> str:
    """PDN FEN: side to move, then White's and Black's squares, men first and then kings
    (marked K), as in the PDN standard's own example: ``W:W18,24,K10:B12,16,K22``.

    With ``move_number`` (a position's own text, not a PDN FEN tag) the counters follow as
    lidraughts writes them, ``:H7:F16`` (plies without progress, the number of the move to
    play), unless they are a game's first (0 and 1), so a position keeps its place in a game.
    """
    parts = ["B" if int(pos[SIDE]) == 0 else "W"]
    for letter, men, kings in (("W", WHITE_MEN, WHITE_KINGS), ("B", BLACK_MEN, BLACK_KINGS)):
        items = [str(s + 1) for s in range(32) if (int(pos[men]) >> s) & 1]
        items += [f"K{s + 1}" for s in range(32) if (int(pos[kings]) >> s) & 1]
        parts.append(letter + ",".join(items))
    if move_number is not None and (int(pos[NO_PROGRESS]) or move_number != 1):
        parts += [f"H{int(pos[NO_PROGRESS])}", f"F{move_number}"]
    return ":".join(parts)


def parse_fen(text: str) -> list[int]:
    """A position array (as a list) from PDN FEN; PositionError naming the problem (see :func:`read_fen`)."""
    return read_fen(text)[0]


_COUNTER = re.compile(r"([HF])\s*([0-9]+)", re.IGNORECASE)


def read_fen(text: str) -> tuple[list[int], int]:
    """A position array (as a list) and the number of the move to play, from PDN FEN; PositionError
    naming the problem.

    Accepted: ``B:W21,22,K32:B1,2,K5`` with either colour list first, spaces
    anywhere between items, lower-case letters, ranges (``B1-12``, ``K29-32``),
    empty lists (``W:W:B5``) and a trailing period; then, as lidraughts writes
    them, ``:H7`` (plies since the last capture or man move) and ``:F16`` (the
    move number).  Without them the counters start at 0 and the number at 1.
    """
    if not isinstance(text, str):
        raise PositionError(f"a FEN must be text, not {type(text).__name__}")
    body = text.strip()
    if body.endswith("."):
        body = body[:-1]
    fields = [f.strip() for f in body.split(":")]
    counters = {}
    while len(fields) > 3 and _COUNTER.fullmatch(fields[-1]):
        match = _COUNTER.fullmatch(fields.pop())
        letter = match.group(1).upper()
        if letter in counters:
            raise PositionError(f"bad FEN {clip(text)!r}: the counter {letter} is given twice")
        counters[letter] = digits_value(match.group(2))
    if len(fields) != 3:
        raise PositionError(f"bad FEN {clip(text)!r}: expected three fields separated by ':', "
                            f"side to move then both colours' squares, e.g. {INITIAL_FEN} (then :H0:F1, "
                            f"the counters, if wanted)")
    if counters.get("F", 1) < 1:
        raise PositionError(f"bad FEN {clip(text)!r}: the move number F{counters['F']} must be 1 or more")
    side_text = fields[0].upper()
    if side_text not in ("B", "W"):
        raise PositionError(f"bad FEN {clip(text)!r}: the side to move must be B or W, not {clip(fields[0])!r}")
    pos = [0] * 7
    pos[SIDE] = 0 if side_text == "B" else 1
    owner_of: dict[int, str] = {}
    seen_colours = set()
    for field in fields[1:]:
        colour = field[:1].upper()
        if colour not in ("B", "W"):
            raise PositionError(f"bad FEN {clip(text)!r}: a piece list must start with W or B, not {field[:1]!r}"
                                if field else f"bad FEN {clip(text)!r}: empty piece list (write W or B before it)")
        if colour in seen_colours:
            raise PositionError(f"bad FEN {clip(text)!r}: {SIDE_NAMES[colour == 'W']}'s pieces are given twice")
        seen_colours.add(colour)
        owner = 0 if colour == "B" else 1
        items = field[1:].strip()
        for item in (items.split(",") if items else []):
            _add_fen_item(pos, owner, item, owner_of, text)
    for owner in (0, 1):
        count = bin(pos[2 * owner] | pos[2 * owner + 1]).count("1")
        if count > 12:
            raise PositionError(f"bad FEN {clip(text)!r}: {SIDE_NAMES[owner]} has {count} pieces; a side has at most 12")
    pos[NO_PROGRESS] = counters.get("H", 0)
    return pos, counters.get("F", 1)


def _add_fen_item(pos: list[int], owner: int, item: str, owner_of: dict[int, str], text: str) -> None:
    match = _FEN_ITEM.fullmatch(item)
    if not match:
        raise PositionError(f"bad FEN {clip(text)!r}: cannot read {clip(item)!r} in {SIDE_NAMES[owner]}'s list "
                            f"(expected a square 1-32, K before a king, or a range like 1-12)")
    king = bool(match.group(1))
    first = digits_value(match.group(2))
    last = digits_value(match.group(3)) if match.group(3) else first
    for number, digits in ((first, match.group(2)), (last, match.group(3))):
        if not 1 <= number <= 32:
            raise PositionError(f"bad FEN {clip(text)!r}: there is no square {clip(digits)} "
                                f"(squares are numbered 1-32)")
    if last < first:
        raise PositionError(f"bad FEN {clip(text)!r}: the range {clip(item)!r} runs backwards")
    label = piece_name(owner, king)
    for number in range(first, last + 1):
        s = number - 1
        if s in owner_of:
            raise PositionError(f"bad FEN {clip(text)!r}: square {number} is given twice "
                                f"({owner_of[s]} and {label})")
        if not king and (KING_ROW[owner] >> s) & 1:
            raise PositionError(f"bad FEN {clip(text)!r}: a {label} on {number} is on its king row, where it "
                                f"would have been crowned (write K{number} for a king)")
        owner_of[s] = label
        pos[2 * owner + int(king)] |= 1 << s


