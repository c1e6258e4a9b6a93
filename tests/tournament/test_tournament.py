"""Schedules, seeding, storage and resuming, played in this process with cheap players."""
import hashlib
import json

import pytest

from plyground.errors import UsageError
from plyground.registry import get_registry
from plyground.tournament import (Entrant, TournamentConfig, choose_openings, crosstable, game_seed, rate,
                                  run_tournament, schedule)
from plyground.tournament.store import RESULTS_FILE, ResultStore


def config(*specs, n=4, openings="none", seed=0, fmt="round-robin", **kw):
    game = get_registry().make_game("tictactoe")
    return TournamentConfig("tictactoe", [Entrant.parse(s) for s in specs], n, format=fmt,
                            openings=choose_openings(game, openings, seed), openings_source=openings, seed=seed,
                            **kw)


def test_entrants_are_named_or_named_by_their_spec():
    assert Entrant.parse("random") == Entrant("random", "random")
    assert Entrant.parse("mcts:simulations=100") == Entrant("mcts:simulations=100", "mcts:simulations=100")
    assert Entrant.parse("m100 = mcts:simulations=100") == Entrant("m100", "mcts:simulations=100")
    with pytest.raises(UsageError, match="the spec after '=' is empty"):
        Entrant.parse("name=")
    with pytest.raises(UsageError, match="player name 'random' is given twice"):
        config("random", "random")
    with pytest.raises(UsageError, match="games per pairing must be even"):
        config("a=random", "b=random", n=3, openings="1-ply")


def test_schedule_plays_each_opening_twice_with_colours_reversed():
    cfg = config("a=random", "b=random", "c=random", n=6, openings="2-ply", seed=4)
    tasks = schedule(cfg)
    assert len(tasks) == cfg.total_games == 3 * 6
    assert [t.key for t in tasks[:4]] == [("a", "b", 0), ("a", "c", 0), ("b", "c", 0), ("a", "b", 1)]
    ab = [t for t in tasks if (t.a.name, t.b.name) == ("a", "b")]
    for first, second in zip(ab[::2], ab[1::2]):
        assert first.opening == second.opening and first.a_first and not second.a_first
        assert first.sides == (second.sides[1], second.sides[0])
    assert len({t.opening for t in ab}) == 3
    # Seeds come from (tournament seed, pairing, index), never from the order of play.
    assert all(t.seed == game_seed(4, t.a.name, t.b.name, t.index) for t in tasks)
    assert len({t.seed for t in tasks}) == len(tasks)
    gauntlet = config("a=random", "b=random", "c=random", fmt="gauntlet", n=2)
    assert [(a.name, b.name) for a, b in gauntlet.pairings()] == [("a", "b"), ("a", "c")]


def test_cheap_ladder_comes_out_in_order_with_separate_intervals(bots):
    """random < greedy (wins and blocks) < perfect (full search), every 2-ply opening both ways."""
    cfg = config("random", "greedy", "perfect", n=144, openings="2-ply", seed=1)
    run = run_tournament(cfg, None, workers=1)
    assert run.complete and run.played == 3 * 144
    ratings = rate(cfg, run.results)
    assert [p.name for p in ratings.players] == ["perfect", "greedy", "random"]
    perfect, greedy, random_ = ratings.players
    assert random_.elo == 0
    assert greedy.lower > random_.upper and perfect.lower > greedy.upper
    assert perfect.los_next > 0.99 and greedy.los_next > 0.99
    table = crosstable(cfg, run.results)
    assert table["random"]["perfect"]["games"] == 144
    assert table["perfect"]["random"]["points"] > 120


def test_games_are_stored_as_they_finish_and_a_rerun_resumes(bots, tmp_path):
    cfg = config("firstlegal", "random", "greedy", n=6, openings="1-ply")
    seen = []

    class Terminated(KeyboardInterrupt):      # as `plyground train` turns SIGTERM into an interrupt
        pass

    interrupt = Terminated()

    def stop_after_five(progress):
        seen.append(progress.result.key)
        if len(seen) == 5:
            raise interrupt

    stopped = run_tournament(cfg, tmp_path, on_game=stop_after_five)
    assert stopped.interrupted and len(stopped.results) == 5     # Ctrl-C returns the finished games
    assert stopped.interruption is interrupt                     # and which interrupt, for a caller to raise
    stored = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert len(stored) == 5 and [tuple(json.loads(line)[k] for k in "ab") + (json.loads(line)["index"],)
                                 for line in stored] == seen

    again = []
    run = run_tournament(cfg, tmp_path, on_game=lambda p: again.append(p.result.key))
    assert run.resumed == 5 and run.played == cfg.total_games - 5 and run.complete
    assert not set(again) & set(seen)                       # nothing stored was played again
    lines = (tmp_path / RESULTS_FILE).read_text().splitlines()
    assert lines[:5] == stored and len(lines) == cfg.total_games
    assert [r.key for r in run.results] == [t.key for t in schedule(cfg)]
    games = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(games) == cfg.total_games and json.loads(games[0])["tags"]["Opening"]

    finished = run_tournament(cfg, tmp_path, on_game=lambda p: pytest.fail("replayed a stored game"))
    assert finished.played == 0 and finished.resumed == cfg.total_games


