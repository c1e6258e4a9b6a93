"""Real third-party plugin packages in a throwaway virtual environment (the ``env`` fixture is in conftest.py)."""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXTERNAL = REPO / "tests" / "external_plugins"


def make_env(tmp_path_factory) -> Path:
    """A new virtual environment that sees this environment's packages (plyground, numpy, ...).

    Installing numpy and numba again from the network would make the test slow and
    flaky; a ``.pth`` line that adds this interpreter's site directories gives the
    new environment the same dependencies while its own site-packages, where the
    plugin packages go, comes first.
    """
    root = tmp_path_factory.mktemp("venv")
    # No pip of its own: this environment's pip (``--python``) installs into it, and
    # builds use this environment's setuptools rather than an old bundled copy.
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    inner_site = subprocess.run([python, "-c", "import site; print(site.getsitepackages()[0])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    outer = [p for p in site.getsitepackages() + [site.getusersitepackages()] if Path(p).is_dir()]
    Path(inner_site, "_outer_env.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({p!r})" for p in outer) + "\n")
    return root


def external(name: str, tmp_path_factory) -> str:
    """A copy of an example plugin package, so building it leaves the source tree clean."""
    target = tmp_path_factory.mktemp("src") / name
    shutil.copytree(EXTERNAL / name, target)
    return str(target)


def pip_install(env: Path, *args: str) -> None:
    result = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
                             "-q", "--no-deps", "--no-index", "--no-build-isolation", *args],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def plyground(env: Path, *args: str, timeout: float = 300, **extra_env: str) -> subprocess.CompletedProcess:
    """``plyground ARGS`` run by the environment's interpreter, its output captured."""
    return subprocess.run([env / "bin" / "python", "-m", "plyground", *args], capture_output=True,
                          text=True, env=environment(**extra_env), timeout=timeout)


def environment(**extra_env: str) -> dict[str, str]:
    """This process's environment without PLYGROUND_ settings, plus ``extra_env``."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PLYGROUND_")}
    environ.update(extra_env)
    return environ
