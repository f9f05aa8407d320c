"""Unit tests of the record checks and decoding (no Kafka): python -m unittest -v"""

import unittest

from consume_event_changed import ContractError, decode_record, pick_name
from marquee.catalog.v1.event_pb2 import EventChanged


def headers(**overrides):
    base = {
        "ce_specversion": "1.0",
        "ce_id": "3f1c2a9e-0000-4000-8000-000000000001",
        "ce_source": "marquee/publisher",
        "ce_type": "marquee.catalog.v1.EventChanged",
        "ce_time": "2026-01-02T03:04:05.000Z",
        "content-type": "application/protobuf",
    }
    base.update(overrides)
    return [(k, v.encode()) for k, v in base.items() if v is not None]


def event_bytes(event_id="G5vYZ4F1xKq0aBc", version=3):
    message = EventChanged()
    message.event.id = event_id
    message.event.version = version
    message.event.names.values["fr-fr"] = "Concert"
    message.event.names.values["en-us"] = "Concert night"
    message.changed_at.FromJsonString("2026-01-02T03:04:05Z")
    return message.SerializeToString()


class DecodeRecordTest(unittest.TestCase):
    def test_decodes_an_event_changed_record(self):
        record = decode_record(b"G5vYZ4F1xKq0aBc", event_bytes(), headers())
        self.assertFalse(record.deleted)
        self.assertEqual(record.id, "G5vYZ4F1xKq0aBc")
        self.assertEqual(record.version, 3)
        self.assertEqual(record.name, "Concert night")
        self.assertEqual(record.ce_source, "marquee/publisher")
        self.assertEqual(record.changed_at, "2026-01-02T03:04:05Z")

    def test_a_tombstone_is_a_deletion_and_needs_no_content_type(self):
        record = decode_record(b"G5vYZ4F1xKq0aBc", None, headers(**{"content-type": None}))
        self.assertTrue(record.deleted)
        self.assertEqual(record.id, "G5vYZ4F1xKq0aBc")
        self.assertIsNone(record.version)

    def test_rejects_records_without_the_cloudevents_headers(self):
        with self.assertRaisesRegex(ContractError, "ce_id"):
            decode_record(b"k", event_bytes("k"), headers(ce_id=None))
        with self.assertRaisesRegex(ContractError, "ce_specversion"):
            decode_record(b"k", event_bytes("k"), headers(ce_specversion="0.3"))

    def test_rejects_another_message_type(self):
        with self.assertRaisesRegex(ContractError, "ce_type"):
            decode_record(b"k", event_bytes("k"), headers(ce_type="marquee.deals.v1.DealChanged"))

    def test_rejects_a_value_without_the_protobuf_content_type(self):
        with self.assertRaisesRegex(ContractError, "content-type"):
            decode_record(b"k", event_bytes("k"), headers(**{"content-type": "application/json"}))

    def test_rejects_a_value_that_is_not_protobuf(self):
        with self.assertRaisesRegex(ContractError, "not a marquee.catalog.v1.EventChanged"):
            decode_record(b"k", b"\xff\xff\xff", headers())

    def test_rejects_a_key_that_is_not_the_event_id(self):
        with self.assertRaisesRegex(ContractError, "not the event id"):
            decode_record(b"other", event_bytes("G5vYZ4F1xKq0aBc"), headers())


class PickNameTest(unittest.TestCase):
    def test_prefers_english_then_the_first_locale(self):
        message = EventChanged()
        self.assertIsNone(pick_name(message.event.names))
        message.event.names.values["fr-fr"] = "Soirée"
        message.event.names.values["de-de"] = "Abend"
        self.assertEqual(pick_name(message.event.names), "Abend")
        message.event.names.values["en"] = "Evening"
        self.assertEqual(pick_name(message.event.names), "Evening")


if __name__ == "__main__":
    unittest.main()
