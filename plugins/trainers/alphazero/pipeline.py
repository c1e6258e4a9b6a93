"""A small resumable pipeline: once-per-run steps, then iterations of phases, driven by ``state.json``.

The state says which iteration comes next and which of its phases
(``phase``); a once-per-run step (a pretraining, a bootstrap) marks itself
done in the state.  After every step and phase the state is written, so a
killed run resumes at the step or phase it was in, which itself resumes from
what it finds on disk.  With a time limit (``plyground train --minutes``) no
step or phase starts once the limit's time is up (:class:`TimeUp`); the
phases themselves stop between their units (games, epochs) the same way.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from plyground.util.timelimit import TimeLimit

from .rundir import RunDirectory

State = dict


@dataclass(frozen=True)
class Step:
    """Done once per run, before the first iteration: ``run(state)`` unless ``done(state)``."""

    name: str
    done: Callable[[State], bool]
    run: Callable[[State], State]


@dataclass(frozen=True)
class Phase:
    """One phase of an iteration: ``run(state)`` is the state after it (its results added)."""

    name: str                    # what ``state["phase"]`` says while this phase is next
    run: Callable[[State], State]


class Pipeline:
    """``steps`` once, then ``phases`` for each iteration up to ``iterations``."""

    def __init__(self, rundir: RunDirectory, steps: list[Step], phases: list[Phase], iterations: int) -> None:
        self.rundir, self.steps, self.phases, self.iterations = rundir, steps, phases, iterations
        self.iteration_started = time.perf_counter()
        self._working_on: int | None = None          # the iteration this process has begun and not finished
        #: the once-per-run step under way (its name), None between steps and in the iterations
        self.step: str | None = None

    def run(self, state: State, limit: TimeLimit | None = None) -> State:
        return self.run_iterations(self.run_steps(state, limit), limit)

    def run_steps(self, state: State, limit: TimeLimit | None = None) -> State:
        """The once-per-run steps not done yet (none starts once ``limit``'s time is up)."""
        for step in self.steps:
            if not step.done(state):
                self.step = step.name
                if limit is not None:
                    limit.check(step.name, expected=0.0)
                state = step.run(state)
                self.rundir.write_state(state)
                self.step = None
        return state

    def run_iterations(self, state: State, limit: TimeLimit | None = None) -> State:
        """The iterations from the one the state names to the last."""
        while state["iteration"] <= self.iterations:
            state = self.iteration(state, limit)
        return state

    def iteration(self, state: State, limit: TimeLimit | None = None) -> State:
        """The rest of iteration ``state["iteration"]``, from the phase the state names (no phase starts once
        ``limit``'s time is up: the state names it, to start it when the run goes on)."""
        k = state["iteration"]
        self.iteration_started = time.perf_counter() - float(state.get("spent", 0.0))
        self._working_on = k
        names = [phase.name for phase in self.phases]
        if state["phase"] not in names:
            raise RuntimeError(f"state.json names phase {state['phase']!r}; the phases are {', '.join(names)}")
        for i, phase in enumerate(self.phases[names.index(state["phase"]):], start=names.index(state["phase"])):
            if limit is not None:
                limit.check(f"{phase.name} phase", expected=0.0)
            state = phase.run(state)
            if i + 1 < len(self.phases):
                state = {**state, "phase": self.phases[i + 1].name}
            else:
                state = {key: value for key, value in state.items() if key != "spent"}
                state = {**state, "iteration": k + 1, "phase": self.phases[0].name}
            self.rundir.write_state(state)
        self._working_on = None
        return state

    def iteration_seconds(self) -> float:
        """The wall-clock time of the iteration in progress so far, in this process and those before it."""
        return time.perf_counter() - self.iteration_started

    def keep_spent(self) -> None:
        """The run stops in the middle of an iteration (a time limit, Ctrl-C): its time so far goes into the
        state (``spent``), so the process that finishes it counts the whole."""
        state = self.rundir.read_state()
        if self._working_on is not None and state is not None and state.get("iteration") == self._working_on:
            self.rundir.write_state({**state, "spent": round(self.iteration_seconds(), 2)})
