"""Maps the top-level folders into the one ``plyground`` namespace (the table in
README.md, "Layout").

pyproject.toml holds the metadata; only the package list, which must be derived
from the mapping, is computed here.
"""
from setuptools import find_packages, setup

PACKAGE_DIRS = {
    "plyground": "framework",
    "plyground.games": "games",
    "plyground.players": "players",
    "plyground.plugins": "plugins",
}

packages = []
for package, folder in PACKAGE_DIRS.items():
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_packages(folder)]

setup(package_dir=PACKAGE_DIRS, packages=packages)
