import { Type, type StringOptions, type TString } from '@sinclair/typebox';
import { CURRENCY_CODES } from '@marquee/platform/money';

/**
 * An ISO 4217 currency code with a minor unit, upper case (`EUR`, `JPY`, `KWD`): the codes an
 * amount can be kept in (`@marquee/platform/money`). Listed as an `enum`, so the document says
 * which codes are accepted and a schema-valid request is never refused for its currency. Titled,
 * so the OpenAPI document lists the codes once (`components/schemas/CurrencyCode`) and each use
 * refers to it; options other than `description` make another shape, which needs another title.
 */
export const CurrencyCode = (options: StringOptions = {}): TString =>
  Type.String({
    title: 'CurrencyCode',
    ...options,
    enum: [...CURRENCY_CODES],
    description: options.description ?? 'ISO 4217 currency code with a minor unit',
  } as StringOptions);

/**
 * {@link CurrencyCode} in either case (`USD` or `usd`), for APIs that have always taken both
 * (`components/schemas/CurrencyCodeAnyCase`).
 */
export const CurrencyCodeAnyCase = (options: StringOptions = {}): TString =>
  Type.String({
    title: 'CurrencyCodeAnyCase',
    ...options,
    enum: [...CURRENCY_CODES, ...CURRENCY_CODES.map((code) => code.toLowerCase())],
    description:
      options.description ?? 'ISO 4217 currency code with a minor unit, upper or lower case',
  } as StringOptions);
