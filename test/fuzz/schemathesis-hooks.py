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
  (its header and one row), the image of `PUT /uploads/{id}` (a 1x1 PNG);
- a value the API documents as one it issued is one it issued, obtained the way a client would
  (FUZZ_BASE_URL, as the caller, FUZZ_AUTHORIZATION): an upload id where a finished upload is
  taken (a new 1x1 PNG upload each time), an address lookup id (found and retrieved once), the
  registered OAuth application and its redirect URI (FUZZ_OAUTH_CLIENT_ID,
  FUZZ_OAUTH_REDIRECT_URI), the caller's password as the current one of a password change
  (FUZZ_PASSWORD; the new one is the same, so the caller keeps signing in); a `cursor` that only
  a previous page can give is left out.
  A generated value there is refused with a documented 400 naming the field, which the
  generator cannot know to avoid, and the request would never reach the operation's logic.
"""
import ast
import base64
import datetime
import json
import os
import re
import threading
import uuid

import requests

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


BASE_URL = os.environ.get("FUZZ_BASE_URL")
AUTHORIZATION = os.environ.get("FUZZ_AUTHORIZATION")
OAUTH_CLIENT_ID = os.environ.get("FUZZ_OAUTH_CLIENT_ID")
OAUTH_REDIRECT_URI = os.environ.get("FUZZ_OAUTH_REDIRECT_URI")
PASSWORD = os.environ.get("FUZZ_PASSWORD")

# Operations whose `cursor` must be one a previous page returned (docs/errors.md, invalid-cursor).
ISSUED_CURSOR = {("GET", "/seller/payouts"), ("GET", "/seller/transfers")}
# Body fields that take the id of one of the caller's finished uploads.
UPLOAD_FIELDS = {
    ("PATCH", "/user/account"): ("avatar", "cover"),
    ("POST", "/seller/listings/{id}/attachments"): ("imageId",),
    ("POST", "/seller/orders/{id}/shipments/{shipmentId}/attachments"): ("uploadId",),
    ("PATCH", "/conversations/{id}/messages/{messageId}/attachments"): ("id",),
}
ADDRESS_WITH_LOOKUP = {("POST", "/user/addresses"), ("PATCH", "/user/addresses/{id}")}

_issued_lock = threading.Lock()
_issued = {}


def _as_caller(method, path, **kwargs):
    headers = {"Authorization": AUTHORIZATION, **kwargs.pop("headers", {})}
    return requests.request(method, BASE_URL + path, headers=headers, timeout=30, **kwargs)


def _new_upload():
    """A new finished upload of the caller's, or the last one made when the upload quota or rate refuses."""
    created = _as_caller("POST", "/uploads")
    if created.status_code == 201:
        upload_id = created.json()["id"]
        stored = _as_caller("PUT", f"/uploads/{upload_id}", data=PNG_1X1, headers={"Content-Type": "image/png"})
        if stored.status_code == 200:
            with _issued_lock:
                _issued["upload"] = upload_id
            return upload_id
    with _issued_lock:
        return _issued.get("upload")


def _lookup_id():
    """An address id the lookup returned and the caller retrieved (once per run)."""
    with _issued_lock:
        if "lookup" in _issued:
            return _issued["lookup"]
        found = _as_caller("POST", "/user/addresses/lookup/find", json={"text": "mannerheimintie 1"})
        address = next((s for s in found.json() if s.get("type") == "Address"), None) if found.status_code == 200 else None
        if address and _as_caller("POST", "/user/addresses/lookup/retrieve", json={"id": address["id"]}).status_code == 200:
            _issued["lookup"] = address["id"]
        return _issued.get("lookup")


def _use_issued_values(case):
    """Puts values only the API can issue where a valid request carries them (module docstring)."""
    key = (case.method.upper(), case.operation.path)
    if key in ISSUED_CURSOR and isinstance(case.query, dict):
        case.query.pop("cursor", None)
    if BASE_URL is None:
        return
    if key in UPLOAD_FIELDS and isinstance(case.body, dict):
        for field in UPLOAD_FIELDS[key]:
            if case.body.get(field) is not None:
                upload_id = _new_upload()
                if upload_id:
                    case.body[field] = upload_id
    if key == ("PATCH", "/user/account") and isinstance(case.body, dict) and isinstance(case.body.get("password"), dict) and PASSWORD:
        case.body["password"] = {"current": PASSWORD, "new": PASSWORD}
    if key in ADDRESS_WITH_LOOKUP and isinstance(case.body, dict) and case.body.get("lookupId") is not None:
        case.body["lookupId"] = _lookup_id()
    if key == ("POST", "/user/addresses/lookup/retrieve") and isinstance(case.body, dict):
        lookup = _lookup_id()
        if lookup:
            case.body["id"] = lookup
    if case.operation.path == "/oauth/authorize" and OAUTH_CLIENT_ID:
        params = case.query if case.method.upper() == "GET" else case.body
        if isinstance(params, dict):
            params["client_id"] = OAUTH_CLIENT_ID
            if params.get("redirect_uri") is not None:
                params["redirect_uri"] = OAUTH_REDIRECT_URI


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
    _use_issued_values(case)
    # Sent in place of the generated bytes through the transport's `data`, not by editing
    # `case.body`: schemathesis judges an edited binary body as schema-invalid (it cannot validate
    # bytes) and would then expect the valid request to be refused.
    if case.operation.path == "/seller/imports" and case.method.upper() == "POST":
        kwargs["data"] = IMPORT_CSV.encode()
    if case.operation.path == "/uploads/{id}" and case.method.upper() == "PUT":
        kwargs["data"] = PNG_1X1
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
