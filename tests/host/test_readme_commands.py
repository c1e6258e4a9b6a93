"""Every command in README.md's code blocks works on a fresh copy of the repository with nothing beside it.

The copy holds the files git tracks (what a clone has) in a temporary folder,
so ``../shared`` does not exist; HOME and the cache folder are temporary too.
Two checks:

* every command, run or not, names only files the copy has or an earlier
  command writes (``--save``, ``--run``, ``--out`` and a console ``save``);
* every command that finishes in seconds is run, as a user types it, with
  short budgets where it would run long (``BUDGETS``): it must exit 0 without
  a traceback.  Console games get closed stdin (the human quits at once); the
  first plain ``plyground play`` types ``save`` first, which writes the
  ``checkers-saved.pdn`` that ``--resume`` reads.  Window programs run for a
  few seconds on SDL's dummy display and are then closed, as is the web
  renderer's page server: they must neither fail nor print an error before.

Not run (``SKIPPED``; still checked for files): installs, the test suite itself,
training (minutes to hours), the endgame builds (minutes, gigabytes) and the probe that
needs it, Stockfish when it is not installed, and whatever plays a model that
a skipped command would have written.
"""
from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLYGROUND = Path(sys.executable).with_name("plyground")

#: Commands that are not run, by their start, and why.
SKIPPED = {
    "pip install": "installs packages (the tests run in the installed package)",
    "python -m pytest": "the test suite itself",
    "plyground train ": "trains for minutes to hours",
    "plyground alphazero anneal": "needs the self-play run that the skipped training writes",
    "plyground alphazero pack": "packs the run that the skipped training writes",
    "plyground alphazero unpack": "unpacks the pack of the run that the skipped training writes",
    "plyground endgame build": "builds the 5- or 6-piece database: minutes and gigabytes",
    "plyground endgame probe": "needs the database of the skipped build before it",
}
#: Short budgets for commands that would run long: (pattern, replacement), applied to the command text.
BUDGETS = [
    (r"(?<=\s)-n \d+", "-n 2"),                              # two games (colours reversed) instead of hundreds
    (r"^(plyground (?:match|tournament) .*)$", r"\1 --max-plies 8"),  # and short ones, adjudicated as draws
    (r"--tc \S+", "--tc 5+0.1"),                              # a clock of seconds, not minutes
    (r"(plyground perft checkers) --depth \d+", r"\1 --depth 7"),
    (r"(plyground perft chess) --depth \d+", r"\1 --depth 3"),
]
OUTPUT_FLAGS = ("--save", "--run", "--out", "--dir", "--graph", "--to")
#: What typing ``save`` at the console writes (framework/play/resume.py, default_save_path).
CONSOLE_SAVE = "checkers-saved.pdn"
WINDOW_SECONDS = 4.0
PATH_LIKE = re.compile(r"^[\w.~-]*/|\.(pdn|pgn|toml|npz|jsonl|json|txt|png|md)$")


def readme_commands() -> list[str]:
    """The shell commands of README.md's code blocks: continuation lines joined, ``&&`` chains split."""
    commands, block = [], None
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = line[3:].strip() if block is None else None
            continue
        if block not in ("", "sh", "bash", "shell"):
            continue
        if commands and commands[-1].endswith("\\"):
            commands[-1] = commands[-1][:-1] + " " + line.strip()
        elif line.strip():
            commands.append(line.strip())
    out = []
    for command in commands:
        words = " ".join(shlex.split(command, comments=True))   # comments off, quotes resolved
        out += [part.strip() for part in words.split(" && ") if part.strip()]
    return [c for c in out if c.split()[0] in ("plyground", "pip", "python")]


def file_arguments(command: str) -> tuple[list[str], list[str]]:
    """(files the command reads, files or folders it writes), from its words and its players' options."""
    reads, writes = [], []
    words = shlex.split(command)
    for i, word in enumerate(words):
        if word in OUTPUT_FLAGS and i + 1 < len(words):
            writes.append(words[i + 1])
            continue
        if i and words[i - 1] in OUTPUT_FLAGS:
            continue
        # a word, or the values inside a spec (alphazero:model=runs/ttt,simulations=200) or a --set key=value
        for value in re.split(r"[:,]", word.split("=", 1)[1] if "=" in word and ":" not in word.split("=")[0]
                              else word):
            value = value.split("=", 1)[-1]
            if PATH_LIKE.search(value) and not value.startswith(("-", "http")):
                reads.append(value)
    return reads, writes


def _under(path: str, folders: set[str]) -> bool:
    return any(Path(path) == Path(f) or Path(f) in Path(path).parents for f in folders)


