// The memories page (/memories?namespace=NS): a namespace's memories, newest first, page by
// page; search by meaning (recall); correct one (a new version replaces it); erase one memory
// after a confirmation, with the relayer's
// signed receipt shown and checked against its receipt key. Each memory shows the agent that
// remembered it, and links to the agents that read it (the activity page). Every request is
// signed in this browser by the owner key; the dashboard forwards it to the relayer. An
// operator-blind namespace is read in this browser (blind.js): listed and erased, not searched
// or corrected.
import { namespaces, relayerRequest, verifyReceipt } from "./wallet.js";
import { blindHead, blindSource } from "./blind.js";
import { action, agentNames, card, field, h, onPick, render, say, shownName } from "./ui.js";

const PAGE_SIZE = 20;
/** What a memory whose text the relayer cannot read shows instead, and why. */
const unreadable = (memory) =>
  memory.manual
    ? "(encrypted by the client that stored it)"
    : "(unreadable: its stored copy is missing or its key was erased)";

/** A text longer than this shows its beginning, and a button for the rest. */
const SHOWN_CHARACTERS = 500;

/**
 * A memory's text as a paragraph (its direction its own, for right-to-left texts); a long one
 * shows its first `SHOWN_CHARACTERS` and a button that shows the whole of it, and its beginning
 * again. `id` names the text itself (what the row's buttons are described by).
 */
function memoryText(memory, id) {
  const text = memory.text ?? unreadable(memory);
  const paragraph = h("p", { class: "memory-text", dir: "auto" });
  const characters = [...text];
  if (characters.length <= SHOWN_CHARACTERS) {
    paragraph.id = id;
    paragraph.textContent = text;
    return paragraph;
  }
  const beginning = `${characters.slice(0, SHOWN_CHARACTERS).join("")}…`;
  const shown = h("span", { id }, beginning);
  const more = `Show the whole text (${characters.length.toLocaleString()} characters)`;
  const toggle = h("button", {
    type: "button",
    class: "secondary small",
    "aria-expanded": "false",
  });
  toggle.textContent = more;
  toggle.addEventListener("click", () => {
    const all = toggle.getAttribute("aria-expanded") === "false";
    shown.textContent = all ? text : beginning;
    toggle.textContent = all ? "Show its beginning only" : more;
    toggle.setAttribute("aria-expanded", String(all));
  });
  paragraph.append(shown, " ", toggle);
  return paragraph;
}

/**
 * A namespace as the picker names it: with its count, whether it is operator-blind, and whether
 * its erase was cut short.
 */
function optionLabel(name, count, blind, erasing) {
  const notes = [
    count ? String(count) : "",
    blind ? "operator-blind" : "",
    erasing ? "erase cut short" : "",
  ]
    .filter(Boolean);
  return notes.length ? `${shownName(name)} (${notes.join(", ")})` : shownName(name);
}

const day = (iso) => new Date(iso).toLocaleDateString(undefined, { dateStyle: "medium" });
const moment = (iso) =>
  new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });

