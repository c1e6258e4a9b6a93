"""Every capability a game may offer is a row of docs/capabilities.md, the page a game's author reads, and the
page says truly which built-in games offer it (datasette's habit: what is not documented cannot be relied on)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from plyground import capabilities
from plyground.capabilities import CAPABILITIES, capabilities_of, capability
from plyground.registry import get_registry
from plyground.testing import check_game

DOC = Path(__file__).resolve().parents[2] / "docs" / "capabilities.md"
#: The table's words for where the host finds a capability, by Capability.found.
FOUND_ON = {"game": "the game", "state": "its states", "made by the game": "made by the game",
            "made by its alpha-beta engine": "made by its alpha-beta engine"}
#: The built-in games and how the table's "offered by" column names them.
GAMES = {"tictactoe": "ttt", "checkers": "checkers", "chess": "chess"}


def table_rows() -> dict[str, list[str]]:
    """The capabilities table of the page (the first one): capability name -> its cells after the name."""
    table = DOC.read_text(encoding="utf-8").split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        match = re.match(r"^\| `([a-z-]+)` \|(.*)\|$", line)
        if match:
            rows[match.group(1)] = [cell.strip() for cell in match.group(2).split(" | ")]
    return rows


def test_every_capability_is_a_row_of_the_page_in_the_tables_order():
    assert list(table_rows()) == list(CAPABILITIES)


def test_each_row_names_its_protocol_and_where_the_host_finds_it():
    rows = table_rows()
    for name, row in CAPABILITIES.items():
        offers, found = rows[name][0], rows[name][1]
        if row.protocol is not None:
            assert f"`{row.protocol.__name__}`" in offers, name
        assert found.startswith(FOUND_ON[row.found]), (name, found)


def test_every_protocol_of_the_module_is_on_the_page():
    protocols = [name for name, value in vars(capabilities).items() if isinstance(value, type)
                 and getattr(value, "_is_runtime_protocol", False) and value.__module__ == capabilities.__name__]
    assert len(protocols) >= 20
    table = " ".join(" ".join(cells) for cells in table_rows().values())
    missing = [name for name in protocols if f"`{name}`" not in table]
    assert missing == [], f"protocols of plyground.capabilities not in {DOC.name}'s table: {missing}"


@pytest.mark.parametrize("game_name", GAMES)
def test_the_page_says_which_built_in_games_offer_each(game_name):
    game = get_registry().make_game(game_name)
    offered = set(capabilities_of(game))
    said = {name for name, cells in table_rows().items()
            if cells[3] == "every game" or re.search(rf"\b{GAMES[game_name]}\b", cells[3])}
    assert offered == said, f"{game_name}: offered but not said {offered - said}; said but not offered {said - offered}"


def test_one_accessor_for_games_states_and_what_games_make():
    registry = get_registry()
    chess, ttt = registry.make_game("chess"), registry.make_game("tictactoe")
    assert capability(chess, "record-reader") is chess and capability(ttt, "record-reader") is None
    state = chess.new_initial_state()
    assert capability(state, "stable-hashes") is state and capability(ttt.new_initial_state(), "stable-hashes") is None
    assert capability(chess, "uci-positions") is type(state)          # the declared state class: no position made
    assert isinstance(capability(chess, "alphabeta-engine"), capabilities.AlphaBetaEngine)
    assert capability(ttt, "alphabeta-engine") is None and capability(ttt, "evaluation-learning") is None
    assert capability(type(chess), "feature-layouts") is type(chess)  # asked of the class
    with pytest.raises(ValueError, match="unknown capability 'record-readers'; capabilities: record-reader, "):
        capability(chess, "record-readers")


def test_the_conformance_report_lists_the_games_capabilities():
    game = get_registry().make_game("tictactoe")
    report = check_game(game, playouts=2, seed=0)
    assert report.capabilities == capabilities_of(game)
    assert "; capabilities: record-writer, moves-listing, " in str(report)
