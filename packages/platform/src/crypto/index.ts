export {
  createSecretBox,
  secretBoxKeyId,
  SecretBoxError,
  type SealedSecret,
  type SecretBox,
} from './secret-box.js';
export { parseSecretBoxKeys, secretBoxKeys, secretBoxKeysSetting } from './key-ring-config.js';
