"""Time controls (--tc): parsing, the clock's arithmetic, bots spending their clock, losing on time."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from plyground.play.clock import (TIME_LEFT_TAG, Clock, TimeControl, allot_most_seconds, allot_seconds, clock_line,
                             format_clock, note_time_left,
                             resumed_clock, resumed_clock_note)
from plyground.protocols import GameRecord
from plyground.errors import UsageError
from plyground.play.match import play_game
from plyground.registry import get_registry


@pytest.mark.parametrize("text, control", [
    ("60+1", TimeControl(60, 1)), ("10+0.1", TimeControl(10, 0.1)), ("5", TimeControl(5)),
    ("40/60+1", TimeControl(60, 1, 40)), ("40/90m+30", TimeControl(5400, 30, 40)), ("5m+3", TimeControl(300, 3)),
    (" 3m ", TimeControl(180)), (".5+.1", TimeControl(0.5, 0.1)),
])
def test_time_controls_parse_as_players_write_them(text, control):
    assert TimeControl.parse(text) == control
    assert TimeControl.parse(str(control)) == control


@pytest.mark.parametrize("text", ["", "abc", "40/", "/60", "60+", "0", "0/60", "60+1+2", "-5", "1h"])
def test_bad_time_controls_name_the_valid_forms(text):
    with pytest.raises(UsageError, match="e.g. 60[+]1, 10[+]0.1, 40/60[+]1, 5m[+]3"):
        TimeControl.parse(text)


@pytest.mark.parametrize("text, written", [("1000000", "1000000"), ("10+0.1234567", "10+0.1234567"),
                                           ("5m+3", "300+3"), ("1.5m", "90"), ("40/90m+30", "40/5400+30")])
def test_a_time_control_keeps_the_digits_the_user_wrote(text, written):
    # %g once made 1000000 into '1e+06' (refused when read back) and 10+0.1234567 into 10+0.123457.
    control = TimeControl.parse(text)
    assert str(control) == written and TimeControl.parse(written) == control


def test_a_match_with_a_million_second_clock_stores_it_as_written(cli, tmp_path):
    save = tmp_path / "games.jsonl"
    for tc in ("1000000", "10+0.1234567"):
        code, _, err = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random", "-n", "1",
                           "--tc", tc, "--save", save, "--quiet")
        assert code == 0, err
        assert json.loads(save.read_text().splitlines()[-1])["tags"]["TimeControl"] == tc


@pytest.mark.parametrize("flag, value", [("--tc", "1000001"), ("--tc", "60+1000001"), ("--tc", "99999999999m"),
                                         ("--seconds", "1e308"), ("--move-limit", "1e308"),
                                         ("--black", "mcts:seconds=1e308"), ("--black", "alphabeta:seconds=1e7")])
def test_more_seconds_than_can_be_timed_are_refused_naming_the_limit(cli, flag, value):
    args = {"--black": "random", "--white": "random", flag: value}
    code, _, err = cli("match", "--game", "tictactoe", "-n", "1", *[x for pair in args.items() for x in pair])
    assert code == 2 and "Traceback" not in err, err
    assert repr(value.split("=")[-1]) in err and "1000000" in err, err


def test_the_clock_adds_increments_and_periods_and_flags_at_zero():
    clock = Clock(TimeControl(10, 1, moves=2))
    assert clock.charge(0, 3.0) and clock.left[0] == 8.0                  # 10 - 3 + 1
    assert clock.charge(0, 4.0) and clock.left[0] == 15.0                 # 8 - 4 + 1, + 10 at move 2
    assert not clock.charge(1, 10.5) and clock.left[1] < 0                # out of time: the move does not count
    assert clock.moves == [2, 0]
    sudden = Clock(TimeControl(60))
    assert sudden.allot(0) == pytest.approx((60 / 30) * 0.9 - 0.02)        # a thirtieth, less the margin
    # An unsure move may take three times its allotment, never more than a quarter of what is left.
    assert sudden.allot_most(0) == pytest.approx(3 * sudden.allot(0))
    assert allot_most_seconds(8.0, 0, 10) == pytest.approx(8.0 / 4 - 0.02)     # less than 3 x 0.7
    assert allot_most_seconds(0.0, 0.1) == allot_seconds(0.0, 0.1) == 0.001   # never less than the allotment
    sudden.left[0] = 1.0
    assert sudden.allot(0) < 0.5                                          # never more than half of what is left
    assert format_clock(65.3) == "1:05" and format_clock(9.84) == "0:09.8" and format_clock(-1) == "0:00.0"
    assert clock_line(("Black", "White"), Clock(TimeControl(90))) == "clock: Black 1:30   White 1:30"


def test_a_bot_spends_its_clock_and_a_slow_one_loses_on_time():
    registry = get_registry()
    game = registry.make_game("checkers")
    players = [registry.make_player("alphabeta:eval=learned,depth=30", game),
               registry.make_player("random:delay=0.4,seed=3", game)]
    record = play_game(game, players, time_control=TimeControl(2, 0.1), seed=1)
    assert record.reason == "random (White) lost on time (2+0.1 time control)"
    assert record.returns == (1.0, -1.0) and record.tags["TimeControl"] == "2+0.1"
    assert 11 <= len(record.moves) <= 15      # 2 s, 0.3 s net a move: its 7th move (ply 14) flags


def test_a_tournament_with_a_clock_finishes_and_the_slow_player_loses_every_game_on_time(cli, tmp_path):
    out = tmp_path / "t"
    code, _, err = cli("tournament", "--game", "checkers", "-p", "ab=alphabeta:eval=learned,depth=6",
                       "-p", "mcts=mcts:simulations=100000", "-p", "slow=random:delay=2", "--tc", "5+0.1",
                       "-n", "1", "--workers", "2", "--out", out, "--quiet")
    assert code == 0, err
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(results) == 3                                      # a game per pairing
    for result in results:
        record = result["record"]
        assert record["tags"]["TimeControl"] == "5+0.1"
        reason = record["reason"]
        if "slow" in (result["a"], result["b"]):
            assert reason.startswith("slow (") and reason.endswith("lost on time (5+0.1 time control)"), reason
        else:
            assert "on time" not in reason, reason            # the bots kept to their clocks
    config = json.loads((out / "tournament.json").read_text())
    assert config["time_control"] == "5+0.1"


def test_tc_and_seconds_together_are_refused(cli):
    code, _, err = cli("match", "--game", "checkers", "--black", "random", "--white", "random", "--tc", "5",
                       "--seconds", "1")
    assert code == 2 and "--tc and --seconds both set the bots' time" in err
    code, _, err = cli("play", "--game", "checkers", "--black", "random", "--white", "random", "--tc", "40/x")
    assert code == 2 and "'40/x' is not a time control" in err


def test_a_game_saved_under_a_clock_plays_on_with_the_time_each_side_had_left():
    """Issue #57: a game saved under --tc was resumed without a clock, and nothing said so."""
    registry = get_registry()
    game = registry.make_game("checkers")
    bots = lambda: [registry.make_player("random:delay=0.2,seed=1", game),   # noqa: E731
                    registry.make_player("random:delay=0.2,seed=2", game)]
    first = play_game(game, bots(), time_control=TimeControl(30, 1), max_plies=4, seed=1)
    left = [float(value) for value in first.tags[TIME_LEFT_TAG].split()]
    assert first.tags["TimeControl"] == "30+1"
    assert all(29.0 < value <= 30 + 2 * (1 - 0.2) for value in left)       # two moves each: 0.2 s spent, 1 s added
    # Resumed with no time control given: the clock goes on from what was left, with the moves counted.
    on = play_game(game, bots(), resume=first, max_plies=6, seed=1)
    assert on.tags["TimeControl"] == "30+1"
    after = [float(value) for value in on.tags[TIME_LEFT_TAG].split()]
    assert all(before - 1 < now <= before + 1 - 0.2 for before, now in zip(left, after))   # a third move each
    assert resumed_clock(first.tags, [0, 1, 0, 1]).moves == [2, 2]
    # A side resumed with half a second left, a move taking a second: it loses on time.
    short = GameRecord(game="checkers", players=("a", "b"), start=first.start, moves=first.moves, finished=False,
                       tags={"TimeControl": "30+1", TIME_LEFT_TAG: "0.5 29.0"})
    slow = [registry.make_player("random:delay=1", game), registry.make_player("random", game)]
    lost = play_game(game, slow, resume=short, max_plies=8, seed=1)
    assert lost.reason == "random (Black) lost on time (30+1 time control)" and len(lost.moves) == 4


