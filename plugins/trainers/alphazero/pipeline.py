"""A small resumable pipeline: once-per-run steps, then iterations of phases, driven by ``state.json``.

The state says which iteration comes next and which of its phases
(``phase``); a once-per-run step (a pretraining, a bootstrap) marks itself
done in the state.  After every step and phase the state is written, so a
killed run resumes at the step or phase it was in, which itself resumes from
what it finds on disk.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

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

    def run(self, state: State) -> State:
        return self.run_iterations(self.run_steps(state))

    def run_steps(self, state: State) -> State:
        """The once-per-run steps not done yet."""
        for step in self.steps:
            if not step.done(state):
                state = step.run(state)
                self.rundir.write_state(state)
        return state

    def run_iterations(self, state: State) -> State:
        """The iterations from the one the state names to the last."""
        while state["iteration"] <= self.iterations:
            state = self.iteration(state)
        return state

    def iteration(self, state: State) -> State:
        """The rest of iteration ``state["iteration"]``, from the phase the state names."""
        k = state["iteration"]
        self.iteration_started = time.perf_counter()
        names = [phase.name for phase in self.phases]
        if state["phase"] not in names:
            raise RuntimeError(f"state.json names phase {state['phase']!r}; the phases are {', '.join(names)}")
        for i, phase in enumerate(self.phases[names.index(state["phase"]):], start=names.index(state["phase"])):
            state = phase.run(state)
            if i + 1 < len(self.phases):
                state = {**state, "phase": self.phases[i + 1].name}
            else:
                state = {**state, "iteration": k + 1, "phase": self.phases[0].name}
            self.rundir.write_state(state)
        return state
