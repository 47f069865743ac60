"""Schemathesis hooks for the fuzz run (test/fuzz/schemathesis.fuzz.ts).

Every webhook endpoint URL the fuzzer generates is rewritten to the run's loopback sink
(FUZZ_WEBHOOK_SINK), so fuzzing never sends a delivery anywhere else.
"""
import ast
import os
import threading

# On Python 3.11 the AST constructor keeps its recursion counter in state all threads share, so
# two threads building ASTs at once can fail with "SystemError: AST constructor recursion depth
# mismatch" (python/cpython#106905): a garbage-collection finaliser can hand the GIL to the other
# thread mid-construction. Schemathesis runs two worker threads that both parse source:
# - anyio's lazy importer, on first use from inside a worker: imported here, once, before the
#   workers start;
# - hypothesis (describing the lambdas of strategies) and schemathesis itself, through
#   `ast.parse`, at any time: serialised below. One CI run failed on this, on `POST /pay/{id}`.
import anyio  # noqa: F401
import schemathesis

_parse = ast.parse
_one_at_a_time = threading.RLock()


def _parse_one_at_a_time(*args, **kwargs):
    with _one_at_a_time:
        return _parse(*args, **kwargs)


ast.parse = _parse_one_at_a_time

SINK = os.environ["FUZZ_WEBHOOK_SINK"]


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path.startswith("/seller/webhooks") and isinstance(case.body, dict) and "url" in case.body:
        case.body["url"] = SINK
