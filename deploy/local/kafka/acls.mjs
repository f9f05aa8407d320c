#!/usr/bin/env node
// Applies the Kafka ACLs generated from the topic catalog (deploy/helm/marquee/files/kafka-acls.json,
// `pnpm generate`) with kafkajs' admin createAcls, and deletes ACLs of the same principals that
// the file no longer lists. Connects as the broker's super user over SASL.
//
// usage: node acls.mjs <brokers> <credentialsDir> [aclsJson]
//   <credentialsDir>/admin holds the super user's password (infra.sh writes it).
// Exit 0 = applied; 1 = the broker refused or did not answer; 2 = usage.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPlatformDep as load } from '../platform-deps.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [brokers, credentials, file = path.join(here, '../../helm/marquee/files/kafka-acls.json')] =
  process.argv.slice(2);
if (!brokers || !credentials) {
  console.error('usage: acls.mjs <brokers> <credentialsDir> [aclsJson]');
  process.exit(2);
}

const {
  Kafka,
  logLevel,
  AclResourceTypes,
  AclOperationTypes,
  AclPermissionTypes,
  ResourcePatternTypes,
} = await load('kafkajs');
const { acls } = JSON.parse(readFileSync(file, 'utf8'));
const password = readFileSync(path.join(credentials, 'admin'), 'utf8').trim();

const kafka = new Kafka({
  clientId: 'marquee-kafka-acls',
  brokers: brokers.split(','),
  sasl: { mechanism: 'scram-sha-512', username: 'admin', password },
  connectionTimeout: 3000,
  retry: { retries: 5 },
  logLevel: logLevel.NOTHING,
});

const binding = (acl) => ({
  resourceType: AclResourceTypes[acl.resourceType],
  resourceName: acl.resourceName,
  resourcePatternType: ResourcePatternTypes[acl.patternType],
  principal: acl.principal,
  host: '*',
  operation: AclOperationTypes[acl.operation],
  permissionType: AclPermissionTypes.ALLOW,
});
const keyOf = (b) =>
  [b.principal, b.resourceType, b.resourcePatternType, b.resourceName, b.operation].join(' ');

const admin = kafka.admin();
try {
  await admin.connect();
  const wanted = acls.map(binding);
  // Creating a binding that exists is a no-op on the broker: apply the whole list every time.
  await admin.createAcls({ acl: wanted });
  const principals = new Set(wanted.map((b) => b.principal));
  const { resources } = await admin.describeAcls({
    resourceType: AclResourceTypes.ANY,
    resourcePatternType: ResourcePatternTypes.ANY,
    operation: AclOperationTypes.ANY,
    permissionType: AclPermissionTypes.ANY,
  });
  const keep = new Set(wanted.map(keyOf));
  const stale = [];
  for (const resource of resources) {
    for (const acl of resource.acls) {
      const found = {
        resourceType: resource.resourceType,
        resourceName: resource.resourceName,
        resourcePatternType: resource.resourcePatternType,
        principal: acl.principal,
        host: acl.host,
        operation: acl.operation,
        permissionType: acl.permissionType,
      };
      if (principals.has(acl.principal) && !keep.has(keyOf(found))) stale.push(found);
    }
  }
  if (stale.length > 0) await admin.deleteAcls({ filters: stale });
  console.log(`kafka acls: ${wanted.length} bindings applied, ${stale.length} stale removed`);
} catch (error) {
  console.error(`kafka acls: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await admin.disconnect().catch(() => {});
}
