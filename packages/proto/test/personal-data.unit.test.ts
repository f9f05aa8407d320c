import { readFileSync, readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OrderConfirmed } from '../src/gen/marquee/cart/v1/order.js';
import {
  DEVELOPMENT_CONTACT_KEYS,
  openOrderContact,
  parseContactKeys,
  sealOrderContact,
} from '../src/order-contact.js';
import { allTopics } from '../src/topics.js';

// docs/security.md, "Personal data": no record a topic's analytics reader can see holds personal
// data in clear. Checked over the contract itself: every field an analytics-readable topic's
// message can carry, nested messages included, read from proto/.

const protoRoot = new URL('../../../proto/', import.meta.url);

/** Field names that hold personal data wherever they appear. */
const PERSONAL = /e_?mail|third_party_account|fan_id|user_id|phone|first_name|last_name|birth/i;

interface Field {
  name: string;
  type: string;
  /** `[deprecated = true]`: kept for older decoders. */
  deprecated: boolean;
}

/** Every message of proto/ by simple name, with its fields (oneof members included). */
function protoMessages(): Map<string, Field[]> {
  const messages = new Map<string, Field[]>();
  const files: string[] = [];
  const walk = (dir: URL) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const url = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
      if (entry.isDirectory()) walk(url);
      else if (entry.name.endsWith('.proto')) files.push(readFileSync(url, 'utf8'));
    }
  };
  walk(protoRoot);
  for (const text of files) {
    // The open blocks: a message (collecting its fields) or a oneof, enum or service.
    const stack: ({ name: string; fields: Field[] } | undefined)[] = [];
    for (const line of text.replace(/\/\/.*$/gm, '').split('\n')) {
      const open = /^\s*(message|oneof|enum|service)\s+(\w+)\s*\{/.exec(line);
      const field = /^\s*(?:repeated\s+|optional\s+)?(map<[^>]+>|[\w.]+)\s+(\w+)\s*=\s*\d+/.exec(
        line,
      );
      if (open) stack.push(open[1] === 'message' ? { name: open[2]!, fields: [] } : undefined);
      else if (field && !/^\s*(reserved|option)\b/.test(line)) {
        const owner = stack.findLast((block) => block !== undefined);
        owner?.fields.push({
          type: field[1]!,
          name: field[2]!,
          deprecated: /\[\s*deprecated\s*=\s*true\s*\]/.test(line),
        });
      }
      const closes =
        (line.match(/\}/g) ?? []).length - (open ? 0 : (line.match(/\{/g) ?? []).length);
      for (let i = 0; i < closes; i += 1) {
        const done = stack.pop();
        if (done) messages.set(done.name, done.fields);
      }
    }
  }
  return messages;
}

/** Every field reachable from `type` as its dotted path, nested messages included. */
function reachable(
  messages: Map<string, Field[]>,
  type: string,
  prefix = '',
  seen = new Set<string>(),
): { path: string; deprecated: boolean }[] {
  const simple = type.split('.').at(-1)!;
  const fields = messages.get(simple);
  if (!fields || seen.has(simple)) return [];
  const next = new Set(seen).add(simple);
  return fields.flatMap((f) => [
    { path: `${prefix}${f.name}`, deprecated: f.deprecated },
    ...reachable(messages, f.type, `${prefix}${f.name}.`, next),
  ]);
}

const isPersonal = (field: { path: string }) => PERSONAL.test(field.path.split('.').at(-1)!);

describe('personal data on topics', () => {
  const messages = protoMessages();

  it('reads the contract: the order-confirmed message and its nested fields are found', () => {
    const paths = reachable(messages, 'marquee.cart.v1.OrderConfirmed').map((f) => f.path);
    expect(paths).toContain('order_token_sha256');
    expect(paths).toContain('tickets.item.unit_price.currency');
    expect(paths).toContain('sealed_contact');
    // The negative control: the contact message itself names the personal fields.
    expect(reachable(messages, 'OrderContact').filter(isPersonal)).toHaveLength(3);
  });

  it.each(allTopics.filter((t) => t.analyticsReadable).map((t) => [t.name, t] as const))(
    '%s, readable by analytics, holds no personal field in clear',
    (_name, topic) => {
      const personal = reachable(messages, topic.type).filter(isPersonal);
      // Only deprecated fields, kept for older decoders and declared retired (sent empty: the
      // record tests of cart check it), may bear a personal name.
      expect(personal.filter((f) => !f.deprecated).map((f) => f.path)).toEqual([]);
      const retired = topic.personalData.filter((f) => f.form === 'retired').map((f) => f.field);
      expect(retired.sort()).toEqual(personal.map((f) => f.path).sort());
      for (const field of topic.personalData) expect(field.form).not.toBe('clear');
    },
  );

  it('marks every topic that carries personal data, and keeps clear ones from analytics', () => {
    for (const topic of allTopics) {
      const personal = reachable(messages, topic.type)
        .filter(isPersonal)
        .map((f) => f.path);
      const declared = topic.personalData.map((f) => f.field);
      expect(declared, topic.name).toEqual(expect.arrayContaining(personal));
      if (topic.personalData.some((f) => f.form === 'clear'))
        expect(topic.analyticsReadable, topic.name).toBe(false);
    }
  });
});

describe('sealed order contact', () => {
  const contact = {
    customerEmail: 'ada@example.com',
    thirdPartyAccountId: 'partner-user-1',
    fanId: 'fan-7',
  };
  const ring = parseContactKeys(
    `k2:${randomBytes(32).toString('base64')},k1:${randomBytes(32).toString('base64')}`,
  );

  it('opens for the same order with any key of the ring, and hides the e-mail', () => {
    const sealed = sealOrderContact(contact, 'ord-1', ring);
    expect(Buffer.from(sealed).includes('ada@example.com')).toBe(false);
    expect(openOrderContact(sealed, 'ord-1', ring)).toEqual(contact);
    // Rotation: sealed with k2, opened by a ring where k2 is no longer first.
    expect(openOrderContact(sealed, 'ord-1', [ring[1]!, ring[0]!])).toEqual(contact);
    const record = OrderConfirmed.encode(
      OrderConfirmed.fromPartial({ orderId: 'ord-1', sealedContact: sealed }),
    ).finish();
    expect(Buffer.from(record).includes('ada@example.com')).toBe(false);
  });

  it('refuses another order, an unknown key and altered bytes; nothing sealed is nothing', () => {
    const sealed = sealOrderContact(contact, 'ord-1', ring);
    expect(() => openOrderContact(sealed, 'ord-2', ring)).toThrow(/does not open/);
    expect(() => openOrderContact(sealed, 'ord-1', DEVELOPMENT_CONTACT_KEYS)).toThrow(/no key/);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => openOrderContact(altered, 'ord-1', ring)).toThrow(/does not open/);
    expect(openOrderContact(new Uint8Array(), 'ord-1', ring)).toBeUndefined();
  });

  it('refuses a malformed ring without quoting it', () => {
    for (const text of ['k1:short', 'nokey', `a:${'A'.repeat(44)},a:${'A'.repeat(44)}`]) {
      expect(() => parseContactKeys(text)).toThrow(/contact key/);
    }
  });
});
