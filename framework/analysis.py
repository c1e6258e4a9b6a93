"""A player's ``analysis()`` in a few lines of text, for every renderer's analysis view and hints.

Players describe their last search in their own words (``Player.analysis``):
alpha-beta gives a value, depth and principal variation; MCTS and AlphaZero
visit counts (and priors); UCI engines a score and a PV; ``bayes`` the
beliefs about each move and why it chose one; a move from an opening book
says so (``engine: "book"``, and under ``book`` the position's book moves:
``move``, ``games``, ``score``).  This module is the one place that turns any
of them into lines a person reads, so the console and the window say the same
thing.
"""
from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

from .errors import PlygroundError

if TYPE_CHECKING:
    from .protocols import State

#: Moves listed under "top moves".
TOP_MOVES = 5


def value_in_pawns(value: float) -> float:
    """A search value in [-1, 1] (MCTS, AlphaZero: the expected score mapped to -1..1) in pawns -- or men,
    for checkers -- by Leela Chess Zero's mapping, for protocols whose scores are in those units (UCI's
    centipawns, Hub's men).  Bounded: a value of +-1 (a sure result) maps to about +-109."""
    value = max(-0.999, min(0.999, float(value)))
    return 1.11714640912 * math.tan(1.5620688421 * value)


def protocol_score(analysis: dict) -> tuple[str, float] | None:
    """What a player's analysis says of the position for the side to move, for engine protocols (UCI, Hub):

    * ``("win", N)`` / ``("loss", N)``: a win or loss in N plies, alpha-beta's "win in 5 plies";
    * ``("moves", N)``: a mate in N moves as a UCI engine said it ("mate 3");
    * ``("pawns", x)``: an evaluation in pawns (men, for checkers): "+0.26 men", a value of MCTS or
      AlphaZero (-1..1, by :func:`value_in_pawns`), else a value in the evaluation's hundredths;
    * None when it says nothing of the kind.
    """
    text = str(analysis.get("score") or "")
    words = text.split()
    if text.startswith(("win in", "loss in")) and len(words) >= 3 and words[2].isdigit():
        return words[0], int(words[2])
    if text.startswith("mate") and len(words) >= 2 and words[1].lstrip("-").isdigit():
        return "moves", int(words[1])
    if text[:1] in "+-" and text[1:2].isdigit():
        try:
            return "pawns", float(words[0])
        except ValueError:
            pass
    value = analysis.get("value")
    if isinstance(value, (int, float)) and math.isfinite(value):
        if "visits" in analysis or analysis.get("proven"):       # MCTS, AlphaZero: -1..1
            return "pawns", value_in_pawns(value)
        return "pawns", value / 100
    return None


def expected_score(analysis: dict | None, slope: float = 0.368208) -> float | None:
    """What the analysis says of the position as the expected score (0 a loss, 1 a win) of the side that
    searched, for an evaluation bar; None when it says nothing.  MCTS and AlphaZero values (-1..1) map
    straight; a proven result or a mate to 0 or 1; pawns (or men) by a winning-chances curve,
    ``1 / (1 + exp(-slope * pawns))`` (the default slope is lichess's for chess; a game's own is
    :func:`plyground.capabilities.winning_chances_slope`)."""
    if not analysis or "error" in analysis:
        return None
    value = analysis.get("value")
    proven = str(analysis.get("proven") or "")
    if proven.startswith(("win", "loss", "draw")):
        return {"win": 1.0, "loss": 0.0, "draw": 0.5}[proven.split()[0]]
    if "visits" in analysis and isinstance(value, (int, float)) and math.isfinite(value):
        return (max(-1.0, min(1.0, float(value))) + 1.0) / 2.0
    score = protocol_score(analysis)
    if score is None:
        return None
    kind, amount = score
    if kind in ("win", "loss"):
        return 1.0 if kind == "win" else 0.0
    if kind == "moves":
        return 1.0 if amount > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-slope * max(-100.0, min(100.0, amount))))   # bounded: no overflow


def principal_variation(analysis: dict, state) -> list[tuple[Any, Any]]:
    """The analysis's principal variation (move texts, or one string of them) as (position before the
    move, move) pairs from ``state``, as far as its moves are legal there: what an engine protocol
    writes in its own notation."""
    pv = analysis.get("pv") or []
    texts = pv.split() if isinstance(pv, str) else [str(m) for m in pv]
    line, position = [], state.clone()
    for text in texts:
        try:
            move = position.parse_move(text)
        except PlygroundError:
            break
        line.append((position.clone(), move))
        position.apply(move)
    return line


