"""A stand-in that makes ``import isoduration``, another of jsonschema's optional format checkers, fail in test processes.

Like ``rfc3987_syntax`` (see that file): ``import ray`` imports jsonschema, which
imports every optional format checker it finds; this one costs each Ray
worker process about 40 ms of CPU (it pulls in arrow and dateutil), and the tests start
hundreds of them.  jsonschema then skips only its checks of the
``duration`` format, which neither Ray's workers nor our tests use.
"""
raise ImportError("isoduration is left out of processes started by rlviz's tests (tests/worker_path)")
