import pytest

from plyground.play.match import play_game
from plyground.protocols import Command, Player, Renderer
from plyground.registry import get_registry
from plyground.play.session import run_match
from plyground.play.stats import Score


@pytest.fixture
def ttt():
    return get_registry().make_game("tictactoe")


class Scripted(Player):
    """Plays (or answers) a fixed list of texts; records what it was told."""
    name = "scripted"
    description = "test player"

    def __init__(self, game, script):
        super().__init__(game)
        self.script = list(script)
        self.seen = []

    def choose_move(self, state, budget):
        item = self.script.pop(0)
        if isinstance(item, Command) or not isinstance(item, str):
            return item
        return state.parse_move(item)

    def observe_move(self, state, move):
        self.seen.append(state.move_to_text(move))


def test_a_won_game_is_recorded_in_the_games_notation(ttt):
    x = Scripted(ttt, ["a1", "a2", "a3"])
    o = Scripted(ttt, ["b1", "b2"])
    record = play_game(ttt, [x, o], names=("x", "o"))
    assert record.moves == ["a1", "b1", "a2", "b2", "a3"]
    assert record.returns == (1.0, -1.0) and record.result_text == "1-0"
    assert record.reason == "three in a row"
    assert x.seen == o.seen == record.moves


def test_players_get_clones_and_cannot_corrupt_the_game(ttt):
    class Vandal(Player):
        name, description = "vandal", "mutates the state it is given"

        def choose_move(self, state, budget):
            move = state.legal_moves()[0]
            state.apply(move)  # must not affect the real game
            if state.legal_moves():
                state.apply(state.legal_moves()[0])
            return move

    record = play_game(ttt, [Vandal(ttt), Vandal(ttt)])
    assert record.finished and len(record.moves) >= 5
    assert record.moves[:3] == ["a3", "b3", "c3"]


def test_illegal_move_forfeits_and_crash_is_unfinished(ttt):
    record = play_game(ttt, [Scripted(ttt, [99]), Scripted(ttt, [])])
    assert record.returns == (-1.0, 1.0) and "forfeited with the illegal move 99" in record.reason

    class Crash(Player):
        name, description = "crash", "raises"

        def choose_move(self, state, budget):
            raise RuntimeError("engine died")

    record = play_game(ttt, [Crash(ttt), Scripted(ttt, [])], names=("c", "s"))
    assert not record.finished and record.result_text == "*"
    assert "c (X) failed: RuntimeError: engine died" in record.reason


def test_resign_quit_undo_and_ply_cap(ttt):
    record = play_game(ttt, [Scripted(ttt, ["a1", Command.RESIGN]), Scripted(ttt, ["b1"])])
    assert record.returns == (-1.0, 1.0) and record.reason == "X resigned"

    record = play_game(ttt, [Scripted(ttt, [Command.QUIT]), Scripted(ttt, [])])
    assert not record.finished and record.reason == "X quit"

    # X plays a1, O b1; X takes back (both moves undone) and plays c3 instead.
    x = Scripted(ttt, ["a1", Command.UNDO, "c3", Command.RESIGN])
    o = Scripted(ttt, ["b1", "b2"])
    record = play_game(ttt, [x, o])
    assert record.moves == ["c3", "b2"]

    record = play_game(ttt, [Scripted(ttt, ["a1", "a2"]), Scripted(ttt, ["b1", "b2"])], max_plies=3)
    assert record.moves == ["a1", "b1", "a2"]
    assert record.returns == (0.0, 0.0) and record.reason == "ply cap (3 plies)"


def test_match_alternates_colours_and_is_reproducible(ttt):
    reg = get_registry()
    a, b = reg.make_player("random", ttt), reg.make_player("random", ttt)
    first = run_match(ttt, a, b, 30, seed=5)
    second = run_match(ttt, a, b, 30, seed=5)
    assert [r.moves for r in first.records] == [r.moves for r in second.records]
    assert first.a_first == [i % 2 == 0 for i in range(30)]
    assert first.score.games == 30
    assert [r.players for r in first.records][:2] == [("random", "random")] * 2


