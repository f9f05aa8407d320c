"""Schemathesis hooks of the contract step (README.md of this directory says why each exists).

OpenAPI states each parameter on its own: a rule between two parameters (latitude needs longitude,
a range's start before its end, a cart id in the query or in the body) has no place in its schema.
The edge refuses a request breaking one with a 400 (406 for deals) in the family's body. Rules
between query parameters are in the document, on the parameter they constrain: in its description
and as data in its `x-dependencies` extension (the edge's parameter-dependencies.ts says what each
kind of rule means), which this file reads, so the document is their one source. Rules that involve
a body (the partner cart's) are in the operations' descriptions and written out here. Either way,
they keep generated requests that schemathesis means to be valid (positive cases) from breaking
them; negative cases are left alone.

Prototype poisoning: the JSON parser refuses a body with a `__proto__` key, or a `constructor` key
holding `prototype`, at any depth (400; the document says so). Open objects (a publication's
unknown properties) let the generator write such keys; positive cases with one are left out.

Opaque values: a publishing `cursor` is valid only as the API answered it (the document says so);
a positive case never invents one. A time-zone name is valid when the runtime knows it, which no
schema can list; a generated `dates.timezone` of a positive case becomes a real one.

Idempotency keys: a key names one request. The generator repeats short values ("0"), so two
different bodies would share a key, which the API refuses (422) by design; a valid key of a
generated request is replaced by a fresh one, which keeps it valid.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation

import schemathesis
from schemathesis import GenerationMode

# ISO 4217 exponents other than 2 (services/edge-gateway/src/app/partner-cart.ts).
EXPONENTS = {
    "BHD": 3, "BIF": 0, "CLF": 4, "CLP": 0, "DJF": 0, "GNF": 0, "IQD": 3, "ISK": 0, "JOD": 3,
    "JPY": 0, "KMF": 0, "KRW": 0, "KWD": 3, "LYD": 3, "OMR": 3, "PYG": 0, "RWF": 0, "TND": 3,
    "UGX": 0, "UYI": 0, "UYW": 4, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
}

IDEMPOTENCY_KEY = re.compile(r"^[\x20-\x7e]{1,255}$")


def _positive(case) -> bool:
    meta = case.meta
    return meta is None or meta.generation.mode == GenerationMode.POSITIVE


def _given(value) -> bool:
    """A query value the edge reads as given (empty text is absent)."""
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip() != ""
    if isinstance(value, list):
        return any(_given(v) for v in value)
    return True


def _first(value):
    return value[0] if isinstance(value, list) and value else value


def _number(value, default: float) -> float:
    try:
        return float(_first(value))
    except (TypeError, ValueError):
        return default


def _instant(text) -> datetime | None:
    """An ISO 8601 date or date-time as JavaScript's Date reads it (UTC without a zone)."""
    if not isinstance(text, str):
        return None
    m = re.match(
        r"^\s*(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?"
        r"(Z|[+-]\d{2}:?\d{2})?)?\s*$",
        text,
    )
    if not m:
        return None
    year, month, day, hour, minute, second = (int(g or 0) for g in m.groups()[:6])
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    # Date rolls the 31st of a 30-day month over, as the edge does.
    value = datetime(year or 1, month, 1, tzinfo=timezone.utc) + timedelta(
        days=day - 1, hours=hour, minutes=minute, seconds=second
    )
    zone = m.group(8)
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        value -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    return value


def _before(start, end) -> bool:
    """True when both are instants and end comes before start."""
    a, b = _instant(_first(start)), _instant(_first(end))
    return a is not None and b is not None and b < a


def _decimals(value) -> int:
    try:
        exponent = Decimal(str(value)).normalize().as_tuple().exponent
    except InvalidOperation:
        return 0
    return max(0, -exponent) if isinstance(exponent, int) else 0


# Each rule: (path pattern, method, predicate over the case that is True when the rule holds).


def _parameters(case) -> list:
    raw = getattr(getattr(case.operation, "definition", None), "raw", None)
    return raw.get("parameters", []) if isinstance(raw, dict) else []


