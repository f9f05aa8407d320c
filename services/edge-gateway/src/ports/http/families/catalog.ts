import { Type } from '@sinclair/typebox';
import type { ApiFamily, FamilyError } from './family.js';

/**
 * The API families of `{base_url}` and their error bodies (docs/api-families.md). Where an API
 * documents its error body it is followed exactly; where it documents none, the shape is the one
 * the established API of that family answers, and the choice is written in the edge-gateway README.
 */

const discoveryErrors = (e: FamilyError) =>
  e.status === 401
    ? // Discovery v2 answers a missing or invalid key with the fault body.
      { fault: { faultstring: e.detail, detail: { errorcode: e.code } } }
    : {
        errors: [
          {
            code: e.code,
            detail: e.detail,
            status: String(e.status),
            _links: { about: { href: `/discovery/v2/errors.html#${e.code}` } },
          },
        ],
      };

const DiscoveryFault = Type.Object(
  {
    fault: Type.Object({
      faultstring: Type.String(),
      detail: Type.Object({ errorcode: Type.String() }),
    }),
  },
  { title: 'DiscoveryFault' },
);
const DiscoveryErrors = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        code: Type.String({ description: 'e.g. DIS1004 (not found), DIS1015 (invalid parameter)' }),
        detail: Type.String(),
        status: Type.String({ description: 'The HTTP status, as a string' }),
        _links: Type.Object({
          about: Type.Object({
            href: Type.String({
              description: "The code's documentation (`errors.html`, by anchor)",
            }),
          }),
        }),
      }),
    ),
  },
  { title: 'DiscoveryErrors' },
);

export const discovery: ApiFamily = {
  id: 'discovery',
  title: 'Discovery v2',
  prefixes: ['/discovery/v2'],
  errorBody: discoveryErrors,
  errorSchema: (status) => (status === 401 ? DiscoveryFault : DiscoveryErrors),
  validationStatus: 400,
  unauthorized: { status: 401, code: 'oauth.v2.InvalidApiKey', detail: 'Invalid ApiKey' },
};

const IntlErrors = Type.Object(
  {
    errors: Type.Array(
      Type.Object({ code: Type.String(), message: Type.String(), status: Type.Integer() }),
    ),
  },
  { title: 'IntlDiscoveryErrors' },
);

export const internationalDiscovery: ApiFamily = {
  id: 'intl-discovery',
  title: 'International discovery',
  prefixes: ['/mfxapi/v2'],
  // No documented error body; the established API answers `{errors: [{code, message}]}`-style
  // bodies.
  errorBody: (e) => ({ errors: [{ code: e.code, message: e.detail, status: e.status }] }),
  errorSchema: () => IntlErrors,
  validationStatus: 400,
  unauthorized: {
    status: 401,
    code: 'unauthorized',
    detail: 'A valid apikey query parameter is required',
  },
};

const PublishingErrors = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        status: Type.Union([Type.Literal('Rejected'), Type.Literal('Error')], {
          description: '`Rejected` (400) or `Error`',
        }),
        code: Type.String(),
        detail: Type.String(),
        invalidProperties: Type.Record(Type.String(), Type.Unknown(), {
          description: 'Invalid properties by dotted path',
        }),
        missingProperties: Type.Record(Type.String(), Type.Unknown(), {
          description: 'Missing properties by dotted path',
        }),
      }),
    ),
  },
  { title: 'PublishingErrors' },
);

export const publishing: ApiFamily = {
  id: 'publishing',
  title: 'Publishing',
  prefixes: ['/publish'],
  // `errors[]` with status, code, detail, invalidProperties, missingProperties.
  errorBody: (e) => ({
    errors: [
      {
        status: e.status === 400 ? 'Rejected' : 'Error',
        code: e.code,
        detail: e.detail,
        invalidProperties: {},
        missingProperties: {},
      },
    ],
  }),
  errorSchema: () => PublishingErrors,
  validationStatus: 400,
  unauthorized: {
    status: 401,
    code: 'UNAUTHORIZED',
    detail: 'A valid apikey query parameter is required',
  },
};

export const deals: ApiFamily = {
  id: 'deals',
  title: 'Deals',
  prefixes: ['/dc/content/v1', '/dc/content-qa/v1'],
  // JSON `{message, statusCode}`; unacceptable parameters are 406.
  errorBody: (e) => ({ message: e.detail, statusCode: e.status }),
  errorSchema: () =>
    Type.Object({ message: Type.String(), statusCode: Type.Integer() }, { title: 'DealsError' }),
  validationStatus: 406,
  unauthorized: {
    status: 401,
    code: 'unauthorized',
    detail: 'Unauthorized: the apikey parameter is missing or invalid',
  },
};

