// Well-known types that appear in service signatures. Timestamp is mapped to Date and Struct to a
// plain JSON object by ts-proto, so only their codecs are needed here (e.g. Struct.wrap/unwrap).
export { Empty } from './gen/google/protobuf/empty.js';
export { Struct, Value, ListValue, NullValue } from './gen/google/protobuf/struct.js';
export { Timestamp } from './gen/google/protobuf/timestamp.js';
