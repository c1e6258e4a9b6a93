"""The ladder: each iteration's newest network plays fixed opponents and is rated in Elo against them.

The gate says whether a network beats the previous best; it does not say
whether the run is getting stronger against anything that stays put (a
network can beat its predecessor by exploiting its habits).  The ladder
does: after every iteration (and once for the initial network) the newest
network plays ``ladder_games`` games against each player of ``ladder``
(e.g. ``mcts:simulations=1000; alphabeta:eval=learned,depth=4``), from
openings, each opening twice with colours reversed.

All ladder games of the run so far are fitted together (the Bradley-Terry
fit of :mod:`plyground.play.ratings`), with the first ladder player as the anchor
at 0 and 95% intervals of each difference to it; more games against the
same opponents sharpen everyone's rating, so the whole curve is refitted
after every iteration.  The run directory gains ``ladder.jsonl`` (a row per
rated network: its iteration, the training wall-clock time behind it (seconds and hours), its
Elo and interval, its score against each opponent) and
``plots/ladder.png`` (Elo against hours of training).  The training clock
counts self-play, training, comparison and evaluation: the ladder is a
measurement, so its own time is left out (and reported apart).

For a game whose positions a perfect player has labelled
(:class:`~plyground.capabilities.SolvedPositions`: Connect Four, tic-tac-toe)
the ladder can also count each network's mistakes against perfect play
(option ``mistakes``: the set; :class:`MistakesProbe`): ``mistakes.jsonl``
(a row per network: training time, and per class the positions, mistakes,
percent and 95% interval) and ``plots/mistakes.png``.  Where the set knows
each position's exact result (checkers' endgame positions, labelled by its
endgame database) the row also says how often the network's value reads as
the wrong result (``values``, by class as for the moves);
``mistakes_simulations=0`` counts the values alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from plyground.capabilities import SolvedPosition, solved_positions
from plyground.errors import UsageError
from plyground.play.mistakes import ClassMistakes
from plyground.protocols import Game, GameRecord
from plyground.play.ratings import Results, fit_ratings
from plyground.files.storage import read_json_lines, write_json_lines
from plyground.tournament.config import Opening
from plyground.tournament.openings import choose_openings

from .actors import MatchJob, MatchSide, ModelBlob, match_seed
from .rundir import RunDirectory
from .settings import AlphaZeroSettings

#: Between the player specs of the ``ladder`` option (a spec itself may hold commas).
SEPARATOR = ";"


def parse_ladder(text: str | None) -> tuple[str, ...]:
    """The player specs of a ``ladder`` option: ``"mcts:simulations=1000; alphabeta:depth=4"``."""
    if text is None or text.strip().lower() in ("", "none"):
        return ()
    specs = tuple(part.strip() for part in text.split(SEPARATOR) if part.strip())
    if len(set(specs)) != len(specs):
        raise UsageError(f"ladder {text!r} names a player twice; give each opponent once, separated by "
                         f"'{SEPARATOR}'")
    return specs


def network_name(iteration: int) -> str:
    return f"iter-{iteration:04d}"


@dataclass(frozen=True)
class LadderSettings:
    opponents: tuple[str, ...]
    games: int                   # per opponent and network
    openings: str                # "2-ply", a file, or "none"
    seed: int
    max_plies: int | None

    @classmethod
    def from_settings(cls, settings: AlphaZeroSettings) -> "LadderSettings":
        return cls(parse_ladder(settings.ladder), settings.ladder_games, settings.ladder_openings, settings.seed,
                   settings.max_plies)

    @property
    def enabled(self) -> bool:
        return bool(self.opponents) and self.games > 0

    def check(self, game: Game) -> None:
        """One clear line now, not a failure in a worker after an hour of self-play."""
        from plyground.registry import get_registry
        for spec in self.opponents:
            try:
                get_registry().make_player(spec, game).close()
            except UsageError as exc:
                raise UsageError(f"ladder player {spec!r}: {exc}") from None
        choose_openings(game, self.openings, self.seed)


class RunCurve:
    """A curve the ladder keeps in a run directory, a row per rated network: ``NAME.jsonl`` and its plot
    ``plots/NAME.png``."""

    name = ""

    def __init__(self, game: Game, rundir: RunDirectory, settings: Any) -> None:
        self.game, self.rundir, self.settings = game, rundir, settings

    @property
    def curve_path(self) -> Path:
        return self.rundir.root / f"{self.name}.jsonl"

    @property
    def plot_path(self) -> Path:
        return self.rundir.plots_dir() / f"{self.name}.png"

    def read_curve(self) -> list[dict]:
        """The rows so far (none before the first)."""
        return read_json_lines(self.curve_path)


class Ladder(RunCurve):
    """The ladder games, ratings and curve of one run directory."""

    name = "ladder"

    def __init__(self, game: Game, rundir: RunDirectory, settings: LadderSettings) -> None:
        super().__init__(game, rundir, settings)
        self._openings: list[Opening] | None = None

    def planned(self) -> int:
        return len(self.settings.opponents) * self.settings.games

    def finished_games(self, iteration: int) -> list[dict]:
        return self.rundir.match_games("ladder", iteration).read()

    # ------------------------------------------------------------ games
    def openings(self) -> list[Opening]:
        if self._openings is None:
            self._openings = choose_openings(self.game, self.settings.openings, self.settings.seed) or [None]
        return self._openings

    def jobs(self, iteration: int, model: ModelBlob, numbers: range) -> list[MatchJob]:
        """Ladder games ``numbers`` of the network of ``iteration``: game ``j * games + i`` is the ``i``-th
        against opponent ``j``, on opening ``i // 2``, the network moving first when ``i`` is even."""
        s = self.settings
        network, name = MatchSide(model), network_name(iteration)
        openings = self.openings()
        jobs = []
        for number in numbers:
            j, i = divmod(number, s.games)
            spec = s.opponents[j]
            opponent = MatchSide(spec=spec)
            first = i % 2 == 0
            opening = openings[(i // 2) % len(openings)]
            tags = {"Event": f"alphazero ladder, iteration {iteration}", "Round": str(number + 1)}
            if opening is not None and opening.moves:
                tags["Opening"] = " ".join(opening.moves)
            seed = match_seed(s.seed, iteration, number, 4)
            jobs.append(MatchJob("ladder", iteration, number, (network, opponent) if first else (opponent, network),
                                 (name, spec) if first else (spec, name), seed, s.max_plies, tags, opening))
        return jobs

    # ------------------------------------------------------------ ratings
    def rated_games(self) -> dict[int, list[dict]]:
        """The saved games of every iteration whose ladder games are all played, by iteration, in order."""
        folder = self.rundir.root / "ladder"
        if not folder.is_dir():
            return {}
        found = {}
        for path in sorted(folder.glob("iter-*.jsonl")):
            try:
                k = int(path.stem.split("-")[1])
            except (IndexError, ValueError):
                continue
            games = self.finished_games(k)
            if len(games) >= self.planned():
                found[k] = games[:self.planned()]
        return found

    def fit(self, training_seconds: Mapping[int, float]) -> list[dict]:
        """Refit every rated network from all ladder games so far; writes ``ladder.jsonl`` and returns its
        rows.  ``training_seconds[k]``: training wall-clock time behind the network of iteration ``k``."""
        opponents = list(self.settings.opponents)
        rated = self.rated_games()
        iterations = list(rated)
        if not iterations:
            return []
        names = opponents + [network_name(k) for k in iterations]
        games: list[tuple[str, str, float]] = []
        per_opponent: dict[int, dict[str, list[float]]] = {}
        unfinished: dict[int, int] = {}
        for k in iterations:
            scores = per_opponent.setdefault(k, {spec: [] for spec in opponents})
            for saved in rated[k]:
                record: GameRecord = saved["record"]
                if not record.finished:
                    unfinished[k] = unfinished.get(k, 0) + 1
                    continue
                me = record.players.index(network_name(k))
                opponent = record.players[1 - me]
                if opponent not in scores:
                    continue
                score = record.score(me)
                scores[opponent].append(score)
                games.append((network_name(k), opponent, score))
        ratings = {name: rating.to_json() for name, rating in  # to_json: Elo rounded as everywhere
                   fit_ratings(Results.from_games(names, games), anchor=opponents[0],
                               relative_to="anchor").by_name().items()}
        rows = []
        for k in iterations:
            rating = ratings[network_name(k)]
            rows.append({
                "iteration": k, "network": network_name(k),
                "training_seconds": round(training_seconds.get(k, 0.0), 2),
                "training_hours": round(training_seconds.get(k, 0.0) / 3600.0, 6),
                "elo": rating["elo"], "lower": rating["lower"], "upper": rating["upper"],
                "anchor": opponents[0],
                "scores": {spec: {"games": len(s), "score": round(float(np.mean(s)), 4) if s else None}
                           for spec, s in per_opponent[k].items()},
                "opponents": {spec: ratings[spec]["elo"] for spec in opponents},
                "unfinished": unfinished.get(k, 0),
            })
        write_json_lines(self.curve_path, rows)
        return rows


def rating_text(row: dict) -> str:
    """``+85 Elo (95% +20 to +150) vs mcts:simulations=1000``."""
    if row.get("elo") is None:
        return f"not rated (no finished ladder game against {row['anchor']})"
    return (f"{row['elo']:+.0f} Elo (95% {row['lower']:+.0f} to {row['upper']:+.0f}) vs {row['anchor']}")


def plot_curve(rows: list[dict], path: Path) -> str | None:
    """``ladder.png``: each network's Elo (with its 95% interval) against training time; None when drawn,
    else why not."""
    return _plot_over_training_time([r for r in rows if r.get("elo") is not None], path, _draw_ratings)


def _draw_ratings(ax, hours: list[float], rated: list[dict]) -> None:
    elo = np.array([r["elo"] for r in rated])
    low = elo - np.array([r["lower"] for r in rated])
    high = np.array([r["upper"] for r in rated]) - elo
    ax.errorbar(hours, elo, yerr=[low, high], marker="o", capsize=3, label="newest network (95% interval)")
    for r, x, y in zip(rated, hours, elo):
        ax.annotate(str(r["iteration"]), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    colours = ("tab:gray", "tab:green", "tab:purple", "tab:brown", "tab:olive")
    for (spec, value), colour in zip(rated[-1]["opponents"].items(), colours * 4):
        if value is not None:
            ax.axhline(value, color=colour, linestyle="--", linewidth=1, label=spec)
    ax.set_ylabel(f"Elo ({rated[-1]['anchor']} = 0)")
    ax.set_title("Ladder rating of each iteration's newest network")


def _plot_over_training_time(rows: list[dict], path: Path, draw) -> str | None:
    """A curve of ``rows`` against training time, drawn by ``draw(ax, times, rows)`` and written to ``path``;
    None when drawn (or when there are no rows), else why not."""
    if not rows:
        return None
    from .plots import pyplot, save_figure
    plt, problem = pyplot()
    if problem:
        return problem
    hours, unit = _training_time(rows)
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    draw(ax, hours, rows)
    ax.set_xlabel(f"training wall-clock time ({unit})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_figure(fig, path)
    plt.close(fig)
    return None


def _training_time(rows: list[dict]) -> tuple[list[float], str]:
    """The rows' training wall-clock time and its unit: hours, or minutes for a run shorter than two hours."""
    hours = [r["training_hours"] for r in rows]
    if max(hours) < 2.0:
        return [60.0 * h for h in hours], "minutes"
    return hours, "hours"


# ------------------------------------------------------------------ mistakes against perfect play

@dataclass(frozen=True)
class MistakesSettings:
    positions: str | None        # the game's set of solved positions (None: no probe)
    per_class: int               # the first N positions of each class
    simulations: int             # the network's simulations a move
    seed: int

    @classmethod
    def from_settings(cls, settings: AlphaZeroSettings) -> "MistakesSettings":
        name = settings.mistakes
        if name is not None and name.strip().lower() in ("", "none", "off"):
            name = None
        simulations = settings.mistakes_simulations
        if simulations is None:
            simulations = settings.comparison_simulations or settings.simulations
        return cls(name, settings.mistakes_positions, simulations, settings.seed)

    @property
    def enabled(self) -> bool:
        return self.positions is not None

    def check(self, game: Game) -> None:
        """An unknown set, or a game without solved positions: one line now."""
        try:
            by_class = solved_positions(game, self.positions, self.per_class)
        except UsageError as exc:
            raise UsageError(f"mistakes={self.positions}: {exc}") from None
        if not any(by_class.values()):
            raise UsageError(f"mistakes={self.positions}: {game.name}'s set {self.positions!r} holds no positions")


class MistakesProbe(RunCurve):
    """Each rated network's mistakes on the game's solved positions: ``mistakes.jsonl`` and its plot."""

    name = "mistakes"

    def __init__(self, game: Game, rundir: RunDirectory, settings: MistakesSettings) -> None:
        super().__init__(game, rundir, settings)
        self._positions: dict[str, list[SolvedPosition]] | None = None

    def positions(self) -> dict[str, list[SolvedPosition]]:
        if self._positions is None:
            s = self.settings
            self._positions = solved_positions(self.game, s.positions, s.per_class)
        return self._positions

    def count(self) -> int:
        return sum(len(group) for group in self.positions().values())

    def knows_values(self) -> bool:
        """Whether the set knows its positions' exact results (so a network's values can be scored)."""
        return any(p.value is not None for group in self.positions().values() for p in group)

    def values(self, network, batch: int = 256) -> np.ndarray:
        """``network``'s value of every position, in the order of :meth:`positions`."""
        flat = [p.state for group in self.positions().values() for p in group]
        out = []
        for at in range(0, len(flat), batch):
            _, values = network.predict(np.stack([s.observation() for s in flat[at:at + batch]]))
            out.append(np.asarray(values, dtype=np.float64).reshape(-1))
        return np.concatenate(out) if out else np.zeros(0)


    def counted(self) -> set[int]:
        """The iterations whose networks are counted with these settings (other settings count again)."""
        s = self.settings
        return {row["iteration"] for row in self.read_curve() if row["set"] == s.positions
                and row["simulations"] == s.simulations and row.get("per_class") == s.per_class}

    def done(self, iteration: int) -> bool:
        return iteration in self.counted()

    def record(self, iteration: int, table: list[ClassMistakes] | None, values: list[ClassMistakes] | None,
               training_seconds: float) -> dict:
        """Add (or replace) the row of ``iteration``'s network: its moves' mistakes (``table``; None: not
        counted) and its values' (``values``; None: the set knows no results); returns the row."""
        s = self.settings
        row = {"iteration": iteration, "network": network_name(iteration),
               "training_seconds": round(training_seconds, 2),
               "training_hours": round(training_seconds / 3600.0, 6),
               "set": s.positions, "per_class": s.per_class, "simulations": s.simulations,
               "classes": {t.category: t.to_json() for t in table} if table is not None else {}}
        if values is not None:
            row["values"] = {t.category: t.to_json() for t in values}
        rows = [r for r in self.read_curve() if r["iteration"] != iteration] + [row]
        write_json_lines(self.curve_path, sorted(rows, key=lambda r: r["iteration"]))
        return row


def mistakes_text(row: dict) -> str:
    """``6.2% mistakes (95% 4.5-8.4%) on 300 positions at 100 simulations; worst Begin-Hard 21.0%``, then
    ``; value right on 71.3% (95% 68.4-74.0%; won 70.1%, drawn 75.0%, lost 68.2%)`` where values are scored."""
    parts = []
    if row["classes"]:
        every = row["classes"]["all"]
        classes = [(name, c) for name, c in row["classes"].items() if name != "all" and c["positions"]]
        worst = max(classes, key=lambda item: item[1]["percent"], default=None)
        parts.append(f"{every['percent']:.1f}% mistakes (95% {every['lower']:.1f}-{every['upper']:.1f}%) on "
                     f"{every['positions']} positions at {row['simulations']} simulations"
                     + (f"; worst {worst[0]} {worst[1]['percent']:.1f}%" if worst else ""))
    if row.get("values"):
        every = row["values"]["all"]
        classes = ", ".join(f"{name} {100 - c['percent']:.1f}%" for name, c in row["values"].items()
                            if name != "all" and c["positions"])
        parts.append(f"value right on {100 - every['percent']:.1f}% (95% {100 - every['upper']:.1f}-"
                     f"{100 - every['lower']:.1f}%) of {every['positions']} positions ({classes})")
    return "; ".join(parts)


def plot_mistakes(rows: list[dict], path: Path) -> str | None:
    """``mistakes.png``: each network's share of mistakes, class by class, against training time; None when
    drawn, else why not."""
    return _plot_over_training_time(rows, path, _draw_mistakes)


def _draw_mistakes(ax, hours: list[float], rows: list[dict]) -> None:
    valued = [(x, r["values"]["all"]) for x, r in zip(hours, rows) if r.get("values", {}).get("all", {}).get("positions")]
    if valued:
        ax.plot([x for x, _ in valued], [c["percent"] for _, c in valued], color="tab:red", linestyle="--",
                marker="s", linewidth=2, label="value wrong (all)")
    for name in rows[-1]["classes"]:
        points = [(x, r["classes"][name]) for x, r in zip(hours, rows) if r["classes"].get(name, {}).get("positions")]
        if not points:
            continue
        xs = [x for x, _ in points]
        ys = [c["percent"] for _, c in points]
        if name == "all":
            low = [c["percent"] - c["lower"] for _, c in points]
            high = [c["upper"] - c["percent"] for _, c in points]
            ax.errorbar(xs, ys, yerr=[low, high], color="black", marker="o", capsize=3, linewidth=2,
                        label="all (95% interval)")
        else:
            ax.plot(xs, ys, marker=".", linewidth=1, label=name)
    ax.set_ylabel("mistakes (% of positions)")
    moves = f", {rows[-1]['simulations']} simulations" if rows[-1]["classes"] else ""
    ax.set_title(f"Mistakes against perfect play ({rows[-1]['set']} set{moves})")
    ax.set_ylim(bottom=0)
