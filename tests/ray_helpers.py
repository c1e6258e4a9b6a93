"""What the Ray tests share: the skip when Ray is not installed, and one local Ray instance per test module (the
commands under test use it instead of starting their own)."""
from __future__ import annotations

import importlib.util

import pytest

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason="ray is not installed (pip install 'plyground[distributed]'; CI installs it)")


@pytest.fixture(scope="module")
def local_ray():
    """A Ray instance of two CPUs for this module."""
    import ray
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    yield ray
    ray.shutdown()
