/**
 * How the Seal SDK's failures become `SvcError`s: refused access is `forbidden` (403), a key
 * server or full node that cannot be reached is `backend_unavailable` (503), a ciphertext
 * that does not parse or does not decrypt is `bad_request` (400), and anything unexpected is
 * `internal` (500). Messages never carry keys.
 */
import {
  DecryptionError,
  InconsistentKeyServersError,
  InvalidCiphertextError,
  InvalidKeyServerError,
  InvalidThresholdError,
  NoAccessError,
  SealAPIError,
  UnsupportedFeatureError,
} from "@mysten/seal";
import { SuiHTTPTransportError } from "@mysten/sui/jsonRpc";
import { SvcError } from "@svc/relayer/kit";

/** The plugin name used in messages. */
export const PLUGIN = "Seal";
/** The SDK's errors that blame the ciphertext, whichever step throws them. */
const MALFORMED = [InvalidCiphertextError, InconsistentKeyServersError, InvalidThresholdError];

/** A ciphertext that does not parse or decrypt. */
export function malformed(cause?: unknown, state = "the ciphertext is malformed or was altered") {
  return new SvcError("bad_request", `Cannot decrypt: ${state}`, { cause });
}

/**
 * A memory erased on chain (or by this cipher): its key is never released again, to any caller
 * (`reason: "erased"`, see `Cipher.decrypt`).
 */
export function erased(cause?: unknown): SvcError {
  return new SvcError("forbidden", "Cannot decrypt: the memory was erased", {
    details: { reason: "erased" },
    cause,
  });
}

/**
 * A ciphertext whose identity is another owner's or another memory's than the one asked for
 * (`reason: "mismatch"`, see `Cipher.decrypt`): refused before any key server is asked.
 */
export function mismatch(whose: "owner" | "memory"): SvcError {
  return new SvcError("forbidden", `Cannot decrypt: the ciphertext belongs to another ${whose}`, {
    details: { reason: "mismatch" },
  });
}

/** Maps a failure while fetching keys (talking to the chain or the key servers). */
export function fetchError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof NoAccessError) {
    return new SvcError(
      "forbidden",
      "Cannot decrypt: the key servers refuse this delegate key access to the memory (the key " +
        "is not on the account, has no read operation or has expired, or the memory was erased)",
      { cause: error },
    );
  }
  if (MALFORMED.some((type) => error instanceof type)) return malformed(error);
  const detail = error instanceof SealAPIError
    ? "the key servers did not return enough keys"
    : "the key servers or the Sui full node cannot be reached";
  return new SvcError(
    "backend_unavailable",
    `Cannot decrypt: ${PLUGIN} is unavailable (${detail})`,
    {
      cause: error,
    },
  );
}

/**
 * Maps a failure of the local decryption, once the keys are at hand: a ciphertext the SDK
 * cannot parse or decrypt is 400, the key servers or the node failing is 503, and anything
 * else is an unexpected 500 rather than being blamed on the ciphertext.
 */
export function decryptError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const types = [...MALFORMED, DecryptionError, UnsupportedFeatureError];
  if (types.some((type) => error instanceof type)) return malformed(error);
  if (
    error instanceof SealAPIError || error instanceof SuiHTTPTransportError ||
    (error instanceof DOMException && /^(TimeoutError|AbortError)$/.test(error.name))
  ) {
    return fetchError(error);
  }
  return new SvcError("internal", `Cannot decrypt: ${PLUGIN} failed unexpectedly`, {
    cause: error,
  });
}

/** Maps a failure while encrypting. */
export function encryptError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const detail = error instanceof InvalidKeyServerError
    ? " (a configured key server is missing on chain or failed its proof of possession)"
    : "";
  return new SvcError("backend_unavailable", `Cannot encrypt: ${PLUGIN} is unavailable${detail}`, {
    cause: error,
  });
}
