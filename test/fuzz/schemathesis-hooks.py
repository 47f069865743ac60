"""Schemathesis hooks for the fuzz run (test/fuzz/schemathesis.fuzz.ts).

Every webhook endpoint URL the fuzzer generates is rewritten to the run's loopback sink
(FUZZ_WEBHOOK_SINK), so fuzzing never sends a delivery anywhere else.
"""
import os

# Imported here, once, before the run starts its worker threads: anyio's lazy importer parses
# source with `ast`, which on Python 3.11 fails when two threads do it at once ("AST constructor
# recursion depth mismatch"), and schemathesis imports it lazily from inside a worker.
import anyio  # noqa: F401
import schemathesis

SINK = os.environ["FUZZ_WEBHOOK_SINK"]


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path.startswith("/seller/webhooks") and isinstance(case.body, dict) and "url" in case.body:
        case.body["url"] = SINK
