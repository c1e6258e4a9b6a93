"""The sequential probability ratio test of a two-player tournament (``--sprt``), read from its games.

Games ``2k`` and ``2k + 1`` of the pairing are a pair: the same opening (or the initial position), colours
reversed.  The test counts pairs by the points A scored in both (pentanomial, :func:`plyground.play.stats.sprt_llr`),
which takes the correlation of the two games of a pair into account: a lopsided opening that each side wins
with white is a 1-1 pair, not two independent results.

The pairs are read in schedule order, and only as far as every game before them is stored.  So which games
the test counts, and the pair at which it decides, do not depend on which worker finished first or on
``--workers``: a parallel or resumed run decides where a one-worker run does (games of seeded players being
reproducible), and no game is counted because it was quick (a short loss finishing before a long draw).
The first pair at which the LLR reaches a bound decides; games stored after it (finished out of order while
the test waited for an earlier one) are kept and rated, not counted by the test.  A pair with an unfinished
game (``*``) is passed over.
"""
from __future__ import annotations

from ..play.stats import CONTINUE, Sprt, SprtResult
from .store import GameResult

#: How the test models the results, for people reading the output.
MODEL = "logistic Elo, pentanomial on game pairs"


class SprtTally:
    """The test over the games of one pairing, fed each stored game (in any order) with :meth:`add`."""

    def __init__(self, test: Sprt) -> None:
        self.test = test
        self.counts = [0] * 5            # pairs by A's points: 0, 1/2, 1, 3/2, 2
        self.read = 0                    # games read in schedule order (every game before them is stored)
        self.result: SprtResult = test.result(self.counts)
        self._waiting: dict[int, float | None] = {}    # A's points by game index, not read yet

    @property
    def decided(self) -> bool:
        return self.result.decided

    @property
    def decision(self) -> str:
        return self.result.decision

    @property
    def pairs(self) -> int:
        """Pairs the test counted."""
        return sum(self.counts)

    def add(self, result: GameResult) -> None:
        """Take one stored game; the test moves on as far as the games before it allow, and stops at the
        first pair that decides it."""
        if self.decided:
            return
        self._waiting[result.index] = result.score_a
        while not self.decided and self.read in self._waiting and self.read + 1 in self._waiting:
            first, second = self._waiting.pop(self.read), self._waiting.pop(self.read + 1)
            self.read += 2
            if first is not None and second is not None:
                self.counts[round(2 * (first + second))] += 1
                self.result = self.test.result(self.counts)

    def progress_text(self) -> str:
        """``LLR +1.52 (-2.94, +2.94), 6 pairs``, and the decision once there is one."""
        text = f"{self.result}, {self.pairs} pair{'s' if self.pairs != 1 else ''}"
        return text if not self.decided else f"{text}: {self.decision}"

    def summary_lines(self, most_games: int, first: str) -> str:
        """What the test says at the end of a run, in two lines (``most_games``: the most it could take, -n;
        ``first``: the name of A, the player whose gain it tests)."""
        if self.decided:
            said = f"{self.decision} after {2 * self.pairs} games ({self.pairs} pairs)"
        elif self.read >= most_games:
            said = f"no decision within the {most_games} games -n allows"
        else:
            said = f"{CONTINUE}: {2 * self.pairs} games ({self.pairs} pairs) so far"
        return (f"SPRT {self.test} ({MODEL}): {said}\n"
                f"  LLR {self.result.llr:+.3f}, bounds {self.result.lower:+.3f} and {self.result.upper:+.3f}; "
                f"pairs by {first}'s points (0, 1/2, 1, 3/2, 2): {' '.join(map(str, self.counts))}")

    def to_json(self) -> dict:
        return {"test": str(self.test), "model": MODEL, "decision": self.decision, "llr": self.result.llr,
                "lower": self.result.lower, "upper": self.result.upper, "pairs": self.pairs,
                "games": 2 * self.pairs, "pentanomial": list(self.counts)}


def tally_of(test: Sprt, results) -> SprtTally:
    """The test over ``results`` (stored games of the pairing)."""
    tally = SprtTally(test)
    for result in results:
        tally.add(result)
    return tally
