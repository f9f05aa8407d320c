import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../app/ports.js';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Deal ids: `D` and 15 random alphanumerics (about 89 bits), URL-safe for `/deals/{deal}/events`. */
export const randomIds: IdGenerator = {
  dealId() {
    const bytes = randomBytes(15);
    let id = 'D';
    for (const byte of bytes) id += alphabet[byte % alphabet.length];
    return id;
  },
};
