"""Views of traces and dataflows: graph, timeline, round-robin order strip, HTML report, the Explorer page.

matplotlib and networkx load inside the drawing functions of every module
here, so ``import rlviz.viz`` is cheap.
"""
from rlviz.viz.explorer_html import write_html
from rlviz.viz.graph import dataflow_graph, plot_graph
from rlviz.viz.order import plot_order
from rlviz.viz.report import report_main, write_report
from rlviz.viz.timeline import plot_timeline

__all__ = ["plot_graph", "plot_timeline", "plot_order", "write_report", "write_html", "report_main",
           "dataflow_graph"]
