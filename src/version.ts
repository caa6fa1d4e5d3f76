/** Version of this build, of the HTTP API, and the oldest client it serves. */
export const VERSION = "0.2.0";
export const API_VERSION = "1";
export const MIN_CLIENT_VERSION = "0.1.0";
