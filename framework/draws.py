"""Draws offered and claimed: how a bot answers an offer, and how the record words a draw that was not played out.

A person's offer reaches the opponent through the game loop (``Command.OFFER_DRAW``, :func:`plyground.play.match.
play_game`); a bot answers with :meth:`~plyground.protocols.Player.answer_draw`, whose default is
:func:`answer_by_analysis`: its last search's value for itself, as the engine protocols read it
(:func:`plyground.analysis.protocol_score`).
"""
from __future__ import annotations

from .analysis import protocol_score

#: A bot accepts a draw when its last search sees it at most this far ahead, in pawns (men, for checkers).
DRAW_MARGIN = 0.25

#: The record's reason for a draw both sides agreed to.
AGREED = "draw by agreement"


def claimed(rule: str) -> str:
    """The record's reason for a draw claimed by ``rule`` ("draw claimed: threefold repetition")."""
    return f"draw claimed: {rule}"


def answer_by_analysis(analysis: dict | None, margin: float = DRAW_MARGIN) -> tuple[bool, str]:
    """(accepted, why) for a draw offered to the side whose last search ``analysis`` describes (its value is
    for that side, as every player's analysis gives it): accepted when it saw a draw or a loss, or at most
    ``margin`` pawns (men) ahead; declined when it sees a win, more than ``margin`` ahead, or has no evaluation."""
    if not analysis or "error" in analysis:
        return False, "it has no evaluation of the position yet"
    proven = str(analysis.get("proven") or "").split()
    if proven and proven[0] in ("win", "loss", "draw"):
        return (False, "it sees a win") if proven[0] == "win" else (True, f"it sees a {proven[0]}")
    score = protocol_score(analysis)
    if score is None:
        return False, "it has no evaluation of the position yet"
    kind, amount = score
    if kind in ("win", "loss"):
        return (False, f"it sees a win in {amount} plies") if kind == "win" else (True, "it sees a loss")
    if kind == "moves":
        return (False, f"it sees a mate in {amount}") if amount > 0 else (True, "it sees itself mated")
    words = str(analysis.get("score") or "").split()
    unit = f" {words[1]}" if len(words) == 2 and words[0][:1] in "+-" else ""     # "+1.30 men": men
    value = f"{amount + 0.0:+.2f}{unit}"                                            # + 0.0: never "-0.00"
    if amount > margin:
        return False, f"it thinks it is ahead, {value}"
    if amount >= -margin:
        return True, f"it thinks the position is even, {value}"
    return True, f"it thinks it is behind, {value}"
