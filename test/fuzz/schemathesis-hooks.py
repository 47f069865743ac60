"""Schemathesis hooks for the fuzz run (test/fuzz/schemathesis.fuzz.ts).

Every webhook endpoint URL the fuzzer generates is rewritten to the run's loopback sink
(FUZZ_WEBHOOK_SINK), so fuzzing never sends a delivery anywhere else.

A valid (positive) request is also held to the rules the API documents in words because JSON
Schema cannot say them, so that `positive_data_acceptance` judges the service and not the
generator; negative requests are sent as generated:
- `Idempotency-Key`: a new key for each request (docs/conventions.md, "Idempotent requests"). The
  generator draws the same few keys ("0", "00") for different requests, which the service rightly
  refuses with 422 `idempotency-key-reused`; the key keeps its generated prefix;
- `createdFrom`/`createdTo`: the end of a range comes after its start (swapped when not), and so
  does `priceMax` after `priceMin` in a body;
- `expires` of a personal access token: at least 24 hours ahead (moved to 30 days ahead when not);
- bodies JSON Schema cannot describe are a small valid one: the CSV of `POST /seller/imports`
  (its header and one row), the image of `PUT /uploads/{id}` (a 1x1 PNG).
"""
import ast
import base64
import datetime
import json
import os
import re
import threading
import uuid

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

# Per-check totals (passed/failed, each check run on each response), written at exit to
# FUZZ_CHECK_COUNTS for the fuzz test to print: schemathesis's own summary counts only failures.
# Both the per-operation phases and the stateful phase call `run_checks` through their modules.
CHECK_COUNTS = os.environ.get("FUZZ_CHECK_COUNTS")
_counts = {}
_counts_lock = threading.Lock()


def _count(name, outcome):
    with _counts_lock:
        entry = _counts.setdefault(name, {"passed": 0, "failed": 0})
        entry[outcome] += 1


def _counting(run_checks):
    def wrapper(*args, on_failure, on_success=None, **kwargs):
        def failed(name, collected, failure):
            _count(name, "failed")
            return on_failure(name, collected, failure)

        def passed(name, case):
            _count(name, "passed")
            if on_success is not None:
                return on_success(name, case)

        return run_checks(*args, on_failure=failed, on_success=passed, **kwargs)

    return wrapper


if CHECK_COUNTS:
    import atexit

    from schemathesis.engine import _validate
    from schemathesis.engine.run.stateful import _executor

    _validate.run_checks = _counting(_validate.run_checks)
    _executor.run_checks = _counting(_executor.run_checks)

    @atexit.register
    def _write_counts():
        with open(CHECK_COUNTS, "w") as out:
            json.dump(dict(sorted(_counts.items())), out, indent=2)


IMPORT_CSV = "urn,condition,language,price,quantity\npokemon/base/base1/4,NEAR_MINT,en,100,1\n"
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7E]{1,255}$")


def _is_positive(case):
    """A valid request: positive, and no part of it generated invalid."""
    meta = case.meta
    return (
        meta is not None
        and meta.generation.mode.is_positive
        and not any(component.mode.is_negative for component in meta.components.values())
    )


def _parse_time(value):
    try:
        return datetime.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _order_price_ranges(value):
    """`priceMax` is at least `priceMin` wherever both are given (listing search filters)."""
    if isinstance(value, dict):
        low, high = value.get("priceMin"), value.get("priceMax")
        if isinstance(low, (int, float)) and isinstance(high, (int, float)) and high < low:
            value["priceMin"], value["priceMax"] = high, low
        for child in value.values():
            _order_price_ranges(child)
    elif isinstance(value, list):
        for child in value:
            _order_price_ranges(child)


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path.startswith("/seller/webhooks") and isinstance(case.body, dict) and "url" in case.body:
        case.body["url"] = SINK
    if not _is_positive(case):
        return
    for name in list(case.headers or {}):
        if name.lower() == "idempotency-key" and IDEMPOTENCY_KEY.match(str(case.headers[name])):
            case.headers[name] = f"{str(case.headers[name])[:200]}.{uuid.uuid4().hex}"
    query = case.query if isinstance(case.query, dict) else None
    if query and "createdFrom" in query and "createdTo" in query:
        start, end = _parse_time(query["createdFrom"]), _parse_time(query["createdTo"])
        if start and end and start.tzinfo and end.tzinfo and end <= start:
            query["createdFrom"], query["createdTo"] = query["createdTo"], query["createdFrom"]
            if end == start:
                del query["createdFrom"]
    _order_price_ranges(case.body)
    if case.operation.path == "/seller/imports" and case.method.upper() == "POST":
        case.body = IMPORT_CSV
    if case.operation.path == "/uploads/{id}" and case.method.upper() == "PUT":
        case.body = PNG_1X1
    if case.operation.path == "/user/personal-access-tokens" and case.method.upper() == "POST" and isinstance(case.body, dict):
        expires = _parse_time(case.body.get("expires")) if case.body.get("expires") is not None else None
        soon = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=25)
        if expires is not None and (expires.tzinfo is None or expires < soon):
            later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)
            case.body["expires"] = later.isoformat().replace("+00:00", "Z")


ACCEPTED_LOG = os.environ.get("FUZZ_ACCEPTED_LOG")
_accepted_lock = threading.Lock()


@schemathesis.hook
def after_call(context, case, response):
    """Records every 404/409 answer to a valid (positive) request.

    positive_data_acceptance takes them as right answers (a generated id names nothing; a generated
    state change is often not allowed in the resource's state); the fuzz test lists them so that
    they are read rather than hidden.
    """
    if not ACCEPTED_LOG or response.status_code not in (404, 409):
        return
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    problem_type = None
    try:
        body = json.loads(response.content)
        if isinstance(body, dict):
            problem_type = body.get("type")
    except Exception:
        pass
    record = {
        "operation": case.operation.label,
        "status": response.status_code,
        "type": problem_type,
        "phase": getattr(meta.phase.name, "value", str(meta.phase.name)),
    }
    with _accepted_lock, open(ACCEPTED_LOG, "a") as log:
        log.write(json.dumps(record) + "\n")