def test_score_interval_and_elo():
    s = Score(60, 20, 20)
    assert s.score == pytest.approx(0.7)
    lo, hi = s.interval()
    assert lo < 0.7 < hi and hi - lo < 0.2
    assert Score(10, 0, 0).interval()[0] > 0.65
    assert Score(50, 0, 50).elo() == pytest.approx(0.0)
    assert Score(76, 0, 24).elo() == pytest.approx(200, abs=2)


def _result(outcomes):
    """A MatchResult of game records: 'w', 'd' or 'l' for A (moving first in each)."""
    from plyground.play.match import MatchResult
    from plyground.protocols import GameRecord
    returns = {"w": (1.0, -1.0), "d": (0.0, 0.0), "l": (-1.0, 1.0)}
    records = [GameRecord(game="tictactoe", players=("a", "b"), start="", returns=returns[o], finished=True)
               for o in outcomes]
    return MatchResult(("a", "b"), records, [True] * len(records))


@pytest.mark.parametrize("outcomes, line", [
    ("wwww", "Elo of a minus b: at least +"),
    ("llll", "Elo of a minus b: at most -"),
    ("wl", "Elo of a minus b: 0  (95% interval -"),
    ("wwdl", "Elo of a minus b: +"),
])
def test_summary_elo_line_is_finite_and_never_minus_zero(outcomes, line):
    text = _result(outcomes).summary()
    assert line in text
    assert "inf" not in text and "-0 " not in text and "-0)" not in text


@pytest.mark.parametrize("outcomes, line", [
    # 2-0 happens one time in four between equal players: no bound of either sign, a plain "too few".
    ("ww", "Elo of a minus b: too few games to tell at 95% (a won all 2; it takes 4 straight wins)"),
    ("l", "Elo of a minus b: too few games to tell at 95% (a lost the only game; it takes 4 straight losses)"),
])
def test_a_short_sweep_says_the_games_are_too_few_not_a_bound_against_the_winner(outcomes, line):
    text = _result(outcomes).summary()
    assert line in text
    assert "-113" not in text and "+113" not in text


def test_summary_counts_in_the_singular_and_plural():
    assert _result("w").summary().splitlines()[:2] == ["a vs b: 1 game", "  a: 1 win, 0 draws, 0 losses"]
    assert _result("wdl").summary().splitlines()[:2] == ["a vs b: 3 games", "  a: 1 win, 1 draw, 1 loss"]
    assert _result("wwddll").summary().splitlines()[1] == "  a: 2 wins, 2 draws, 2 losses"


def test_summary_names_games_the_limits_cut_short_and_why_others_did_not_finish():
    from plyground.play.match import MatchResult
    from plyground.protocols import GameRecord
    ended = [("b (O) lost on time (60+1 time control)", (1.0, -1.0)), ("ply cap (40 plies)", (0.0, 0.0)),
             ("a (X) exceeded its 5 s move limit and forfeits", (-1.0, 1.0)), ("three in a row", (1.0, -1.0)),
             ("b (O) lost on time (60+1 time control)", (1.0, -1.0))]
    records = [GameRecord(game="tictactoe", players=("a", "b"), start="", returns=returns, finished=True,
                          reason=reason) for reason, returns in ended]
    records += [GameRecord(game="tictactoe", players=("a", "b"), start="", finished=False,
                           reason="a (X) failed: ValueError: no network") for _ in range(2)]
    text = MatchResult(("a", "b"), records, [True] * len(records)).summary()
    assert "  cut short (counted above): 2 lost on time, 1 drawn at the ply cap, 1 forfeited over the move limit" \
        in text.splitlines()
    assert "  2 unfinished games not counted: a (X) failed: ValueError: no network (2 games)" in text.splitlines()
    # Only unfinished games: no "0 games" and no score of nothing, but why none counts.
    nothing = MatchResult(("a", "b"), records[-2:], [True, False]).summary()
    assert nothing.splitlines() == ["a vs b: no finished game",
                                    "  2 unfinished games not counted: a (X) failed: ValueError: no network (2 games)"]


