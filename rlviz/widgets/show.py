"""``rlviz.show``: the right view for what you have, a trace or a dataflow that has not run yet."""
from __future__ import annotations

from typing import Any

from rlviz.trace import Trace

__all__ = ["show"]


def show(obj: object, **options: Any) -> Any:
    """The view that fits ``obj``; a notebook displays what this returns.

    Parameters
    ----------
    obj : Trace, or an iterator, plan or trainer (anything with ``.dataflow()``)
        A recorded trace opens in the interactive ``TraceView``; a dataflow
        is drawn as its graph (``plot_graph``) before anything runs.
    **options
        Passed to ``TraceView`` for a trace (``selected``, ``window``, ``op``, ``where``).

    Returns
    -------
    TraceView or matplotlib Figure

    Raises
    ------
    TypeError
        If ``obj`` is neither, or options are given for a dataflow.

    Examples
    --------
    >>> from rlviz.viz.examples import sharded_trace
    >>> type(show(sharded_trace())).__name__
    'TraceView'
    """
    if isinstance(obj, Trace):
        from rlviz.widgets.traceview import TraceView

        return TraceView(obj, **options)
    if callable(getattr(obj, "dataflow", None)):
        if options:
            raise TypeError(f"rlviz.show of a dataflow takes no options, got {', '.join(sorted(options))}")
        import matplotlib.pyplot as plt

        from rlviz.viz import plot_graph

        figure = plot_graph(obj).figure
        plt.close(figure)                # returned for display once, not shown again by pyplot
        return figure
    raise TypeError(f"rlviz.show needs an rlviz Trace, or an iterator, plan or trainer with a .dataflow() "
                    f"method; got {type(obj).__name__}")
