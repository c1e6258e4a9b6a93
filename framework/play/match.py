"""Playing games: one game between two players, and a match of many with a summary."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from .. import draws
from .clock import TIME_CONTROL_TAG, Clock, TimeControl, note_time_left, resumed_clock
from ..protocols import Budget, Command, Game, GameRecord, Move, Player, Renderer, State
from ..files.recordio import record_date
from .resume import replay
from ..util.stopping import STOP_WITHIN, stop_signal_of
from .stats import Score
from ..util.wording import counted

#: Seconds a bot may think about one move when no per-move time budget is set (``--move-limit``).
DEFAULT_MOVE_LIMIT = 300.0
#: Tags of a resumed game that still describe it (the date it began, where); the rest is the new session's.
_KEPT_ON_RESUME = ("Date", "Event", "Site", "Round")
#: Least grace beyond a per-move time budget before the move counts as overstepped.
MOVE_GRACE = 2.0


def move_limit(budget: Budget, hard_cap: float | None, first_move: bool) -> float | None:
    """Seconds this move may take: the budget plus a grace, never more than the hard cap.

    A player's first move gets the hard cap whatever its budget, because it may
    include one-off set-up (compiling kernels, loading a model).
    """
    if budget.seconds is None or first_move:
        return hard_cap
    allowed = budget.seconds + max(MOVE_GRACE, budget.seconds / 2)
    return allowed if hard_cap is None else min(allowed, hard_cap)


class MoveOverstepped(Exception):
    """A player did not answer within its move limit."""


class Interrupted(Exception):
    """The person asked for ``command`` (undo or quit) while a bot was thinking; its search was stopped."""

    def __init__(self, command: Command) -> None:
        super().__init__(command.value)
        self.command = command


class PlayerFailed(Exception):
    """A player raised while choosing a move (``cause`` is what it raised, SystemExit included)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(cause)
        self.cause = cause


#: How often the runner looks up from a thinking bot (Ctrl-C, the window's "undo", the time limit).
POLL_SECONDS = 0.05


def ask_for_move(player: Player, state: State, budget: Budget, limit: float | None,
                 interruption: Callable[[], Command | None] | None = None,
                 progress: Callable[[dict], None] | None = None) -> Move | Command:
    """``player.choose_move``, bounded by ``limit`` seconds (None: unbounded) and stoppable.

    A person's move (``needs_renderer``) is asked for in this thread: the
    renderer waits for it.  A bot thinks on a daemon thread while this one
    polls: past ``limit`` it raises :class:`MoveOverstepped`; when
    ``interruption()`` returns a command (the person asked to undo or quit
    meanwhile) or on Ctrl-C, the bot's ``stop_signal`` is set, the search gets
    :data:`~plyground.util.stopping.STOP_WITHIN` seconds to return, and the command
    comes back as :class:`Interrupted` (Ctrl-C is raised again).  In every case a stopped or overrun
    search is told to stop, so it does not go on burning a core.  Whatever the
    player raises -- SystemExit and KeyboardInterrupt included -- comes back as
    :class:`PlayerFailed`, so it can end only its own game.  ``progress``, while the bot thinks, is
    its ``Player.progress``: it gets the analysis so far (live analysis).
    """
    if player.needs_renderer:
        try:
            return player.choose_move(state, budget)
        except KeyboardInterrupt:
            raise               # the user's Ctrl-C at the prompt
        except BaseException as exc:
            raise PlayerFailed(exc) from exc
    signal = stop_signal_of(player)
    signal.clear()
    outcome: dict[str, object] = {}

    watched = progress is not None and _watch(player, progress)

    def think() -> None:
        try:
            outcome["move"] = player.choose_move(state, budget)
        except BaseException as exc:  # noqa: BLE001  (handed to the caller, whatever it is)
            outcome["error"] = exc
        finally:
            if watched:
                player.progress = None

    thread = threading.Thread(target=think, name=f"plyground-move-{player.name}", daemon=True)
    deadline = None if limit is None else time.monotonic() + limit
    thread.start()
    try:
        while thread.is_alive():
            thread.join(POLL_SECONDS)
            if not thread.is_alive():
                break
            if deadline is not None and time.monotonic() >= deadline:
                signal.set()
                raise MoveOverstepped(f"{limit:g} s")
            command = interruption() if interruption is not None else None
            if command is not None:
                signal.set()
                thread.join()   # the player's state must be quiet before the game goes on
                raise Interrupted(command)
    except KeyboardInterrupt:
        signal.set()
        thread.join(STOP_WITHIN)
        raise
    if "error" in outcome:
        raise PlayerFailed(outcome["error"])  # type: ignore[arg-type]
    return outcome["move"]  # type: ignore[return-value]


