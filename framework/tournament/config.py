"""What a tournament is: entrants, format, games per pairing, openings, budgets and seed.

A :class:`TournamentConfig` is plain data that round-trips through JSON; its
:meth:`fingerprint` names the tournament, so a results directory can tell a
rerun of the same command (resume) from a different tournament (refuse).
:func:`schedule` turns it into the list of games, each seeded from the
tournament seed, the pairing and the game's index — never from which worker
happens to play it — so results do not depend on ``--workers``.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Callable, Sequence

from ..errors import UsageError
from ..play.match import DEFAULT_MOVE_LIMIT
from ..options import Spec
from ..protocols import Budget
from ..play.stats import Sprt

FORMATS = ("round-robin", "gauntlet")
#: The most games one match or tournament plays: every game is scheduled and its result kept in memory
#: (a million take seconds to schedule; -n 100000000 took minutes before the first game, then ran out of memory).
MAX_GAMES = 1_000_000


@dataclass(frozen=True)
class Entrant:
    """A named player spec: ``mcts100=mcts:simulations=100`` or just ``random``."""

    name: str
    spec: str

    @classmethod
    def parse(cls, text: str) -> "Entrant":
        """``NAME=SPEC`` or ``SPEC`` (then the spec, as typed, is the name).

        A spec's own options also contain ``=``, but always after a ``:``; an
        ``=`` before any ``:`` therefore separates a name.
        """
        text = text.strip()
        eq, colon = text.find("="), text.find(":")
        if eq > 0 and (colon < 0 or eq < colon):
            name, spec = text[:eq].strip(), text[eq + 1:].strip()
        elif eq == 0:
            raise UsageError(f"bad player {text!r}: the name before '=' is empty; write NAME=SPEC or SPEC")
        else:
            name, spec = text, text
        if not spec:
            raise UsageError(f"bad player {text!r}: the spec after '=' is empty; write NAME=SPEC or SPEC")
        Spec.parse(spec)  # a malformed spec is reported here, naming it
        return cls(name, spec)

    def __str__(self) -> str:
        return self.name if self.name == self.spec else f"{self.name}={self.spec}"


@dataclass(frozen=True)
class Opening:
    """A starting point: ``moves`` (game notation) played from ``base`` (position text; None: the initial position)."""

    moves: tuple[str, ...] = ()
    base: str | None = None

    def label(self) -> str:
        text = " ".join(self.moves)
        if self.base is None:
            return text or "(initial position)"
        return f"{self.base} {text}".strip()

    def to_json(self) -> dict:
        return {"moves": list(self.moves), "base": self.base}

    @classmethod
    def from_json(cls, data: dict) -> "Opening":
        return cls(tuple(data.get("moves", ())), data.get("base"))


@dataclass
class TournamentConfig:
    game: str
    entrants: list[Entrant]
    games_per_pairing: int
    format: str = "round-robin"
    openings: list[Opening] = field(default_factory=list)
    openings_source: str = "none"        # how the openings were chosen, for people reading the JSON
    simulations: int | None = None
    seconds: float | None = None
    max_plies: int | None = None
    seed: int = 0
    move_limit: float | None = DEFAULT_MOVE_LIMIT   # seconds a bot may take for one move (then it forfeits)
    time_control: str | None = None      # chess clocks (plyground.play.clock), e.g. "10+0.1"; None: none
    #: A sequential probability ratio test (``elo0=0,elo1=5,alpha=0.05,beta=0.05``) that stops the tournament
    #: when it decides; ``games_per_pairing`` is then the most games it may take.  None: every game is played.
    sprt: str | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise UsageError(f"unknown tournament format '{self.format}'; valid formats: {', '.join(FORMATS)}")
        if len(self.entrants) < 2:
            raise UsageError("a tournament needs at least two players")
        seen: dict[str, Entrant] = {}
        for e in self.entrants:
            if e.name in seen:
                raise UsageError(f"player name '{e.name}' is given twice; name each entrant, "
                                 f"e.g. --player {e.name}-a={seen[e.name].spec} --player {e.name}-b={e.spec}")
            seen[e.name] = e
        if self.games_per_pairing < 1:
            raise UsageError(f"games per pairing must be at least 1, not {self.games_per_pairing}")
        if self.total_games > MAX_GAMES:
            pairings = len(self.pairings())
            raise UsageError(f"{self.total_games:,} games ({pairings} pairing{'s' if pairings != 1 else ''} of "
                             f"{self.games_per_pairing:,}) are more than one tournament plays (at most "
                             f"{MAX_GAMES:,}); give a smaller -n")
        if self.openings and self.games_per_pairing % 2:
            raise UsageError(f"with openings the games per pairing must be even (each opening is played "
                             f"twice, colours reversed), not {self.games_per_pairing}")
        if self.sprt is not None:
            self.sprt = str(Sprt.parse(self.sprt))        # one spelling: the same test is the same tournament
            if len(self.entrants) != 2:
                raise UsageError(f"--sprt tests one player against another: give exactly two players, not "
                                 f"{len(self.entrants)} ({', '.join(e.name for e in self.entrants)})")
            if self.games_per_pairing % 2:
                raise UsageError(f"with --sprt the games must be even (the test counts pairs of games, colours "
                                 f"reversed), not {self.games_per_pairing}")

    @property
    def sprt_test(self) -> Sprt | None:
        return None if self.sprt is None else Sprt.parse(self.sprt)

    @property
    def budget(self) -> Budget:
        return Budget(simulations=self.simulations, seconds=self.seconds)

    def entrant(self, name: str) -> Entrant:
        for e in self.entrants:
            if e.name == name:
                return e
        raise UsageError(f"unknown player '{name}'; players in this tournament: "
                         f"{', '.join(e.name for e in self.entrants)}")

    def pairings(self) -> list[tuple[Entrant, Entrant]]:
        """(A, B) pairs; A moves first in the even-numbered games of its pairing."""
        es = self.entrants
        if self.format == "gauntlet":
            return [(es[0], other) for other in es[1:]]
        return [(es[i], es[j]) for i in range(len(es)) for j in range(i + 1, len(es))]

    @property
    def total_games(self) -> int:
        return len(self.pairings()) * self.games_per_pairing

    # ------------------------------------------------------------ JSON
    def to_json(self) -> dict:
        data = asdict(self)
        data["entrants"] = [{"name": e.name, "spec": e.spec} for e in self.entrants]
        data["openings"] = [o.to_json() for o in self.openings]
        return data

    @classmethod
    def from_json(cls, data: dict) -> "TournamentConfig":
        data = dict(data)
        data["entrants"] = [Entrant(e["name"], e["spec"]) for e in data["entrants"]]
        data["openings"] = [Opening.from_json(o) for o in data.get("openings", [])]
        return cls(**data)

    def _identity(self) -> dict:
        """What makes two configs the same tournament: everything that decides the games.

        Not ``openings_source``: the same openings named differently (a path
        typed from another folder) are the same tournament.
        """
        data = self.to_json()
        data.pop("openings_source")
        for added in ("time_control", "sprt"):
            if data.get(added) is None:
                data.pop(added, None)          # a tournament stored before the setting existed is the same one
        return data

    def fingerprint(self) -> str:
        text = json.dumps(self._identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def differences(self, other: "TournamentConfig") -> list[str]:
        """Human-readable list of what differs from ``other`` (empty when they are the same tournament)."""
        mine, theirs = self._identity(), other._identity()
        out = []
        for key in mine:
            if mine[key] != theirs.get(key):
                if key == "openings":
                    out.append(f"openings (stored: {len(theirs.get(key) or [])}; now: {len(mine[key])}, "
                               f"not the same positions in the same order)")
                elif key == "entrants":
                    out.append("players (stored: " + ", ".join(str(Entrant(**e)) for e in theirs[key])
                               + "; now: " + ", ".join(str(Entrant(**e)) for e in mine[key]) + ")")
                else:
                    out.append(f"{key} (stored: {theirs.get(key)!r}; now: {mine[key]!r})")
        return out


# ------------------------------------------------------------------ schedule

@dataclass(frozen=True)
class GameTask:
    """One scheduled game: everything a worker needs to play it, as plain data."""

    game: str
    a: Entrant
    b: Entrant
    index: int                     # game number within the pairing, from 0
    a_first: bool
    opening: Opening | None
    opening_index: int | None
    seed: int
    simulations: int | None
    seconds: float | None
    max_plies: int | None
    move_limit: float | None = DEFAULT_MOVE_LIMIT
    time_control: str | None = None

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.a.name, self.b.name, self.index)

    @property
    def sides(self) -> tuple[Entrant, Entrant]:
        """(first mover, second mover)."""
        return (self.a, self.b) if self.a_first else (self.b, self.a)


def game_seed(seed: int, a: str, b: str, index: int) -> int:
    """A game's seed from (tournament seed, pairing, game index): stable across runs and workers."""
    return _seed_of(f"[{seed}, {json.dumps(a)}, {json.dumps(b)}, ")(index)


