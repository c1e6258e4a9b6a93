"""Chess move and position text: reading SAN and UCI moves with reasons, reading FEN.

Moves are read in either notation: SAN as in books and PGN (``e4``, ``Nf3``,
``exd5``, ``O-O``, ``e8=Q``, with or without ``+``/``#``) or UCI coordinates
(``e2e4``, ``e7e8q``; ``e2-e4`` is read too).  A move that is not legal is
answered with the reason in words (the piece is pinned, the king is in
check, castling rights are gone, a knight does not move like that, ...).
"""
from __future__ import annotations

import re

import chess

from plyground.errors import MoveError, PositionError, clip

SIDE_NAMES = ("White", "Black")
PIECE_NAMES = {chess.PAWN: "pawn", chess.KNIGHT: "knight", chess.BISHOP: "bishop", chess.ROOK: "rook",
               chess.QUEEN: "queen", chess.KING: "king"}
_COORDINATES = re.compile(r"^([a-h][1-8])[-x]?([a-h][1-8])(?:=?([qrbnQRBN]))?$")
_STATUS_WORDS = (
    (chess.STATUS_NO_WHITE_KING, "White has no king"),
    (chess.STATUS_NO_BLACK_KING, "Black has no king"),
    (chess.STATUS_TOO_MANY_KINGS, "a side has more than one king"),
    (chess.STATUS_TOO_MANY_WHITE_PAWNS, "White has more than 8 pawns"),
    (chess.STATUS_TOO_MANY_BLACK_PAWNS, "Black has more than 8 pawns"),
    (chess.STATUS_PAWNS_ON_BACKRANK, "a pawn stands on the first or last rank"),
    (chess.STATUS_TOO_MANY_WHITE_PIECES, "White has more than 16 pieces"),
    (chess.STATUS_TOO_MANY_BLACK_PIECES, "Black has more than 16 pieces"),
    (chess.STATUS_BAD_CASTLING_RIGHTS, "the castling rights do not match the kings and rooks "
                                       "(a king or rook is not on its starting square)"),
    (chess.STATUS_INVALID_EP_SQUARE, "the en passant square is impossible (no pawn just moved two squares past it)"),
    (chess.STATUS_OPPOSITE_CHECK, "the side not to move is in check"),
    (chess.STATUS_TOO_MANY_CHECKERS, "the king is in check from more than two pieces"),
    (chess.STATUS_IMPOSSIBLE_CHECK, "the king is in check in a way no previous move can have given"),
)


def side_name(color: chess.Color) -> str:
    return SIDE_NAMES[0 if color == chess.WHITE else 1]


# ------------------------------------------------------------------ positions

def parse_fen(text: str) -> chess.Board:
    """A board from FEN (``startpos`` is the initial position); PositionError naming what is wrong.

    The move counters may be left out (``0 1`` is assumed), as may castling
    rights and the en passant square.
    """
    fen = " ".join(text.split())
    if fen.lower() in ("startpos", "start", "initial"):
        return chess.Board()
    if not fen:
        raise PositionError("empty FEN: expected e.g. 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1'")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        reason = re.sub(r":\s*'.*'$", "", str(exc))
        raise PositionError(f"bad FEN {clip(fen)!r}: {clip(reason, 200)}") from None
    status = board.status()
    if status != chess.STATUS_VALID:
        problems = [words for flag, words in _STATUS_WORDS if status & flag]
        if status & chess.STATUS_EMPTY and not problems:
            problems = ["the board is empty"]
        raise PositionError(f"impossible chess position {fen!r}: {'; '.join(problems) or 'it breaks the rules'}")
    return board


# ------------------------------------------------------------------ moves

def legal_moves_text(board: chess.Board, moves) -> str:
    """The moves in SAN, pieces first (alphabetically), then pawns by file."""
    return " ".join(sorted((board.san(m) for m in moves), key=lambda t: (t[0].islower(), t))) or "(none)"


