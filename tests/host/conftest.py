import pytest

from plugin_venv import make_env


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A fresh virtual environment that sees this one's packages; plugin packages are installed into it."""
    return make_env(tmp_path_factory)
