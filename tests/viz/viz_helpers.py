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



def a2c_like_nodes():
    """A2C's recorded graph in small: two shards gathered on the driver, and spans without edges.

    The shards' ``sample`` and ``set_weights`` and the driver's
    ``learn_on_batch`` have no edges.  Placed beside the driver's leftmost
    connected node, ``learn_on_batch`` landed on the shards' boxes.
    """
    from rlviz.trace import Node

    nodes = [Node("a", "from_range", "from_range(8)[0]", "shard-0"),
             Node("b", "from_range", "from_range(8)[1]", "shard-1"),
             Node("c", "gather_sync", "ParallelIterator[from_range].gather_sync()", parents=("a", "b")),
             Node("learn", "learn_on_batch", "learn_on_batch")]
    return nodes + [Node(f"{op}{w}", op, op, f"shard-{w}") for w in (0, 1) for op in ("sample", "set_weights")]


def one_call_each(nodes):
    """A trace of one item call per node of a plan, so a view of it draws the plan's whole graph."""
    from rlviz.trace import Trace

    pids = {where: k + 1 for k, where in enumerate(dict.fromkeys(n.where for n in nodes))}
    return Trace.from_records([{"op": n.op, "label": n.label, "op_id": n.op_id, "where": n.where, "pid": pids[n.where],
                                "start_ns": 1000 * k, "end_ns": 1000 * k + 500, "outcome": "item", "item": None,
                                "item_id": k + 1, "inputs": []} for k, n in enumerate(nodes)], nodes)


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
