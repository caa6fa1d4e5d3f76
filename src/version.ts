/** Version of this build, of the HTTP API (semantic), and the oldest client it serves. */
export const VERSION = "0.2.0";
export const API_VERSION = "1.0.0";
export const MIN_CLIENT_VERSION = "0.1.0";
/** The oldest versions of the reference system's SDKs (`memwal`) this relayer serves. */
export const MIN_SUPPORTED_SDK = { python: "0.1.0", typescript: "0.0.1" };
