"""Packing arrays into text and back, as RLlib's ``compress``/``decompress_if_needed`` do with observations.

RLlib packs with LZ4 into base64 text; rlviz packs with zlib (standard
library) into base64 text.  Unpacking reads numpy's ``.npy`` format with
``allow_pickle=False``, so packed data never executes code.
"""
from __future__ import annotations

import base64
import io
import zlib

import numpy as np

__all__ = ["pack", "unpack", "is_compressed"]


def pack(value: object) -> str:
    """``value`` as an array, compressed into base64 text.

    Examples
    --------
    >>> unpack(pack(np.arange(3))).tolist()
    [0, 1, 2]
    """
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(value), allow_pickle=False)
    return base64.b64encode(zlib.compress(buffer.getvalue())).decode("ascii")


def unpack(text: str | bytes) -> np.ndarray:
    """The array ``pack`` made ``text`` from.

    Raises
    ------
    ValueError
        If ``text`` is not something ``pack`` produced.
    """
    try:
        raw = zlib.decompress(base64.b64decode(text))
        return np.load(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, zlib.error) as exc:
        raise ValueError(f"not a packed array ({exc}); only what SampleBatch.compress() wrote can be "
                         f"decompressed") from exc


def is_compressed(value: object) -> bool:
    """Whether ``value`` is packed text (RLlib's test: a ``str`` or ``bytes``)."""
    return isinstance(value, (str, bytes))
