import type { TSchema } from '@sinclair/typebox';

/**
 * Rules between query parameters. OpenAPI describes each parameter on its own, and a query's
 * parameters are not one JSON object its schema could constrain (`dependentRequired`, `if`/`then`
 * have nothing to apply to), so a rule such as "`radius` needs `latlong`" has no place in a
 * parameter's schema. The edge enforces these rules in the handler, after the schema, and refuses
 * a request breaking one with the family's validation error. Each rule is stated twice on the
 * parameter it constrains: in words in its `description`, and as data in the parameter's
 * `x-dependencies` extension (a list of {@link ParameterDependency}), so that a client or a test
 * generator can read it. `completeDocument` (openapi-contract.ts) moves the extension from the
 * parameter's schema, where a route declares it, to the parameter object.
 */
export const DEPENDENCIES = 'x-dependencies';

/** One rule on a query parameter, and the status of a request breaking it. */
export type ParameterDependency = { status: number } & (
  | {
      /**
       * When this parameter is given (and, if `value` is stated, has that value), each parameter of
       * `requires` is given too.
       */
      requires: string[];
      value?: string;
    }
  | {
      /** When both are given, this parameter's instant is not before the instant of `notBefore`. */
      notBefore: string;
    }
  | {
      /** When both are given, this parameter's number is not above the number of `notAbove`. */
      notAbove: string;
    }
  | {
      /**
       * This parameter times `productWith` is less than `lessThan`, each at its default
       * (`defaults`) when absent.
       */
      productWith: string;
      lessThan: number;
      defaults: Record<string, number>;
    }
);

/**
 * `schema` with the rules it takes part in: `description` says them in words (it replaces the
 * schema's own, so it should say what the parameter is too), `dependencies` as data.
 */
export function dependent<T extends TSchema>(
  schema: T,
  description: string,
  dependencies: ParameterDependency[],
): T {
  return { ...schema, description, [DEPENDENCIES]: dependencies };
}
