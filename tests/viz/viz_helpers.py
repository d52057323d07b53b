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



def box_problems(nodes, groups):
    """What overlaps in a drawn graph: two node boxes, a node in another process's group box, two group boxes.

    ``nodes`` maps a node to ``(where, (x0, y0, x1, y1))``, ``groups`` a process to its group box; boxes
    that only touch do not overlap.
    """
    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    names = list(nodes)
    problems = [("nodes", a, b) for i, a in enumerate(names) for b in names[:i] if overlap(nodes[a][1], nodes[b][1])]
    problems += [("group", where, n) for where, box in groups.items() for n, (other, node_box) in nodes.items()
                 if other != where and overlap(box, node_box)]
    wheres = list(groups)
    problems += [("groups", a, b) for i, a in enumerate(wheres) for b in wheres[:i] if overlap(groups[a], groups[b])]
    return problems
