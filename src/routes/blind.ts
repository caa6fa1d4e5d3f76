/**
 * The routes of operator-blind namespaces (`BlindLog`): make one, read its head and the content
 * key wrapped for the caller, let in another key of the account, append sealed entries, read
 * them after a sequence number, and erase one with a signed receipt.
 */
import { jsonResponse } from "../http/respond.ts";
import type { Route } from "../http/router.ts";
import { array, base64, integer, object, string } from "../http/fields.ts";
import { memoryId, namespace, namespaceErase } from "../http/memory_fields.ts";
import { SvcError } from "../errors.ts";
import {
  type BlindLog,
  type BlindRecord,
  MAX_BLIND_APPEND,
  MAX_BLIND_APPEND_BYTES,
  MAX_BLIND_ENTRY_BYTES,
  WRAPPED_KEY_BYTES,
} from "../services/blind_log.ts";
import { allowsNamespace, requireOperation } from "../auth/scope.ts";
import { anyKeySigned, type HandlerContext, route } from "./context.ts";
import { EXAMPLE_ID, EXAMPLE_MEMORY, EXAMPLE_OWNER, EXAMPLE_RECEIPT } from "./examples.ts";

/** Whether the key `publicKey` belongs to the account `accountId`. */
export type KeyOfAccount = (publicKey: string, accountId: string) => Promise<boolean>;

const PUBLIC_KEY = /^[0-9a-f]{64}$/;
/** The bytes of a sealed content key at most (Seal's come to about 300). */
const MAX_SEALED_KEY_BYTES = 4096;
const EXAMPLE_WRAPPED = new Uint8Array(WRAPPED_KEY_BYTES).fill(7).toBase64();
const EXAMPLE_KEY = "5c1f".padEnd(64, "0");

/**
 * Refuses a wrapped content key of another length than a wrap's: the relayer cannot unwrap it,
 * but a malformed one would lock its key out for good, since no other key may replace it.
 */
function checkWrapped(wrapped: Uint8Array | undefined) {
  if (wrapped?.byteLength !== WRAPPED_KEY_BYTES) {
    throw new SvcError(
      "bad_request",
      `wrapped must be a content key wrapped for the key: ${WRAPPED_KEY_BYTES} bytes`,
    );
  }
}

const ENABLE = object({
  namespace: namespace({ written: true }),
  model: string({ required: true, description: "The embedder's model id every client runs." }),
  wrapped: base64({ description: "The content key, wrapped for the calling key." }),
  sealed_key: base64({
    optional: true,
    description: "The content key sealed by the client's own cipher (Seal), for every key it " +
      "lets read.",
  }),
  key_id: memoryId({ description: "The memory id `sealed_key` is bound to, for its erase." }),
}, {
  check({ model, wrapped, sealed_key, key_id }) {
    checkWrapped(wrapped);
    if (!model || model.length > 200) {
      throw new SvcError("bad_request", "model must be a model id of 1 to 200 characters");
    }
    if ((sealed_key === undefined) !== (key_id === undefined)) {
      throw new SvcError("bad_request", "sealed_key and key_id go together");
    }
    if (sealed_key && sealed_key.byteLength > MAX_SEALED_KEY_BYTES) {
      throw new SvcError(
        "payload_too_large",
        `sealed_key may hold at most ${MAX_SEALED_KEY_BYTES} bytes`,
      );
    }
  },
});
const IN_NAMESPACE = object({ namespace: namespace() });
const LET_IN = object({
  namespace: namespace(),
  public_key: string({ required: true, description: "The key let in (64 hex characters)." }),
  wrapped: base64({ description: "The content key, wrapped for that key." }),
}, {
  check({ public_key, wrapped }) {
    if (!PUBLIC_KEY.test(public_key ?? "")) {
      throw new SvcError("bad_request", "public_key must be 64 lowercase hex characters");
    }
    checkWrapped(wrapped);
  },
});
const ENTRY = object({
  id: memoryId({ required: true }),
  sealed: base64({ description: "The entry as the client sealed it." }),
});
const APPEND = object({
  namespace: namespace(),
  entries: array(ENTRY, { min: 1, max: MAX_BLIND_APPEND }),
  replaces: memoryId({
    description: "A memory the one entry is a new version of: erased in the same write (an " +
      "update). 409 when it was erased or replaced meanwhile; needs the erase scope.",
  }),
}, {
  check({ entries, replaces }) {
    if (replaces !== undefined && entries.length !== 1) {
      throw new SvcError("bad_request", "An append that replaces a memory holds one entry");
    }
    const bytes = entries.map(({ sealed }) => sealed.byteLength);
    if (bytes.some((size) => size > MAX_BLIND_ENTRY_BYTES)) {
      throw new SvcError(
        "payload_too_large",
        `A sealed entry may hold at most ${MAX_BLIND_ENTRY_BYTES} bytes`,
      );
    }
    if (bytes.reduce((sum, size) => sum + size, 0) > MAX_BLIND_APPEND_BYTES) {
      throw new SvcError(
        "payload_too_large",
        `The entries of one append may hold at most ${MAX_BLIND_APPEND_BYTES} bytes; send fewer`,
      );
    }
  },
});
const READ = object({
  namespace: namespace(),
  after: integer({ fallback: 0, min: 0, max: Number.MAX_SAFE_INTEGER }),
  limit: integer({ fallback: 500, min: 1, max: 1000 }),
});
const ERASE = object({ id: memoryId({ required: true }) });
const ERASE_NAMESPACE = namespaceErase(
  "confirm must repeat the namespace: erasing cannot be undone",
);

