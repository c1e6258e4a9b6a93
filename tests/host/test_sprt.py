"""The sequential probability ratio test: its LLR against a reference written here from the published formula,
its bounds and decisions, the parsing of a test, and ``plyground tournament --sprt`` stopping, reporting and
resuming (docs/tournaments.md, "SPRT")."""
import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from plyground.errors import UsageError
from plyground.play.stats import CONTINUE, H0_ACCEPTED, H1_ACCEPTED, Sprt, pentanomial, sprt_bounds, sprt_llr
from plyground.tournament import Entrant, GameResult, TournamentConfig, run_tournament
from plyground.tournament.sprt import SprtTally

POINTS = {"W": 1.0, "D": 0.5, "L": 0.0}


# ------------------------------------------------------------------ the reference

def reference_llr(counts, elo0, elo1):
    """fishtest's LLR_logistic (server/fishtest/stats/LLRcalc.py), written from its formula and solved another
    way: in float64, by the Lagrange dual instead of the secular equation's root.

    The results' categories score a_i = i / (k - 1) a game, with frequencies q_i (an empty category counts
    0.001, as fishtest's ``regularize``), N results.  Among the distributions with expected score s the most
    likely has log-likelihood  sum q log q - max_x g_s(x),  g_s(x) = sum q_i log(1 + x (a_i - s)), g concave on
    the x where every 1 + x (a_i - s) > 0; so  LLR = N (max g_s0 - max g_s1),  s = 1 / (1 + 10^(-elo/400)).
    Each maximum is found by golden-section search.
    """
    filled = [float(c) if c > 0 else 1e-3 for c in counts]
    n = sum(filled)
    q = [c / n for c in filled]
    a = [i / (len(counts) - 1) for i in range(len(counts))]

    def g(s, x):
        return sum(qi * math.log(1.0 + x * (ai - s)) for qi, ai in zip(q, a))

    def most(s):
        # a = 0 needs x < 1/s, a = 1 needs x > -1/(1 - s): search inside, a hair off the poles.
        lo, hi = -1.0 / (1.0 - s) * (1 - 1e-12), 1.0 / s * (1 - 1e-12)
        ratio = (math.sqrt(5.0) - 1.0) / 2.0
        x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        g1, g2 = g(s, x1), g(s, x2)
        for _ in range(300):
            if g1 < g2:
                lo, x1, g1 = x1, x2, g2
                x2 = lo + ratio * (hi - lo)
                g2 = g(s, x2)
            else:
                hi, x2, g2 = x2, x1, g1
                x1 = hi - ratio * (hi - lo)
                g1 = g(s, x1)
        return max(g1, g2)

    s0, s1 = (1.0 / (1.0 + 10.0 ** (-elo / 400.0)) for elo in (elo0, elo1))
    return n * (most(s0) - most(s1))


def trinomial_of(games: str) -> list[int]:
    return [games.count("L"), games.count("D"), games.count("W")]


def pentanomial_of(games: str) -> list[int]:
    counts = [0] * 5
    for k in range(0, len(games) - 1, 2):
        counts[round(2 * (POINTS[games[k]] + POINTS[games[k + 1]]))] += 1
    return counts


SEQUENCES = {
    "mixed": "WDLDWWDDLWDWWLDDWDWLDDWWDLWDDWWLWD",
    "drawish": "DDDDWDDDLDDDDDWDDDDDDLDDDWDD",
    "stronger": "WWDWWWLWDWWWDWWWWDWLWWWDWW",
    "weaker": "LLDLWLLDLLLDLLWLLLDL",
    # 400 games drawn from a fixed seed: W 40%, D 35%, L 25%
    "seeded": "".join(np.random.default_rng(7).choice(list("WDL"), size=400, p=[0.40, 0.35, 0.25])),
}