def parse_move(board: chess.Board, legal: list[chess.Move], text: str, over_reason: str = "") -> chess.Move:
    """The legal move ``text`` names (SAN or UCI); MoveError with the reason otherwise."""
    raw = text.strip()
    if over_reason:
        raise MoveError(f"the game is over ({over_reason}); no move can be played")
    if not raw:
        raise MoveError("no move given: write a move such as e4, Nf3, O-O, exd5, e8=Q (SAN) or e2e4 (UCI)")
    coordinates = _COORDINATES.match(raw)
    if coordinates:
        return _parse_coordinates(board, legal, raw, coordinates)
    san = _capital_piece(board, raw.replace("0-0-0", "O-O-O").replace("0-0", "O-O").replace("o-o-o", "O-O-O")
                         .replace("o-o", "O-O"))
    try:
        move = board.parse_san(san)
    except chess.AmbiguousMoveError:
        options = _ambiguous_options(board, legal, san)
        raise MoveError(f"{raw} is ambiguous: it could be {' or '.join(options)}; add the piece's file or rank "
                        f"(e.g. {options[0] if options else 'Nbd2'})") from None
    except chess.IllegalMoveError:
        raise MoveError(f"{raw} is not legal here: {explain_san(board, san)}. "
                        f"Legal moves: {legal_moves_text(board, legal)}") from None
    except (chess.InvalidMoveError, ValueError):
        raise MoveError(f"cannot read {raw!r} as a chess move: write SAN (e4, Nf3, exd5, O-O, e8=Q) or "
                        f"UCI coordinates (e2e4, e7e8q). Legal moves: {legal_moves_text(board, legal)}") from None
    if move not in legal:  # parse_san accepts null moves ("--", "0000")
        raise MoveError(f"{raw} is not a move: a side must move a piece. Legal moves: {legal_moves_text(board, legal)}")
    return move


def _capital_piece(board: chess.Board, san: str) -> str:
    """SAN typed with its piece's letter in lower case (``nf3``, ``qxd7``) with the capital SAN asks for, when
    only that reads as a legal move (``bxc4``, a pawn's capture, stays one); when neither does, the reading whose
    refusal says why (the pawn's, if it reads as one)."""
    if len(san) < 3 or san[0] not in "nbrqk":
        return san
    readable = {}
    for text in (san, san[0].upper() + san[1:]):
        try:
            board.parse_san(text)
            return text
        except chess.InvalidMoveError:
            readable[text] = False
        except ValueError:          # read, but illegal or ambiguous
            readable[text] = True
    return san if readable[san] or not any(readable.values()) else text


def _parse_coordinates(board, legal, raw, m) -> chess.Move:
    frm, to = chess.parse_square(m.group(1)), chess.parse_square(m.group(2))
    promotion = chess.PIECE_SYMBOLS.index(m.group(3).lower()) if m.group(3) else None
    move = chess.Move(frm, to, promotion)
    if move in legal:
        return move
    if promotion is None:
        promotions = [x for x in legal if x.from_square == frm and x.to_square == to and x.promotion]
        if promotions:
            raise MoveError(f"{raw} promotes a pawn: say to which piece, e.g. {move.uci()}q (queen), "
                            f"{move.uci()}n (knight), or in SAN {board.san(promotions[0])}")
    # A king taking its own rook is how some programs write castling.
    try:
        alternative = board.parse_uci(move.uci())
    except ValueError:
        alternative = None
    if alternative is not None and alternative in legal:
        return alternative
    raise MoveError(f"{raw} is not legal here: {explain(board, move)}. Legal moves: {legal_moves_text(board, legal)}")


def _ambiguous_options(board, legal, san) -> list[str]:
    m = chess.SAN_REGEX.match(san)
    if not m:
        return []
    to = chess.parse_square(m.group(4))
    piece = chess.PIECE_SYMBOLS.index(m.group(1).lower()) if m.group(1) else chess.PAWN
    return sorted(board.san(x) for x in legal if x.to_square == to and board.piece_type_at(x.from_square) == piece)