def test_a_rerun_plays_the_same_games_as_an_uninterrupted_run(bots, tmp_path):
    cfg = config("random", "greedy", n=8, openings="2-ply", seed=9)
    whole = run_tournament(cfg, None)
    count = []

    def stop(progress):
        count.append(1)
        if len(count) == 3:
            raise KeyboardInterrupt

    assert run_tournament(cfg, tmp_path, on_game=stop).interrupted
    resumed = run_tournament(cfg, tmp_path)
    assert [(r.key, r.record.moves) for r in resumed.results] == [(r.key, r.record.moves) for r in whole.results]


def test_a_different_tournament_in_the_same_directory_is_refused(tmp_path):
    run_tournament(config("a=random", "b=random", n=2), tmp_path)
    with pytest.raises(UsageError) as info:
        run_tournament(config("a=random", "b=random", n=4, seed=3), tmp_path)
    message = str(info.value)
    assert f"{tmp_path} holds a different tournament" in message
    assert "games_per_pairing (stored: 2; now: 4)" in message and "seed (stored: 0; now: 3)" in message
    assert "choose another --out" in message


def test_a_torn_last_line_is_dropped_and_that_game_replayed(tmp_path):
    cfg = config("a=random", "b=random", n=4)
    run_tournament(cfg, tmp_path)
    path = tmp_path / RESULTS_FILE
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:2]) + lines[2][:40])          # killed while writing game 3
    run = run_tournament(cfg, tmp_path)
    assert run.resumed == 2 and run.played == 2
    assert path.read_text().splitlines()[:2] == [line.rstrip("\n") for line in lines[:2]]
    assert len(path.read_text().splitlines()) == 4


def test_a_second_run_cannot_write_to_a_directory_in_use(tmp_path):
    cfg = config("a=random", "b=random", n=2)
    with ResultStore(tmp_path, cfg) as first:
        first.open()
        with pytest.raises(UsageError, match="another tournament run is writing to"):
            ResultStore(tmp_path, cfg).open()


def test_same_seed_same_results_with_one_or_two_worker_processes(tmp_path):
    cfg = config("a=random", "b=random", "c=random:seed=5", n=4, openings="1-ply", seed=42)
    one = run_tournament(cfg, None, workers=1)
    two = run_tournament(cfg, tmp_path, workers=2)           # spawned processes
    assert two.played == cfg.total_games
    assert [(r.key, r.record.moves, r.record.result_text) for r in one.results] == \
           [(r.key, r.record.moves, r.record.result_text) for r in two.results]
    other_seed = run_tournament(config("a=random", "b=random", "c=random:seed=5", n=4, openings="1-ply", seed=43))
    assert [r.record.moves for r in other_seed.results] != [r.record.moves for r in one.results]


def test_bots_only(tmp_path):
    with pytest.raises(UsageError, match="player 'human' needs a person at a renderer"):
        run_tournament(config("human", "random", n=2), tmp_path)


def test_mcts_outranks_random():
    cfg = config("random", "m50=mcts:simulations=50", n=10, openings="1-ply", seed=2)
    run = run_tournament(cfg, None, workers=1)
    ratings = rate(cfg, run.results)
    assert [p.name for p in ratings.players] == ["m50", "random"]
    assert ratings.players[0].lower > ratings.players[1].upper


@pytest.mark.parametrize("seed, a, b", [(0, "random", "random#2"), (-3, 'quo"te', "tab\tand é"), (10**20, "x", "y")])
def test_game_seeds_are_the_hash_of_seed_pairing_and_index_as_json(seed, a, b):
    # the definition stored tournaments were seeded by: a stored run must resume with the same seeds
    def defined(index):
        digest = hashlib.sha256(json.dumps([seed, a, b, index]).encode()).digest()
        return int.from_bytes(digest[:4], "big") >> 1
    tasks = schedule(TournamentConfig("tictactoe", [Entrant(a, "random"), Entrant(b, "random")], 50, seed=seed))
    assert [t.seed for t in tasks] == [defined(i) for i in range(50)]
    assert game_seed(seed, a, b, 7) == defined(7)

