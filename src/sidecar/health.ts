/** The sidecar's health proof: it shows the supervisor reached its own sidecar. */
import { sha256Hex } from "@svc/util/keys";

/** What a sidecar holding `token` answers to a health probe carrying `nonce`. */
export function healthProof(token: string, nonce: string): Promise<string> {
  return sha256Hex(`svc-sidecar-health:${token}:${nonce}`);
}