/** The page of `session` (the wallet and its account) for the namespace in the URL. */
export async function memories({ wallet, owned }) {
  const namespace = new URLSearchParams(location.search).get("namespace") || "default";
  document.title = `svc — memories in ${shownName(namespace)}`;
  const config = await (await fetch("/api/config")).json();
  const signed = (method, path, body) =>
    relayerRequest(wallet, {
      method,
      path,
      body,
      audience: config.audience,
      accountId: owned.id,
    });

  /** Where the namespace's memories come from: the relayer's index, or a blind log opened here. */
  let source = {
    list(cursor) {
      const query = new URLSearchParams({ namespace, limit: String(PAGE_SIZE) });
      if (cursor) query.set("cursor", cursor);
      return signed("GET", `/api/memories?${query}`);
    },
    erasePath: (id) => `/api/memories/${encodeURIComponent(id)}`,
    eraseAllPath: () => `/api/memories?${new URLSearchParams({ namespace, confirm: namespace })}`,
  };
  let failure;
  try {
    const head = await blindHead(signed, namespace);
    if (head) source = await blindSource({ wallet, namespace, signed, head, pageSize: PAGE_SIZE });
  } catch (error) {
    failure = error;
  }

  const nameOf = agentNames(owned, wallet);
  const list = h("ul", { class: "memories", "aria-label": "Memories" });
  const more = h("div", { class: "actions" });
  const heading = h("p", { class: "empty", role: "status", tabindex: "-1" });
  const receipt = h("div", { id: "receipt" });
  let counter = 0;
  let searching = false;

  /** One memory: its text, its date, tags, expiry (and score), Edit and Delete. */
  function item(memory, score) {
    const textId = `memory-text-${++counter}`;
    const row = h(
      "li",
      { class: "memory", "data-id": memory.id },
      memoryText(memory, textId),
      h(
        "div",
        { class: "memory-meta" },
        memory.supersedes
          ? h(
            "time",
            {
              datetime: memory.updated_at,
              title: `first remembered ${memory.created_at}, corrected ${memory.updated_at}`,
            },
            `corrected ${day(memory.updated_at)}`,
          )
          : h(
            "time",
            { datetime: memory.created_at, title: memory.created_at },
            day(memory.created_at),
          ),
        (memory.tags ?? []).map((tag) => h("span", { class: "tag" }, tag)),
        memory.expires_at ? h("span", {}, `expires ${moment(memory.expires_at)}`) : null,
        memory.thread ? h("span", { class: "mono" }, `thread ${shownName(memory.thread)}`) : null,
        memory.remembered_by
          ? h(
            "span",
            { class: "remembered-by", title: memory.remembered_by.address },
            `by ${nameOf(memory.remembered_by)}`,
          )
          : null,
        score === undefined ? null : h("span", {}, `score ${score.toFixed(2)}`),
      ),
    );
    const erase = action("Delete", async () => {
      const preview = (memory.text ?? "this memory").slice(0, 80);
      if (
        !confirm(`Erase "${preview}"? Its key is destroyed: it cannot be read or recovered again.`)
      ) return;
      const answer = await signed("DELETE", source.erasePath(memory.id))
        .catch((error) => {
          if (error.status === 404) gone(row);
          throw error;
        });
      gone(row);
      await showReceipt(answer);
    }, { kind: "danger small", busy: "Erasing…" });
    erase.setAttribute("aria-describedby", textId);
    // Which agents read it: the access log filtered by this memory.
    const readers = h(
      "a",
      {
        href: `/activity?${new URLSearchParams({ memory: memory.id })}`,
        class: "button secondary small",
        "aria-describedby": textId,
      },
      "Who read this",
    );
    const actions = h("div", { class: "memory-actions" }, readers, erase);
    // A client-encrypted memory's text is not the relayer's to read, nor to correct.
    if (memory.text !== null && !source.blind) actions.prepend(editButton(memory, row, textId));
    row.append(actions);
    return row;
  }

  /** Edit: the text in a box; Save stores the corrected version, which replaces the row. */
  function editButton(memory, row, textId) {
    const edit = action("Edit", () => {
      const box = h("textarea", { rows: "3", dir: "auto", "aria-label": "Corrected text" });
      box.value = memory.text;
      const text = row.querySelector(".memory-text");
      const editor = h("div", { class: "memory-edit" }, box);
      const cancel = action("Cancel", () => {
        editor.replaceWith(text);
        edit.hidden = false;
        edit.focus();
      }, { kind: "secondary small" });
      const save = action("Save", async () => {
        // The same text again would only make a new version of it (a text box gives its line
        // breaks as \n, whatever the text had).
        if (box.value === memory.text.replace(/\r\n?/g, "\n")) return cancel.click();
        const corrected = await correct(memory.id, box.value).catch(async (error) => {
          if (error.status === 404) gone(row);
          // Updated meanwhile (an agent, another tab): the row shows the current version, and
          // the status why the correction was not made.
          if (error.reason === "replaced" && error.current) {
            const current = await signed(
              "GET",
              `/api/memories/${encodeURIComponent(error.current)}`,
            ).catch(() => undefined);
            if (current) row.replaceWith(item(current));
            else gone(row);
          }
          // A text the relayer refuses (too long, say): the box is what to fix.
          if (error.status === 400 || error.status === 413) {
            box.setAttribute("aria-invalid", "true");
            box.setAttribute("aria-describedby", "status");
            box.focus();
          }
          throw error;
        });
        // Its score was the old text's.
        const fresh = item(corrected);
        row.replaceWith(fresh);
        fresh.querySelector("button")?.focus();
        say("Corrected: the new version replaced the old one.");
      }, { kind: "primary small", busy: "Saving…" });
      editor.append(h("div", { class: "actions" }, save, cancel));
      editor.addEventListener("keydown", (event) => {
        // (Not the Escape that ends an input method's composition.)
        if (event.key === "Escape" && !event.isComposing && !save.disabled) cancel.click();
      });
      // Edited, the text is no longer the one refused.
      box.addEventListener("input", () => {
        box.removeAttribute("aria-invalid");
        box.removeAttribute("aria-describedby");
      });
      text.replaceWith(editor);
      edit.hidden = true;
      box.focus();
    }, { kind: "secondary small" });
    edit.setAttribute("aria-describedby", textId);
    return edit;
  }

  /** Takes a memory's row off the page: erased (here, or meanwhile in another tab, by an agent). */
  function gone(row) {
    // The focus, if in the row, goes on to the next memory (or the one before, or the count).
    const held = row.contains(document.activeElement) || document.activeElement === document.body;
    const next = row.nextElementSibling ?? row.previousElementSibling;
    row.remove();
    if (held) (next?.querySelector("button, a") ?? heading).focus();
    if (count !== undefined) counted(Math.max(0, count - 1));
    const left = list.children.length;
    heading.textContent = !left
      ? "No memories left on this page."
      : searching
      ? `${left} ${left === 1 ? "match" : "matches"} left.`
      : `Showing ${left}, newest first.`;
  }

  /** Stores `text` as the new version of memory `id`; resolves to it once it is stored. */
  async function correct(id, text) {
    const accepted = await signed("PUT", `/api/memories/${encodeURIComponent(id)}`, { text });
    for (
      let wait = 100, waited = 0;
      waited < 60_000;
      waited += wait, wait = Math.min(2 * wait, 2000)
    ) {
      const job = await signed("GET", `/api/remember/${accepted.job_id}`);
      if (job.status === "failed") throw new Error(job.error);
      if (job.status === "done") {
        return await signed("GET", `/api/memories/${encodeURIComponent(accepted.job_id)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    throw new Error("The corrected version is still being stored: reload the page in a while.");
  }

  async function showReceipt(answer) {
    const health = await fetch("/health").then((r) => r.json()).catch(() => ({}));
    const valid = await verifyReceipt(answer, health.receiptKey);
    receipt.replaceChildren(card(
      "Erase receipt",
      h(
        "p",
        { class: valid ? "done" : "warning" },
        valid
          ? "Erased. The relayer signed this receipt, and its signature checks out against the " +
            "relayer's receipt key."
          : "Erased, but the receipt's signature does not check out against the relayer's " +
            "receipt key: keep it and report it.",
      ),
      h(
        "dl",
        {},
        field("Memory", answer.memory_id),
        field("Owner", answer.owner),
        field("Blob", answer.blob_id),
        field("Erased at", answer.erased_at),
        field("Signature", answer.signature),
        field("Receipt key", health.receiptKey ?? "unknown"),
      ),
      h(
        "div",
        { class: "actions" },
        action("Copy receipt", async () => {
          const { memory_id, owner, blob_id, erased_at, signature } = answer;
          await navigator.clipboard.writeText(
            JSON.stringify({ memory_id, owner, blob_id, erased_at, signature }, null, 2),
          );
          say("Receipt copied to the clipboard.", "success");
        }, { kind: "secondary" }),
      ),
    ));
    // Said once, by the status line; the receipt below says it at length.
    say(
      valid
        ? `Erased memory ${answer.memory_id}; its receipt checks out.`
        : `Erased memory ${answer.memory_id}, but its receipt does not check out: keep it.`,
      valid ? "success" : "error",
    );
    // The receipt is at the top of the page, the row erased maybe far below: it takes the focus.
    receipt.querySelector("h2").focus();
  }

  /**
   * Appends a page of the namespace (the first without `cursor`); resolves to the next page's
   * cursor. The history entry keeps how many are shown, and `search` its query (never the URL),
   * so that Back to this page shows them again.
   */
  async function page(cursor) {
    const answer = await source.list(cursor);
    searching = false;
    if (!cursor) list.replaceChildren();
    const rows = answer.memories.map((memory) => item(memory));
    list.append(...rows);
    // Load more is gone from under the keyboard: the first new memory's first button takes it.
    if (cursor) rows[0]?.querySelector("button, a")?.focus();
    if (list.children.length === 0) counted(0);
    heading.textContent = list.children.length === 0
      ? "No memories in this namespace."
      : `Showing ${list.children.length}, newest first.`;
    more.replaceChildren(
      answer.next_cursor
        ? action("Load more", () => page(answer.next_cursor), {
          kind: "secondary",
          busy: "Loading…",
        })
        : "",
    );
    history.replaceState({ shown: list.children.length }, "");
    return answer.next_cursor;
  }

  async function search(query) {
    const answer = await signed("POST", "/api/recall", { query, namespace, limit: PAGE_SIZE });
    history.replaceState({ query }, "");
    searching = true;
    list.replaceChildren(...answer.results.map((result) => item(result, result.score)));
    heading.textContent = answer.total === 0
      ? `No memory matches "${query}".`
      : `${answer.total} best ${answer.total === 1 ? "match" : "matches"} for "${query}".`;
    more.replaceChildren(action("Show all", async () => {
      input.value = "";
      await page();
      list.querySelector("button, a")?.focus();
    }, { kind: "secondary" }));
  }

  const input = h("input", {
    type: "search",
    id: "memory-search",
    placeholder: "What do I eat?",
    maxlength: "1000",
  });
  const form = h(
    "form",
    { class: "search", role: "search" },
    h("label", { for: "memory-search" }, "Search memories by meaning"),
    h(
      "div",
      { class: "search-row" },
      input,
      h("button", { type: "submit", class: "primary" }, "Search"),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const query = input.value.trim();
    try {
      await (query ? search(query) : page());
    } catch (error) {
      say(error.message, "error");
    }
  });

  const picker = h("select", { id: "namespace-picker" });
  const choose = h(
    "div",
    { class: "namespace-picker" },
    h("label", { for: "namespace-picker" }, "Namespace"),
    picker,
  );
  const current = h(
    "option",
    { value: namespace, selected: true },
    optionLabel(namespace, 0, source.blind, source.erasing),
  );
  picker.append(current);
  /** How many memories the namespace holds, once known: the picker shows it. */
  let count;
  const counted = (value) => {
    count = value;
    current.textContent = optionLabel(namespace, count, source.blind, source.erasing);
    eraseAll.hidden = count === 0 && !source.erasing;
  };
  onPick(picker, () => {
    location.search = `?${new URLSearchParams({ namespace: picker.value })}`;
  });
  namespaces({ wallet, owned }).then(({ namespaces: known }) => {
    for (const { namespace: name, count: held, blind, erasing } of known) {
      if (name === namespace) counted(held);
      else picker.append(h("option", { value: name }, optionLabel(name, held, blind, erasing)));
    }
  }, () => {});

  // Erasing the whole namespace: its name typed again, as the API asks for it.
  const eraseAll = action(`Erase the namespace…`, async () => {
    const typed = prompt(
      `Erase every memory in "${
        shownName(namespace)
      }"? Their keys are destroyed: none can be read or ` +
        "recovered again. Type the namespace's name to confirm.",
    );
    if (typed === null) return;
    // As it is, or as shown (a character that shows as nothing cannot be typed).
    if (typed !== namespace && typed !== shownName(namespace)) {
      throw new Error("The name typed is not the namespace's: nothing was erased.");
    }
    const answer = await signed("DELETE", source.eraseAllPath());
    const health = await fetch("/health").then((r) => r.json()).catch(() => ({}));
    const checked = await Promise.all(
      answer.receipts.map((one) => verifyReceipt(one, health.receiptKey)),
    );
    list.replaceChildren();
    more.replaceChildren();
    source.note?.remove(); // no longer operator-blind, nor half erased
    Object.assign(source, { blind: false, erasing: false });
    counted(0);
    heading.textContent = "No memories in this namespace.";
    say(
      `Erased ${answer.erased} ${answer.erased === 1 ? "memory" : "memories"} in "${
        shownName(namespace)
      }"` +
        (checked.every(Boolean)
          ? "; every receipt's signature checks out against the relayer's receipt key."
          : "; some receipts' signatures do not check out: report it."),
      checked.every(Boolean) ? "success" : "error",
    );
  }, { kind: "danger", busy: "Erasing…" });

  render(
    receipt,
    card(
      `Memories in "${shownName(namespace)}"`,
      choose,
      source.note ?? form,
      heading,
      list,
      more,
      h("div", { class: "actions" }, eraseAll),
    ),
  );
  const kept = history.state ?? {};
  try {
    if (failure) throw failure;
    if (kept.query && !source.blind) {
      input.value = kept.query;
      await search(kept.query);
    } else {
      let next = await page();
      while (next && list.children.length < (kept.shown ?? 0)) next = await page(next);
    }
  } catch (error) {
    heading.textContent = `Cannot list the memories: ${error.message}`;
  }
}
