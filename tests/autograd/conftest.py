import numpy as np
import pytest

from plyground.plugins.autograd import Tensor


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture
def param(rng):
    """A float64 leaf tensor with random values, for gradient checks."""
    def make(*shape, low=None, high=None):
        if low is not None:
            data = rng.uniform(low, high, size=shape)
        else:
            data = rng.normal(size=shape)
        return Tensor(data, requires_grad=True)
    return make
