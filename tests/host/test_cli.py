"""Every CLI misuse: exit code 2 and one line that names the valid choices."""
import json

import pytest





MATCH = ("match", "--game", "tictactoe", "-n", "2", "--quiet")


@pytest.mark.parametrize("args, message", [
    (("match", "--game", "go", "--black", "random", "--white", "random"),
     "unknown game 'go'; valid games: "),
    (("match", "--game", "tictactoe", "--black", "alphago", "--white", "random"),
     "unknown player 'alphago'; valid players: "),
    (MATCH + ("--black", "random:speed=3", "--white", "random"),
     "player random: unknown option 'speed'; valid options: seed"),
    (MATCH + ("--black", "random:seed=abc", "--white", "random"),
     "player random: bad value 'abc' for option 'seed': expected integer or none"),
    (MATCH + ("--black", "random", "--white", "random", "--renderer", "hologram"),
     "unknown renderer 'hologram'; valid renderers: "),
    (MATCH + ("--black", "random", "--white", "random", "--renderer", "console:color=purple"),
     "expected one of auto, always, never"),
    (("match", "--game", "tictactoe:size=4", "--black", "random", "--white", "random"),
     "game tictactoe: unknown option 'size'"),
    (("play", "--game", "tictactoe", "--fen", "XXX/OOO/... X", "--black", "random", "--white", "random"),
     "impossible tic-tac-toe position"),
    (("perft", "tictactoe", "--depth", "2", "--fen", "XX"), "bad tic-tac-toe position"),
    (("perft", "checkers", "--depth", "99999999999"), "Invalid value for '--depth': 99999999999 is not in the "
                                                      "range 0<=x<=64"),
    (("list", "wizards"), "unknown kind 'wizards'; valid kinds: games, players, renderers, trainers, board-views, networks"),
    (("match", "--game", "tictactoe", "--black", "random", "--white", "random", "-n", "-1"),
     "Invalid value for '-n'"),
    (("frobnicate",), "No such command 'frobnicate'"),
])
def test_misuse_exits_2_with_one_clear_line(cli, args, message):
    code, out, err = cli(*args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    error_lines = [line for line in err.splitlines() if "error" in line.lower()]
    assert len(error_lines) == 1, err


def test_human_without_an_interactive_renderer_is_refused(cli):
    code, out, err = cli("match", "--game", "tictactoe", "--black", "human", "--white", "random",
                         "-n", "1", "--quiet")
    assert code == 2
    assert "player 'human' needs a person at a renderer; add --renderer console (or pygame, or web)" in err


def test_version_and_lists(cli):
    code, out, _ = cli("--version")
    assert code == 0 and out.startswith("plyground, version ")
    code, out, _ = cli("list", "players", "--json")
    players = {p["name"]: p for p in json.loads(out)}
    assert players["random"]["options"][0]["name"] == "seed"
    code, out, _ = cli("plugins")
    assert "tictactoe" in out and "plyground" in out
    # without a kind: every kind's names, the plugin-added kinds too
    code, out, _ = cli("list")
    assert code == 0
    lines = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert "random" in lines["players"].split(", ") and "resnet" in lines["networks"].split(", ")
    code, out, _ = cli("list", "--json")
    assert "tictactoe" in json.loads(out)["games"]


def test_match_prints_summary_and_saves_games(cli, tmp_path):
    save = tmp_path / "games.jsonl"
    code, out, err = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random",
                         "-n", "20", "--seed", "7", "--save", str(save))
    assert code == 0
    assert "random (A) vs random (B): 20 games" in out
    assert "95% interval" in out
    assert len(save.read_text().splitlines()) == 20
    assert err.count("game ") == 20  # progress lines with ETA
    code, out2, _ = cli("match", "--game", "tictactoe", "--black", "random", "--white", "random",
                        "-n", "20", "--seed", "7", "--save", str(save))
    assert out2 == out  # same seed, same games


def test_perft_counts_tictactoe(cli):
    code, out, _ = cli("perft", "tictactoe", "--depth", "9")
    assert code == 0 and "perft(9) = 127,872 nodes" in out


def test_colour_flags_follow_the_games_side_names(cli, tmp_path):
    """In checkers Black moves first; in chess White does.  --first/--second mean move order anywhere."""
    from plyground.cli import _seat
    from plyground.registry import get_registry
    reg = get_registry()
    checkers, chess, ttt = reg.make_game("checkers"), reg.make_game("chess"), reg.make_game("tictactoe")
    assert _seat(checkers, "b", "w", None, None) == ["b", "w"]
    assert _seat(chess, "b", "w", None, None) == ["w", "b"]
    assert _seat(ttt, "x", None, None, "o") == ["x", "o"]
    save = tmp_path / "g.pgn"
    code, out, err = cli("match", "--game", "chess", "--white", "random:seed=1", "--black", "random",
                         "-n", "1", "--max-plies", "6", "--quiet", "--save", str(save))
    assert code == 0, err
    assert '[White "random:seed=1"]' in save.read_text()


def test_humans_description_names_every_bundled_front_end(cli):
    """Issue #73: `human` said "(console or pygame)" though the web page is a front end too."""
    from plyground.registry import get_registry
    code, out, _ = cli("list", "players", "--json")
    description = {p["name"]: p for p in json.loads(out)}["human"]["description"]
    fronts = [e.name for e in get_registry().entries("renderers") if e.cls.interactive]
    assert {"console", "pygame", "web"} <= set(fronts)
    assert all(f"{name}:" in description for name in fronts), (fronts, description)


@pytest.mark.parametrize("args", [("--white", "mcts:no_such_option=1"), ("--renderer", "console:no_such_option=1"),
                                  ("--white", "no_such_player")])
def test_a_play_that_fails_tells_of_no_unfinished_game(tmp_path, args):
    """Issue #73: every `play` told of the unfinished game saved before it checked its own options; the notice
    comes only when the game is going to start (tests/renderers/test_console_analysis_and_saving.py sees it
    come then)."""
    from processes import one_error_line, run_plyground
    from plyground.protocols import GameRecord
    from plyground.registry import get_registry
    game = get_registry().make_game("checkers")
    unfinished = GameRecord(game="checkers", players=("human", "random"), start=game.new_initial_state().to_text(),
                            moves=["9-13", "22-18"], finished=False)
    (tmp_path / "checkers-saved.pdn").write_text(game.format_records([unfinished]), encoding="utf-8")
    renderer = () if "--renderer" in args else ("--renderer", "console:quiet=true")
    line = one_error_line(run_plyground("play", "--game", "checkers", *renderer, *args,
                                        env={"PLYGROUND_GAMES": str(tmp_path)}))
    assert "unfinished" not in line