def plan(commands: list[str], copy: Path) -> tuple[list[tuple[str, str]], list[str], dict[str, str]]:
    """(commands to run with their stdin, files named that nothing provides, skipped command -> why)."""
    stockfish = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    written, not_written, missing, to_run, skipped = {CONSOLE_SAVE}, set(), [], [], {}
    saved = False
    for command in commands:
        reads, writes = file_arguments(command)
        why = next((why for start, why in SKIPPED.items() if command.startswith(start)), None)
        for path in reads:
            if Path(path).is_absolute():
                if not Path(path).exists():
                    why = why or f"needs {path}, which this machine lacks"
            elif _under(path, not_written):
                why = why or f"reads {path}, which a skipped command writes"
            elif not (copy / path).exists() and not _under(path, written):
                missing.append(f"{path!r} in: {command}")
        if why is None and "stockfish" in command and not stockfish:
            why = "needs Stockfish, which is not installed"
        (not_written if why else written).update(writes)
        if why:
            skipped[command] = why
            continue
        stdin = ""
        if command == "plyground play" and not saved:
            stdin, saved = "save\n", True
        for pattern, replacement in BUDGETS:
            command = re.sub(pattern, replacement, command)
        to_run.append((command, stdin))
    return to_run, missing, skipped


def fresh_copy(tmp_path: Path) -> Path:
    """The files git tracks, as they are in the working tree, in ``tmp_path/plyground`` (no ../shared beside)."""
    if not (REPO / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: which files a clone has is unknown")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    copy = tmp_path / "plyground"
    for name in filter(None, listed.decode().split("\0")):
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
    assert not (tmp_path / "shared").exists()
    return copy


def run(command: str, stdin: str, cwd: Path, env: dict) -> None:
    args = shlex.split(command)
    args[0] = str(PLYGROUND) if args[0] == "plyground" else args[0]
    # a window, or the web renderer's page server: they run until closed
    window = "--renderer" in args and args[args.index("--renderer") + 1].partition(":")[0] in ("pygame", "web")
    process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = process.communicate(stdin, timeout=WINDOW_SECONDS if window else 120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM if window else signal.SIGKILL)
        out, err = process.communicate()
        assert window, f"{command!r} ran past 120 s\n{err[-2000:]}"
        assert "error" not in err.lower() and "Traceback" not in err, f"{command!r}:\n{err[-2000:]}"
        return
    assert process.returncode == 0 and "Traceback" not in err, \
        f"{command!r} exited {process.returncode}\n{out[-1500:]}\n{err[-2000:]}"


def test_readme_commands_run_on_a_fresh_copy(tmp_path):
    copy = fresh_copy(tmp_path)
    commands = readme_commands()
    assert len(commands) > 30 and any("--openings acf" in c or "games=acf" in c for c in commands)
    to_run, missing, skipped = plan(commands, copy)
    assert not missing, "README commands name files a clone does not have:\n" + "\n".join(missing)
    assert len(to_run) >= 15, (to_run, skipped)
    home = tmp_path / "home"
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "PYTHONUNBUFFERED": "1"}
    for command, stdin in to_run:
        started = time.perf_counter()
        run(command, stdin, copy, env)
        print(f"{time.perf_counter() - started:5.1f} s  {command}")


def test_a_readme_command_naming_a_file_outside_the_clone_is_caught(tmp_path):
    """The check itself: the README's commands as they were (../shared/data/acf.pdn) are refused."""
    copy = tmp_path / "copy"
    (copy / "configs").mkdir(parents=True)
    (copy / "configs" / "a.toml").write_text("")
    commands = ["plyground match --game checkers --black random --white random --openings ../shared/data/acf.pdn",
                "plyground train bonanza --game checkers --set games=../shared/data/acf.pdn --run runs/bonanza",
                "plyground play --white alphabeta:eval=runs/bonanza/eval.npz,depth=8",
                "plyground train alphazero --game tictactoe --run runs/ttt --config configs/a.toml",
                "plyground play --resume checkers-saved.pdn",
                "plyground match --game checkers --black random --white random --openings acf"]
    to_run, missing, skipped = plan(commands, copy)
    assert [m.split(" in: ")[0] for m in missing] == ["'../shared/data/acf.pdn'"] * 2
    assert [c for c, _ in to_run] == [commands[0] + " --max-plies 8", commands[4], commands[-1] + " --max-plies 8"]
    assert skipped[commands[2]] == "reads runs/bonanza/eval.npz, which a skipped command writes"
