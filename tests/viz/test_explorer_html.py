"""write_html: one offline page with the viewer's code inlined and the columns embedded."""
import base64
import json
import re
import zlib

import numpy as np
import pytest

from rlviz.trace import Trace
from rlviz.viz import write_html
from rlviz.viz.examples import large_trace, sharded_trace
from rlviz.viz.explorer_html import decode_blob, embed_json, encode_blob, explorer_html
from rlviz.viz.explorer_long import unpack_chunk
from rlviz.viz.explorer_payload import Payload, decode_stream

EVIL = "</script><script>alert(1)</script>"


def _embedded(page):
    """The page's stream as the page replays it: its start meta (texts and all) with its detail chunks, and their
    buffers, each chunk's element checked against its Adler-32 (explorer_saved.js) and unpacked."""
    meta = json.loads(re.search(r'id="rlviz-meta">(.*?)</script>', page, re.S).group(1))
    chunks, buffers = [], []
    for k, chunk in enumerate(meta["detail"]):
        data = re.search(rf'id="rlviz-detail-{k}" data-adler32="(\d+)">(.*?)</script>', page, re.S)
        packed = decode_blob(data.group(2))
        assert int(data.group(1)) == zlib.adler32(packed)   # what the page checks before it draws
        chunks.append({key: value for key, value in chunk.items() if key != "packed"})
        buffers.extend(unpack_chunk(chunk, packed))
    if chunks:
        chunks[0]["texts"] = meta["texts"]                  # the page keeps every text in its start meta
    return {**meta, "chunks": chunks}, buffers


def test_embedded_columns_decode_to_the_trace(tmp_path):
    trace = sharded_trace()
    meta, chunks = _embedded(write_html(trace, tmp_path / "t.html").read_text())
    columns = decode_stream(Payload(meta, chunks))
    np.testing.assert_array_equal(columns["node"], trace.columns["node"])
    assert meta["count"] == len(trace)


def test_trace_text_cannot_close_the_script_element():
    records = [{"op": EVIL, "label": EVIL, "op_id": "x", "where": "driver", "pid": 1, "start_ns": 0,
                "end_ns": 5, "outcome": "item", "item": EVIL}]
    page = explorer_html(Trace.from_records(records), title=EVIL)
    assert page.count("<script") == 5 and "alert(1)</script>" not in page     # meta, view, overview, one chunk, code
    meta, _ = _embedded(page)
    assert meta["nodes"][0]["op"] == EVIL and EVIL in meta["chunks"][0]["texts"]       # intact once parsed
    assert json.loads(embed_json({"a": "<&>"})) == {"a": "<&>"}


def test_page_asks_for_nothing_over_the_network():
    page = explorer_html(sharded_trace())
    assert "default-src 'none'" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "import(" not in page and 'from "' not in page


def test_at_most_40_bytes_per_event(tmp_path):
    trace = large_trace(200_000, processes=16)
    size = write_html(trace, tmp_path / "big.html").stat().st_size
    assert size / len(trace) <= 40


def test_empty_trace_page(tmp_path):
    meta, chunks = _embedded(write_html(Trace.empty(), tmp_path / "e.html").read_text())
    assert meta["count"] == 0 and all(len(c) == 0 for c in chunks)


def test_not_a_trace_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="write_html"):
        write_html("run.json", tmp_path / "x.html")


def test_the_page_can_open_on_a_chosen_view_and_bad_views_fail_early():
    import json
    import re

    from rlviz.viz.examples import sharded_trace

    trace = sharded_trace()
    page = explorer_html(trace, view={"window": [1.0, 2.5], "selected": 3, "op": "batch"})
    view = json.loads(re.search(r'id="rlviz-view">([^<]*)</script>', page).group(1))
    assert view == {"window": [1.0, 2.5], "selected": 3, "op": "batch"}
    assert 'id="rlviz-view">{}</script>' in explorer_html(trace)
    with pytest.raises(TypeError, match="view must be a dict"):
        explorer_html(trace, view=[1, 2])
    with pytest.raises(ValueError, match="unknown key 'zoom'.*window, selected"):
        explorer_html(trace, view={"zoom": 2})


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 6, 7, 8, 1001])
def test_the_embedded_blob_is_base85_without_a_less_than_sign_and_reads_back(size):
    data = (np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes() + b"<" * size
            + b"\xff" * (size % 5))                                      # the greatest group, whole or cut
    text = encode_blob(data)
    assert "<" not in text and len(text) <= 5 * -(-len(data) // 4)        # 5 characters per 4 bytes
    assert text == base64.b85encode(data).decode("ascii").replace("<", ".")   # RFC 1924's text, "." for "<"
    assert decode_blob(text) == data