@pytest.mark.parametrize("name", SEQUENCES)
@pytest.mark.parametrize("elo0, elo1", [(0.0, 5.0), (-5.0, 5.0), (0.0, 100.0), (10.0, 30.0)])
def test_the_llr_of_known_sequences_equals_the_reference(name, elo0, elo1):
    games = SEQUENCES[name]
    for length in sorted({2, 6, 10, len(games) // 2 * 2, len(games)}):
        prefix = games[:length]
        for counts in (trinomial_of(prefix), pentanomial_of(prefix)):
            assert sprt_llr(counts, elo0, elo1) == pytest.approx(reference_llr(counts, elo0, elo1), abs=1e-9,
                                                                   rel=1e-12), (prefix, counts)


def test_the_pentanomial_counts_pairs_by_points():
    assert pentanomial([0, 0.5, 1, 1, 1.5, 2, 2, 2]) == [1, 1, 2, 1, 3]
    assert pentanomial_of("WLDDWWLD") == [0, 1, 2, 0, 1]
    assert trinomial_of("WLDDWWLD") == [2, 3, 3]


def test_no_results_say_nothing():
    assert sprt_llr([0, 0, 0], 0, 5) == 0.0 and sprt_llr([0] * 5, 0, 5) == 0.0
    assert Sprt(0, 5).result([0] * 5).decision == CONTINUE
    with pytest.raises(ValueError, match="3 .* or 5"):
        sprt_llr([1, 2, 3, 4], 0, 5)


def test_the_bounds_are_walds():
    lower, upper = Sprt.parse("elo0=0,elo1=5,alpha=0.05,beta=0.05").bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    assert upper == pytest.approx(2.944438979166440) and lower == -upper
    assert sprt_bounds(0.01, 0.1) == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def _first_decision(test, counts_after):
    """(pairs, result) of the first pair at which the test decides (None: within 1000 pairs it does not)."""
    for n in range(1, 1001):
        result = test.result(counts_after(n))
        if result.decided:
            return n, result
    return None, test.result(counts_after(1000))


def test_clean_sweeps_decide_where_the_reference_crosses_a_bound():
    test = Sprt(0, 100)
    lower, upper = test.bounds
    n, result = _first_decision(test, lambda n: [0, 0, 0, 0, n])
    assert result.decision == H1_ACCEPTED and result.llr >= upper
    assert reference_llr([0, 0, 0, 0, n], 0, 100) >= upper > reference_llr([0, 0, 0, 0, n - 1], 0, 100)
    # A clean sweep moves the LLR by about ln(s1/s0) a pair (the data cannot tell a bigger gain from elo1's).
    assert n == math.ceil(upper / math.log((1 / (1 + 10 ** (-100 / 400))) / 0.5))
    n, result = _first_decision(test, lambda n: [n, 0, 0, 0, 0])
    assert result.decision == H0_ACCEPTED and result.llr <= lower
    assert reference_llr([n, 0, 0, 0, 0], 0, 100) <= lower < reference_llr([n - 1, 0, 0, 0, 0], 0, 100)
    # Trinomial counts decide too.
    assert _first_decision(test, lambda n: [0, 0, n])[1].decision == H1_ACCEPTED


def test_balanced_results_continue():
    # A test symmetric about 0 and results symmetric about an even score: the LLR is 0, whatever their number.
    for n in (1, 10, 500):
        result = Sprt(-5, 5).result([n, 2 * n, 4 * n, 2 * n, n])
        assert abs(result.llr) < 1e-9 and result.decision == CONTINUE
    # Even scores against elo0=0, elo1=5 lean to H0 only slowly: 40 pairs do not decide.
    result = Sprt(0, 5).result(pentanomial_of("WLDDLWDD" * 10))
    assert result.decision == CONTINUE and result.lower < result.llr < 0


def test_a_clearly_weaker_and_a_clearly_stronger_player_are_decided():
    test = Sprt(0, 50)
    strong = "WWDWWWLWDWWWDWWWWDWLWWWDWW" * 4
    weak = strong.translate(str.maketrans("WL", "LW"))
    assert test.result(pentanomial_of(strong)).decision == H1_ACCEPTED
    assert test.result(pentanomial_of(weak)).decision == H0_ACCEPTED


@pytest.mark.parametrize("text, message", [
    ("", "bad SPRT '': it is empty"),
    ("elo0=0", "elo1 is missing"),
    ("alpha=0.05", "elo0 and elo1 are missing"),
    ("elo0=0,elo1=five", "elo1='five' is not a number"),
    ("elo0=0,elo1=inf", "elo1=inf is not a finite number"),
    ("elo0=0,elo1=5,gamma=1", "unknown part 'gamma' (valid: elo0, elo1, alpha, beta)"),
    ("elo0=0,elo1=5,elo1=6", "elo1 is given twice"),
    ("elo0=0,,elo1=5", "an empty part"),
    ("elo0=0,elo1", "'elo1' is not NAME=VALUE"),
    ("elo0=5,elo1=0", "elo0 must be less than elo1"),
    ("elo0=0,elo1=5,alpha=0", "alpha=0 is not a probability between 0 and 1"),
    ("elo0=0,elo1=5,beta=1.5", "beta=1.5 is not a probability between 0 and 1"),
    ("elo0=0,elo1=5,alpha=0.5,beta=0.5", "alpha + beta must be less than 1"),
    ("elo0=0,elo1=2000", "elo1=2000 is not between -1000 and 1000 Elo"),
])
def test_a_bad_test_is_refused_naming_the_bad_part(text, message):
    with pytest.raises(UsageError) as caught:
        Sprt.parse(text)
    assert message in str(caught.value)
    assert "elo0=" in str(caught.value)      # what would be valid (the form or an example)


def test_a_test_parses_in_any_order_and_prints_as_typed():
    test = Sprt.parse(" beta=0.1, elo1=5 ,elo0=-1.5")
    assert test == Sprt(-1.5, 5, 0.05, 0.1)
    assert str(test) == "elo0=-1.5,elo1=5,alpha=0.05,beta=0.1" and Sprt.parse(str(test)) == test
    assert str(Sprt.parse("elo0=0.123456789,elo1=1")) == "elo0=0.123456789,elo1=1,alpha=0.05,beta=0.05"


# ------------------------------------------------------------------ the tally of a tournament's games

def _games(text: str):
    """Stored games of one pairing from A's results, game i at index i."""
    return [SimpleNamespace(index=i, score_a=None if c == "*" else POINTS[c]) for i, c in enumerate(text)]


def test_the_tally_reads_pairs_in_schedule_order_whatever_order_they_finish_in():
    games = _games("WDLWDDWWLDWL")
    in_order, shuffled = SprtTally(Sprt(0, 50)), SprtTally(Sprt(0, 50))
    for game in games:
        in_order.add(game)
    for k in np.random.default_rng(3).permutation(len(games)):
        shuffled.add(games[k])
    assert in_order.counts == shuffled.counts == pentanomial_of("WDLWDDWWLDWL")
    assert in_order.result == shuffled.result
    # Before game 0 is stored nothing is counted, however many games after it are.
    waiting = SprtTally(Sprt(0, 50))
    for game in games[1:]:
        waiting.add(game)
    assert waiting.pairs == 0 and waiting.read == 0
    waiting.add(games[0])
    assert waiting.counts == in_order.counts


def test_the_tally_stops_at_the_first_pair_that_decides_and_passes_over_unfinished_pairs():
    tally = SprtTally(Sprt(0, 200))
    for game in _games("W*" + "WW" * 30):
        tally.add(game)
    first = next(n for n in range(1, 31) if Sprt(0, 200).result([0, 0, 0, 0, n]).decided)
    assert tally.decision == H1_ACCEPTED and tally.counts == [0, 0, 0, 0, first]
    assert tally.read == 2 + 2 * first       # the unfinished pair was read, not counted
    assert "H1 accepted" in tally.progress_text() and f"{first} pairs" in tally.progress_text()


# ------------------------------------------------------------------ plyground tournament --sprt

TOURNAMENT = ("tournament", "--game", "tictactoe", "--seed", "1", "--workers", "1")
STRONG, WEAK = "strong=mcts:simulations=100", "weak=random"
TEST = "elo0=0,elo1=100,alpha=0.05,beta=0.05"


def _stored(out):
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def _games_played(out):
    return [(r["index"], r["record"]["moves"], r["record"]["result"]) for r in _stored(out)]


def _llr_first_crossing(stored, test):
    """The pair at which the test first decides, recomputed from the stored games (the reference's LLR)."""
    by_index = {r["index"]: GameResult.from_json(r) for r in stored}
    counts = [0] * 5
    lower, upper = test.bounds
    for k in range(0, max(by_index), 2):
        counts[round(2 * (by_index[k].score_a + by_index[k + 1].score_a))] += 1
        llr = reference_llr(counts, test.elo0, test.elo1)
        if llr >= upper or llr <= lower:
            return k + 2, llr
    return None, None


def test_a_tournament_stops_when_the_test_decides_and_says_so(cli, tmp_path):
    out = tmp_path / "t"
    code, stdout, stderr = cli(*TOURNAMENT, STRONG, WEAK, "--sprt", TEST, "-n", "200", "--out", out)
    assert code == 0, stderr
    stored = _stored(out)
    games, llr = _llr_first_crossing(stored, Sprt.parse(TEST))
    assert games is not None and len(stored) == games < 200       # stopped at the first crossing
    assert f"at most 200 games (SPRT {TEST}) in {out}: 0 stored, 200 to play" in stderr
    assert "LLR +0.00 (-2.94, +2.94), 0 pairs" in stderr and stderr.count("ETA") == games
    assert f"[{games}/200]" in stderr and "H1 accepted  ETA" in stderr
    assert f"tictactoe: {games} of at most 200 games" in stdout
    assert f"SPRT {TEST} (logistic Elo, pentanomial on game pairs): H1 accepted after {games} games" in stdout
    assert f"LLR {llr:+.3f}, bounds -2.944 and +2.944" in stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sprt"]["decision"] == H1_ACCEPTED and summary["sprt"]["games"] == games
    assert summary["sprt"]["llr"] == pytest.approx(llr, abs=1e-9)
    assert summary["tournament"]["sprt"] == TEST

    # The same command again: the test has decided, nothing is played, the same report.
    code, stdout2, stderr2 = cli(*TOURNAMENT, STRONG, WEAK, "--sprt", TEST, "-n", "200", "--out", out)
    assert code == 0 and f"{games} stored, the test has decided (H1 accepted), nothing to play" in stderr2
    assert stdout2 == stdout


def test_the_weaker_player_first_is_decided_h0(cli, tmp_path):
    code, stdout, stderr = cli(*TOURNAMENT, WEAK, STRONG, "--sprt", TEST, "-n", "200", "--out", tmp_path / "t")
    assert code == 0, stderr
    assert "H0 accepted after" in stdout and len(_stored(tmp_path / "t")) < 200


def test_a_test_that_does_not_decide_plays_the_most_games(cli, tmp_path):
    code, stdout, stderr = cli(*TOURNAMENT, "a=random", "b=random:seed=3", "--sprt", "elo0=0,elo1=5", "-n", "6",
                               "--out", tmp_path / "t")
    assert code == 0, stderr
    assert "tictactoe: 6 of at most 6 games" in stdout and "no decision within the 6 games -n allows" in stdout


def test_an_interrupted_test_resumes_from_the_stored_games_to_the_same_decision(tmp_path):
    def config():
        return TournamentConfig(game="tictactoe", entrants=[Entrant.parse(STRONG), Entrant.parse(WEAK)],
                                games_per_pairing=200, seed=1, sprt=TEST)

    straight = run_tournament(config(), tmp_path / "straight")
    assert straight.sprt.decision == H1_ACCEPTED and straight.complete

    def stop_after_five(progress):
        if progress.done == 5:
            raise KeyboardInterrupt
    stopped = run_tournament(config(), tmp_path / "resumed", on_game=stop_after_five)
    assert stopped.interrupted and not stopped.complete and len(stopped.results) == 5
    assert stopped.sprt.pairs == 2 and not stopped.sprt.decided
    resumed = run_tournament(config(), tmp_path / "resumed")
    assert resumed.resumed == 5 and resumed.played == len(straight.results) - 5
    assert resumed.sprt.result == straight.sprt.result and resumed.sprt.counts == straight.sprt.counts
    assert _games_played(tmp_path / "resumed") == _games_played(tmp_path / "straight")


def test_two_workers_decide_where_one_does(cli, tmp_path):
    args = (*TOURNAMENT[:-2], STRONG, WEAK, "--sprt", TEST, "-n", "200", "--quiet", "--workers")
    assert cli(*args, "1", "--out", tmp_path / "one")[0] == 0
    code, stdout, stderr = cli(*args, "2", "--out", tmp_path / "two")
    assert code == 0, stderr
    one = json.loads((tmp_path / "one" / "summary.json").read_text())["sprt"]
    two = json.loads((tmp_path / "two" / "summary.json").read_text())["sprt"]
    assert one == two and one["decision"] == H1_ACCEPTED
    # Games finished out of order past the decision may be stored too (then rated), never counted by the test;
    # the games in flight when it decided were abandoned.
    assert {r["index"] for r in _stored(tmp_path / "two")} >= set(range(one["games"]))


@pytest.mark.parametrize("args, message", [
    (("a=random", "b=random", "c=random", "--sprt", TEST), "--sprt tests one player against another: give exactly "
                                                            "two players, not 3 (a, b, c)"),
    (("a=random", "b=random", "--sprt", TEST, "-n", "7"), "with --sprt the games must be even"),
    (("a=random", "b=random", "--sprt", "elo0=0,elo1=5,alpha=2"), "bad SPRT 'elo0=0,elo1=5,alpha=2,beta=0.05': "
                                                                   "alpha=2 is not a probability"),
    (("a=random", "b=random", "--sprt", "elo0=0"), "bad SPRT 'elo0=0': elo1 is missing"),
])
def test_tournament_sprt_misuse_exits_2_with_one_line(cli, tmp_path, args, message):
    code, out, err = cli(*TOURNAMENT, "--out", tmp_path / "t", *args)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert len([line for line in err.splitlines() if "error" in line.lower()]) == 1, err


def test_another_test_in_the_same_directory_is_a_different_tournament(cli, tmp_path):
    base = (*TOURNAMENT, "a=random", "b=random", "--out", tmp_path / "t", "-n", "2")
    assert cli(*base, "--sprt", TEST)[0] == 0
    code, out, err = cli(*base, "--sprt", "elo0=0,elo1=50")
    assert code == 2 and "holds a different tournament (sprt (stored: " in err
    # A tournament without a test keeps the fingerprint it had before tests existed.
    plain = TournamentConfig(game="tictactoe", entrants=[Entrant("a", "random"), Entrant("b", "random")],
                             games_per_pairing=2)
    assert "sprt" not in plain._identity()