def _seed_of(head: str) -> Callable[[int], int]:
    """The seeds of one pairing's games: the hash of ``json.dumps([seed, a, b, index])``, its constant
    head (``head``) written once."""
    def seed_of(index: int) -> int:
        digest = hashlib.sha256(f"{head}{index}]".encode()).digest()
        return int.from_bytes(digest[:4], "big") >> 1          # 31 bits: safe for every RNG API
    return seed_of


def schedule(config: TournamentConfig) -> list[GameTask]:
    """Every game of the tournament, round by round (game 0 of every pairing, then game 1, ...).

    Interleaving pairings keeps a half-finished tournament balanced.  Game
    ``i`` of a pairing uses opening ``i // 2`` (cycling), A moving first when
    ``i`` is even: each opening is played twice with colours reversed.
    """
    tasks = []
    pairings = [(a, b, _seed_of(f"[{config.seed}, {json.dumps(a.name)}, {json.dumps(b.name)}, "))
                for a, b in config.pairings()]
    for index in range(config.games_per_pairing):
        for a, b, seed_of in pairings:
            k = (index // 2) % len(config.openings) if config.openings else None
            tasks.append(GameTask(config.game, a, b, index, index % 2 == 0,
                                  None if k is None else config.openings[k], k, seed_of(index),
                                  config.simulations, config.seconds, config.max_plies, config.move_limit,
                                  config.time_control))
    return tasks


def parse_entrants(texts: Sequence[str]) -> list[Entrant]:
    return [Entrant.parse(t) for t in texts]
