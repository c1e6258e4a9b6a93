"""``plyground train TRAINER --game G --run DIR [--config FILE.toml] [--set key=value ...]``.

Builds the trainer from the registry's ``trainers`` with its options
resolved, lowest first, from: the defaults, the options of an earlier run in
DIR (``DIR/config.toml``), the ``--config`` file, and ``--set`` overrides.
Before training starts the resolved options are written to
``DIR/config.toml``, so rerunning ``plyground train TRAINER --run DIR``
(with or without the other arguments) resumes the same run.

A config file is TOML: option names as top-level keys, optionally
``trainer = "..."`` and ``game = "..."`` (checked against the command line),
or the same keys under an ``[options]`` table (the form written to the run
directory, so ``DIR/config.toml`` is itself a valid ``--config``).

DIR is created and proved writable before the trainer is built, for every
trainer alike: a run that could not save its checkpoints would lose its work.
"""
from __future__ import annotations

import contextlib
import json
import math
import shlex
import signal
from pathlib import Path
from typing import Any

import click

from ..util import notices
from ..errors import UnsupportedGame, UsageError
from ..options import Spec
from ..files.recordio import check_output_dir
from ..files.atomic import atomic_write_text, check_regular_file
from ..registry import get_registry
from ..util.stopping import interrupt_of
from ..util.timelimit import TimeLimit

CONFIG_NAME = "config.toml"


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file at ``path`` as a dict; a UsageError names the file and the problem."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise UsageError("reading TOML config files needs Python 3.11+ or the 'tomli' package") from None
    check_regular_file(path, "config file")
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise UsageError(f"config file {path} does not exist") from None
    except OSError as exc:
        raise UsageError(f"cannot read config file {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:   # tomllib decodes the whole file first: binary or another encoding
        raise UsageError(f"config file {path} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
                         f"{exc.start}); a config is a TOML text file of option = value lines") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"config file {path} is not valid TOML: {exc}") from None


