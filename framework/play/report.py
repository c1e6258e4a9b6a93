"""A game report (``plyground analyse FILE``): an engine's verdict on every move of a recorded game.

The engine searches every position of the game.  What it says of a position
(an evaluation for the side to move, or a won or lost position) becomes an
*expected score*, 0 (lost) to 1 (won), by the game's winning-chances curve
(:func:`plyground.capabilities.winning_chances_slope`: lichess's for chess, a
man up 75% for checkers); a won or lost position is 1 or 0.  A move's *loss*
is the mover's expected score before it (with the engine's best move) less
the expected score after it, both from the mover's side.  A move the engine
itself would play loses nothing, and a forced move (the only legal one) is
never judged.

A loss of :data:`INACCURACY` or more is an inaccuracy (``?!``, NAG 6),
:data:`MISTAKE` a mistake (``?``, NAG 2), :data:`BLUNDER` a blunder (``??``,
NAG 4): lichess's thresholds (0.1, 0.2 and 0.3 of its -1..1 winning chances).
Each move also gets lichess's accuracy, ``103.1668 exp(-0.04354 d) - 3.1669``
with ``d`` the loss in percentage points (100 for a move that loses nothing);
a side's accuracy is the mean over its moves that were not forced.

Generic: the game is asked for its abilities (annotated records, its curve),
never named.
"""
from __future__ import annotations

import io
import json
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping

from ..analysis import expected_score, protocol_score
from ..capabilities import annotated_record_writer, winning_chances_slope
from ..errors import RecordError, UsageError
from ..files.atomic import check_regular_file
from ..files.recordio import MoveNote, numbered
from ..protocols import Budget, Game, GameRecord, Player, State
from .resume import replayed
from .review import GameReview, open_review

#: Losses of expected score (0..1, from the mover's side) that make a move an inaccuracy, a mistake, a blunder.
INACCURACY, MISTAKE, BLUNDER = 0.05, 0.10, 0.15
#: Each judgement's name, its mark and its NAG (PGN's numbering, which PDN shares).
JUDGEMENTS = (("blunder", BLUNDER, "??", 4), ("mistake", MISTAKE, "?", 2), ("inaccuracy", INACCURACY, "?!", 6))
#: The record tag that names who judged the moves (PGN's own tag for an annotator: ``[Annotator "..."]``).
ANNOTATOR_TAG = "Annotator"
#: How messages name what this does to a file ("cannot analyse FILE: ...").
ANALYSING = "analyse"


@dataclass
class PositionVerdict:
    """What the engine said of one position: the expected score of the game's first side (0..1), the
    evaluation in the engine's units from that side (``"+1.25"``, ``"#-3"``; "" when it gave none) and its
    best move there (None: the game is over there, or the move was forced)."""

    first: float | None
    words: str = ""
    best: str | None = None
    forced: bool = False


@dataclass
class MoveVerdict:
    """One move of the game judged: who made it, the expected scores before (best play) and after it from
    the mover's side, the loss, the judgement (None, "inaccuracy", "mistake", "blunder") and the accuracy."""

    ply: int                        # 0: the game's first move
    mover: int
    move: str
    best: str | None
    before: float
    after: float
    words_after: str                # the evaluation after the move, from the evaluation side ("+1.25", "#3")
    forced: bool = False

    @property
    def loss(self) -> float:
        if self.forced or (self.best is not None and self.best == self.move):
            return 0.0
        return max(0.0, self.before - self.after)

    @property
    def judgement(self) -> str | None:
        for name, threshold, _, _ in JUDGEMENTS:
            if self.loss >= threshold - 1e-12:
                return name
        return None

    @property
    def mark(self) -> str:
        return next((mark for name, _, mark, _ in JUDGEMENTS if name == self.judgement), "")

    @property
    def accuracy(self) -> float:
        """Lichess's accuracy of the move, 0..100 (100: it lost nothing)."""
        raw = 103.1668 * math.exp(-0.04354 * 100.0 * self.loss) - 3.1669
        return max(0.0, min(100.0, raw))

    def note(self) -> MoveNote:
        """The move's NAG and comment for the annotated record: ``[%eval +0.35]`` (after the move, from the
        game's evaluation side; lichess's form), and for a judged move its word and the engine's move."""
        nags = tuple(nag for name, _, _, nag in JUDGEMENTS if name == self.judgement)
        parts = [f"[%eval {self.words_after}]"] if self.words_after else []
        if self.judgement:
            parts.append(f"{self.judgement.capitalize()} (-{100 * self.loss:.0f}%). Best: {self.best}.")
        return MoveNote(nags, " ".join(parts))


