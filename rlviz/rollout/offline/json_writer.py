"""``OutputWriter``, ``NoopOutput`` and ``JsonWriter``: where a worker's ``output`` setting sends each sampled batch.

``JsonWriter`` appends one JSON line per batch (see ``json_format``) to
``output-<date>_worker-<index>_<n>.json`` files in one directory, starting a new
file once ``max_file_size`` bytes were written to the current one, as RLlib does.
"""
from __future__ import annotations

import os
from collections.abc import Collection
from datetime import datetime
from pathlib import Path
from typing import IO

from rlviz.checks import check_int
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.offline.json_format import DEFAULT_COMPRESS_COLUMNS, batch_to_json
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["OutputWriter", "NoopOutput", "JsonWriter", "DEFAULT_MAX_FILE_SIZE"]

#: RLlib's ``output_max_file_size`` default: 64 MiB.
DEFAULT_MAX_FILE_SIZE = 64 * 1024 * 1024


class OutputWriter:
    """Receives every batch a worker samples (RLlib's ``config["output"]``)."""

    def write(self, sample_batch: SampleBatch | MultiAgentBatch) -> None:
        """Save ``sample_batch`` (the base class saves nothing)."""


class NoopOutput(OutputWriter):
    """The writer of ``output=None``: drops every batch."""


class JsonWriter(OutputWriter):
    """Writes each batch as one JSON line into files under ``path``, rotating them by size.

    Parameters
    ----------
    path : str or Path
        A directory; created if missing.  ``~`` is expanded.
    ioctx : IOContext, optional
        Gives the worker index that names the files.
    max_file_size : int
        Bytes after which the next batch starts a new file (RLlib's ``output_max_file_size``).
    compress_columns : collection of str
        Columns stored compressed (RLlib's ``output_compress_columns``); the others as nested lists.

    Raises
    ------
    ValueError
        If ``path`` is a URI (only local directories are written) or ``max_file_size`` is below 1.
    NotADirectoryError
        If ``path`` exists and is a file.

    Examples
    --------
    >>> import tempfile
    >>> writer = JsonWriter(tempfile.mkdtemp(), compress_columns=())
    >>> writer.write(SampleBatch(actions=[1, 0]))
    >>> open(writer.files[0]).read()
    '{"type": "SampleBatch", "actions": [1, 0]}\\n'
    """

    def __init__(self, path: str | os.PathLike, ioctx: IOContext | None = None,
                 max_file_size: int = DEFAULT_MAX_FILE_SIZE,
                 compress_columns: Collection[str] = DEFAULT_COMPRESS_COLUMNS) -> None:
        check_int("max_file_size", max_file_size, minimum=1)
        if "://" in str(path):
            raise ValueError(f"JsonWriter writes to a local directory; {str(path)!r} is a URI. "
                             f"Write locally and copy the files afterwards")
        directory = Path(path).expanduser().absolute()
        if directory.exists() and not directory.is_dir():
            raise NotADirectoryError(f"output {str(directory)!r} is a file; JsonWriter needs a directory "
                                     f"to write its output-*.json files into")
        directory.mkdir(parents=True, exist_ok=True)
        self.ioctx = ioctx or IOContext()
        self.path = str(directory)
        self.max_file_size = max_file_size
        self.compress_columns = frozenset(compress_columns)
        #: Every file written so far, oldest first.
        self.files: list[str] = []
        self.bytes_written = 0
        self._file: IO[str] | None = None

    def write(self, sample_batch: SampleBatch | MultiAgentBatch) -> None:
        """Append ``sample_batch`` as one line, flushed at once (a reader sees it straight away)."""
        line = batch_to_json(sample_batch, self.compress_columns)
        file = self._current_file()
        file.write(line)
        file.write("\n")
        file.flush()
        self.bytes_written += len(line) + 1

    def close(self) -> None:
        """Close the current file (a later ``write`` opens a new one)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __repr__(self) -> str:
        return f"JsonWriter({self.path!r}, files={len(self.files)})"

    def _current_file(self) -> IO[str]:
        if self._file is None or self.bytes_written >= self.max_file_size:
            self.close()
            stamp = datetime.today().strftime("%Y-%m-%d_%H-%M-%S")
            name = f"output-{stamp}_worker-{self.ioctx.worker_index}_{len(self.files)}.json"
            path = os.path.join(self.path, name)
            self._file = open(path, "w", encoding="utf-8")
            self.files.append(path)
            self.bytes_written = 0
        return self._file
