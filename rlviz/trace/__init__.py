"""Recording: plain event records, bounded per-process buffers, and the Trace they make.

Everything here is plain data: a trace is saved as columns behind JSON headers (never pickle) and read anywhere.
"""
from rlviz.trace.event import DRIVER, OUTCOMES, Event, Node
from rlviz.trace.gaps import Gap
from rlviz.trace.gauges import Gauge, gauge
from rlviz.trace.recorder import Recorder, get_recorder
from rlviz.trace.session import LiveTrace, add_collector, record
from rlviz.trace.spans import Span, span
from rlviz.trace.trace import Trace, TraceFormatError

__all__ = ["Event", "Node", "Trace", "TraceFormatError", "Recorder", "LiveTrace",
           "get_recorder", "record", "gauge", "Gauge", "Gap", "add_collector", "span", "Span", "OUTCOMES", "DRIVER"]
