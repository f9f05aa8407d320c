/**
 * What the edge needs from the services behind it. Declared here, by the layer that uses them;
 * implemented by gRPC clients in adapters/ (and by fakes in unit tests).
 */

export interface NewApp {
  name: string;
  redirectUris: string[];
}

export interface AppCredentials {
  apiKey: string;
  clientId: string;
  /** Shown once, at creation; auth-gateway keeps only its hash. */
  clientSecret: string;
}

export interface DeveloperAccess {
  createApp(input: NewApp): Promise<AppCredentials>;
  createFan(input: { email: string; password: string }): Promise<{ id: string }>;
}

export interface Backends {
  developerAccess: DeveloperAccess;
}