def test_bots_warm_up_before_the_clocks_start_and_people_do_not(ttt):
    """The slow first-use work (Player.warm_up) is done once, before the first move is asked for and with no
    clock running: a bot's first move is charged only its own search."""
    from plyground.play.clock import TimeControl
    from plyground.protocols import Renderer

    events = []

    class Quiet(Renderer):
        name, description = "quiet", "shows nothing"

    def clocks(player):
        clock = player.renderer.game_clock
        return tuple(clock.remaining(side) for side in (0, 1)), clock.running is not None

    class Warming(Scripted):
        def warm_up(self):
            events.append(("warm", clocks(self)))

        def choose_move(self, state, budget):
            events.append(("move", clocks(self)))
            return super().choose_move(state, budget)

    class Person(Scripted):
        needs_renderer = True

        def warm_up(self):
            events.append(("a person warmed up", None))

    x, o = Warming(ttt, ["a1", "a2", "a3"]), Person(ttt, ["b1", "b2"])
    record = play_game(ttt, [x, o], names=("x", "o"), time_control=TimeControl.parse("60+0"), renderer=Quiet())
    assert record.moves == ["a1", "b1", "a2", "b2", "a3"]
    assert [kind for kind, _ in events] == ["warm", "move", "move", "move"]
    assert events[0][1] == ((60.0, 60.0), False)        # nobody's clock had started when it warmed up
    assert events[1][1][1] is True                      # the first move's has


class ScriptedPerson(Scripted):
    """A person at the board (asked in the game's thread, as a renderer asks), with a fixed script."""
    needs_renderer = True


class Judging(Scripted):
    """A bot whose last search valued its position as ``analysis`` says."""

    def __init__(self, game, script, analysis):
        super().__init__(game, script)
        self._analysis = analysis

    def analysis(self):
        return self._analysis


class Told(Renderer):
    name = "told"
    description = "what the game told the person"
    interactive = False

    def __init__(self):
        super().__init__()
        self.said, self.offers = [], []

    def tell(self, text):
        self.said.append(text)

    def draw_offered(self, side):
        self.offers.append(side)


def test_a_draw_offered_between_people_is_declined_by_a_move_and_agreed_by_accepting(ttt):
    told = Told()
    x = ScriptedPerson(ttt, [Command.OFFER_DRAW, "a1", Command.OFFER_DRAW, "c3"])
    o = ScriptedPerson(ttt, ["b2", Command.ACCEPT_DRAW])
    record = play_game(ttt, [x, o], names=("x", "o"), renderer=told)
    assert record.moves == ["a1", "b2", "c3"]      # o's move declined the first offer; the second is accepted
    assert record.returns == (0.0, 0.0) and record.result_text == "1/2-1/2" and record.finished
    assert record.reason == "draw by agreement"
    assert told.offers == [0, None, 0]
    assert "offers a draw" in told.said[0]


def test_nothing_to_accept_and_nothing_to_claim_asks_again(ttt):
    told = Told()
    x = ScriptedPerson(ttt, [Command.ACCEPT_DRAW, Command.CLAIM_DRAW, "a1", "a2", "a3"])
    o = Scripted(ttt, ["b1", "b2"])
    record = play_game(ttt, [x, o], names=("x", "o"), renderer=told)
    assert record.reason == "three in a row"
    assert told.said == ["There is no draw offer to accept.", "No draw can be claimed in this position."]


@pytest.mark.parametrize("analysis, accepted, why", [
    ({"value": 130.0, "score": "+1.30 men"}, False, "it thinks it is ahead, +1.30 men"),
    ({"value": 20.0, "score": "+0.20 pawns"}, True, "it thinks the position is even, +0.20 pawns"),
    ({"value": -300.0, "score": "-3.00 men"}, True, "it thinks it is behind, -3.00 men"),
    ({"score": "win in 5 plies", "value": 9e4}, False, "it sees a win in 5 plies"),
    ({"proven": "draw", "value": 0.0, "visits": 10}, True, "it sees a draw"),
    (None, False, "it has no evaluation of the position yet"),
])
def test_a_bot_answers_a_draw_offer_by_its_last_search(ttt, analysis, accepted, why):
    told = Told()
    x = ScriptedPerson(ttt, ["a1", Command.OFFER_DRAW, "a2", "a3"])
    o = Judging(ttt, ["b1", "b2"], analysis)
    record = play_game(ttt, [x, o], names=("x", "o"), renderer=told)
    if accepted:
        assert record.reason == "draw by agreement" and record.returns == (0.0, 0.0)
        assert record.moves == ["a1", "b1"]
    else:
        assert record.reason == "three in a row"
        assert told.said == [f"o declined the draw: {why}."]
