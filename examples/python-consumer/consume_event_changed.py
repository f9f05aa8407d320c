#!/usr/bin/env python3
"""Reads Marquee's event-changed topic and prints each event's id, name and version.

    python consume_event_changed.py --brokers localhost:9092 [--group my-team.event-changed]
        [--topic event-changed] [--key EVENT_ID] [--max-records N] [--idle-timeout SECONDS] [--json]

Each record is checked against the topic's contract (docs/api/asyncapi.yaml): CloudEvents headers
in binary mode (ce_specversion 1.0, ce_id, ce_source, ce_type, ce_time; content-type
application/protobuf unless the record is a tombstone), ce_type marquee.catalog.v1.EventChanged,
and a value that decodes as that protobuf message. A tombstone (null value) means the event was
deleted. A record that breaks the contract is reported on stderr and skipped.

Offsets are committed only for records that were handled (at-least-once): run it again with the
same --group and it resumes where it stopped. Deduplicate on ce_id, or keep the highest
event.version per event id, since a record can be delivered twice.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from dataclasses import asdict, dataclass
from typing import Optional, Sequence, Tuple

HERE = pathlib.Path(__file__).resolve().parent
GENERATED = HERE / "gen"
if not (GENERATED / "marquee" / "catalog" / "v1" / "event_pb2.py").exists():
    sys.exit("consume_event_changed.py: run `python generate.py` first (protobuf classes in ./gen)")
sys.path.insert(0, str(GENERATED))

from google.protobuf.message import DecodeError  # noqa: E402

from marquee.catalog.v1.event_pb2 import EventChanged  # noqa: E402

EVENT_CHANGED_TYPE = "marquee.catalog.v1.EventChanged"
PROTOBUF_CONTENT_TYPE = "application/protobuf"
REQUIRED_HEADERS = ("ce_specversion", "ce_id", "ce_source", "ce_type", "ce_time")
# Preferred locales for the printed name; otherwise the first locale in alphabetical order.
NAME_LOCALES = ("en-us", "en")


class ContractError(ValueError):
    """A record that is not an event-changed record as the contract describes it."""


@dataclass
class EventChangedRecord:
    key: Optional[str]
    deleted: bool
    ce_id: str
    ce_source: str
    ce_time: str
    id: Optional[str] = None
    name: Optional[str] = None
    version: Optional[int] = None
    active: Optional[bool] = None
    test: Optional[bool] = None
    changed_at: Optional[str] = None


def cloud_event_headers(
    headers: Optional[Sequence[Tuple[str, Optional[bytes]]]], tombstone: bool
) -> dict:
    """The record's headers as strings, after checking the CloudEvents binary-mode contract."""
    values = {}
    for name, value in headers or ():
        values[name.lower()] = value.decode("utf-8") if value is not None else ""
    missing = [h for h in REQUIRED_HEADERS if not values.get(h)]
    if missing:
        raise ContractError(f"missing CloudEvents header(s): {', '.join(missing)}")
    if values["ce_specversion"] != "1.0":
        raise ContractError(f"ce_specversion is {values['ce_specversion']!r}, expected '1.0'")
    if values["ce_type"] != EVENT_CHANGED_TYPE:
        raise ContractError(f"ce_type is {values['ce_type']!r}, expected {EVENT_CHANGED_TYPE!r}")
    if not tombstone and values.get("content-type") != PROTOBUF_CONTENT_TYPE:
        raise ContractError(
            f"content-type is {values.get('content-type')!r}, expected {PROTOBUF_CONTENT_TYPE!r}"
        )
    return values


def pick_name(names) -> Optional[str]:
    """One name out of a marquee.common.v1.LocalizedString (a locale -> text map)."""
    for locale in NAME_LOCALES:
        if names.values.get(locale):
            return names.values[locale]
    for locale in sorted(names.values):
        return names.values[locale]
    return None


