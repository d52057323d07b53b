"""A stand-in that makes ``import rfc3986_validator``, another of jsonschema's optional format checkers, fail in test processes.

Like ``rfc3987_syntax`` (see that file): ``import ray`` imports jsonschema, which
imports every optional format checker it finds; this one costs each Ray
worker process about 15 ms of CPU (it compiles its grammar's regexes), and the tests start
hundreds of them.  jsonschema then skips only its checks of the
``uri`` and ``uri-reference`` format, which neither Ray's workers nor our tests use.
"""
raise ImportError("rfc3986_validator is left out of processes started by rlviz's tests (tests/worker_path)")
