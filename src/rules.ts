/**
 * What a request may carry: the relayer's own checks of namespaces, tags, threads, times, ids,
 * key scopes and limits, for a client (the CLI) that checks before it sends.
 *
 * @module
 */
export {
  INVISIBLE,
  MAX_TTL_SECONDS,
  parseIsoTime,
  tagsValue,
  threadValue,
  UNPRINTABLE,
  utf8HeaderValue,
  validNamespace,
} from "./validate.ts";
export { MEMORY_ID } from "./ids.ts";
export { OPERATIONS, parseScope } from "./auth/scope.ts";
export {
  describeKeyLimits,
  type KeyLimits,
  type KeyLimitsJson,
  keyLimitsJson,
  parseKeyLimits,
} from "./auth/key_limits.ts";
export { ACCESS_OPERATIONS } from "./services/access_log.ts";
export type { KeyScope, Operation } from "./backends/types.ts";
