"""The front ends' screenshot commands (``plyground screenshots``, ``plyground web-screenshots``), in one shape:
an ``--out`` folder that is checked before any picture is taken, never one holding files another command wrote,
then each picture's file named as it is written."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

import click

from plyground.files.recordio import check_output_dir


def out_option(default: Path):
    """The commands' ``--out`` option: the folder for the PNG files, ``default`` unless given."""
    return click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=default,
                        show_default=True, help="Folder for the PNG files.")


def write_pictures(out: Path, is_ours: Callable[[Path], bool], write: Callable[[], Iterable[Path]]) -> None:
    """Check ``out`` (``is_ours``: whether a folder holds pictures this command took), then ``write()`` the
    pictures, echoing each file's path."""
    check_output_dir(out, "--out", is_ours)
    for path in write():
        click.echo(str(path))


__all__ = ["out_option", "write_pictures"]
