import { Type } from '@sinclair/typebox';

/**
 * What the client does next to finish a payment the card issuer wants authenticated (3-D Secure):
 * cart's payment step answers it in the error's details (`payment_action`) with code 20122, and
 * the partner cart and commerce error bodies carry it (docs/payments.md, "3-D Secure").
 */
export interface PaymentAction {
  /** Stripe's next action, e.g. `use_stripe_sdk` (Stripe.js `handleNextAction`) or `redirect_to_url`. */
  type: string;
  /** The processor's payment id (`pi_...`). */
  payment_id: string;
  /** For Stripe.js in the cardholder's browser only: finishes or reads this one payment. */
  client_secret: string;
  /** Where to send the cardholder, for a `redirect_to_url` action. */
  redirect_url?: string;
}

const text = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const PaymentActionSchema = Type.Object(
  {
    type: text(
      'The next action: `use_stripe_sdk` (run Stripe.js `handleNextAction`) or `redirect_to_url`',
    ),
    payment_id: text('The payment (Stripe PaymentIntent `pi_...`) awaiting authentication'),
    client_secret: text(
      'Pass to Stripe.js in the cardholder’s browser (`handleNextAction({ clientSecret })`); never store or log it',
    ),
    redirect_url: Type.Optional(text('For `redirect_to_url`: where to send the cardholder')),
  },
  {
    description:
      'Only with code 20122 when the card issuer asks the cardholder to authenticate (3-D Secure): run the action with Stripe.js, then send the same payment again. The cart stays held and unpaid meanwhile.',
  },
);

const isText = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= 2048;

/** The payment action in a back end's error details, when there is a well-formed one. */
export function paymentActionOf(details: unknown): PaymentAction | undefined {
  const action = (details as { payment_action?: unknown } | undefined)?.payment_action;
  if (typeof action !== 'object' || action === null) return undefined;
  const { type, payment_id, client_secret, redirect_url } = action as Record<string, unknown>;
  if (!isText(type) || !isText(payment_id) || !isText(client_secret)) return undefined;
  return {
    type,
    payment_id,
    client_secret,
    ...(isText(redirect_url) ? { redirect_url } : {}),
  };
}