def explain(board: chess.Board, move: chess.Move) -> str:
    """Why ``move`` (from-square, to-square, promotion) is not legal in ``board``, in words."""
    us = side_name(board.turn)
    piece = board.piece_at(move.from_square)
    frm, to = chess.square_name(move.from_square), chess.square_name(move.to_square)
    if piece is None:
        return f"there is no piece on {frm}"
    if piece.color != board.turn:
        return f"the {PIECE_NAMES[piece.piece_type]} on {frm} is {side_name(piece.color)}'s; {us} is to move"
    name = PIECE_NAMES[piece.piece_type]
    target = board.piece_at(move.to_square)
    if target is not None and target.color == board.turn and not (piece.piece_type == chess.KING
                                                                  and target.piece_type == chess.ROOK):
        return f"{to} is taken by your own {PIECE_NAMES[target.piece_type]}"
    if piece.piece_type == chess.KING and abs((move.to_square & 7) - (move.from_square & 7)) >= 2 \
            and (move.to_square >> 3) == (move.from_square >> 3):
        return explain_castling(board, kingside=(move.to_square & 7) > (move.from_square & 7))
    if move.promotion and piece.piece_type != chess.PAWN:
        return f"only a pawn can promote, and {frm} holds a {name}"
    if move.promotion == chess.KING or move.promotion == chess.PAWN:
        return "a pawn promotes to a queen, rook, bishop or knight"
    if board.is_pseudo_legal(move):
        return _leaves_king_in_check(board, name, piece.piece_type == chess.KING)
    if piece.piece_type == chess.PAWN:
        return _explain_pawn(board, move)
    if not (board.attacks_mask(move.from_square) & chess.BB_SQUARES[move.to_square]):
        reach = {chess.KNIGHT: "a knight moves in an L: two squares one way and one square to the side",
                 chess.BISHOP: "a bishop moves diagonally, and only over empty squares",
                 chess.ROOK: "a rook moves along a rank or a file, and only over empty squares",
                 chess.QUEEN: "a queen moves along a rank, a file or a diagonal, and only over empty squares",
                 chess.KING: "a king moves one square in any direction (or castles)"}[piece.piece_type]
        if piece.piece_type != chess.KNIGHT and chess.BB_RAYS[move.from_square][move.to_square] \
                and _line_fits(piece.piece_type, move.from_square, move.to_square):
            return f"the {name} on {frm} is blocked on its way to {to}"
        return f"the {name} on {frm} cannot reach {to}: {reach}"
    return f"the {name} on {frm} cannot go to {to}"


def _line_fits(piece_type, a, b) -> bool:
    diagonal = abs((a & 7) - (b & 7)) == abs((a >> 3) - (b >> 3))
    straight = (a & 7) == (b & 7) or (a >> 3) == (b >> 3)
    return {chess.BISHOP: diagonal, chess.ROOK: straight, chess.QUEEN: diagonal or straight}.get(piece_type, False)


def _leaves_king_in_check(board, name, is_king) -> str:
    if is_king:
        return "the king would move into check"
    if board.is_check():
        return f"{side_name(board.turn)} is in check, and this move does not get the king out of it"
    return f"the {name} is pinned: moving it would leave your king in check"


def _explain_pawn(board, move) -> str:
    frm, to = move.from_square, move.to_square
    forward = 8 if board.turn == chess.WHITE else -8
    df = (to & 7) - (frm & 7)
    dr = to - frm
    last_rank = (to >> 3) in (0, 7)
    if last_rank and move.promotion is None and abs(df) <= 1:
        return "a pawn reaching the last rank must promote: add the piece, e.g. e8=Q or e7e8q"
    if df == 0:
        if dr == forward or dr == 2 * forward:
            if board.piece_at(to) is not None or (dr == 2 * forward and board.piece_at(frm + forward) is not None):
                return "the pawn is blocked: a pawn moves forward onto empty squares only"
            if dr == 2 * forward:
                return "a pawn moves two squares only from its starting square"
        if (dr > 0) != (forward > 0):
            return "pawns move forward only"
        return "a pawn moves one square forward (two from its starting square)"
    if abs(df) == 1 and dr - df == forward:
        return "a pawn captures diagonally forward, and there is nothing to capture there"
    return "a pawn moves straight forward and captures one square diagonally forward"