def _toml_value(value: Any) -> str:
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def format_config(trainer: str, game: str, options: dict[str, Any], declared=()) -> str:
    """The run's config as TOML.  TOML has no null: an option left at a default of none is
    written as a comment (reading it back gives the default, none); other none values as "none"."""
    defaults = {opt.name: opt.default for opt in declared}
    lines = ["# Written by `plyground train`; rerunning the command on this run directory resumes it.",
             f"trainer = {_toml_value(trainer)}", f"game = {_toml_value(game)}", "", "[options]"]
    for name, value in options.items():
        if value is None and defaults.get(name, None) is None:
            lines.append(f"# {name} = none")
        else:
            lines.append(f"{name} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _split_config(data: dict[str, Any], source: str) -> tuple[str | None, str | None, dict[str, Any]]:
    data = dict(data)
    trainer, game = data.pop("trainer", None), data.pop("game", None)
    options = data.pop("options", {})
    if not isinstance(options, dict):
        raise UsageError(f"{source}: 'options' must be a table")
    for key, value in data.items():
        if isinstance(value, dict):
            raise UsageError(f"{source}: unexpected table [{key}]; options are top-level keys or under [options]")
        options.setdefault(key, value)
    for what, value in (("trainer", trainer), ("game", game)):
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{source}: '{what}' must be a string")
    return trainer, game, options


def _parse_sets(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise UsageError(f"bad --set {pair!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _same_game(a: str, b: str) -> bool:
    sa, sb = Spec.parse(a), Spec.parse(b)
    return sa.name == sb.name and sa.options == sb.options


def played_game_spec(game_spec: str, asked: Any, trained: Any) -> str:
    """The game spec a trained artifact plays: ``game_spec`` with the game parameters the trainer
    changed (expert-iteration trains chess with ``encoding=deep_pepper``, and its model only plays that)."""
    asked_params = getattr(asked, "params", None) or {}
    trained_params = getattr(trained, "params", None) or {}
    changed = {name: value for name, value in trained_params.items() if asked_params.get(name) != value}
    if not changed:
        return game_spec
    spec = Spec.parse(game_spec)
    return str(Spec(spec.name, {**spec.options, **{name: _spec_value(v) for name, v in changed.items()}}))


def _spec_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _worker_flags(registry, entry, **flags: str | None) -> dict[str, str]:
    """``--workers``/``--backend``/``--address`` as option values; a trainer without the option refuses them."""
    given = {name: value for name, value in flags.items() if value is not None}
    declared = {opt.name for opt in entry.options}
    for name in given:
        if name not in declared:
            able = [e.name for e in registry.entries("trainers") if name in {o.name for o in e.options}]
            raise UsageError(f"trainer '{entry.name}' has no option '{name}', so --{name} does not apply to it; "
                             f"trainers with worker processes: {', '.join(able) or '(none)'}")
    return given


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Ctrl-C would be (so every clean-up for Ctrl-C runs for it too)."""


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM (``timeout``, a scheduler ending the job) stops the trainer as Ctrl-C does: its clean-up runs
    (workers stopped, the session's line written) instead of the process vanishing mid-write."""
    def interrupt(signum, frame):
        raise Terminated
    try:
        previous, installed = signal.signal(signal.SIGTERM, interrupt), True
    except ValueError:                  # not the main thread (a test's runner): leave it
        previous, installed = None, False
    try:
        yield
    finally:
        if installed:                   # (None: a handler set from C, which Python cannot put back)
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


@click.command("train")
@click.argument("trainer_name", metavar="TRAINER")
@click.option("--game", "game_spec", default=None, help="Game spec, e.g. tictactoe (default: from the config or run).")
@click.option("--run", "run_dir", required=True, type=click.Path(path_type=Path),
              help="Run directory: created, or resumed when it holds a run.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="TOML file of trainer options.")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override one option (repeatable); beats the config file.")
@click.option("--workers", default=None, metavar="N",
              help="Worker processes playing the games (0: one per core); the same as --set workers=N.")
@click.option("--backend", default=None, metavar="local|ray",
              help="Where the workers run: local processes or Ray actors; the same as --set backend=...")
@click.option("--address", default=None, metavar="ADDR",
              help="Ray cluster address for --backend ray (e.g. 10.0.0.5:6379); the same as --set address=...")
@click.option("--minutes", type=click.FloatRange(min=0.0, min_open=True), default=None, metavar="M",
              help="Stop at a clean point before M minutes of wall-clock time (counted from the start of the "
                   "command); rerun the command to go on.  Only for trainers that can (alphazero, expert-iteration).")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
def train_command(trainer_name, game_spec, run_dir, config_file, overrides, workers, backend, address, minutes,
                  quiet):
    """Train (or resume training) with TRAINER in a run directory; Ctrl-C and rerun to resume."""
    if minutes is not None and not math.isfinite(minutes):
        raise UsageError(f"--minutes {minutes} is not a number of minutes: give one above 0, e.g. --minutes 8")
    time_limit = TimeLimit(None if minutes is None else 60.0 * minutes)     # the command's time counts too
    notices.set_quiet(quiet)
    registry = get_registry()
    entry = registry.get("trainers", trainer_name)
    if minutes is not None and not entry.cls.time_limited:
        able = [e.name for e in registry.entries("trainers") if e.cls.time_limited]
        raise UsageError(f"trainer '{trainer_name}' cannot stop at a time limit, so --minutes does not apply to "
                         f"it (stop it with Ctrl-C and rerun to resume); trainers that can: "
                         f"{', '.join(able) or '(none)'}")
    stored_path = run_dir / CONFIG_NAME
    stored_trainer, stored_game, stored_options = (None, None, {})
    if stored_path.exists():
        stored_trainer, stored_game, stored_options = _split_config(read_toml(stored_path), str(stored_path))
        if stored_trainer is not None and stored_trainer != trainer_name:
            raise UsageError(f"run directory {run_dir} holds a '{stored_trainer}' run, not '{trainer_name}'; "
                             f"use another --run directory")
    file_trainer, file_game, file_options = (None, None, {})
    if config_file is not None:
        file_trainer, file_game, file_options = _split_config(read_toml(config_file), str(config_file))
        if file_trainer is not None and file_trainer != trainer_name:
            raise UsageError(f"config file {config_file} is for trainer '{file_trainer}', not '{trainer_name}'")
    game_spec = game_spec or file_game or stored_game
    if game_spec is None:
        raise UsageError("which game? give --game (e.g. --game tictactoe)")
    if stored_game is not None and not _same_game(stored_game, game_spec):
        raise UsageError(f"run directory {run_dir} trains {stored_game}, not {game_spec}; "
                         f"use another --run directory")
    game = registry.make_game(game_spec)
    flags = _worker_flags(registry, entry, workers=workers, backend=backend, address=address)
    given = {**stored_options, **file_options, **_parse_sets(overrides), **flags}
    try:
        # The trainer checks, once, that it can train the game and resolves its options; it reads the run
        # directory (refusing options a resumed run cannot take) but writes nothing there yet.
        trainer = entry.cls(game, run_dir, **given)
    except UnsupportedGame as exc:
        if exc.plugin is not entry.cls:
            raise
        valid = [e.name for e in registry.entries("trainers") if not e.cls.unsupported_reason(game)]
        raise UsageError(f"trainer '{trainer_name}' cannot train {game.name}: {exc.reason}; "
                         f"trainers for {game.name}: {', '.join(valid) or '(none)'}") from None
    options = trainer.config
    # A run directory is one `plyground train` wrote (it holds config.toml, whatever files its trainer
    # added); any other non-empty folder is refused, so no user file is overwritten.
    check_output_dir(run_dir, "--run", is_ours=lambda path: (path / CONFIG_NAME).exists())
    trainer.set_log((lambda line: None) if quiet else (lambda line: click.echo(line, err=True)))
    atomic_write_text(stored_path, format_config(trainer_name, game_spec, options, entry.options))
    trainer.time_limit = time_limit
    rerun = f"plyground train {trainer_name} --run {shlex.quote(str(run_dir))}" + \
        (f" --minutes {minutes:g}" if minutes is not None else "")
    with _sigterm_as_interrupt():
        try:
            artifact = trainer.run()
        except BaseException as exc:
            interrupt = interrupt_of(exc)
            if interrupt is None:
                raise
            # What was done is in the run directory (the trainer's own clean-up has run): say how to go on.
            how = "SIGTERM" if isinstance(interrupt, Terminated) else "Ctrl-C"
            click.echo(f"\nstopped ({how}); the run is kept in {run_dir}: rerun `{rerun}` to resume", err=True)
            raise click.exceptions.Exit(130) from None
    if time_limit.stopped is not None:
        click.echo(f"stopped at the time limit (--minutes {minutes:g}); rerun `{rerun}` to go on")
    click.echo(f"trained: {artifact}")
    if entry.cls.produces:
        played = played_game_spec(game_spec, game, getattr(trainer, "game", game))
        click.echo(f"play it: plyground play --game {played} --white {entry.cls.produces.format(run=run_dir)}")