def _dependency_holds(query: dict, name: str, rule: dict) -> bool:
    """One `x-dependencies` rule of the query parameter `name` (the edge's parameter-dependencies.ts)."""
    value = query.get(name)
    if "requires" in rule:
        if not _given(value):
            return True
        if "value" in rule and _first(value) != rule["value"]:
            return True
        return all(_given(query.get(other)) for other in rule["requires"])
    if "notBefore" in rule:
        return not _before(query.get(rule["notBefore"]), value)
    if "notAbove" in rule:
        other = query.get(rule["notAbove"])
        if not _given(value) or not _given(other):
            return True
        return _number(value, 0) <= _number(other, 0)
    if "productWith" in rule:
        defaults = rule.get("defaults", {})
        other = rule["productWith"]
        product = _number(value, defaults.get(name, 0)) * _number(
            query.get(other), defaults.get(other, 0)
        )
        return product < rule["lessThan"]
    # A kind of rule this file does not know: say so rather than guess.
    raise ValueError(f"unknown x-dependencies rule on {name}: {rule}")


def _query_dependencies(case) -> bool:
    """Every rule between query parameters the document states (`x-dependencies`) holds."""
    query = case.query or {}
    for parameter in _parameters(case):
        if not isinstance(parameter, dict) or parameter.get("in") != "query":
            continue
        for rule in parameter.get("x-dependencies") or []:
            if not _dependency_holds(query, parameter["name"], rule):
                return False
    return True


def _cart_id(body_field: str):
    def rule(case) -> bool:
        body = case.body if isinstance(case.body, dict) else {}
        in_body, in_query = body.get(body_field), (case.query or {}).get("cart_id")
        if not in_body and not in_query:
            return False
        return not (in_body and in_query and in_body != in_query)

    return rule


def _reserve(case) -> bool:
    body = case.body if isinstance(case.body, dict) else {}
    reserves = [body.get("reserve")] + list(body.get("additional_reserves") or [])
    for reserve in reserves:
        if not isinstance(reserve, dict):
            continue
        begin, end = reserve.get("begin_seat"), reserve.get("end_seat")
        if isinstance(begin, int) and isinstance(end, int) and end < begin:
            return False
        for ticket in reserve.get("tickets") or []:
            amount = (ticket.get("price") or {}).get("amount") if isinstance(ticket, dict) else None
            # The event's currency decides; the demo events are in 2-decimal currencies.
            if amount is not None and _decimals(amount) > 2:
                return False
    return True


def _payment(case) -> bool:
    if not _cart_id("cartId")(case):
        return False
    payment = (case.body or {}).get("payment") if isinstance(case.body, dict) else None
    if not isinstance(payment, dict):
        return True
    currency = str(payment.get("currency", "")).upper()
    # The decimals as written: "1.0" has one, which a 0-decimal currency refuses.
    fraction = str(payment.get("amount", "")).partition(".")[2]
    if len(fraction) > EXPONENTS.get(currency, 2):
        return False
    return not (str(payment.get("type", "")).upper() == "CC" and "card" not in payment)


def _poisoned(value) -> bool:
    """A `__proto__` key, or a `constructor` key holding `prototype`, at any depth."""
    if isinstance(value, list):
        return any(_poisoned(item) for item in value)
    if not isinstance(value, dict):
        return False
    if "__proto__" in value:
        return True
    constructor = value.get("constructor")
    if isinstance(constructor, dict) and "prototype" in constructor:
        return True
    return any(_poisoned(item) for item in value.values())


def _no_invented_cursor(case) -> bool:
    return "cursor" not in (case.query or {})


RULES = [
    (r"^/publish(/\{version\})?/events$", "GET", _no_invented_cursor),
    (r"^/partners(-preprod)?/v1/events/\{event_id\}/cart$", "POST", _reserve),
    (r"^/partners(-preprod)?/v1/events/\{event_id\}/cart(/shipping)?$", "PUT", _cart_id("cart_id")),
    (r"^/partners(-preprod)?/v1/events/\{event_id\}/cart/payment$", "PUT", _payment),
]


@schemathesis.hook
def filter_case(context, case) -> bool:
    if not _positive(case):
        return True
    if _poisoned(case.body):
        return False
    if not _query_dependencies(case):
        return False
    path, method = case.operation.path, case.operation.method.upper()
    return all(rule(case) for pattern, m, rule in RULES if m == method and re.match(pattern, path))


PUBLISH = re.compile(r"^/publish(/\{version\})?/events(/\{id\})?$")


@schemathesis.hook
def map_case(context, case):
    if _positive(case) and PUBLISH.match(case.operation.path) and isinstance(case.body, dict):
        dates = case.body.get("dates")
        if isinstance(dates, dict) and isinstance(dates.get("timezone"), str):
            dates["timezone"] = "Europe/Amsterdam"
    headers = case.headers
    if headers:
        for name in list(headers.keys()):
            if name.lower() == "idempotency-key" and isinstance(headers[name], str):
                if IDEMPOTENCY_KEY.match(headers[name]):
                    headers[name] = str(uuid.uuid4())
    return case