export const commerce: ApiFamily = {
  id: 'commerce',
  title: 'Commerce',
  prefixes: ['/commerce/v2'],
  // A payment awaiting 3-D Secure: the action in the error object's `meta` (JSON:API's member for
  // what the spec does not name).
  errorBody: (e) => ({
    errors: [
      {
        code: e.code,
        detail: e.detail,
        status: String(e.status),
        ...(e.paymentAction ? { meta: { payment_action: e.paymentAction } } : {}),
      },
    ],
  }),
  errorSchema: () =>
    Type.Object(
      {
        errors: Type.Array(
          Type.Object({
            code: Type.String(),
            detail: Type.String(),
            status: Type.String({ description: 'The HTTP status, as a string' }),
          }),
        ),
      },
      { title: 'CommerceErrors' },
    ),
  validationStatus: 400,
  unauthorized: { status: 401, code: 'unauthorized', detail: 'A valid API key is required' },
};

/** The partner cart API's body: `{"error": {"message", "code", "http_code", "severity"}}`. */
const partnerErrors = (e: FamilyError) => ({
  error: {
    message: e.detail,
    code: e.code,
    http_code: e.status,
    severity: e.status >= 500 ? 'ERROR' : 'WARN',
    ...(e.paymentAction ? { payment_action: e.paymentAction } : {}),
  },
});

/** The schema of {@link partnerErrors}. */
export const PartnerErrorSchema = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      code: Type.String({ description: 'Partner API error code (e.g. 10002 invalid input)' }),
      http_code: Type.Integer(),
      severity: Type.Union([Type.Literal('WARN'), Type.Literal('ERROR')], {
        description: 'WARN for 4xx, ERROR for 5xx',
      }),
    }),
  },
  { title: 'PartnerError' },
);

export const partnerCart: ApiFamily = {
  id: 'partner-cart',
  title: 'Partner cart',
  prefixes: ['/partners/v1', '/partners-preprod/v1'],
  errorBody: partnerErrors,
  errorSchema: () => PartnerErrorSchema,
  validationStatus: 400,
  unauthorized: {
    status: 401,
    code: '10001',
    detail: 'A valid API key is required (apikey or x-api-key)',
  },
  invalidRequestCode: '10002',
};

export const topPicks: ApiFamily = {
  id: 'top-picks',
  title: 'Top picks',
  prefixes: ['/top-picks/v1'],
  errorBody: partnerErrors,
  errorSchema: () => PartnerErrorSchema,
  validationStatus: 400,
  unauthorized: partnerCart.unauthorized,
  invalidRequestCode: '10002',
};

export const secureRender: ApiFamily = {
  id: 'secure-render',
  title: 'Secure render',
  prefixes: ['/marketplace/v1', '/marketplace-staging/v1'],
  errorBody: partnerErrors,
  errorSchema: () => PartnerErrorSchema,
  validationStatus: 400,
  unauthorized: partnerCart.unauthorized,
  invalidRequestCode: '10002',
};

/** The gate and admin APIs' body: `{"error": {"code", "message"}}`. */
const CodeMessageError = Type.Object(
  { error: Type.Object({ code: Type.String(), message: Type.String() }) },
  { title: 'CodeMessageError' },
);

/** A family answering `{error: {code, message}}`, 400 to bad input, 401 without its bearer `token`. */
const codeMessageFamily = (
  id: string,
  title: string,
  prefix: string,
  token: string,
): ApiFamily => ({
  id,
  title,
  prefixes: [prefix],
  errorBody: (e) => ({ error: { code: e.code, message: e.detail } }),
  errorSchema: () => CodeMessageError,
  validationStatus: 400,
  unauthorized: {
    status: 401,
    code: 'unauthenticated',
    detail: `Authorization: Bearer <${token}> is required`,
  },
});

/**
 * The gate API of scanners (`/gate/v1`): `{error: {code, message}}` like the admin API, and its own
 * credential, a gate's bearer token (secure-entry README, "Gate API").
 */
export const gate: ApiFamily = codeMessageFamily('gate', 'Gate', '/gate/v1', 'gate token');

/** Operators' admin API: `{error: {code, message}}`. */
export const admin: ApiFamily = codeMessageFamily('admin', 'Admin', '/admin/v1', 'admin token');

export const allFamilies: readonly ApiFamily[] = [
  discovery,
  internationalDiscovery,
  publishing,
  deals,
  commerce,
  partnerCart,
  topPicks,
  secureRender,
  gate,
  admin,
];
