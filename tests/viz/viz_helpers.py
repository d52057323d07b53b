"""Helpers shared by the view tests (imported by name; pytest puts this folder on sys.path)."""


def record(op, start_us, end_us, outcome="item", where="driver", op_id=None, label=None,
           item_id=None, inputs=(), pid=1):
    """One ``Trace.from_records`` dict, times in microseconds for readability."""
    return {"op": op, "label": label or f"{op} label", "op_id": op_id or op, "where": where,
            "pid": pid, "start_ns": start_us * 1000, "end_ns": end_us * 1000, "outcome": outcome,
            "item": None, "item_id": item_id, "inputs": list(inputs)}


def texts_overlapping(ax):
    """Pairs of non-empty texts (axes texts, title, legend) whose boxes overlap on screen."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text() and t.get_visible()]
    legend = ax.get_legend()
    if legend is not None:
        texts += legend.get_texts()
    texts += [t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in texts]
    return [(texts[i].get_text(), texts[j].get_text())
            for i in range(len(texts)) for j in range(i) if boxes[i].overlaps(boxes[j])]

