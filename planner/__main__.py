"""``python -m planner``: the command line (see ``planner.cli``)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from planner.cli import main, native_prints_hidden

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

READER_LEFT = 141
"""Exit status when the reader of stdout went away early (``plan ... | head -1``): 128 + SIGPIPE,
as the shell reports a command a closed pipe stopped."""


class _Stdout(io.FileIO):
    """The process's stdout that drops what it is given once its reader has gone, so the
    command still finishes its work (a ``--out`` workbook is written)."""

    reader_left = False
    """Whether a write found the pipe closed."""

    def write(self, data: ReadableBuffer, /) -> int:
        if not self.reader_left:
            try:
                return super().write(data)
            except BrokenPipeError:
                self.reader_left = True
        return memoryview(data).nbytes


@contextmanager
def _reader_may_leave() -> Iterator[_Stdout | None]:
    """``sys.stdout`` written through a ``_Stdout`` (None when stdout is no file descriptor)."""
    try:
        descriptor = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield None
        return
    given = sys.stdout
    given.flush()
    raw = _Stdout(descriptor, "w", closefd=False)
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw), encoding=given.encoding, errors=given.errors, line_buffering=True
    )
    try:
        yield raw
    finally:
        sys.stdout.flush()
        sys.stdout = given


def _run() -> int:
    with native_prints_hidden(), _reader_may_leave() as stdout:
        try:
            code = main()
        except BrokenPipeError:
            # Written to the pipe past ``_Stdout``: what is buffered for it goes nowhere.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return READER_LEFT
    if stdout is not None and stdout.reader_left and code == 0:
        return READER_LEFT
    return code


raise SystemExit(_run())
