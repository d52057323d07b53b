"""A stand-in that makes ``import rfc3987_syntax`` fail in the processes the tests start.

``import ray`` imports ``jsonschema``, which imports ``rfc3987_syntax`` when it
is installed (jupyter-events installs it, for ``jsonschema[format-nongpl]``),
and that module builds a Lark grammar at import: about 1.5 s of CPU, 3/4 of
what a Ray worker process spends starting.  Every actor is a new worker
process, and Ray's tests of ``ray.util.iter`` start hundreds.  jsonschema
treats the ``ImportError`` as "not installed" and skips only its checks of
the ``iri`` formats, which neither Ray's workers nor our tests use.
``tests/conftest.py`` puts this folder first on the ``PYTHONPATH`` that
Ray's workers (and notebook kernels) inherit; the test process itself is
unchanged.
"""
raise ImportError("rfc3987_syntax is left out of processes started by rlviz's tests (tests/worker_path)")
