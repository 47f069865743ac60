"""Schemathesis hooks for the fuzz run (test/fuzz/schemathesis.fuzz.ts).

Every webhook endpoint URL the fuzzer generates is rewritten to the run's loopback sink
(FUZZ_WEBHOOK_SINK), so fuzzing never sends a delivery anywhere else.
"""
import os

import schemathesis

SINK = os.environ["FUZZ_WEBHOOK_SINK"]


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path.startswith("/seller/webhooks") and isinstance(case.body, dict) and "url" in case.body:
        case.body["url"] = SINK
