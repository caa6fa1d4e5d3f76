/**
 * The relayer's link to its MCP sidecar.
 * @module
 */
/** Where the sidecar listens, the secret it requires, and whether it is running. */
export interface SidecarLink {
  /** The sidecar's base URL; forwarded requests keep their path and query. */
  url: string;
  /** The secret sent to it in `x-sidecar-token`. */
  token: string;
  /** Whether it is running; while it is `down`, forwarded routes answer 503. */
  status(): "up" | "down";
  /** Aborted while it runs but does not answer: the calls waiting on it then get 503 at once. */
  readonly unanswered?: AbortSignal;
  /** Open MCP sessions, as last reported by the sidecar. */
  sessions(): number;
  /** Times the sidecar was restarted since the relayer started (for the metrics). */
  restarts?(): number;
}

/** The largest body of a sponsor request (an erase transaction to pay for) sent to the sidecar. */
export const MAX_SPONSOR_BODY_BYTES = 64 * 1024;
