import { AuthError } from './errors.js';

/** A fan account that signs in on the login page of `/oauth/authorize`. */
export interface Fan {
  id: string;
  /** Normalised (trimmed, lower-case): the login name. */
  email: string;
  /** argon2id. */
  passwordHash: string;
  createdAt: Date;
}

/** E-mail addresses compare case-insensitively for sign-in (one account per address). */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

/** local@label(.label)+, no empty label; unambiguous, so matching is linear in the length. */
const EMAIL = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;

export function validateNewFan(input: { email: string; password: string }): {
  email: string;
  password: string;
} {
  const email = normalizeEmail(input.email);
  if (email.length > 254 || !EMAIL.test(email)) {
    throw new AuthError('invalid_argument', 'email must be an e-mail address');
  }
  // NIST SP 800-63B section 5.1.1: at least 8 characters, long passphrases allowed.
  if (input.password.length < 8 || input.password.length > 256) {
    throw new AuthError('invalid_argument', 'password must be 8 to 256 characters');
  }
  return { email, password: input.password };
}
