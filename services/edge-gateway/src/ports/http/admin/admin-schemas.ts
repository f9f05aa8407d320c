import { Type } from '@sinclair/typebox';

/** Shapes the admin API's routes share (their OpenAPI document is built from them). */

/** The admin API's error body. */
export const AdminError = Type.Object({
  error: Type.Object({ code: Type.String(), message: Type.String() }),
});

/** An id in an admin path or query. */
export const AdminId = Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,200}$' });

/** An optional RFC 3339 timestamp. */
export const OptionalDateTime = Type.Optional(Type.String({ format: 'date-time' }));

/** The `offset` and `limit` of a list query, spread into its query schema. */
export const pagingQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
};

/** The `page` of a list answer. */
export const PageInfo = Type.Object({
  offset: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});
