"""One BLAS thread for the tests of small networks (importable from any test folder's conftest)."""
import pytest


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    """Small matrices: one BLAS thread is much faster on the shared 2-core machine."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    limiter = threadpool_limits(limits=1)
    yield
    limiter.restore_original_limits()
