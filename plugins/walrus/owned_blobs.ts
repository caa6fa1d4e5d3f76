/**
 * What deleting the operator's Walrus blobs needs besides the transaction queue: the blob ids of
 * every `Blob` object the operator owns, whether an object still exists, and how a refusal of
 * Walrus's `blob::delete` reads.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { parseBlobObject } from "./attributes.ts";

/** Objects read per `suix_getOwnedObjects` call. */
const PAGE = 50;

/** One of the operator's `Blob` objects and the blob it holds. */
export interface OwnedBlobId {
  objectId: string;
  blobId: string;
  /** Whether Walrus certified the blob. */
  certified: boolean;
}

type OwnedPage = Awaited<ReturnType<SuiJsonRpcClient["core"]["listOwnedObjects"]>>;

/** Every `Blob` object `owner` has (certified or not), with its blob id, page by page. */
export async function ownedBlobIds(
  client: SuiJsonRpcClient,
  owner: string,
  blobType: string,
  signal?: AbortSignal,
): Promise<OwnedBlobId[]> {
  const out: OwnedBlobId[] = [];
  let cursor: string | null = null;
  do {
    const page: OwnedPage = await client.core.listOwnedObjects({
      owner,
      type: blobType,
      cursor,
      limit: PAGE,
      include: { content: true },
      signal,
    });
    for (const object of page.objects) {
      if (!object.content) continue;
      const { blobId, certified } = parseBlobObject(object.content);
      out.push({ objectId: object.objectId, blobId, certified });
    }
    cursor = page.hasNextPage ? page.cursor : null;
  } while (cursor);
  return out;
}

/** True when the object still exists (and when that cannot be told, so a failure is reported). */
export async function objectExists(client: SuiJsonRpcClient, objectId: string): Promise<boolean> {
  try {
    const { objects: [object] } = await client.core.getObjects({ objectIds: [objectId] });
    return !(object instanceof Error && (object as { code?: string }).code === "notExists");
  } catch {
    return true;
  }
}

/**
 * True for a failure of Walrus's `blob::delete` refusing the object: not deletable (abort 1) or
 * expired (2), as the SDK's dry run reports it or as executed effects do.
 */
export function undeletable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /abort code: [12], in '0x[0-9a-f]+::blob::delete'/.test(message) ||
    /Identifier\("blob"\) \}.*function_name: Some\("delete"\) \}, [12]\)/.test(message);
}