def test_a_save_during_a_turn_counts_that_turns_time_so_far():
    clock = Clock(TimeControl(60))
    clock.start(0)
    clock._since -= 5.0                       # Black has thought for 5 s when the game is saved
    tags: dict = {}
    note_time_left(tags, clock)
    black, white = (float(value) for value in tags[TIME_LEFT_TAG].split())
    assert 54.0 < black <= 55.0 and white == 60.0


@pytest.mark.parametrize("tags, said", [
    ({"TimeControl": "5m", TIME_LEFT_TAG: "-3 61"}, "its times left cannot be read (TimeLeft '-3 61'"),
    ({"TimeControl": "5m"}, "its times left were not saved with it"),
    ({"TimeControl": "40/7200:3600", TIME_LEFT_TAG: "1 2"}, "its time control cannot be read"),
])
def test_the_note_says_why_a_clock_cannot_go_on(tags, said):
    note = resumed_clock_note(tags, ("Black", "White"), None)
    assert said in note and note.endswith("it plays on without a clock; give --tc to play on with fresh clocks")


@pytest.mark.parametrize("tags", [{}, {"TimeControl": "5m"}, {"TimeControl": "5m", TIME_LEFT_TAG: "12"},
                                  {"TimeControl": "-", TIME_LEFT_TAG: "1 2"}, {"TimeControl": "5m", TIME_LEFT_TAG: "1 x"}])
