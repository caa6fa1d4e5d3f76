// An operator-blind namespace on the memories page. The relayer keeps only entries it cannot
// open; this browser opens them with the owner key, once a device let that key in. The content
// key and the texts stay in this page's memory: nothing is stored. The owner key may then let
// another key of the account in.
import { blindUnavailable, ownerSeed } from "./wallet.js";
import { entriesKey, openEntry, unwrapWith, wrapFor } from "./blind_keys.js";
import { action, h, say, shownName } from "./ui.js";

/** The records read in one request (the relayer's most). */
const RECORDS = 1000;

/**
 * The head of `namespace` (`GET /api/blind`) when it is operator-blind, else `null`. `signed`
 * sends a request signed by the owner key.
 */
export async function blindHead(signed, namespace) {
  const query = new URLSearchParams({ namespace });
  const head = await signed("GET", `/api/blind?${query}`).catch((error) =>
    error.reason === "erasing" ? { blind: true, erasing: true } : blindUnavailable(error) && {}
  );
  return head.blind ? head : null;
}

/** The command that lets the owner key (`publicKey`) in from a device already let in. */
function letInCommand(namespace, publicKey) {
  const name = /^[\w.-]+$/.test(namespace)
    ? namespace
    : `'${shownName(namespace).replaceAll("'", "'\\''")}'`;
  // `=`: a name that begins with a dash is the flag's value, not another flag.
  return `deno task svc blind let-in --namespace=${name} --public-key ${publicKey}`;
}

/** The content key wrapped for the owner key, opened; throws when it does not open. */
async function contentKeyOf(wallet, namespace, wrapped) {
  try {
    const seed = await ownerSeed(wallet);
    return await unwrapWith(Uint8Array.fromBase64(wrapped), seed, wallet.publicKey, namespace);
  } catch {
    throw new Error(
      "The namespace's key, as the relayer gave it for your owner key, does not open: the " +
        "relayer altered it. Nothing was read.",
    );
  }
}

/**
 * The memories of the operator-blind namespace whose head is `head`, read as the memories page
 * reads a namespace: `list(cursor)` gives a page, newest first, and `erasePath`/`eraseAllPath`
 * the routes that erase. `note` tells the page what the namespace is. When the owner key is not
 * let in, `list` throws a sentence with the command that lets it in; when the namespace's erase
 * was cut short (`head.erasing`), one that says to erase it again.
 */
export async function blindSource({ wallet, namespace, signed, head, pageSize }) {
  const query = (extra = {}) => new URLSearchParams({ namespace, ...extra });
  const eraseAllPath = () => `/api/blind?${query({ confirm: namespace })}`;
  if (head.erasing) return halfErased(eraseAllPath);
  const contentKey = head.wrapped && await contentKeyOf(wallet, namespace, head.wrapped);
  const key = contentKey && await entriesKey(contentKey);
  let sorted = [];

  /** Reads the log and opens its entries; resolves to its memories, newest first. */
  async function read() {
    const held = new Map();
    // An erased memory stays erased, whatever the log holds of it later (a relayer that lies).
    const erased = new Set();
    for (let after = 0;;) {
      const extra = { after: String(after), limit: String(RECORDS) };
      const { seq, records } = await signed("GET", `/api/blind/entries?${query(extra)}`);
      for (const record of records) {
        if (!record.sealed) erased.add(record.id);
        if (record.sealed && !erased.has(record.id)) {
          held.set(record.id, openEntry(key, namespace, record.id, record.sealed));
        } else held.delete(record.id);
      }
      if (records.length === 0 || (after = records.at(-1).seq) >= seq) break;
    }
    return [...held.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  /** A page after `cursor` (the time and id of the last memory shown; none: from the log). */
  async function list(cursor) {
    if (!key) {
      throw new Error(
        "Your owner key is not let in to this operator-blind namespace. On a device that is let " +
          `in, run: ${letInCommand(namespace, wallet.publicKey)}`,
      );
    }
    let rest = sorted = cursor ? sorted : await read();
    if (cursor) {
      const [time, id] = JSON.parse(cursor);
      rest = sorted.filter((m) => m.createdAt < time || (m.createdAt === time && m.id < id));
    }
    const shown = rest.slice(0, pageSize);
    const last = shown.at(-1);
    return {
      memories: shown.map(({ id, text, createdAt, tags, thread }) => {
        const at = new Date(createdAt).toISOString();
        return { id, text, tags, thread: thread ?? null, created_at: at, updated_at: at };
      }),
      next_cursor: rest.length > pageSize ? JSON.stringify([last.createdAt, last.id]) : null,
    };
  }

  const note = h(
    "div",
    { class: "blind-note" },
    h(
      "p",
      {},
      "Operator-blind: the relayer cannot read these memories." +
        (key ? " This browser opened them with your owner key, and keeps none of them." : ""),
    ),
    key ? letInForm(contentKey, namespace, signed) : null,
  );
  return {
    blind: true,
    note,
    list,
    erasePath: (id) => `/api/blind/entries/${encodeURIComponent(id)}?${query()}`,
    eraseAllPath,
  };
}

/** A namespace whose erase was cut short: nothing to list, and the erase to finish. */
function halfErased(eraseAllPath) {
  const said = "This operator-blind namespace's erase was cut short. Erase it again to finish.";
  return {
    blind: true,
    erasing: true,
    note: h("div", { class: "blind-note" }, h("p", {}, said)),
    list: () => Promise.reject(new Error(said)),
    eraseAllPath,
  };
}

/** A field for another key of the account, and a button that wraps the content key for it. */
function letInForm(contentKey, namespace, signed) {
  const input = h("input", {
    type: "text",
    id: "let-in-key",
    spellcheck: "false",
    autocomplete: "off",
    placeholder: "64 hex characters",
  });
  // A key refused, here or by the relayer: the field is what to fix, and the status says why.
  const refused = (error) => {
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", "status");
    input.focus();
    throw error;
  };
  const letIn = action("Let in", async () => {
    const publicKey = input.value.trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(publicKey)) {
      refused(new Error("A device's public key is 64 hex characters."));
    }
    // A point no key can be (of small order) does not wrap: the field is what to fix.
    const wrapped = await wrapFor(contentKey, publicKey, namespace).catch(() =>
      refused(new Error("That is no device's public key: check it and enter it again."))
    );
    await signed("PUT", "/api/blind/keys", {
      namespace,
      public_key: publicKey,
      wrapped: wrapped.toBase64(),
    }).catch((error) => {
      // 404: no such key in this account.
      if (error.status === 400 || error.status === 404) refused(error);
      throw error;
    });
    input.removeAttribute("aria-invalid");
    input.removeAttribute("aria-describedby");
    input.value = "";
    say("Let in: that key can now read and write this namespace.", "success");
  }, { kind: "secondary", busy: "Letting in…" });
  return h(
    "details",
    {},
    h("summary", {}, "Let another device in"),
    h("label", { for: "let-in-key" }, "The public key of one of your account's keys"),
    h("div", { class: "search-row" }, input, letIn),
  );
}
