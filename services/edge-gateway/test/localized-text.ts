/** A LocalizedString in `en-us`, plus any other locales given: discovery test data. */
export const text = (en: string, others: Record<string, string> = {}) => ({
  values: { 'en-us': en, ...others },
});