def play_game(game: Game, players: Sequence[Player], *, names: Sequence[str] | None = None,
              renderer: Renderer | None = None, budget: Budget = Budget(), start: State | None = None,
              max_plies: int | None = None, seed: int | None = None,
              adjudicator: Callable[[State, int], tuple[tuple[float, float], str] | None] | None = None,
              move_limit_seconds: float | None = DEFAULT_MOVE_LIMIT, resume: GameRecord | None = None,
              time_control: TimeControl | None = None) -> GameRecord:
    """Play one game to its end (or the ply cap) and return its record.

    Players and the renderer only ever receive clones of the game state.  A
    player that raises is recorded as an unfinished game whose reason names
    it; a player that returns an illegal move forfeits.  ``adjudicator(state,
    plies)``, asked before every move, may end the game early by returning
    ``(returns, reason)`` (a training's engine judge, e.g. Stockfish
    resignation); None plays on.  A bot that takes longer than its move limit
    (:func:`move_limit`: the budget plus a grace, at most ``move_limit_seconds``;
    None: no limit) forfeits; people at a renderer have no limit.  ``resume``, an
    unfinished record (:mod:`plyground.play.resume`), replays its moves first and plays on
    (``start`` is then ignored).  The renderer's ``record`` is the record being built.

    With a ``time_control`` each side has a clock (:mod:`plyground.play.clock`, the renderer's
    ``clock``): a bot's time budget for a move is the clock's allotment, and a side whose
    clock runs out -- a bot past it is stopped there -- loses on time.
    """
    state = start.clone() if start is not None else game.new_initial_state()
    names = tuple(names or (p.name for p in players))
    # Dated when it begins (UTC, as PGN and PDN write dates), not when it ends.
    record = GameRecord(game=game.name, players=names, start=state.to_text(), tags={"Date": record_date()})
    clock = Clock(time_control) if time_control is not None else None
    movers: list[int] = []           # who made each move: sides may move twice in a row
    if resume is not None:           # a game saved unfinished: its start, its moves, then play on
        state, movers = replay(game, resume)
        if clock is None:            # its own clock, as its last move left it (no --tc given)
            clock = resumed_clock(resume.tags, movers)
            time_control = clock.control if clock is not None else None
        else:
            clock.moves = [movers.count(0), movers.count(1)]
        record.start, record.moves = resume.start, list(resume.moves)
        record.tags.update({k: v for k, v in resume.tags.items() if k in _KEPT_ON_RESUME})
        # A side played on by another player: the change is an event of the record, so the moves before it
        # stay credited to the player who made them (GameRecord.player_at).
        changes = [entry for entry in str(resume.tags.get(GameRecord.PLAYER_CHANGES, "")).split("; ") if entry]
        changes += [f"from ply {len(resume.moves) + 1} {game.side_names[side]}: {names[side]} (was {old})"
                    for side, old in enumerate(resume.players) if old != names[side] and old not in ("", "?")]
        if changes:
            record.tags[GameRecord.PLAYER_CHANGES] = "; ".join(changes)
    if clock is not None:
        record.tags[TIME_CONTROL_TAG] = str(time_control)
        note_time_left(record.tags, clock)
    for i, player in enumerate(players):
        player.renderer = renderer
        player.reset(None if seed is None else seed * 2 + i)
    if renderer is not None:
        renderer.record = record     # the game so far, for a renderer's save and record commands
        renderer.game_clock = clock  # both sides' time, when the game has a time control
        renderer.start(game, state.clone(), names)
        renderer.show(state.clone(), record.moves[-1] if record.moves else None)
    for player in players:           # the slow first-use work (compiling, loading a model), before any clock
        if not player.needs_renderer:
            try:
                player.warm_up()
            except Exception:  # noqa: BLE001 - the player's first move meets it again, and its game records it
                pass
    started = time.perf_counter()
    offer: int | None = None         # the side whose draw offer stands, until the other person answers it

    while not state.is_terminal():
        if clock is not None:        # the time left as the last move (or undo) left it: what a save keeps
            note_time_left(record.tags, clock)
        if max_plies is not None and len(record.moves) >= max_plies:
            record.returns, record.reason = (0.0, 0.0), f"ply cap ({max_plies} plies)"
            break
        verdict = adjudicator(state.clone(), len(record.moves)) if adjudicator is not None else None
        if verdict is not None:
            returns, record.reason = verdict
            record.returns = (float(returns[0]), float(returns[1]))
            break
        side = state.current_player()
        player = players[side]
        if renderer is not None and not player.needs_renderer:
            renderer.thinking(names[side])
        move_budget = budget
        first_move = side not in movers
        limit = None if player.needs_renderer else move_limit(budget, move_limit_seconds, first_move)
        charge_cap = None                    # the most a move is charged (None: what it took)
        if clock is not None:
            if not player.needs_renderer:
                move_budget = Budget(simulations=budget.simulations, seconds=clock.allot(side),
                                     most_seconds=clock.allot_most(side))
                if first_move:
                    # It may include one-off set-up (compiling kernels, loading a model or a database):
                    # it has the move limit, and is charged at most its allotment.
                    limit, charge_cap = max(limit or 0.0, clock.remaining(side)), move_budget.seconds
                else:
                    limit = clock.remaining(side)
            clock.start(side)
        interruption = renderer.interruption if renderer is not None and not player.needs_renderer else None
        progress = None
        if renderer is not None and renderer.shows_progress and not player.needs_renderer:
            progress = live_progress(renderer, f"{names[side]} thinking", game.side_names[side])
        try:
            choice = ask_for_move(player, state.clone(), move_budget, limit, interruption, progress)
        except MoveOverstepped:
            record.returns = (-1.0, 1.0) if side == 0 else (1.0, -1.0)
            if clock is not None:
                clock.charge(side)            # past its limit, so past its time: the flag falls
                record.reason = _lost_on_time(names[side], game.side_names[side], time_control)
            else:
                record.reason = (f"{names[side]} ({game.side_names[side]}) exceeded its {limit:g} s move limit "
                                 f"and forfeits")
            break
        except PlayerFailed as failed:  # a crashed engine must not take the match down
            if clock is not None:
                clock.pause(side)
            exc = failed.cause
            record.finished = False
            record.reason = f"{names[side]} ({game.side_names[side]}) failed: {type(exc).__name__}: {exc}"
            break
        except Interrupted as stopped:      # the person's undo or quit while the bot thought
            if clock is not None:
                clock.pause(side)
            if stopped.command is Command.QUIT:
                record.finished = False
                record.reason = f"left while {names[side]} ({game.side_names[side]}) was thinking"
                break
            _take_back(state, record, movers, _person_to_undo(players, side), players, clock)
            if renderer is not None:
                renderer.show(state.clone(), record.moves[-1] if record.moves else None)
            continue
        if clock is not None:
            if isinstance(choice, Command) and choice is not Command.TIME_UP:
                clock.pause(side)             # an undo, a resignation, a quit: no move made
            elif not clock.charge(side, None if charge_cap is None else min(clock.elapsed(), charge_cap)):
                record.returns = (-1.0, 1.0) if side == 0 else (1.0, -1.0)
                record.reason = _lost_on_time(names[side], game.side_names[side], time_control)
                break
        if choice is Command.QUIT:
            record.finished, record.reason = False, f"{game.side_names[side]} quit"
            break
        if choice is Command.RESIGN:
            record.returns = (-1.0, 1.0) if side == 0 else (1.0, -1.0)
            record.reason = f"{game.side_names[side]} resigned"
            break
        if choice in (Command.OFFER_DRAW, Command.ACCEPT_DRAW, Command.CLAIM_DRAW):
            verdict, offer = _draw_command(choice, state, side, offer, players, names, game.side_names, renderer)
            if verdict is None:
                continue                      # declined, offered or refused: the same side is asked again
            record.returns, record.reason = (0.0, 0.0), verdict
            break
        if offer is not None:                 # any other answer of the other side declines the offer standing
            if offer != side:
                offer = None
                if renderer is not None:
                    renderer.draw_offered(None)
        if choice is Command.UNDO:
            _take_back(state, record, movers, side, players, clock)
            if renderer is not None:
                renderer.show(state.clone(), record.moves[-1] if record.moves else None)
            continue
        if choice not in state.legal_moves():
            record.returns = (-1.0, 1.0) if side == 0 else (1.0, -1.0)
            record.reason = f"{names[side]} ({game.side_names[side]}) forfeited with the illegal move {choice!r}"
            break
        text = state.move_to_text(choice)
        if renderer is not None and not player.needs_renderer:
            renderer.show_analysis(names[side], _analysis_of(player), game.side_names[side])
        for p in players:
            p.observe_move(state.clone(), choice)
        state.apply(choice)
        record.moves.append(text)
        movers.append(side)
        if renderer is not None:
            renderer.show(state.clone(), text)
    else:
        record.returns = tuple(state.returns())
        record.reason = state.outcome_reason()

    if clock is not None:
        note_time_left(record.tags, clock)
    record.tags.setdefault("PlyCount", str(len(record.moves)))
    record.tags.setdefault("Seconds", f"{time.perf_counter() - started:.2f}")
    if renderer is not None:
        renderer.end(state.clone(), record)
    return record