def analysis_lines(analysis: dict[str, Any] | None, mover: str | None = None,
                   viewpoint: str | None = None) -> list[str]:
    """Lines describing ``analysis``; ``mover`` names the side that searched (its values are for it).  With
    ``viewpoint`` (a side's name: the game's ``evaluation_side``), a numeric evaluation is told from that
    side's view whoever searched, as lichess tells White's: "evaluation +0.22 men (+ good for White)"."""
    if not analysis:
        return ["no analysis: this player does not describe its moves"]
    if "error" in analysis:                        # a search that could not be made (a hint that failed)
        return [str(analysis["error"])]
    lines = []
    move = analysis.get("move") or analysis.get("chosen")
    best = analysis.get("best")
    if analysis.get("live"):                       # a search still running
        if best or move:
            lines.append(f"best so far {best or move}")
    elif best is not None and best != move:        # an engine held below its strength played another move
        lines.append(f"plays {move}, below its best (its level)")
        lines.append(f"best move {best}")
    elif analysis.get("book") and move is not None:  # played from an opening book, not searched
        lines.append(f"book move {move}")
        lines.append("book: " + _book_moves(analysis["book"]))
        return lines
    elif move is not None:
        lines.append(f"best move {move}" + (" (forced: the only legal move)" if analysis.get("forced") else ""))
    evaluation = _evaluation(analysis, mover, viewpoint)
    if evaluation:
        lines.append(evaluation)
    if analysis.get("database"):                   # an endgame database's exact result for the side to move
        lines.append(f"database: {analysis['database']}" + (f" for {mover}" if mover else ""))
    effort = _effort(analysis)
    if effort:
        lines.append(effort)
    pv = analysis.get("pv")
    if pv:
        lines.append("line: " + (pv if isinstance(pv, str) else " ".join(str(m) for m in pv)))
    top = _top_moves(analysis)
    if top:
        lines.append("top moves: " + top)
    for reason in analysis.get("why", [])[:4]:
        lines.append(f"because {reason}")
    if analysis.get("stopped"):
        lines.append("(the search was stopped before it finished)")
    return lines


def _evaluation(analysis: dict, mover: str | None, viewpoint: str | None = None) -> str:
    whose = f" for {mover}" if mover else ""
    score = analysis.get("score")
    if score and viewpoint and mover:
        number = _SIGNED.fullmatch(score)
        if number is not None:                     # a number: told from the viewpoint's side
            value = float(number.group(1)) * (1 if mover == viewpoint else -1)
            digits = len(number.group(1).partition(".")[2])
            return f"evaluation {value + 0.0:+.{digits}f}{number.group(2) or ''} (+ good for {viewpoint})"
    if score:                                      # the engine's own words: +0.26, +1.20 men, mate 3
        return f"evaluation {score}{whose}" if score[0] in "+-0123456789" or score.startswith("mate") \
            else f"{score}{whose if score.startswith(('win', 'loss')) else ''}"
    proven = analysis.get("proven")
    if proven:
        return f"proven {proven}{whose}"
    value = analysis.get("value")
    if isinstance(value, (int, float)) and abs(value) <= 1.0 and viewpoint and mover:
        value = value if mover == viewpoint else -value       # told from the viewpoint's side
        return (f"evaluation {value + 0.0:+.2f} (+ good for {viewpoint}; +1 a sure win for it, -1 a sure loss; "
                f"its expected score {50 * (value + 1):.0f}%)")
    if isinstance(value, (int, float)):
        if abs(value) <= 1.0:                      # a search value in [-1, 1]: win, draw, loss = 1, 0, -1
            return f"evaluation {value:+.2f}{whose} (+1 a sure win, -1 a sure loss; expected score {50 * (value + 1):.0f}%)"
        return f"evaluation {value:+.2f}{whose} (in the evaluation's own units)"
    return ""


#: A score that is a number, perhaps with a unit: "+0.26", "-1.20 men".
_SIGNED = re.compile(r"([+-]?\d+(?:\.\d+)?)(\s+[A-Za-z]+)?")


def _effort(analysis: dict) -> str:
    parts = []
    if analysis.get("depth"):
        depth = f"depth {analysis['depth']}"
        if analysis.get("seldepth"):
            depth += f" (selective {analysis['seldepth']})"
        parts.append(depth)
    if analysis.get("simulations"):
        parts.append(f"{analysis['simulations']:,} simulations")
    if analysis.get("nodes"):
        parts.append(f"{analysis['nodes']:,} nodes")
    seconds = analysis.get("seconds")
    if seconds is None and analysis.get("time") is not None:
        seconds = analysis["time"] / 1000.0        # UCI reports milliseconds
    if seconds:
        parts.append(f"{seconds:.2f} s")
    return ", ".join(parts)


def _book_moves(moves: list) -> str:
    """An opening book's moves for the position: each with the games that played it and its score for its side."""
    return ", ".join(f"{m.get('move')} ({m.get('games', 0):,} games, {100 * m.get('score', 0.5):.0f}%)"
                     for m in moves[:TOP_MOVES] if isinstance(m, dict))


def _top_moves(analysis: dict) -> str:
    visits = analysis.get("visits")
    if visits:
        total = sum(visits.values()) or 1
        priors = analysis.get("priors", {})
        ranked = sorted(visits.items(), key=lambda kv: -kv[1])[:TOP_MOVES]
        return ", ".join(f"{move} {n / total:.0%}" + (f" (prior {priors[move]:.0%})" if move in priors else "")
                         for move, n in ranked)
    moves = analysis.get("moves")
    if moves and isinstance(moves, list) and isinstance(moves[0], dict):   # bayes: belief about each move
        return ", ".join(f"{m['move']} {m['mean']:+.2f}" + (f"±{m['std']:.2f}" if m.get("std") else "")
                         for m in moves[:TOP_MOVES])
    return ""


def pv_text(state: State, pv: list) -> list[str]:
    """A principal variation from ``state`` as move text (as far as it is legal from ``state``)."""
    s = state.clone()
    out = []
    for move in pv:
        if s.is_terminal() or move not in s.legal_moves():
            break
        out.append(s.move_to_text(move))
        s.apply(move)
    return out
