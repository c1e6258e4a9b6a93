"""The time limit of `plyground train --minutes`: which units it lets start (framework/util/timelimit.py)."""
import pytest

from plyground.util.timelimit import TimeLimit, TimeUp


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_no_limit_lets_everything_start():
    limit = TimeLimit()
    limit.took("epoch", 1e9)
    assert limit.allows("epoch") and not limit.limited and limit.left() == float("inf")


def test_a_unit_starts_only_when_the_longest_one_seen_fits_before_the_reserve():
    clock = Clock()
    limit = TimeLimit(100.0, reserve=10.0, clock=clock)
    assert limit.allows("epoch", expected=1e9)             # the first unit always runs: every chunk moves on
    limit.begin("epoch")
    clock.now += 30
    limit.took("epoch", 30.0)
    assert limit.left() == 60.0 and limit.allows("epoch")  # 60 s left, epochs take 30
    clock.now += 35
    assert not limit.allows("epoch") and limit.allows("game", expected=20.0)
    assert limit.allows("something never timed")           # unknown: fits while time is left
    with pytest.raises(TimeUp) as stop:
        limit.check("epoch")
    assert limit.stopped is stop.value and "before the next epoch" in str(stop.value)
    clock.now += 30
    assert not limit.allows("something never timed")       # nothing left before the reserve


def test_a_unit_cut_short_counts_with_the_time_it_ran_and_is_expected_next_time():
    clock = Clock()
    first = TimeLimit(600.0, clock=clock)
    first.begin("mistakes count")
    clock.now += 400                                       # killed here, say
    assert first.durations() == {"mistakes count": 400.0}
    second = TimeLimit(600.0, clock=clock)
    second.learn(first.durations())
    second.took("game", 1.0)
    clock.now += 250                                       # 600 - 30 reserve - 251 = 319 s left < 400
    assert not second.allows("mistakes count") and second.allows("game")


def test_the_reserve_is_a_share_of_the_limit_within_bounds():
    assert TimeLimit(10.0).reserve == 2.0 and TimeLimit(300.0).reserve == 15.0 and TimeLimit(3600.0).reserve == 30.0
    with pytest.raises(ValueError):
        TimeLimit(0.0)


def test_work_that_can_be_left_unbegun_fits_only_in_the_time_left():
    clock = Clock()
    limit = TimeLimit(100.0, reserve=10.0, clock=clock)
    limit.learn({"group": 50.0})
    assert limit.allows("group") and not limit.units_done      # the first unit: the job must move on
    clock.now += 45                                          # 45 s left before the reserve
    assert limit.allows("group") and not limit.fits("group") and limit.fits("group", expected=40.0)