def decode_record(
    key: Optional[bytes],
    value: Optional[bytes],
    headers: Optional[Sequence[Tuple[str, Optional[bytes]]]],
) -> EventChangedRecord:
    """Checks and decodes one event-changed record (key, value and headers as the client gives them)."""
    tombstone = value is None
    ce = cloud_event_headers(headers, tombstone)
    text_key = key.decode("utf-8") if key is not None else None
    if tombstone:
        return EventChangedRecord(
            key=text_key,
            deleted=True,
            ce_id=ce["ce_id"],
            ce_source=ce["ce_source"],
            ce_time=ce["ce_time"],
            id=text_key,
        )
    try:
        message = EventChanged.FromString(value)
    except DecodeError as err:
        raise ContractError(f"value is not a {EVENT_CHANGED_TYPE}: {err}") from err
    if not message.HasField("event"):
        raise ContractError("EventChanged without an event")
    event = message.event
    if text_key is not None and event.id != text_key:
        raise ContractError(f"record key {text_key!r} is not the event id {event.id!r}")
    return EventChangedRecord(
        key=text_key,
        deleted=False,
        ce_id=ce["ce_id"],
        ce_source=ce["ce_source"],
        ce_time=ce["ce_time"],
        id=event.id,
        name=pick_name(event.names),
        version=event.version,
        active=event.active,
        test=event.test,
        changed_at=message.changed_at.ToJsonString() if message.HasField("changed_at") else None,
    )


def format_record(record: EventChangedRecord, as_json: bool) -> str:
    if as_json:
        return json.dumps({k: v for k, v in asdict(record).items() if v is not None})
    if record.deleted:
        return f"{record.key}  deleted  (ce_id {record.ce_id}, {record.ce_time})"
    return f"{record.id}  v{record.version}  {record.name or '(no name)'}  ({record.ce_source}, {record.ce_time})"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brokers", default=os.environ.get("KAFKA_BROKERS", "localhost:9092"))
    parser.add_argument("--topic", default="event-changed")
    parser.add_argument("--group", default="analytics-example.event-changed")
    parser.add_argument("--key", help="only print records of this event id")
    parser.add_argument("--max-records", type=int, help="stop after printing this many records")
    parser.add_argument(
        "--idle-timeout",
        type=float,
        help="stop when nothing arrives for this many seconds (default: run until Ctrl-C)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    args = parser.parse_args(argv)

    # Imported here so that the decoding functions above can be used (and tested) without it.
    from confluent_kafka import Consumer, KafkaException

    consumer = Consumer(
        {
            "bootstrap.servers": args.brokers,
            "group.id": args.group,
            "auto.offset.reset": "earliest",
            # Offsets are stored by hand once a record is handled, then committed in the background.
            "enable.auto.offset.store": False,
            "enable.auto.commit": True,
        }
    )
    consumer.subscribe([args.topic])
    printed = 0
    rejected = 0
    last_activity = time.monotonic()
    try:
        while args.max_records is None or printed < args.max_records:
            msg = consumer.poll(0.5)
            if msg is None:
                if (
                    args.idle_timeout is not None
                    and time.monotonic() - last_activity > args.idle_timeout
                ):
                    break
                continue
            last_activity = time.monotonic()
            if msg.error():
                raise KafkaException(msg.error())
            if args.key is None or (msg.key() or b"").decode("utf-8") == args.key:
                try:
                    record = decode_record(msg.key(), msg.value(), msg.headers())
                except ContractError as err:
                    rejected += 1
                    print(
                        f"skipped {msg.topic()}/{msg.partition()}@{msg.offset()}: {err}",
                        file=sys.stderr,
                    )
                else:
                    print(format_record(record, args.json), flush=True)
                    printed += 1
            consumer.store_offsets(message=msg)
    except KeyboardInterrupt:
        pass
    finally:
        consumer.close()  # commits the stored offsets
    if rejected:
        print(f"{rejected} record(s) did not match the contract", file=sys.stderr)
    if args.max_records is not None and printed < args.max_records:
        print(
            f"only {printed} of {args.max_records} record(s) before {args.idle_timeout}s of silence",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
