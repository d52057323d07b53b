"""Checks and comparisons of recorded traces, for users' own test suites.

``assert_order`` / ``assert_ratio`` fail with the recorded order strip as
text; ``diff`` puts two runs side by side.  Reads traces only, never Ray.
"""
from rlviz.testing.assertions import WARMUP, assert_order, assert_ratio
from rlviz.testing.diff import OpDiff, TraceDiff, diff

__all__ = ["assert_order", "assert_ratio", "diff", "TraceDiff", "OpDiff", "WARMUP"]
