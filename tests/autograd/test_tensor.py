"""The engine itself: graph traversal, accumulation, grad modes, dtypes."""
import numpy as np
import pytest

from plyground.plugins.autograd import Tensor, enable_grad, is_grad_enabled, no_grad, ones, zeros


def test_float32_by_default_and_float64_kept():
    assert Tensor([1, 2, 3]).dtype == np.float32
    assert Tensor(np.arange(3)).dtype == np.float32
    assert Tensor(np.zeros(3)).dtype == np.float64
    assert (Tensor(np.ones(2, np.float32)) * 2.5).dtype == np.float32
    assert (2.5 * Tensor(np.ones(2))).dtype == np.float64
    assert Tensor([1.0], dtype=np.float64).dtype == np.float64
    assert zeros(2, 3).shape == (2, 3) and ones((2,), dtype=np.float64).dtype == np.float64


def test_shared_subexpression_gets_both_contributions():
    x = Tensor([2.0, 3.0], requires_grad=True, dtype=np.float64)
    y = x * x          # used twice below
    z = (y + y * 3).sum()
    z.backward()
    np.testing.assert_allclose(x.grad, 8 * x.data)  # d/dx 4x^2


def test_diamond_graph_and_unused_branch():
    a = Tensor([1.0, -2.0], requires_grad=True)
    b = Tensor([5.0, 7.0], requires_grad=True)
    left, right = a * 2, a * 3
    unused = b * 10  # never reaches the output
    (left * right).sum().backward()
    np.testing.assert_allclose(a.grad, 12 * a.data)
    assert b.grad is None
    del unused


def test_repeated_backward_accumulates_until_zeroed():
    x = Tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    loss.backward()
    loss.backward()
    np.testing.assert_allclose(x.grad, 4 * x.data)
    x.zero_grad()
    loss.backward()
    np.testing.assert_allclose(x.grad, 2 * x.data)


def test_backward_with_explicit_gradient():
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * 2).backward(np.array([1.0, 0.0, -1.0]))
    np.testing.assert_allclose(x.grad, [2.0, 0.0, -2.0])


def test_backward_needs_scalar_or_gradient():
    x = Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="single value"):
        (x * 2).backward()
    with pytest.raises(ValueError, match="does not match"):
        (x * 2).backward(np.ones(3))


def test_no_grad_records_nothing_and_restores():
    x = Tensor([1.0], requires_grad=True)
    with no_grad():
        assert not is_grad_enabled()
        y = x * 2
        with enable_grad():
            w = x * 2
    assert is_grad_enabled()
    assert not y.requires_grad and y.is_leaf
    assert w.requires_grad
    with pytest.raises(RuntimeError):
        y.backward()


def test_no_grad_as_decorator():
    @no_grad()
    def f(t):
        return t * 3
    assert not f(Tensor([1.0], requires_grad=True)).requires_grad
    assert is_grad_enabled()


def test_detach_cuts_the_graph_and_shares_memory():
    x = Tensor([1.0, 2.0], requires_grad=True)
    d = (x * 2).detach()
    assert not d.requires_grad
    loss = (x * d).sum()
    loss.backward()
    np.testing.assert_allclose(x.grad, d.data)  # d treated as a constant


def test_constants_get_no_gradient():
    x = Tensor([1.0, 2.0], requires_grad=True)
    c = Tensor([3.0, 4.0])
    (x * c).sum().backward()
    assert c.grad is None


def test_retain_grad_on_intermediate():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad, 2 * y.data)


def test_deep_graph_does_not_recurse():
    x = Tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1
    y.sum().backward()
    np.testing.assert_allclose(x.grad, [1.0])


def test_gradient_reduced_to_broadcast_input_shape():
    a = Tensor(np.ones((3, 1)), requires_grad=True)
    b = Tensor(np.ones(4), requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,)
    np.testing.assert_allclose(a.grad, 4)
    np.testing.assert_allclose(b.grad, 3)


def test_numpy_array_on_the_left_goes_to_tensor():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = np.array([3.0, 4.0], dtype=np.float32) * x
    assert isinstance(y, Tensor)
    y.sum().backward()
    np.testing.assert_allclose(x.grad, [3.0, 4.0])


def test_pytorch_spellings():
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    assert x.sum(dim=1, keepdim=True).shape == (2, 1)
    assert x.transpose(0, 1).shape == (3, 2)
    assert x.permute(1, 0).shape == (3, 2)
    assert x.view(3, 2).shape == (3, 2)
    assert x.T.shape == (3, 2)
    assert x.unsqueeze(0).shape == (1, 2, 3)
    assert float(x.max().item()) == 5.0
