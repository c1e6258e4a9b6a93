import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))                    # az_cli (hand registration of the plugin)
sys.path.insert(0, str(HERE.parent / "mcts"))    # mcts_testgames: DoubleTake, PerfectTicTacToe


@pytest.fixture(scope="module", autouse=True)
def alphazero_registered():
    """The alphazero plugin in the registry: by hand until its entry point is installed, and
    taken out again afterwards so that other test folders see the installed plugins only."""
    from az_cli import register_alphazero
    from plyground import plugin_manager, registry
    plugin_manager.load_plugins()
    installed = "alphazero" in plugin_manager.plugin_infos()
    register_alphazero()
    yield
    if not installed:
        plugin_manager.unregister("alphazero")
        registry.reset_registry()


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