def _draw_command(choice: Command, state: State, side: int, offer: int | None, players: Sequence[Player],
                  names: Sequence[str], side_names: Sequence[str],
                  renderer: Renderer | None) -> tuple[str | None, int | None]:
    """A person's draw offer, acceptance or claim on ``side``'s turn: (the record's reason for the draw, or None
    when the game goes on; the side whose offer stands now).  A bot answers an offer at once
    (:meth:`Player.answer_draw`); a person at the same board answers by ``ACCEPT_DRAW`` on their turn, or declines
    by moving.  What is declined or refused is told to the renderer."""
    def tell(text: str) -> None:
        if renderer is not None:
            renderer.tell(text)

    other = 1 - side
    if choice is Command.CLAIM_DRAW:
        rule = state.claimable_draw()
        if rule:
            return draws.claimed(rule), None
        tell("No draw can be claimed in this position.")
        return None, offer
    if choice is Command.ACCEPT_DRAW:
        if offer == other:
            return draws.AGREED, None
        tell("There is no draw offer to accept.")
        return None, offer
    if players[other].needs_renderer:          # people at one board: the other person answers on their turn
        if renderer is not None:
            renderer.draw_offered(side)
        tell(f"{side_names[side]} offers a draw: {side_names[other]} accepts it (Accept draw) or declines by "
             f"moving.")
        return None, side
    try:
        accepted, why = players[other].answer_draw(state.clone())
    except Exception as exc:  # noqa: BLE001 - a failing answer declines; the game goes on
        accepted, why = False, f"it could not answer ({type(exc).__name__}: {exc})"
    if accepted:
        return draws.AGREED, None
    tell(f"{names[other]} declined the draw: {why}.")
    return None, offer