@dataclass
class GameReport:
    """The engine's verdict on a whole game: a :class:`PositionVerdict` a position (the start, then after each
    move), a :class:`MoveVerdict` a move."""

    game: Game
    record: GameRecord
    positions: list[PositionVerdict]
    moves: list[MoveVerdict]
    engine: str = ""
    seconds: float = 0.0
    movers: list[int] = field(default_factory=list)
    first_number: int = 1                   # the number of the game's first move (State.move_number)

    def side_moves(self, side: int) -> list[MoveVerdict]:
        return [m for m in self.moves if m.mover == side]

    def accuracy(self, side: int) -> float | None:
        """The mean accuracy of ``side``'s moves that were not forced (None: it made none)."""
        judged = [m.accuracy for m in self.side_moves(side) if not m.forced]
        return sum(judged) / len(judged) if judged else None

    def count(self, side: int, judgement: str) -> int:
        return sum(1 for m in self.side_moves(side) if m.judgement == judgement)

    def curve(self) -> list[float]:
        """The expected score of the game's evaluation side (White in chess and checkers: the side every
        evaluation is told from) after each ply (the start position first), for the graph."""
        return [_for_side(p.first, self.game.evaluation_side) for p in self.positions]

    def move_label(self, verdict: MoveVerdict) -> str:
        """``12.`` or ``12...`` and the move with its mark, as a record numbers it."""
        number, _ = numbered(self.first_number, self.movers[0] if self.movers else 0, verdict.ply)
        return f"{number}{'.' if verdict.mover == 0 else '...'} {verdict.move}{verdict.mark}"

    def summary_lines(self) -> list[str]:
        """The table of both sides (accuracy and counts) and the list of judged moves."""
        names = [f"{self.game.side_names[side]} ({self.record.players[side]})" for side in (0, 1)]
        width = max(12, *(len(n) for n in names))
        rows = [("", *names)]
        rows.append(("accuracy", *(f"{a:.1f}%" if (a := self.accuracy(s)) is not None else "-" for s in (0, 1))))
        for name, plural in (("inaccuracy", "inaccuracies"), ("mistake", "mistakes"), ("blunder", "blunders")):
            rows.append((plural, *(str(self.count(s, name)) for s in (0, 1))))
        lines = [f"{row[0]:<14}{row[1]:>{width}}  {row[2]:>{width}}" for row in rows]
        judged = [m for m in self.moves if m.judgement]
        if judged:
            lines.append("")
            for m in judged:
                lines.append(f"{self.move_label(m):<18} {m.judgement:<10} {self.game.side_names[m.mover]} "
                             f"{100 * m.before:.0f}% -> {100 * m.after:.0f}%, best {m.best}")
        return lines

    def notes(self) -> list[MoveNote]:
        return [m.note() for m in self.moves]

    def annotated_text(self) -> str:
        """The game in its format with the notes: the game's annotated records, else a JSON line (the record,
        and ``notes``: each move's NAGs and comment)."""
        record = self.record
        if self.engine:              # who judged, in the tag PGN names for it (PDN and JSON lines keep tags too)
            record = replace(record, tags={**record.tags, ANNOTATOR_TAG: f"plyground analyse, {self.engine}"})
        writer = annotated_record_writer(self.game)
        if writer is not None:
            return writer(record, self.notes())
        data = dict(record.to_json(), notes=[{"nags": list(n.nags), "comment": n.comment}
                                             for n in self.notes()])
        return json.dumps(data) + "\n"

    def graph_png(self) -> bytes:
        """The evaluation graph (:meth:`graph_figure`) as a PNG picture."""
        import matplotlib.pyplot as plt

        fig = self.graph_figure()
        try:
            buffer = io.BytesIO()
            fig.savefig(buffer, format="png")
        finally:
            plt.close(fig)
        return buffer.getvalue()

    def graph_figure(self):
        """The evaluation graph, a matplotlib figure the caller closes: the evaluation side's expected score
        after each ply, judged moves marked, the x-axis ticked on whole plies."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import MaxNLocator

        first = self.game.side_names[self.game.evaluation_side]
        curve = [100 * v for v in self.curve()]
        plies = list(range(len(curve)))
        fig, ax = plt.subplots(figsize=(10, 4.5), dpi=100)
        try:
            ax.fill_between(plies, 50, curve, where=[c >= 50 for c in curve], color="#cfd8dc", interpolate=True)
            ax.fill_between(plies, 50, curve, where=[c < 50 for c in curve], color="#455a64", interpolate=True)
            ax.plot(plies, curve, color="black", linewidth=1.2,
                    label=f"{first}'s expected score (above 50%: good for {first})")
            ax.axhline(50, color="grey", linewidth=0.6)
            colours = {"inaccuracy": "#f9a825", "mistake": "#ef6c00", "blunder": "#c62828"}
            for name, colour in colours.items():
                marked = [(m.ply + 1, curve[m.ply + 1]) for m in self.moves if m.judgement == name]
                if marked:
                    ax.scatter(*zip(*marked), color=colour, zorder=3, s=28, label=name)
            ax.set_ylim(0, 100)
            ax.set_xlim(0, max(1, len(curve) - 1))
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))     # a ply is whole: no tick at ply 2.5
            ax.set_xlabel("ply")
            ax.set_ylabel(f"{first} expected score %")
            players = " - ".join(self.record.players)
            judged = f", judged by {self.engine}" if self.engine else ""
            ax.set_title(f"{self.game.name}: {players} {self.record.result_text}{judged}", fontsize=10)
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=4, fontsize=8, frameon=False)
            fig.tight_layout()
        except BaseException:
            plt.close(fig)
            raise
        return fig


# ------------------------------------------------------------------ opening the game

def open_game(game: Game, path: Path, number: int | None = None) -> GameReview:
    """Game ``number`` (1-based; None: the first) of the record file ``path`` (PDN, PGN or JSON lines as
    ``game`` writes them), replayed; one RecordError or UsageError naming the file and what is valid."""
    review = open_review(game, path, number, doing=ANALYSING, first=True)
    if not review.plies:
        raise RecordError(f"cannot {ANALYSING} {review.path}, game {review.number}: it has no moves")
    return review


# ------------------------------------------------------------------ the analysis

def analyse(review: GameReview, engine: Player, budget: Budget, engine_name: str = "",
            progress: Callable[[int, int, float], None] | None = None) -> GameReport:
    """Search every position of ``review`` with ``engine`` under ``budget`` and judge every move.
    ``progress(done, total, seconds so far)`` after each position searched."""
    game = review.game
    slope = winning_chances_slope(game)
    total = review.plies + 1
    started = time.perf_counter()
    engine.analysing = True          # a judge searches every position (no opening book answers for it)
    engine.reset()
    verdicts = []
    # One live position walked through the game, none kept: a State carries the game's history, so keeping every
    # one grew with the square of the plies (issue #72: 10,000 plies took 1 GB, 40,000 ran out of memory).
    for done, (state, _) in enumerate(replayed(game, review.record), 1):
        verdicts.append(_judge_position(game, engine, state, budget, slope))
        if progress is not None:
            progress(done, total, time.perf_counter() - started)
    _fill_forced(verdicts)
    moves = []
    for ply, text in enumerate(review.record.moves):
        mover = review.movers[ply]
        before, after = verdicts[ply], verdicts[ply + 1]
        moves.append(MoveVerdict(
            ply=ply, mover=mover, move=text, best=before.best,
            before=_for_side(before.first, mover), after=_for_side(after.first, mover),
            words_after=after.words, forced=before.forced))
    return GameReport(game, review.record, verdicts, moves, engine=engine_name,
                      seconds=time.perf_counter() - started, movers=list(review.movers),
                      first_number=review.position(0).move_number)


def _judge_position(game: Game, engine: Player, state: State, budget: Budget, slope: float) -> PositionVerdict:
    if state.is_terminal():
        first_return = state.returns()[0]
        return PositionVerdict((first_return + 1.0) / 2.0, "0.00" if first_return == 0 else "")
    side = state.current_player()
    if len(state.legal_moves()) == 1:
        return PositionVerdict(None, "", state.move_to_text(state.legal_moves()[0]), forced=True)
    move = engine.choose_move(state.clone(), budget)
    analysis = engine.analysis() or {}
    best = analysis.get("move") or state.move_to_text(move)
    score = expected_score(analysis, slope)
    if score is None:                      # an engine that says nothing of its positions: no verdict here
        return PositionVerdict(None, "", best)
    return PositionVerdict(_for_side(score, side), _words(analysis, side == game.evaluation_side), best)


def _for_side(score: float | None, side: int) -> float:
    """``score`` (the expected score of the first side) as side ``side``'s, or the other way round (the
    same sum); 0.5 when nothing is known."""
    if score is None:
        return 0.5
    return score if side == 0 else 1.0 - score


def _fill_forced(verdicts: list[PositionVerdict]) -> None:
    """A forced position (or one the engine said nothing of) is worth what the position after it is."""
    following = None
    for verdict in reversed(verdicts):
        if verdict.first is None and following is not None:
            verdict.first, verdict.words = following.first, following.words
        following = verdict
    known = next((v for v in verdicts if v.first is not None), None)
    for verdict in verdicts:                  # nothing after it: the position before, else even
        if verdict.first is None:
            verdict.first, verdict.words = (known.first, known.words) if known is not None else (0.5, "")
        known = verdict


def _words(analysis: dict, own_view: bool) -> str:
    """The evaluation from the game's evaluation side's view (``own_view``: the side that searched is it) as
    lichess's ``[%eval]`` writes it: ``+1.25`` (in the engine's units: pawns, men) or ``#3`` / ``#-3`` (a
    win or loss in so many moves)."""
    score = protocol_score(analysis)
    if score is None:
        return ""
    kind, amount = score
    sign = 1 if own_view else -1
    if kind in ("win", "loss"):
        moves = max(1, (int(amount) + 1) // 2)
        return f"#{moves * sign * (1 if kind == 'win' else -1)}"
    if kind == "moves":
        return f"#{int(amount) * sign}"
    return f"{amount * sign + 0.0:+.2f}"


def default_out(path: Path, game: Game) -> Path:
    """Where the annotated game goes by default: beside ``path``, ``.analysed`` before the suffix."""
    path = Path(path)
    return path.with_name(f"{path.stem}.analysed{game.record_suffix}")


def check_new_file(path: Path, flag: str, force: bool, protect: Mapping[Path, str] | None = None) -> Path:
    """``path`` for writing: its folder must exist; an existing file is replaced only with ``force``; never a
    file of ``protect`` (the game file itself, the annotated game), each with what it is ("the annotated
    game's file (--out)"), whether it exists yet or not.  One UsageError naming the file otherwise."""
    path = check_regular_file(Path(path).expanduser(), flag)
    for other, what in (protect or {}).items():
        try:
            if path.resolve() == Path(other).expanduser().resolve():
                raise UsageError(f"{flag} {path} is {what}; give another file")
        except OSError:
            pass
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"{flag} {path}: the folder {parent} does not exist")
    if path.exists() and not force:
        raise UsageError(f"{flag} {path} exists; give --force to replace it, or another file")
    return path
