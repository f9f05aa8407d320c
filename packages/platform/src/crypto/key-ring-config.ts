import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The keys of a comma-separated list of base64 keys, blanks around commas ignored. */
export function parseSecretBoxKeys(value: string): Buffer[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .map((part) => Buffer.from(part, 'base64'));
}

/**
 * The setting of a secret box's ring: base64 of 32 bytes, or several comma-separated, the first
 * sealing and the others only opening (a rotation). One key, as before rings, is a ring of one.
 * Messages never carry the value.
 */
export const secretBoxKeysSetting = z.string().superRefine((value, ctx) => {
  const parts = value.split(',').map((part) => part.trim());
  if (parts.some((part) => !BASE64.test(part) || Buffer.from(part, 'base64').length !== 32)) {
    ctx.addIssue({
      code: 'custom',
      message: 'must be the base64 of 32 bytes, or several comma-separated (the first seals)',
    });
    return;
  }
  if (new Set(parts.map((part) => Buffer.from(part, 'base64').toString('hex'))).size < parts.length)
    ctx.addIssue({ code: 'custom', message: 'lists the same key twice' });
});

/**
 * The configured ring (`secretBoxKeysSetting`), or one key generated for this process with a
 * warning when `configured` is unset (outside production: what it seals does not survive a
 * restart). `consequence` ends the warning.
 */
export function secretBoxKeys(
  configured: string | undefined,
  setting: { name: string; consequence: string },
  warn: (message: string) => void,
): Buffer[] {
  if (configured) return parseSecretBoxKeys(configured);
  warn(`${setting.name} is not set: ${setting.consequence}`);
  return [randomBytes(32)];
}
