"""Turning stored games into ratings, a crosstable, a terminal table, a JSON summary and a PNG plot."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from ..options import Spec
from ..play.ratings import Ratings, Results, fit_ratings
from ..files.atomic import atomic_write_text
from .config import TournamentConfig
from .sprt import SprtTally
from .store import GameResult

SUMMARY_FILE = "summary.json"
PLOT_FILE = "ratings.png"


def default_anchor(config: TournamentConfig) -> str:
    """The project's zero: a ``random`` entrant (one without options first), else the first entrant."""
    randoms = [e for e in config.entrants if Spec.parse(e.spec).name == "random"]
    randoms.sort(key=lambda e: bool(Spec.parse(e.spec).options))
    return (randoms or config.entrants)[0].name


def game_results(config: TournamentConfig, results: Sequence[GameResult]) -> Results:
    """W/D/L counts per pair from the finished games (unfinished ones are not counted)."""
    counts = Results([e.name for e in config.entrants])
    for r in results:
        score = r.score_a
        if score is not None:
            counts.add(r.a, r.b, score)
    return counts


def rate(config: TournamentConfig, results: Sequence[GameResult], anchor: str | None = None, *,
         method: str = "curvature", relative_to: str = "pool", prior_draws: float = 1.0,
         bootstrap: int = 1000) -> Ratings:
    anchor = default_anchor(config) if anchor is None else config.entrant(anchor).name
    return fit_ratings(game_results(config, results), anchor, prior_draws=prior_draws, method=method,
                       relative_to=relative_to, bootstrap=bootstrap, seed=config.seed)


def crosstable(config: TournamentConfig, results: Sequence[GameResult]) -> dict[str, dict[str, dict]]:
    """``table[a][b]``: a's wins, draws and losses against b (pairs that met only)."""
    counts = game_results(config, results)
    names = counts.names
    table: dict[str, dict[str, dict]] = {n: {} for n in names}
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            games = int(counts.games[i, j])
            if i != j and games:
                table[a][b] = {"wins": int(counts.wins[i, j]), "draws": int(counts.draws[i, j]),
                               "losses": int(counts.wins[j, i]), "games": games,
                               "points": float(counts.points[i, j])}
    return table


# ------------------------------------------------------------------ text

def _elo(x: float | None, anchor: bool = False) -> str:
    if x is None:
        return "?"
    if anchor or round(x) == 0:
        return "0"
    return f"{x:+.0f}"


def _points(x: float) -> str:
    return f"{x:g}"


def format_table(ratings: Ratings) -> str:
    """The ratings as a terminal table, best first."""
    width = max(6, *(len(p.name) for p in ratings.players))
    lines = [f"{'rank':>4}  {'player':<{width}}  {'Elo':>6}  {'95% interval':<17} {'games':>6}  {'score':>6}  "
             f"{'LOS':>6}"]
    for rank, p in enumerate(ratings.players, 1):
        is_anchor = p.name == ratings.anchor
        if p.elo is None:
            interval = "not connected"
        elif is_anchor and ratings.relative_to == "anchor":
            interval = "anchor"
        else:
            interval = f"{_elo(p.lower)} to {_elo(p.upper)}"
        score = "" if p.score is None else f"{p.score:.1%}"
        los = "" if p.los_next is None else f"{p.los_next:.1%}"
        lines.append(f"{rank:>4}  {p.name:<{width}}  {_elo(p.elo, is_anchor):>6}  {interval:<17} {p.games:>6}  "
                     f"{score:>6}  {los:>6}")
    lines.append(f"Elo anchored at {ratings.anchor} = 0; 95% intervals ({ratings.method}) relative to "
                 f"{'the pool average' if ratings.relative_to == 'pool' else 'the anchor'}; "
                 f"LOS = likelihood of superiority over the next player down.")
    return "\n".join(lines)


def format_crosstable(ratings: Ratings, table: dict[str, dict[str, dict]]) -> str:
    """Points scored by each row's player against each column's (columns are rank numbers)."""
    order = [p.name for p in ratings.players]
    width = max(6, *(len(n) for n in order))
    cells = {}
    for a in order:
        for b in order:
            c = table[a].get(b)
            cells[a, b] = "-" if a == b else "" if c is None else f"{_points(c['points'])}/{c['games']}"
    col = max(5, *(len(v) for v in cells.values()))
    header = f"{'':>4}  {'player':<{width}}  " + " ".join(f"{k:>{col}}" for k in range(1, len(order) + 1))
    lines = [header + f"  {'total':>{col + 2}}"]
    for rank, a in enumerate(order, 1):
        total_points = sum(c["points"] for c in table[a].values())
        total_games = sum(c["games"] for c in table[a].values())
        row = " ".join(f"{cells[a, b]:>{col}}" for b in order)
        lines.append(f"{rank:>4}  {a:<{width}}  {row}  {_points(total_points) + '/' + str(total_games):>{col + 2}}")
    return "\n".join(lines)


# ------------------------------------------------------------------ files

def summary(config: TournamentConfig, results: Sequence[GameResult], ratings: Ratings,
            sprt: SprtTally | None = None) -> dict:
    """What ``summary.json`` holds; ``sprt``: the tournament's test (``config.sprt``) over ``results``."""
    specs = {e.name: e.spec for e in config.entrants}
    rated = ratings.to_json()
    for p in rated["players"]:
        p["spec"] = specs[p["name"]]
    unfinished = sum(not r.record.finished for r in results)
    data = {"fingerprint": config.fingerprint(), "tournament": config.to_json() | {"openings": len(config.openings)},
            "games": {"scheduled": config.total_games, "stored": len(results), "unfinished": unfinished},
            "ratings": rated, "crosstable": crosstable(config, results)}
    if sprt is not None:
        data["sprt"] = sprt.to_json()
    return data


def write_summary(directory: Path, data: dict) -> Path:
    path = Path(directory) / SUMMARY_FILE
    atomic_write_text(path, json.dumps(data, indent=2) + "\n")
    return path


def plot_ratings(ratings: Ratings, path: Path, title: str = "") -> Path | None:
    """A PNG of each rating with its 95% interval; None if matplotlib is not installed."""
    try:
        from matplotlib.figure import Figure   # lazily: the plot is optional, and slow to import
    except ImportError:
        return None
    rated = [p for p in ratings.players if p.elo is not None][::-1]    # best at the top
    fig = Figure(figsize=(7, 1.2 + 0.45 * max(1, len(rated))), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(rated)))
    elos = [p.elo for p in rated]
    lows = [p.elo - p.lower for p in rated]
    highs = [p.upper - p.elo for p in rated]
    ax.errorbar(elos, ys, xerr=[lows, highs], fmt="o", capsize=4, color="tab:blue", ecolor="tab:gray")
    for y, p in zip(ys, rated):
        if p.name == ratings.anchor:
            ax.plot([p.elo], [y], "s", color="tab:red", label=f"anchor ({p.name} = 0)")
    for y, p in zip(ys, rated):
        ax.annotate(_elo(p.elo, p.name == ratings.anchor), (p.elo, y), textcoords="offset points",
                    xytext=(0, 7), ha="center", fontsize="small")
    ax.set_yticks(ys, [p.name for p in rated])
    ax.margins(y=0.35)
    ax.set_xlabel(f"Elo (95% intervals: {ratings.method}, relative to the "
                  f"{'pool average' if ratings.relative_to == 'pool' else 'anchor'})")
    ax.axvline(0, color="lightgray", linewidth=0.8, zorder=0)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    if title:
        ax.set_title(title, fontsize="medium")
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, dpi=110, format="png")
    tmp.replace(path)
    return path