def explain_castling(board: chess.Board, kingside: bool) -> str:
    """Why castling to the given side is not possible now."""
    side = "king side" if kingside else "queen side"
    color = board.turn
    rights = board.has_kingside_castling_rights(color) if kingside else board.has_queenside_castling_rights(color)
    if not rights:
        return f"castling {side} is no longer allowed: the king or that rook has moved"
    if board.is_check():
        return "you cannot castle out of check"
    king = board.king(color)
    rank = king >> 3
    between = range(5, 7) if kingside else range(1, 4)
    if any(board.piece_at(rank * 8 + f) is not None for f in between):
        return f"castling {side}: the squares between the king and the rook must be empty"
    passing = (5, 6) if kingside else (3, 2)
    for f in passing:
        if board.is_attacked_by(not color, rank * 8 + f):
            return f"castling {side}: the king may not pass through or land on an attacked square " \
                   f"({chess.square_name(rank * 8 + f)} is attacked)"
    return f"castling {side} is not possible here"


def explain_san(board: chess.Board, san: str) -> str:
    """Why a well-formed SAN move is not legal (best effort)."""
    if san.rstrip("+#").upper().startswith("O-O"):
        return explain_castling(board, kingside=san.rstrip("+#").upper() == "O-O")
    m = chess.SAN_REGEX.match(san)
    if not m:
        return "no such move"
    to = chess.parse_square(m.group(4))
    piece_type = chess.PIECE_SYMBOLS.index(m.group(1).lower()) if m.group(1) else chess.PAWN
    name = PIECE_NAMES[piece_type]
    candidates = [s for s in chess.scan_forward(board.pieces_mask(piece_type, board.turn))
                  if (not m.group(2) or chess.square_file(s) == "abcdefgh".index(m.group(2)))
                  and (not m.group(3) or chess.square_rank(s) == int(m.group(3)) - 1)]
    if piece_type == chess.PAWN and not m.group(2):
        # "e5": a pawn push, so the pawn stands on the e-file, the nearest one behind e5.
        behind = [s for s in candidates if chess.square_file(s) == chess.square_file(to)
                  and (s < to if board.turn == chess.WHITE else s > to)]
        candidates = sorted(behind, key=lambda s: abs(to - s))[:1]
        if not candidates:
            return f"you have no pawn on the {chess.FILE_NAMES[chess.square_file(to)]}-file that could move to " \
                   f"{chess.square_name(to)}"
    if not candidates:
        return f"you have no {name}" + (" there" if m.group(2) or m.group(3) else "")
    # python-chess's SAN pattern keeps the "=" of "e8=Q" in the promotion group
    promotion = chess.PIECE_SYMBOLS.index(m.group(5).lstrip("=").lower()) if m.group(5) else None
    if promotion in (chess.KING, chess.PAWN):
        return f"a pawn promotes to a queen, rook, bishop or knight (e.g. {chess.square_name(to)}=Q), not to a " \
               f"{PIECE_NAMES[promotion]}"
    last_rank, rank_name = (7, "8th") if board.turn == chess.WHITE else (0, "1st")
    if promotion is not None and (piece_type != chess.PAWN or chess.square_rank(to) != last_rank):
        return f"only a pawn reaching the {rank_name} rank promotes; {san} names no such move"
    reasons = [explain(board, chess.Move(s, to, promotion)) for s in candidates]
    if len(candidates) == 1:
        return reasons[0]
    pinned = [r for r in reasons if "check" in r or "pinned" in r]
    return pinned[0] if pinned else f"none of your {name}s can move to {chess.square_name(to)}"
