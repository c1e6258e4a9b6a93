"""The chess Game and State: the plyground API on top of python-chess.

A State owns a ``chess.Board`` whose move stack is the game since the
loaded position, plus what the rules and speed need beyond it: the
repetition key of every position since the start, and the legal moves and
outcome of the current position, computed once and kept until the next
move.  Moves are ``chess.Move`` values (hashable, compared by squares and
promotion); ``parse_move`` reads SAN or UCI text and ``move_to_text``
writes SAN.

Draws follow python-chess and the FIDE rules: stalemate, insufficient
material, the fivefold repetition and the 75-move rule end the game by
themselves; the threefold repetition and the 50-move rule, which a player
must claim over the board, are claimed automatically for the players by
default (game options ``repetitions`` and ``no_progress_plies``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import numpy as np

from plyground.cached_state import CachedRulesState
from plyground.errors import MoveError, PositionError
from plyground.options import Option
from plyground.protocols import Game, GameRecord
from plyground.files.recordio import TextRecords

from . import encoding, notation, picture

_MASK64 = (1 << 64) - 1
WHITE, BLACK = 0, 1   # player numbers: White moves first

RULES_TEXT = """\
Chess under FIDE rules.

White moves first; the sides alternate.  A king may never be left in check.
Checkmate wins.  Drawn: stalemate (no legal move, not in check), too little
material for mate, the same position a third time (threefold repetition)
or 50 moves by each side without a capture or a pawn move (the claims are
made for you; game options repetitions=0 / no_progress_plies=0 leave only the
automatic fivefold and 75-move rules).  Castling, en passant and promotion
as usual.