def _lost_on_time(name: str, side_name: str, control: TimeControl) -> str:
    return f"{name} ({side_name}) lost on time ({control} time control)"


def _watch(player: Player, progress: Callable[[dict], None]) -> bool:
    """Give the player its ``progress`` watcher; False for one that cannot take it (``__slots__``)."""
    try:
        player.progress = progress
    except AttributeError:
        return False
    return True


def live_progress(renderer: Renderer, title: str, side_name: str) -> Callable[[dict], None]:
    """A searching player's ``progress``: its analysis so far, shown under ``title`` as the renderer shows
    its finished ones (a bot thinking, a hint searching)."""
    def show(analysis: dict) -> None:
        renderer.show_analysis(title, analysis, side_name)
    return show


def _analysis_of(player: Player) -> dict | None:
    """The player's description of its last search; a player whose ``analysis`` fails has none."""
    try:
        return player.analysis()
    except Exception:  # noqa: BLE001 - a display extra must not end the game
        return None


def _person_to_undo(players: Sequence[Player], thinking: int) -> int:
    """Whose move an undo asked for during ``thinking``'s search takes back: the person's (else the bot's)."""
    people = [side for side in (1 - thinking, thinking) if players[side].needs_renderer]
    return people[0] if people else thinking


def _take_back(state: State, record: GameRecord, movers: list[int], side: int, players: Sequence[Player],
               clock: Clock | None = None) -> None:
    """Undo back to this side's previous turn (the opponent's reply included); a clock's move counts
    follow (the time spent stays spent)."""
    if side not in movers:
        return  # nothing of this side's to take back; the renderer asks again
    while movers:
        state.undo()
        record.moves.pop()
        mover = movers.pop()
        if clock is not None:
            clock.moves[mover] = max(0, clock.moves[mover] - 1)
        if mover == side:
            break
    for p in players:
        p.reset(None)  # searched trees no longer match the position


