/**
 * The short code that ties an MCP sign-in to its consent page: the stdio package shows it
 * with the sign-in URL and the dashboard shows it next to the delegate key it approves, so a
 * person can see both belong to the same request.
 */
import { sha256Hex } from "@svc/util/keys";

/** `XXXX-XXXX` (upper-case hex) derived from the delegate public key. */
export async function confirmationCode(publicKey: string): Promise<string> {
  const digest = (await sha256Hex(`svc-login:${publicKey}`)).toUpperCase();
  return `${digest.slice(0, 4)}-${digest.slice(4, 8)}`;
}
