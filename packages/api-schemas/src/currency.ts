import { Type, type StringOptions, type TString } from '@sinclair/typebox';
import { CURRENCY_CODES } from '@marquee/platform/money';

/**
 * An ISO 4217 currency code with a minor unit, upper case (`EUR`, `JPY`, `KWD`): the codes an
 * amount can be kept in (`@marquee/platform/money`). Listed as an `enum`, so the document says
 * which codes are accepted and a schema-valid request is never refused for its currency.
 */
export const CurrencyCode = (options: StringOptions = {}): TString =>
  Type.String({
    ...options,
    enum: [...CURRENCY_CODES],
    description: options.description ?? 'ISO 4217 currency code with a minor unit',
  } as StringOptions);

/**
 * {@link CurrencyCode} in either case (`USD` or `usd`), for APIs that have always taken both.
 */
export const CurrencyCodeAnyCase = (options: StringOptions = {}): TString =>
  Type.String({
    ...options,
    enum: [...CURRENCY_CODES, ...CURRENCY_CODES.map((code) => code.toLowerCase())],
    description:
      options.description ?? 'ISO 4217 currency code with a minor unit, upper or lower case',
  } as StringOptions);
