import { describe, expect, it } from 'vitest';
import { indexSpecs, OUTBOX_INDEX } from '../../src/store/mongo/indexes.js';

interface Ticket {
  id: string;
  version: number;
  code: string;
  eventId: string;
  dueAt: Date;
}

const indexes = [
  { fields: { code: 1 as const }, unique: true, name: 'code_unique' },
  { fields: { eventId: 1 as const, dueAt: -1 as const } },
  { fields: { dueAt: 1 as const }, due: true },
  { fields: { id: 1 as const } },
];

describe('indexSpecs', () => {
  it('builds the outbox index and every secondary index on their stored paths for MongoDB', () => {
    expect(indexSpecs<Ticket>(indexes, 'mongodb')).toEqual([
      { key: { outboxPending: 1, outboxDueAt: 1 }, name: OUTBOX_INDEX },
      { key: { 'data.code': 1 }, name: 'code_unique', unique: true },
      { key: { 'data.eventId': 1, 'data.dueAt': -1 } },
      { key: { 'data.dueAt': 1 } },
    ]);
  });

  it('builds only the unique indexes for FerretDB, which reads no secondary index', () => {
    expect(indexSpecs<Ticket>(indexes, 'ferretdb')).toEqual([
      { key: { 'data.code': 1 }, name: 'code_unique', unique: true },
    ]);
    expect(indexSpecs<Ticket>([], 'ferretdb')).toEqual([]);
  });
});
