"""Every Markdown file the packaging files point a reader to exists in the repository (setup.py once named a
DEVELOPERS.md that never existed)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_MARKDOWN_NAME = re.compile(r"[\w./-]*\w\.md\b")
_README_SECTION = re.compile(r'README\.md, "([^"]+)"')

REFERRERS = ["setup.py", "pyproject.toml"]


@pytest.mark.parametrize("referrer", REFERRERS)
def test_every_markdown_file_named_exists(referrer):
    path = REPO / referrer
    text = path.read_text(encoding="utf-8")
    missing = [name for name in sorted(set(_MARKDOWN_NAME.findall(text))) if not (REPO / name).exists()]
    assert not missing, f"{referrer} points to Markdown files the repository does not have: {missing}"


def test_the_readme_sections_setup_py_names_exist():
    headings = set(re.findall(r"^#+ (.+?)\s*$", (REPO / "README.md").read_text(encoding="utf-8"), re.MULTILINE))
    named = _README_SECTION.findall((REPO / "setup.py").read_text(encoding="utf-8"))
    assert named and all(name in headings for name in named), (named, headings)
