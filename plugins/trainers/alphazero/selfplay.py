"""Self-play: games of the network against itself, recording a training example per position.

:class:`SelfPlayGame` is one game as a small state machine (search the
position, play the chosen move, until the game ends); :func:`play_selfplay_game`
drives one game with its own network calls, and ``batched.py`` drives many at
once with one network call per step.  :class:`SelfPlayPhase` is an
iteration's self-play in a training run: the games it still lacks, played on
the arena (this process or the workers) with the best network, and written
as replay chunks as they finish.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from plyground.util.durations import format_duration
from plyground.protocols import Game, GameRecord
from plyground.util.timelimit import TimeLimit
from plyground.players.search.puct import PUCTSearch

from .examples import Examples, Step, make_step
from .rundir import RunDirectory
from .settings import AlphaZeroSettings

if TYPE_CHECKING:                       # the arena plays these games (arena -> actors -> batched -> here)
    from .arena import Arena
    from .modelfiles import ModelFiles


@dataclass(frozen=True)
class SelfPlaySettings:
    simulations: int
    temperature_plies: int          # tau = 1 for the first N plies, then 0
    max_plies: int | None = None    # adjudicate a draw after this many plies
    # Playout cap randomization (KataGo): with fast_simulations set, a move gets the full search (root
    # noise on, recorded as a training example) with probability full_search_share, else a fast search
    # of fast_simulations (no root noise, not recorded): more games, so more value targets, per hour.
    fast_simulations: int | None = None
    full_search_share: float = 0.25
    # value target = (1 - w) * the game's result + w * the search's root value (KataGo-style mixing:
    # the result alone is a noisy target, the search's value a biased one)
    search_value_weight: float = 0.0
    # random openings: a share random_opening_share of the games begin with 1..random_opening_plies
    # uniformly random moves (played, not learned from), so the network also sees the unbalanced and
    # odd positions a self-play game of its own never reaches (the test positions of a perfect-play
    # benchmark come from such games, too); every example's value target is then still the result of
    # searched play from its position on
    random_opening_share: float = 0.0
    random_opening_plies: int = 0
    # adjudicator(state, plies) -> ((return_0, return_1), reason) ends the game early, or None plays on
    # (the expert-iteration trainer's Stockfish resignation rule)
    adjudicator: Callable[[Any, int], tuple[tuple[float, float], str] | None] | None = None
    # exact endings (Leela's tablebase rescoring, for the positions the games stop before): when the
    # adjudicator ends a game, up to exact_plies plies of perfect play from there become examples too, each
    # position's policy target the moves perfect_moves(state) gives (those that keep its exact result), its
    # value the adjudicated result; perfect_moves returns None where it knows no answer (the tail stops)
    exact_plies: int = 0
    perfect_moves: Callable[[Any], list | None] | None = None


class SelfPlayGame:
    """One self-play game with ``search`` (its root noise on) choosing both sides' moves.

    Every position where a move was chosen gives one example: a copy of its
    observation, the search's policy target there (PUCT: the visit
    distribution; Gumbel: the improved policy), and - once the game is over -
    the result for the player who was to move there.

    Use: ``while game.next_search(): <search.run(settings.simulations)>; game.play_searched_move()``,
    then :meth:`result`.
    """

    def __init__(self, game: Game, search: PUCTSearch, rng: np.random.Generator, settings: SelfPlaySettings,
                 *, names: tuple[str, str] = ("self-play", "self-play"), tags: dict | None = None) -> None:
        self.game, self.search, self.rng, self.settings = game, search, rng, settings
        self.state = game.new_initial_state()
        search.new_game()
        self.record = GameRecord(game=game.name, players=names, start=self.state.to_text(), tags=dict(tags or {}))
        self.steps: list[Step] = []
        self.returns: tuple[float, float] | None = None
        self.full_search = True          # is the current move's search a full one (see SelfPlaySettings)
        self._noise = search.dirichlet_epsilon
        self._random_opening()

    def _random_opening(self) -> None:
        settings, rng = self.settings, self.rng
        if settings.random_opening_plies < 1 or settings.random_opening_share <= 0:
            return
        if rng.random() >= settings.random_opening_share:
            return
        plies = int(rng.integers(1, settings.random_opening_plies + 1))
        for _ in range(plies):
            if self.state.is_terminal():
                break
            legal = self.state.legal_moves()
            self._play(legal[int(rng.integers(len(legal)))])
        self.record.tags["RandomOpening"] = str(len(self.record.moves))

    @property
    def finished(self) -> bool:
        return self.returns is not None

    def next_search(self) -> bool:
        """Play forced moves until a position needs a search (True: the search's root is set there)
        or the game is over (False)."""
        state, record, settings = self.state, self.record, self.settings
        while True:
            if state.is_terminal():
                self.returns = tuple(float(r) for r in state.returns())
                record.reason = state.outcome_reason()
                return False
            if settings.max_plies is not None and len(record.moves) >= settings.max_plies:
                self.returns = (0.0, 0.0)
                record.reason = f"ply cap ({settings.max_plies} plies)"
                return False
            if settings.adjudicator is not None:
                verdict = settings.adjudicator(state, len(record.moves))
                if verdict is not None:
                    returns, record.reason = verdict
                    self.returns = (float(returns[0]), float(returns[1]))
                    self._exact_tail()
                    return False
            legal = state.legal_moves()
            if len(legal) > 1:
                self.full_search = (settings.fast_simulations is None
                                    or self.rng.random() < settings.full_search_share)
                # a fast search explores without root noise: its move is played, not learned from
                self.search.dirichlet_epsilon = self._noise if self.full_search else 0.0
                self.search.set_root(state, reuse=True, temperature=self._temperature())
                return True
            self.steps.append(make_step(state, legal, [1.0]))
            self._play(legal[0])

    def _exact_tail(self) -> None:
        """The examples of perfect play on from an adjudicated position (see ``SelfPlaySettings.exact_plies``):
        the moves drawn among the perfect ones, played on a copy (the record ends where the game was
        adjudicated)."""
        settings = self.settings
        if settings.exact_plies < 1 or settings.perfect_moves is None:
            return
        state = self.state.clone()
        for _ in range(settings.exact_plies):
            if state.is_terminal():
                return
            perfect = settings.perfect_moves(state)
            if not perfect:
                return
            if len(state.legal_moves()) > 1:
                self.steps.append(make_step(state, perfect, [1.0] * len(perfect),
                                            self.returns[state.current_player()]))
            state.apply(perfect[int(self.rng.integers(len(perfect)))])

    @property
    def simulations(self) -> int:
        """The simulations the current move's search gets (full or fast)."""
        if self.full_search or self.settings.fast_simulations is None:
            return self.settings.simulations
        return self.settings.fast_simulations

    def play_searched_move(self) -> None:
        """Record the search's policy target (a full search's only) and play its choice."""
        if self.full_search:
            moves, weights = self.search.policy_target()
            self.steps.append(make_step(self.state, moves, weights, self.search.root_value()))
        self._play(self.search.choose_move(self._temperature(), self.rng))

    def _temperature(self) -> float:
        """tau = 1 for the first ``temperature_plies`` plies, then 0."""
        return 1.0 if len(self.record.moves) < self.settings.temperature_plies else 0.0

    def _play(self, move) -> None:
        self.search.note_position(self.state)
        self.search.advance(self.state, move)
        self.record.moves.append(self.state.move_to_text(move))
        self.state.apply(move)

    def result(self) -> tuple[Examples, GameRecord]:
        """The examples and the record of the finished game."""
        if self.returns is None:
            raise RuntimeError("the self-play game is not finished")
        record = self.record
        record.returns = (float(self.returns[0]), float(self.returns[1]))
        record.tags.setdefault("PlyCount", str(len(record.moves)))
        examples = Examples.from_steps(self.steps, record.returns, tuple(self.game.observation_shape),
                                       search_value_weight=self.settings.search_value_weight)
        return examples, record


def play_selfplay_game(game: Game, search: PUCTSearch, rng: np.random.Generator, settings: SelfPlaySettings,
                       *, names: tuple[str, str] = ("self-play", "self-play"),
                       tags: dict | None = None) -> tuple[Examples, GameRecord]:
    """Play one game with ``search`` choosing both sides' moves (see :class:`SelfPlayGame`)."""
    selfplay = SelfPlayGame(game, search, rng, settings, names=names, tags=tags)
    while selfplay.next_search():
        search.run(selfplay.simulations)
        selfplay.play_searched_move()
    return selfplay.result()


class SelfPlayPhase:
    """The self-play phase of a run: ``selfplay_games`` games an iteration, played with the best network on
    the arena ``arena()`` makes (started on first use), kept in ``rundir`` as chunks of ``save_every``
    games, in order, so that a killed run resumes after the last chunk; progress lines go to ``log``."""

    def __init__(self, game: Game, settings: AlphaZeroSettings, rundir: RunDirectory, models: "ModelFiles",
                 arena: Callable[[], "Arena"], log: Callable[[str], None]) -> None:
        self.game, self.settings, self.rundir, self.models = game, settings, rundir, models
        self.arena, self.log = arena, log

    def run(self, k: int, best_iteration: int, limit: TimeLimit, prefix: str, *,
            note: Callable[[], str] = lambda: "", saved: Callable[[int], None] = lambda games: None) -> None:
        """Iteration ``k``'s games (the best network is iteration ``best_iteration``'s), from the first one not
        on disk; none is begun that ``limit`` has no time for, and every game finished in order is kept.
        ``note()`` ends each progress line (the run's ETA, its rating); ``saved(games)`` hears of each chunk."""
        s, rundir = self.settings, self.rundir
        target = s.selfplay_games
        done = rundir.games_done(k)
        records: list[GameRecord] = []
        examples_so_far = 0
        for examples, chunk_records in rundir.iter_chunks(range(k, k + 1)):
            records += chunk_records
            examples_so_far += len(examples)
        if done >= target:
            return
        if done:
            self.log(f"{prefix} self-play resumes after {done} finished games")
        best = self.models.blob(rundir.best_path)      # here too: a damaged file gets one clear line
        record_file = rundir.records_file("selfplay", k, records)
        names = (f"iter-{best_iteration:04d}",) * 2
        event = f"alphazero self-play, iteration {k}"
        limit.begin("self-play start")      # until the first games are saved: not begun when it would not fit
        arena = self.arena()
        # on workers, a group of games starts only if the longest group so far would finish in time: at the
        # limit the groups under way finish and no game is lost
        games = arena.selfplay(k, range(done, target), best, names, event, s.parallel_games,
                               more=lambda: limit.fits("self-play group"),
                               on_group=lambda seconds: limit.learn({"self-play group": seconds}))
        # Games may finish out of order: a chunk is written once all its games are in, so the chunks on
        # disk always cover games 0, 1, ... without gaps (what a resumed run counts).
        finished: dict[int, tuple[Examples, GameRecord]] = {}
        first = done
        started, last_line = time.perf_counter(), 0.0

        def write_chunks(whole: bool = True) -> None:
            """The finished games from ``first`` on, in order, as chunks of ``save_every`` games (``whole``
            False: the last one may be shorter - the run stops at its time limit)."""
            nonlocal first
            while first < target:
                last = min(first + s.save_every, target)
                ready = next((n for n in range(first, last) if n not in finished), last)
                if ready == first or (whole and ready < last):
                    break
                chunk = [finished.pop(n) for n in range(first, ready)]
                batch = Examples.concatenate([e for e, _ in chunk], tuple(self.game.observation_shape))
                rundir.write_chunk(k, first, batch, [r for _, r in chunk])
                for _, r in chunk:
                    record_file.append(r)
                saved(len(chunk))
                first = ready

        for count, (g, examples, record) in enumerate(games, start=1):
            finished[g] = (examples, record)
            examples_so_far += len(examples)
            before = first
            write_chunks()
            per_game = (time.perf_counter() - started) / count
            if first > before:                  # games saved: the run moved on
                if before == done:
                    limit.took("self-play start", time.perf_counter() - started)
                limit.took("self-play game", per_game)
            # in this process, a game in at this rate: stop (keeping every game saved) when the next would not
            # fit; on workers only past the time (groups begin only if they fit: those under way finish).
            # Never before this process has saved a game (with games finishing out of order, the next
            # chunk's first game may come last: a stop before it would save nothing, every time)
            expected = per_game if arena.in_process else 0.0
            if done + count < target and first > done and not limit.allows("self-play game", expected):
                write_chunks(whole=False)
                games.close()                   # the workers stop at once; their games in play are lost
                lost = len(finished)
                self.log(f"{prefix} self-play stops at the time limit after {first} of {target} games"
                         + (f" ({lost} finished out of order not kept)" if lost else ""))
                limit.stop("self-play game")
            now = time.perf_counter()
            if now - last_line >= 2.0 or done + count == target:
                last_line = now
                rate = (now - started) / count
                self.log(f"{prefix} self-play {done + count}/{target} games, {examples_so_far} examples, "
                         f"{rate:.2f} s/game, last {record.result_text} in {len(record.moves)} plies; "
                         f"phase ETA {format_duration(rate * (target - done - count))}{note()}")
        if first < target:                      # the groups that would not have finished in time were not begun
            write_chunks(whole=False)
            self.log(f"{prefix} self-play stops at the time limit after {first} of {target} games "
                     f"(no group of games begun that would not finish in time)")
            limit.stop("self-play group")
        if not arena.in_process and arena.stats.seconds:
            stats, pool = arena.stats, arena.executor
            self.log(f"{prefix} self-play on {len(pool.workers)} {pool.backend} workers: mean batch "
                     f"{stats.mean_batch:.1f} leaves, {stats.evaluations / stats.seconds:.0f} evaluations/s per "
                     f"worker, network {100 * stats.network_share:.0f}% of their time")
