import { randomBytes } from 'node:crypto';
import type { Connection } from 'mongoose';
import { createKafkaBus, createMemoryBus, type EventBus } from '@marquee/platform/bus';
import { callUnary, createGrpcClient } from '@marquee/platform/grpc';
import type { Logger } from '@marquee/platform/logger';
import { closeMongo, connectMongo } from '@marquee/platform/mongo';
import {
  hostService,
  type HostedService,
  type ServiceInfra,
  type ServiceParts,
} from '@marquee/platform/service';
import type { IntegrationKafka } from '@marquee/platform/testing';
import { partnerV1 } from '@marquee/proto';
import { threePConnectorService } from '@marquee/3p-connector';
import { partnerReferenceService } from '@marquee/partner-reference';

/**
 * The pieces of the integration tests that run cart beside 3p-connector and partner-reference:
 * databases named `<name>_<suffix>`, Kafka buses and hosted services, all closed (databases
 * dropped) by `close`; partner-reference's back office; the connector; the partner's registration.
 */
export function partnerStack(options: {
  broker: IntegrationKafka;
  mongoUrl: string;
  logger: Logger;
  /** The run's own suffix of database names. */
  suffix: string;
  adminToken: string;
  /** The platform's OAuth client at the partner. */
  client: { id: string; secret: string };
}) {
  const { broker, mongoUrl, logger, suffix, adminToken, client } = options;
  const dbs: Connection[] = [];
  const buses: EventBus[] = [];
  const hosted: HostedService[] = [];
  let partnerPort = 0;

  const db = async (name: string) => {
    const connection = await connectMongo({
      url: mongoUrl,
      dbName: `${name}_${suffix}`,
      logger,
      appName: name,
    });
    dbs.push(connection);
    return connection;
  };
  const kafka = (clientId: string) => {
    const bus = createKafkaBus({
      ...broker,
      clientId,
      source: `//marquee/${clientId}`,
      logger,
    });
    buses.push(bus);
    return bus;
  };
  /** Hosts the composed service on free ports of 127.0.0.1, stopped by `close`. */
  const host = async (infra: ServiceInfra, parts: ServiceParts, callers?: HostCallers) => {
    const service = await hostService(infra, parts, {
      host: '127.0.0.1',
      httpPort: 0,
      grpcPort: 0,
      ...(callers && { callers }),
    });
    hosted.push(service);
    return service;
  };
  /** A call to partner-reference's back office; throws on an answer that is not 2xx. */
  const back = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`http://127.0.0.1:${partnerPort}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  };

  return {
    db,
    kafka,
    host,
    back,
    partnerPort: () => partnerPort,
    /** partner-reference on a memory bus and database `<dbName>_<suffix>`, without demo data. */
    async hostPartner(dbName: string, env: Record<string, string> = {}) {
      const config = partnerReferenceService.loadConfig({
        HTTP_PORT: '0',
        GRPC_PORT: '0',
        PARTNER_ADMIN_TOKEN: adminToken,
        PARTNER_CLIENT_ID: client.id,
        PARTNER_CLIENT_SECRET: client.secret,
        PARTNER_SEED_DEMO: 'false',
        ...env,
        LOG_LEVEL: 'silent',
      });
      const infra = {
        name: 'partner-reference',
        logger,
        bus: createMemoryBus({ source: 'partner' }),
        mongo: await db(dbName),
      };
      const partner = await host(infra, await partnerReferenceService.compose(infra, config));
      partnerPort = partner.httpPort;
      return partner;
    },
    /** 3p-connector on its own Kafka bus and database; its gRPC address. */
    async hostConnector(dbName: string, orderCancelledGroup: string) {
      const bus = kafka('3p-connector');
      const infra = { name: '3p-connector', logger, bus, mongo: await db(dbName) };
      const parts = await threePConnectorService.compose(
        infra,
        threePConnectorService.loadConfig({
          PARTNER_CREDENTIALS_KEY: randomBytes(32).toString('base64'),
          HEALTH_INTERVAL_MS: '60000',
          PARTNER_CALL_TIMEOUT_MS: '20000',
          PARTNER_ALLOWED_HOSTS: '127.0.0.1',
          ORDER_CANCELLED_GROUP: orderCancelledGroup,
          LOG_LEVEL: 'silent',
        }),
      );
      await bus.start();
      const connector = await host(infra, parts, threePConnectorService.callers!);
      return `127.0.0.1:${connector.grpcPort}`;
    },
    /** Registers partner-reference with the connector (as the edge does), owning `venueId`. */
    async registerPartner(connectorAddress: string, name: string, venueId: string) {
      const admin = createGrpcClient(partnerV1.PartnerAdminServiceClient, connectorAddress, {
        caller: 'edge-gateway',
      });
      await callUnary(admin, 'registerPartner', {
        name,
        baseUrl: `http://127.0.0.1:${partnerPort}/v1`,
        authUrl: `http://127.0.0.1:${partnerPort}/oauth/token`,
        clientId: client.id,
        clientSecret: client.secret,
        venues: [venueId],
      });
      admin.close();
    },
    /** Stops the hosted services (last first), closes the buses, drops and closes the databases. */
    async close() {
      for (const h of hosted.reverse()) await h.stop();
      for (const bus of buses) await bus.close();
      for (const connection of dbs) {
        await connection.dropDatabase();
        await closeMongo(connection);
      }
    },
  };
}

type HostCallers = NonNullable<Parameters<typeof hostService>[2]['callers']>;

/** A venue of partner-reference's back office: manifest `M1`, one seated area `A1` of `rows`. */
export function seatedVenue(venueId: string, name: string, rows: { row: string; seats: number }[]) {
  return {
    venue_id: venueId,
    name,
    city: 'London',
    country: 'GB',
    timezone: 'Europe/London',
    manifests: [
      {
        manifest_id: 'M1',
        name,
        levels: [{ id: 'L1', name: 'Stalls', position: 1 }],
        sections: [{ id: 'S1', name: 'A' }],
        price_levels: [{ id: 'PL1', name: 'Cat 1' }],
        areas: [
          {
            id: 'A1',
            name: 'Stalls A',
            level_id: 'L1',
            section_id: 'S1',
            price_level_id: 'PL1',
            general_admission: false,
            rows,
          },
        ],
      },
    ],
  };
}
