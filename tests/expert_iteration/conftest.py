import pytest


@pytest.fixture(scope="module", autouse=True)
def expert_iteration_registered():
    """The expert-iteration plugin in the registry: by hand until its entry point is installed,
    and taken out again afterwards so that other test folders see the installed plugins only."""
    from plyground import plugin_manager, registry
    from plyground.players.expert_iteration import plugin
    plugin_manager.load_plugins()
    installed = "expert-iteration" in plugin_manager.plugin_infos()
    if not installed:
        plugin_manager.register(plugin, plugin_manager.PluginInfo("expert-iteration", plugin.__name__,
                                                                  "plyground", "dev"))
        registry.reset_registry()
    yield
    if not installed:
        plugin_manager.unregister("expert-iteration")
        registry.reset_registry()


@pytest.fixture(scope="session", autouse=True)
def one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    limiter = threadpool_limits(limits=1)
    yield
    limiter.restore_original_limits()