@dataclass
class MatchResult:
    """Results of a match from the point of view of the first-named player (A)."""

    names: tuple[str, str]
    records: list[GameRecord] = field(default_factory=list)
    a_first: list[bool] = field(default_factory=list)

    @property
    def score(self) -> Score:
        w = d = l = 0
        for record, a_first in zip(self.records, self.a_first):
            if not record.finished:
                continue
            s = record.score(0 if a_first else 1)
            w, d, l = w + (s == 1.0), d + (s == 0.5), l + (s == 0.0)
        return Score(w, d, l)

    @property
    def unfinished(self) -> int:
        return sum(not r.finished for r in self.records)

    def summary(self) -> str:
        """The result in words: games counted, A's wins, draws and losses, the score and the Elo difference,
        which games the match's limits cut short (time, move limit, ply cap) and which did not finish."""
        s = self.score
        a, b = self.names
        if not s.games:
            lines = [f"{a} vs {b}: no finished game"]
        else:
            lo, hi = s.interval()
            lines = [f"{a} vs {b}: {counted(s.games, 'game')}",
                     f"  {a}: {counted(s.wins, 'win')}, {counted(s.draws, 'draw')}, "
                     f"{counted(s.losses, 'loss', 'losses')}",
                     f"  score {s.score:.1%}  (95% interval {lo:.1%} to {hi:.1%})",
                     f"  {_elo_line(s, a, b)}"]
        cut = _tally(cut_short(r) for r in self.records if r.finished)
        if cut:
            lines.append("  cut short (counted above): " + ", ".join(f"{n} {how}" for how, n in cut.items()))
        if self.unfinished:
            reasons = _tally(r.reason or "no reason given" for r in self.records if not r.finished)
            lines.append(f"  {counted(self.unfinished, 'unfinished game')} not counted: "
                         + "; ".join(reason if n == 1 else f"{reason} ({n} games)" for reason, n in reasons.items()))
        return "\n".join(lines)


#: How play_game words the endings that the match's limits, not the game's rules, decided (a phrase of the
#: reason, and how a summary counts it).
_CUT_SHORT = ((" lost on time (", "lost on time"), (" move limit and forfeits", "forfeited over the move limit"),
              (" forfeited with the illegal move ", "forfeited with an illegal move"),
              ("ply cap", "drawn at the ply cap"))


def cut_short(record: GameRecord) -> str | None:
    """How the match's limits ended this finished game ("lost on time", "drawn at the ply cap", ...);
    None when the game ended on the board (or by a resignation)."""
    for phrase, words in _CUT_SHORT:
        if phrase in record.reason:
            return words
    return None


def _tally(items) -> dict[str, int]:
    """How often each different item came, in order of first appearance (None is left out)."""
    counts: dict[str, int] = {}
    for item in items:
        if item is not None:
            counts[item] = counts.get(item, 0) + 1
    return counts


def _sweep_to_tell() -> int:
    """Games a player must all win for the 95% interval to show it stronger (4 with Wilson's interval)."""
    games = 1
    while Score(games, 0, 0).elo_interval()[0] <= 0:
        games += 1
    return games


def _elo_line(s: Score, a: str, b: str) -> str:
    """A's Elo difference to B and its 95% interval.  A clean sweep has one bound only; while that bound
    still allows either player to be the stronger (a 2-0 happens one time in four between equals), the
    line says the games are too few instead of giving a bound of the sign that contradicts the score."""
    lo, hi = s.elo_interval()
    head = f"Elo of {a} minus {b}"
    won_all, lost_all = s.losses == s.draws == 0, s.wins == s.draws == 0
    if not (won_all or lost_all):
        return f"{head}: {_fmt_elo(s.elo())}  (95% interval {_fmt_elo(lo)} to {_fmt_elo(hi)})"
    if won_all and lo > 0:
        return f"{head}: at least {_fmt_elo(lo)} (95% lower bound; every game won, so no upper bound)"
    if lost_all and hi < 0:
        return f"{head}: at most {_fmt_elo(hi)} (95% upper bound; every game lost, so no lower bound)"
    result, streak = ("won", "wins") if won_all else ("lost", "losses")
    games = "the only game" if s.games == 1 else f"all {s.games}"
    return (f"{head}: too few games to tell at 95% ({a} {result} {games}; it takes {_sweep_to_tell()} "
            f"straight {streak})")


def _fmt_elo(value: float) -> str:
    rounded = int(round(value))
    return f"{rounded:+d}" if rounded else "0"          # never "-0"