Writing moves: SAN as in books and PGN (e4, Nf3, exd5, Nbd2, O-O, O-O-O,
e8=Q; + and # may be left out) or UCI coordinates (e2e4, g1f3, e7e8q).
"""


def position_key(board: chess.Board) -> tuple:
    """What makes two positions the same for the repetition rules (FIDE 9.2).

    Pieces, side to move, castling rights, and the en passant square only
    when an en passant capture is actually possible.
    """
    ep = board.ep_square
    if ep is not None and not board.has_legal_en_passant():
        ep = None
    return (board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
            board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.turn,
            board.clean_castling_rights(), ep)


def copy_board(board: chess.Board) -> chess.Board:
    """A copy of ``board`` with its history, in time independent of the history's length.

    ``Board.copy()`` copies every move of the stack one by one, which made
    cloning a state (done a few times per move by the match runner and by
    tree search) grow with the game.  Moves and the saved board states are
    never changed once made, so the copy shares them, as python-chess's own
    ``copy`` already does for the saved states.
    """
    copy = board.copy(stack=False)
    copy.move_stack = list(board.move_stack)
    copy._stack = list(board._stack)
    return copy


@dataclass(frozen=True)
class MoveInfo:
    """What a move does, for move-prediction features (e.g. a Bayesian model's move keys)."""

    uci: str
    san: str
    piece: str                 # moving piece, upper case: P N B R Q K
    from_square: str           # e.g. "e2"
    to_square: str
    captured: str | None       # captured piece (upper case) or None; en passant captures a pawn
    promotion: str | None      # promoted-to piece (upper case) or None
    is_capture: bool
    is_check: bool
    is_mate: bool
    is_castling: bool
    is_en_passant: bool
    color: str                 # "White" or "Black": the side making the move

    @property
    def is_promotion(self) -> bool:
        return self.promotion is not None


class ChessState(CachedRulesState):
    """A chess position with its history.  Create it through :class:`ChessGame`."""

    __slots__ = ("game", "_board", "_keys", "_undo", "_moves", "_status", "_base")

    def __init__(self, game: "ChessGame", board: chess.Board) -> None:
        self.game = game
        self._board = board                  # owned; its move stack is this game's history
        self._keys = [position_key(board)]   # repetition key of every position since the start
        self._undo: list[tuple] = []         # (cached moves, cached status) before each move
        self._moves: list[chess.Move] | None = None   # legal moves ignoring draws (cache)
        self._status: tuple[int, str] | None = None   # (outcome code, reason) (cache)
        self._base = len(board.move_stack)   # moves of the board's history from before this state was loaded

    # ------------------------------------------------------------- rules
    def _generate_moves(self) -> list[chess.Move]:
        return list(self._board.generate_legal_moves())

    def _decide_outcome(self) -> tuple[int, str]:
        """Code 0: White wins, 1: Black wins."""
        board = self._board
        params = self.game.params
        if not self._generated():
            return (1 if board.turn == chess.WHITE else 0, "checkmate") if board.is_check() else (2, "stalemate")
        if board.is_insufficient_material():
            return (2, "insufficient material")
        if board.halfmove_clock >= 150:
            return (2, "75-move rule")
        reps = self.repetition_count() if board.halfmove_clock >= 4 else 1
        limit, claim = params["no_progress_plies"], params["repetitions"]
        if reps >= 5:
            return (2, "fivefold repetition")
        if claim and reps >= claim:
            return (2, "threefold repetition" if claim == 3 else f"repetition ({claim} times)")
        if limit and board.halfmove_clock >= limit:
            return (2, "50-move rule" if limit == 100 else f"no-progress rule ({limit} plies)")
        if params["max_plies"] is not None and len(board.move_stack) - self._base >= params["max_plies"]:
            return (2, "ply cap")
        return (-1, "")

    def current_player(self) -> int:
        return WHITE if self._board.turn == chess.WHITE else BLACK

    def claimable_draw(self) -> str | None:
        """The draw the side to move may claim (FIDE 9.2, 9.3) where the game leaves the claim to the players
        (game options ``repetitions`` and ``no_progress_plies``, which else end the game by themselves): the
        position on the board for the third time, or 50 moves of each side without a capture or a pawn move.
        (python-chess's ``can_claim_draw`` also counts a claim by a move about to be played; here the position
        claimed is the one on the board, so the record ends where the claim was made.)"""
        if self.is_terminal():
            return None
        if self._board.halfmove_clock >= 4 and self.repetition_count() >= 3:
            return "threefold repetition"
        if self._board.halfmove_clock >= 100:
            return "50-move rule"
        return None

    def apply(self, move: chess.Move) -> None:
        if self._outcome()[0] >= 0 or not isinstance(move, chess.Move) or move not in self._moves:
            raise MoveError(self._illegal_message(move))
        self._undo.append((self._moves, self._status))
        self._board.push(move)
        self._keys.append(position_key(self._board))
        self._moves = None
        self._status = None

    def _illegal_message(self, move: Any) -> str:
        if self.is_terminal():
            return f"the game is over ({self.outcome_reason()}); no move can be played"
        if isinstance(move, str):
            return f"{move!r} is text, not a move: use state.parse_move({move!r}) to read SAN or UCI"
        if isinstance(move, chess.Move):
            return (f"{move.uci()} is not legal here: {notation.explain(self._board, move)}; "
                    f"legal moves: {notation.legal_moves_text(self._board, self._moves)}")
        return f"{move!r} is not a chess.Move; legal moves: {notation.legal_moves_text(self._board, self._moves)}"

    def undo(self) -> None:
        if not self._undo:
            raise MoveError("there is no move to take back")
        self._board.pop()
        self._keys.pop()
        self._moves, self._status = self._undo.pop()

    def clone(self) -> "ChessState":
        copy = ChessState.__new__(ChessState)
        copy.game = self.game
        copy._board = copy_board(self._board)
        copy._keys = list(self._keys)
        copy._undo = list(self._undo)        # its lists are never mutated
        copy._moves = self._moves
        copy._status = self._status
        copy._base = self._base
        return copy

    @property
    def ply(self) -> int:
        """Moves applied since the state was loaded (moves given with its FEN not counted)."""
        return len(self._board.move_stack) - self._base

    @property
    def move_number(self) -> int:
        """FEN's full-move number: 1 at the start, counted on after White's and Black's moves alike."""
        return self._board.fullmove_number

    @property
    def no_progress_plies(self) -> int:
        """Plies since the last capture or pawn move (the 50-move rule's counter)."""
        return self._board.halfmove_clock

    def is_check(self) -> bool:
        return self._board.is_check()

    def key(self) -> int:
        return hash(self._keys[-1]) & _MASK64

    def zobrist(self) -> int:
        """The Polyglot Zobrist hash of the position (the standard one, e.g. for opening books)."""
        import chess.polyglot
        return chess.polyglot.zobrist_hash(self._board)

    # ---------------------------------------------------------- the board and history
    @property
    def board(self) -> chess.Board:
        """A copy of the python-chess board, move stack included (changing it changes nothing here)."""
        return copy_board(self._board)

    def history(self) -> list[chess.Move]:
        """The moves applied to this state since it was loaded, oldest first."""
        return list(self._board.move_stack[self._base:])

    def last_move(self) -> chess.Move | None:
        return self._board.peek() if self._board.move_stack else None

    def start_fen(self) -> str:
        """FEN of the position the game started from (before any moves given with ``new_state``)."""
        return self._board.root().fen()

    def uci_position(self) -> str:
        """The UCI ``position`` command for this position, with the whole game so engines see repetitions."""
        root = self._board.root()
        start = "startpos" if root.fen() == chess.STARTING_FEN else f"fen {root.fen()}"
        moves = " ".join(m.uci() for m in self._board.move_stack)
        return f"position {start}" + (f" moves {moves}" if moves else "")

    def move_info(self, move: chess.Move) -> MoveInfo:
        """Piece, squares and capture/promotion/check flags of a legal move (for move-prediction models)."""
        if not isinstance(move, chess.Move) or move not in self._generated():
            raise MoveError(self._illegal_message(move))
        board = self._board
        piece = board.piece_type_at(move.from_square)
        if board.is_en_passant(move):
            captured = chess.PAWN
        elif board.is_castling(move):
            captured = None
        else:
            captured = board.piece_type_at(move.to_square)
        board.push(move)
        try:
            is_check, is_mate = board.is_check(), board.is_checkmate()
        finally:
            board.pop()
        return MoveInfo(
            uci=move.uci(), san=board.san(move), piece=chess.piece_symbol(piece).upper(),
            from_square=chess.square_name(move.from_square), to_square=chess.square_name(move.to_square),
            captured=chess.piece_symbol(captured).upper() if captured else None,
            promotion=chess.piece_symbol(move.promotion).upper() if move.promotion else None,
            is_capture=captured is not None, is_check=is_check, is_mate=is_mate,
            is_castling=board.is_castling(move), is_en_passant=board.is_en_passant(move),
            color=notation.side_name(board.turn))

    # ---------------------------------------------------------- notation
    def move_to_text(self, move: chess.Move) -> str:
        """The move in SAN (``Nf3``, ``exd5``, ``O-O``, ``e8=Q+``)."""
        if not isinstance(move, chess.Move) or move not in self._generated():
            raise MoveError(self._illegal_message(move))
        return self._board.san(move)

    def move_to_uci(self, move: chess.Move) -> str:
        return move.uci()

    def parse_move(self, text: str) -> chess.Move:
        """The legal move named by SAN (``Nf3``) or UCI (``g1f3``) text; MoveError saying why not."""
        return notation.parse_move(self._board, self._generated(), text, self.outcome_reason())

    def to_text(self) -> str:
        return self._board.fen()

    def __repr__(self) -> str:
        return f"<ChessState {self.to_text()!r} ply={self.ply}>"

    # --------------------------------------------------------- encodings
    def observation(self) -> np.ndarray:
        """Planes (21, 8, 8) or the Deep Pepper vector (353,), as the game's ``encoding`` option says."""
        if self.game.params["encoding"] == "deep_pepper":
            return self.deep_pepper_features()
        return self.planes()

    def planes(self) -> np.ndarray:
        """The (21, 8, 8) board planes from the side to move's view (encoding.py)."""
        limit = self.game.params["no_progress_plies"] or 150
        reps = self.repetition_count() if self._board.halfmove_clock >= 4 else 1
        return encoding.planes(self._board, reps, limit)

    def deep_pepper_features(self) -> np.ndarray:
        """The 353-number Deep Pepper feature vector (float32; layout in encoding.py and docs/chess.md)."""
        return encoding.deep_pepper_features(self._board)

    def action_index(self, move: chess.Move) -> int:
        """``from_square * 73 + move_type`` in the mover's frame (AlphaZero's 4672 actions)."""
        return encoding.action_index(move, self._board.turn)

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(encoding.NUM_ACTIONS, dtype=bool)
        white = self._board.turn
        for move in self.legal_moves():
            mask[encoding.action_index(move, white)] = True
        return mask

    def moves_for_action(self, index: int) -> list[chess.Move]:
        """The legal move at action ``index`` as a list (empty if none; never more than one in chess)."""
        white = self._board.turn
        return [m for m in self.legal_moves() if encoding.action_index(m, white) == index]

    def move_for_action(self, index: int) -> chess.Move:
        """The legal move at action ``index``; MoveError if that index is not a legal move here."""
        moves = self.moves_for_action(int(index))
        if not moves:
            raise MoveError(f"action {index} is not a legal move in {self.to_text()}")
        return moves[0]


class ChessGame(TextRecords, Game):
    name = "chess"
    description = "Chess (FIDE rules, python-chess): SAN/UCI moves, FEN, PGN; UCI engines such as Stockfish play it."
    options = (
        Option("repetitions", int, 3, "draw when a position occurs this many times (3: the threefold rule, "
                                      "claimed for the players); 0: only the automatic fivefold rule",
               min=0, max=5),
        Option("no_progress_plies", int, 100, "draw after this many plies without a capture or pawn move "
                                              "(100: the 50-move rule, claimed for the players); 0: only the "
                                              "automatic 75-move rule (150 plies)", min=0, max=150),
        Option("max_plies", int, None, "adjudicate a draw when this many plies have been played",
               min=1, optional=True),
        Option("encoding", str, "planes", "what observation() returns for learners: board planes (21x8x8) "
                                          "or the Deep Pepper feature vector (353)",
               choices=("planes", "deep_pepper")),
    )
    side_names = ("White", "Black")
    record_suffix = ".pgn"
    records_module = "plyground.games.chess.pgn"
    #: The WinningChances ability: lichess's curve, a pawn up 59%, a knight up 76%.
    winning_chances_slope = 0.368208
    #: Stockfish when installed; else our own engine: alpha-beta with the evaluation learned from master games
    #: (games/chess/alphabeta), two seconds a move.
    default_opponents = ("stockfish", "alphabeta:eval=learned,seconds=2", "random")
    #: ``plyground analyse``'s judge: Stockfish when installed (far stronger than ours at 0.1 s a position),
    #: else our alpha-beta as every game has it.
    default_judges = ("stockfish", *Game.default_judges)
    levels = {   # Stockfish 15 plays UCI_Elo 1350 to 2850; Skill Level 0 is weaker still
        "easy": ("stockfish:skill=0", "alphabeta:eval=learned,depth=1"),
        "medium": ("stockfish:elo=1500", "alphabeta:eval=learned,depth=3"),
        "hard": ("stockfish:elo=2000", "alphabeta:eval=learned,depth=5"),
        "strongest": default_opponents[:2],
    }
    observation_shape = encoding.PLANES_SHAPE
    num_actions = encoding.NUM_ACTIONS
    rules_text = RULES_TEXT
    # No augment override (no symmetries): castling and pawn direction break every reflection of the board.
    #: Where records come from (the BundledRecords ability): none ship with the package (docs/bayes.md).
    records_advice = ("give a PGN file of chess games, e.g. master games from the PGN Mentor player files "
                      "(https://www.pgnmentor.com/files.html; docs/bayes.md, \"Measured on chess masters\")")

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["encoding"] == "deep_pepper":
            self.observation_shape = encoding.DEEP_PEPPER_SHAPE

    def new_initial_state(self) -> ChessState:
        return ChessState(self, chess.Board())

    def new_state(self, text: str) -> ChessState:
        """A state from FEN (or ``startpos``), optionally followed by `` moves e2e4 e7e5 ...`` (UCI or SAN).

        Raises PositionError naming what is wrong with the FEN, MoveError for a bad move after it.
        """
        fen, _, moves = text.partition(" moves ")
        state = ChessState(self, notation.parse_fen(fen))
        for i, word in enumerate(moves.split()):
            try:
                state.apply(state.parse_move(word))
            except MoveError as exc:
                raise PositionError(f"move {i + 1} after the FEN, {word!r}: {exc}") from None
            # The given moves are history (repetitions, what engines are told), not moves of this
            # game: the state starts after them (ply 0, nothing to take back, the ply cap unused).
            state._base = len(state._board.move_stack)
        state._undo.clear()
        return state

    def render_text(self, state: ChessState, last_move=None, color: bool = False, players=None) -> str:
        """The board and a status line, which names who plays the side to move when ``players`` are given."""
        return picture.render(state, last_move, color, players)

    def legal_moves_text(self, state: ChessState) -> str:
        """One line listing the legal moves in SAN (for a 'moves' or hint command)."""
        return picture.legal_moves_text(state)

    def perft(self, state: ChessState, depth: int) -> int:
        """Leaves of the legal-move tree, by python-chess with bulk counting at the last ply; draw rules ignored."""
        if depth < 0:
            raise ValueError(f"perft depth must be >= 0, not {depth}")
        return _perft(state._board.copy(stack=False), depth)

    def read_records(self, text: str, plies: int | None = None) -> list[GameRecord]:
        """GameRecords from PGN text (the inverse of format_records); RecordError names game and line.
        ``plies``: only each game's first N moves are read (and kept)."""
        from .pgn import read_records
        return read_records(text, plies=plies)

    def stream_records(self, source: str | Path, *, strict: bool = True):
        """The RecordStreams ability: a PgnReader over ``source`` (a Path: the file; else PGN text), game by game."""
        from .pgn import read_pgn
        return read_pgn(source, strict=strict)

    def feature_layouts(self) -> dict:
        """The FeatureLayouts ability: Deep Pepper's 353 features (``encoding=deep_pepper``), part by part."""
        return {encoding.DEEP_PEPPER_LAYOUT.name: encoding.DEEP_PEPPER_LAYOUT}

    def bundled_records(self) -> dict:
        """No games ship with the package (master games have no licence to redistribute them)."""
        return {}

    def bundled_models(self) -> dict[str, Path]:
        """The BundledModels ability: ``alphabeta``'s evaluation learned from master games (docs/chess.md)."""
        return {"alphabeta": Path(__file__).with_name("alphabeta") / "weights" / "chess.npz"}

    def alphabeta_engine(self):
        """The AlphaBetaEngines ability: the evaluation features and compiled search of alphabeta/ for the
        ``alphabeta`` player."""
        from .alphabeta import engine
        return engine.ChessAlphaBeta(self)


def _perft(board: chess.Board, depth: int) -> int:
    if depth == 0:
        return 1
    moves = list(board.generate_legal_moves())
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += _perft(board, depth - 1)
        board.pop()
    return total
