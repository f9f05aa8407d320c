// Minimal types of the two untyped benchmark dependencies, for what oauth.bench.ts uses.
declare module 'autocannon' {
  interface Histogram {
    average: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Per-request setup, in turn; `setupRequest` may change the request (its path). */
    requests?: Array<{ setupRequest?: (request: { path: string }) => { path: string } }>;
  }
  export default function autocannon(options: Options): Promise<Result>;
}

declare module 'oidc-provider' {
  type Saved = Promise<string>;
  interface TokenInit {
    accountId: string;
    client: unknown;
    grantId: string;
    gty: string;
    scope: string;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: unknown, res: unknown) => void;
    Client: { find(id: string): Promise<unknown> };
    Grant: new (init: { accountId: string; clientId: string }) => {
      addOIDCScope(scope: string): void;
      save(): Saved;
    };
    AccessToken: new (init: TokenInit) => { save(): Saved };
    RefreshToken: new (init: TokenInit) => { save(): Saved };
  }
}
