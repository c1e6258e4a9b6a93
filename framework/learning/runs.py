"""A trainer's run directory: locked while a run uses it, and continued only with the options it began with.

Every trainer keeps its run in one folder (``plyground train TRAINER --run DIR``); rerunning the command resumes
it.  These two rules hold for every trainer that keeps its options in ``DIR/config.json``.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..errors import UsageError
from ..files.storage import RunLock, read_json
from ..options import jsonable_options
from ..protocols import Trainer


def lock_run_dir(trainer: Trainer) -> RunLock:
    """The trainer's run directory, made if it is missing, locked while the returned context lasts: another run
    in it is refused meanwhile (:class:`plyground.files.storage.RunLock`)."""
    trainer.run_dir.mkdir(parents=True, exist_ok=True)
    return RunLock(trainer.run_dir, "training run")


def check_run_options(trainer: Trainer, fixed: Sequence[str], added: Mapping[str, Any] | None = None) -> None:
    """Refuse to continue the run in the trainer's run directory (its ``config.json``) with any of the ``fixed``
    options changed; ``added`` gives what a run started before an option existed used (its config does not name
    it)."""
    current = jsonable_options(trainer.config)
    previous = read_json(trainer.run_dir / "config.json", "; use a new run directory")
    if previous is None:
        return
    added = added or {}
    for name in fixed:
        if previous.get(name, added.get(name)) != current.get(name):
            raise UsageError(f"{trainer.name}: the run in {trainer.run_dir} was started with {name}="
                             f"{previous.get(name)!r}, not {current.get(name)!r}; rerun with the same options "
                             f"to continue it, or use a new run directory")