const headJson = (namespace: string, head: { seq: number; manifest: object }) => ({
  namespace,
  seq: head.seq,
  manifest: head.manifest,
});

const recordJson = (record: BlindRecord) =>
  "sealed" in record
    ? { seq: record.seq, id: record.id, sealed: record.sealed.toBase64() }
    : { seq: record.seq, id: record.id, erased_at: new Date(record.erased).toISOString() };

/** The routes of operator-blind namespaces; see the module documentation. */
export function blindRoutes(log: BlindLog, keyOfAccount: KeyOfAccount): Route<HandlerContext>[] {
  const tag = "operator-blind";
  return [
    route("POST", "/api/blind", async ({ caller, input: { body }, touch }) => {
      touch(body.namespace);
      const head = await log.enable(
        caller.owner,
        body.namespace,
        { model: body.model! },
        { publicKey: caller.publicKey, wrapped: body.wrapped },
        body.sealed_key && { id: body.key_id!, sealed: body.sealed_key },
      );
      return jsonResponse(201, headJson(body.namespace, head));
    }, {
      signed: true,
      operations: ["write"],
      input: { body: ENABLE },
      doc: {
        tag,
        summary: "Make a namespace operator-blind",
        example: {
          body: {
            namespace: "private",
            model: "all-MiniLM-L6-v2",
            wrapped: EXAMPLE_WRAPPED,
          },
        },
        responses: {
          201: {
            description: "The namespace's head.",
            example: { namespace: "private", seq: 0, manifest: { model: "all-MiniLM-L6-v2" } },
          },
          409: { description: "It is operator-blind already." },
        },
      },
    }),
    route("GET", "/api/blind", async ({ caller, input: { query }, touch }) => {
      touch(query.namespace);
      const found = await log.head(caller.owner, query.namespace, caller.publicKey);
      if (!found) return jsonResponse(200, { namespace: query.namespace, blind: false });
      const { sealedKey } = found.head;
      return jsonResponse(200, {
        blind: true,
        ...headJson(query.namespace, found.head),
        wrapped: found.wrapped?.toBase64() ?? null,
        ...(sealedKey && {
          key_id: sealedKey.id,
          ...(!found.wrapped && { sealed_key: sealedKey.sealed.toBase64() }),
        }),
      });
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["read"],
      claim: "overlap",
      input: { query: IN_NAMESPACE },
      doc: {
        tag,
        summary: "A namespace's head, and its content key wrapped for the calling key",
        example: { query: { namespace: "private" } },
        responses: {
          200: {
            description: "`wrapped` is `null` for a key not let in. When the content key was " +
              "sealed with a cipher, `key_id` names it, and a key not let in gets `sealed_key`.",
            example: {
              blind: true,
              namespace: "private",
              seq: 12,
              manifest: { model: "all-MiniLM-L6-v2" },
              wrapped: EXAMPLE_WRAPPED,
            },
          },
        },
      },
    }),
    route("DELETE", "/api/blind", async ({ caller, input: { query }, touch }) => {
      touch(query.namespace);
      const receipts = await log.eraseNamespace(caller.owner, query.namespace);
      touch(query.namespace, receipts.map((receipt) => receipt.memory_id));
      return jsonResponse(200, {
        namespace: query.namespace,
        owner: caller.owner,
        erased: receipts.length,
        receipts,
      });
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["erase"],
      access: "erase",
      input: { query: ERASE_NAMESPACE },
      doc: {
        tag,
        summary: "Erase an operator-blind namespace: its log, its keys, and its being blind",
        example: { query: { namespace: "private", confirm: "private" } },
        responses: {
          200: {
            description: "A receipt per memory the log held.",
            example: {
              namespace: "private",
              owner: EXAMPLE_OWNER,
              erased: 1,
              receipts: [EXAMPLE_RECEIPT],
            },
          },
          404: { description: "Not operator-blind." },
        },
      },
    }),
    route("GET", "/api/blind/namespaces", async ({ caller }) => {
      const listed = await log.namespaces(caller.owner);
      const namespaces = listed
        .filter(({ namespace }) => allowsNamespace(caller.scope, namespace))
        .map(({ namespace, count, createdAt, erasing }) => ({
          namespace,
          count,
          created_at: new Date(createdAt).toISOString(),
          ...(erasing && { erasing }),
        }));
      return jsonResponse(200, { namespaces });
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["read"],
      claim: "overlap",
      doc: {
        tag,
        summary: "The account's operator-blind namespaces, with how many memories each holds",
        description: "Sorted by name; a key limited to some namespaces sees only those. One " +
          "whose erase was cut short has `erasing: true`: it refuses everything until erased again.",
        responses: {
          200: {
            description: "The operator-blind namespaces.",
            example: {
              namespaces: [{
                namespace: "private",
                count: 12,
                created_at: EXAMPLE_MEMORY.created_at,
              }],
            },
          },
        },
      },
    }),
    route("PUT", "/api/blind/keys", async ({ caller, input: { body }, touch }) => {
      touch(body.namespace);
      if (!await keyOfAccount(body.public_key!, caller.accountId)) {
        throw new SvcError("not_found", "No such key in this account");
      }
      await log.letIn(
        caller.owner,
        body.namespace,
        body.public_key!,
        body.wrapped,
        caller.publicKey,
      );
      return jsonResponse(200, { namespace: body.namespace, public_key: body.public_key });
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["write"],
      input: { body: LET_IN },
      doc: {
        tag,
        summary: "Let another key of the account read an operator-blind namespace",
        example: {
          body: { namespace: "private", public_key: EXAMPLE_KEY, wrapped: EXAMPLE_WRAPPED },
        },
        responses: {
          200: {
            description: "The key is let in.",
            example: { namespace: "private", public_key: EXAMPLE_KEY },
          },
          404: { description: "Not operator-blind, or not a key of this account." },
          409: { description: "Another key is let in already: only a key replaces its own." },
        },
      },
    }),
    route("POST", "/api/blind/entries", async ({ caller, input: { body }, touch }) => {
      touch(body.namespace);
      // Only a key let in writes: another's entry would not open on any device.
      const found = await log.head(caller.owner, body.namespace, caller.publicKey);
      if (found && !found.wrapped) {
        throw new SvcError(
          "forbidden",
          "This key is not let in to the namespace, so it may not write to its log: let it in " +
            "from a device that is (letIn)",
        );
      }
      const { namespace, entries, replaces } = body;
      if (replaces === undefined) {
        const seq = await log.append(caller.owner, namespace, entries);
        touch(namespace, entries.map(({ id }) => id));
        return jsonResponse(200, { namespace, seq });
      }
      requireOperation(caller, "erase");
      const { seq, receipt } = await log.replace(caller.owner, namespace, entries[0], replaces);
      touch(namespace, [entries[0].id, replaces]);
      return jsonResponse(200, { namespace, seq, receipt });
    }, {
      signed: true,
      operations: ["write"],
      access: "remember",
      maxBodyBytes: 2 * MAX_BLIND_APPEND_BYTES,
      input: { body: APPEND },
      doc: {
        tag,
        summary: "Append sealed entries to an operator-blind namespace's log",
        example: {
          body: { namespace: "private", entries: [{ id: EXAMPLE_ID, sealed: EXAMPLE_WRAPPED }] },
        },
        responses: {
          200: {
            description: "The head's new sequence number; ids the log holds are skipped. With " +
              "`replaces`, the replaced memory's erase receipt too.",
            example: { namespace: "private", seq: 13 },
          },
          403: { description: "The key is not let in to the namespace." },
          404: { description: "Not operator-blind, or no such memory to replace." },
          409: { description: "The memory to replace was erased or replaced meanwhile." },
        },
      },
    }),
    route("GET", "/api/blind/entries", async ({ caller, input: { query }, touch }) => {
      touch(query.namespace);
      const { head, records } = await log.read(
        caller.owner,
        query.namespace,
        query.after,
        query.limit,
      );
      touch(query.namespace, records.map(({ id }) => id));
      return jsonResponse(200, {
        namespace: query.namespace,
        seq: head.seq,
        records: records.map(recordJson),
      });
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["read"],
      claim: "overlap",
      access: "list",
      input: { query: READ },
      doc: {
        tag,
        summary: "The log's entries and tombstones after a sequence number",
        example: { query: { namespace: "private", after: 12 } },
        responses: {
          200: {
            description: "Oldest first; more may follow up to `seq`.",
            example: {
              namespace: "private",
              seq: 13,
              records: [{ seq: 13, id: EXAMPLE_ID, sealed: EXAMPLE_WRAPPED }],
            },
          },
          404: { description: "Not operator-blind." },
        },
      },
    }),
    route("DELETE", "/api/blind/entries/:id", async ({ caller, input, touch }) => {
      const { namespace } = input.query;
      const { id } = input.params;
      touch(namespace);
      const receipt = await log.erase(caller.owner, namespace, id);
      if (!receipt) throw new SvcError("not_found", "No such memory");
      touch(namespace, [id]);
      return jsonResponse(200, receipt);
    }, {
      ...anyKeySigned, // the dashboard reads and erases in the browser
      operations: ["erase"],
      access: "erase",
      input: { params: ERASE, query: IN_NAMESPACE },
      doc: {
        tag,
        summary: "Erase an entry of an operator-blind namespace, with a signed receipt",
        example: { params: { id: EXAMPLE_ID }, query: { namespace: "private" } },
        responses: {
          200: { description: "The erase receipt.", example: EXAMPLE_RECEIPT },
          404: { description: "Unknown, or not operator-blind." },
        },
      },
    }),
  ];
}
