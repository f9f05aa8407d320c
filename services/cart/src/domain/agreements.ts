/** An agreement shown with a cart. */
export interface Agreement {
  name: string;
  locale: string;
  text: string;
  type: 'boolean' | 'acknowledgement';
  agreementUrl: string;
}

/**
 * Every cart carries the terms of use (a `boolean` the buyer accepts); carts of secure-entry events
 * also carry an `acknowledgement` that tickets are delivered to a phone as rotating barcodes, with
 * a link to the full text.
 */
export function agreementsFor(input: {
  language: string;
  secureEntry: boolean;
  termsUrl: string;
  secureEntryUrl: string;
}): Agreement[] {
  const agreements: Agreement[] = [
    {
      name: 'terms_of_use',
      locale: input.language,
      text: 'I accept the terms of use and the purchase policy.',
      type: 'boolean',
      agreementUrl: input.termsUrl,
    },
  ];
  if (input.secureEntry)
    agreements.push({
      name: 'secure_entry',
      locale: input.language,
      text: 'Tickets for this event are mobile only: they are shown as rotating barcodes in the app and cannot be printed or screenshotted.',
      type: 'acknowledgement',
      agreementUrl: input.secureEntryUrl,
    });
  return agreements;
}
