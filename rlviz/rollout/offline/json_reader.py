"""``JsonReader``: batches back from the JSON lines a ``JsonWriter`` wrote (RLlib's ``input`` = a path, glob or list).

Reading parses JSON only; it never unpickles or runs anything from the file.
"""
from __future__ import annotations

import glob
import os
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from rlviz.rollout.offline.input_reader import InputReader
from rlviz.rollout.offline.io_context import IOContext
from rlviz.rollout.offline.json_format import batch_from_json
from rlviz.rollout.sample_batch import MultiAgentBatch, SampleBatch

__all__ = ["JsonReader", "CorruptRecordError"]

_GLOB_CHARS = set("*?[")


class CorruptRecordError(ValueError):
    """A line of an input file is not a batch; ``path`` and ``line`` (1-based) say where."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}, line {line}: not a JsonWriter record ({reason}); the batches before it were "
                         f"returned; fix or delete that line (the next read continues after it)")
        self.path = path
        self.line = line


class JsonReader(InputReader):
    """Reads one batch per ``next()`` from JSON-lines files, going on to a random file at each file's end.

    Parameters
    ----------
    inputs : str, Path or list of them
        A file, a directory (its ``*.json`` files), a glob such as
        ``"/tmp/out/*.json"``, or a list of files.
    ioctx : IOContext, optional
        The worker's context: its index picks the first file (so workers start
        apart, as in RLlib), its ``seed`` seeds the choice of the next files.

    Raises
    ------
    FileNotFoundError
        At construction, naming the path: a file that does not exist, a glob
        or directory matching no file.
    TypeError
        If ``inputs`` is neither a path nor a list of paths.

    Examples
    --------
    >>> import tempfile
    >>> from rlviz.rollout.offline import JsonWriter
    >>> writer = JsonWriter(tempfile.mkdtemp())
    >>> writer.write(SampleBatch(obs=[[0.5], [1.5]], actions=[1, 0]))
    >>> batch = JsonReader(writer.path).next()
    >>> batch["obs"].tolist(), batch["actions"].tolist()
    ([[0.5], [1.5]], [1, 0])
    """

    def __init__(self, inputs: str | os.PathLike | Sequence[str | os.PathLike],
                 ioctx: IOContext | None = None) -> None:
        self.ioctx = ioctx or IOContext()
        self.files = _resolve_inputs(inputs)
        seed = self.ioctx.config.get("seed")
        self._random = random.Random(None if seed is None else seed + 1000 * self.ioctx.worker_index)
        #: The file being read and the number of its last line read.
        self.cur_file: str | None = None
        self.cur_line = 0
        self._handle: IO[str] | None = None

    def next(self) -> SampleBatch | MultiAgentBatch:
        """The batch on the next non-empty line; after a file's last line, a randomly chosen file's first.

        Raises
        ------
        CorruptRecordError
            Naming the file and line; the next call reads the line after it.
        ValueError
            If every file is empty.
        """
        for _ in range(len(self.files) + 100):
            line = self._next_line()
            if line.strip():
                return _parse(line, self.cur_file, self.cur_line)
        raise ValueError(f"found no batch in the input files {self.files}: they are empty")

    def read_all_files(self) -> Iterator[SampleBatch | MultiAgentBatch]:
        """Yield one batch per non-empty line of every file, in file order, once.

        Raises
        ------
        CorruptRecordError
            At a corrupt line, naming file and line; the batches yielded before it stay with the caller.
        """
        for path in self.files:
            with open(path, encoding="utf-8") as file:
                for number, line in enumerate(file, start=1):
                    if line.strip():
                        yield _parse(line, path, number)

    def __repr__(self) -> str:
        return f"JsonReader({len(self.files)} files)"

    def _next_line(self) -> str:
        if self._handle is not None:
            line = self._handle.readline()
            if line:
                self.cur_line += 1
                return line
            self._handle.close()
        self.cur_file = self._next_file()
        self._handle = open(self.cur_file, encoding="utf-8")
        self.cur_line = 0
        return ""

    def _next_file(self) -> str:
        worker = self.ioctx.worker
        if self.cur_file is None and worker is not None:      # workers start on different files
            total = getattr(worker, "num_workers", 0) or 1
            share = min(1.0, self.ioctx.worker_index / total)
            return self.files[round((len(self.files) - 1) * share)]
        return self._random.choice(self.files)


def _parse(line: str, path: str | None, number: int) -> SampleBatch | MultiAgentBatch:
    try:
        return batch_from_json(line)
    except (ValueError, KeyError, TypeError) as error:
        raise CorruptRecordError(str(path), number, f"{type(error).__name__}: {error}") from error


def _resolve_inputs(inputs: object) -> list[str]:
    """The list of files ``inputs`` names, every one existing."""
    if isinstance(inputs, (str, os.PathLike)):
        return _expand(str(inputs))
    if isinstance(inputs, (list, tuple)) and inputs and all(isinstance(i, (str, os.PathLike)) for i in inputs):
        files = [str(Path(i).expanduser().absolute()) for i in inputs]
        for path in files:
            if not os.path.isfile(path):
                raise FileNotFoundError(f"input file {path!r} does not exist; check the list of input files")
        return files
    raise TypeError(f"JsonReader's inputs must be a path, a glob or a non-empty list of file paths, not {inputs!r}")


def _expand(text: str) -> list[str]:
    path = os.path.abspath(os.path.expanduser(text))
    if os.path.isdir(path):
        files = sorted(glob.glob(os.path.join(path, "*.json")))
        if not files:
            raise FileNotFoundError(f"input directory {path!r} holds no *.json files; point input at the "
                                    f"directory a JsonWriter wrote (the output setting)")
        return files
    if _GLOB_CHARS & set(text):
        files = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
        if not files:
            raise FileNotFoundError(f"input glob {path!r} matches no file; check the pattern and the directory")
        return files
    if not os.path.isfile(path):
        raise FileNotFoundError(f"input file {path!r} does not exist; give an existing file, a directory "
                                f"or a glob such as '/tmp/out/*.json'")
    return [path]
