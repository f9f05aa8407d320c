export { closeMongo, connectMongo, pingMongo, type ConnectMongoOptions } from './connect-mongo.js';
export { ensureIndexes, type IndexedCollection } from './ensure-indexes.js';
export { redactMongoUrl } from './redact-url.js';
export { mongoServerKind, type MongoServerKind } from './server-kind.js';
