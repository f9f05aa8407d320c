/**
 * V8 options of Marquee processes: one declaration per package (package.json `marquee.v8`), read
 * by every launcher. Nothing here loads more than `node:fs`, so the launch hook and the tools that
 * generate deployment files can use it before (or without) any service module.
 */
export {
  applyV8Flags,
  mergeV8Options,
  missingNodeOptions,
  NO_V8_OPTIONS,
  optionName,
  packageDirOf,
  readV8Options,
  v8OptionsOf,
  type V8Options,
} from './options.js';