def test_a_record_without_readable_times_left_plays_on_without_a_clock_and_the_note_says_so(tags):
    assert resumed_clock(tags, []) is None
    note = resumed_clock_note(tags, ("Black", "White"), None)
    assert (note == "") == ("TimeControl" not in tags)
    assert not note or "plays on without a clock; give --tc" in note
    assert resumed_clock_note({"TimeControl": "5m", TIME_LEFT_TAG: "1 2"}, ("Black", "White"), TimeControl(60)) \
        .endswith("it plays on under --tc 60, each side's clock starting afresh")


def test_resuming_a_clocked_game_says_its_clocks_go_on_and_shows_them(tmp_path):
    env = dict(os.environ, PLYGROUND_GAMES=str(tmp_path / "games"))
    run = lambda *args, stdin: subprocess.run([sys.executable, "-m", "plyground", *args], input=stdin,  # noqa: E731
                                              capture_output=True, text=True, cwd=tmp_path, timeout=120, env=env)
    saved = run("play", "--black", "human", "--white", "human", "--tc", "300+2",
                stdin="11-15\n22-18\nsave tc.pdn\nquit\n")
    assert "saved the game so far (2 plies) to tc.pdn" in saved.stdout, saved.stdout + saved.stderr
    assert '[TimeLeft "' in (tmp_path / "tc.pdn").read_text()
    resumed = run("play", "--resume", "tc.pdn", stdin="quit\n")
    assert "plyground: the game plays on with its clocks (300+2): Black 5:0" in resumed.stderr, resumed.stderr
    assert "clock: Black 5:0" in resumed.stdout
