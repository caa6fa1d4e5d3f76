// The svc dashboard: the wallet and account page (/), the connected agents (/agents), the
// memories of a namespace (/memories, in memories.js), the access log (/activity, in
// activity.js) and the MCP sign-in consent page (/connect/mcp). Every text from the URL or the server goes through textContent.
import {
  addressOf,
  agentIsWaiting,
  confirmationCode,
  createWallet,
  denySignIn,
  exportBackup,
  importBackup,
  loadWallet,
  namespaces,
  reach,
  transact,
} from "./wallet.js";
import { action, card, field, h, render, say, short } from "./ui.js";
import { memories } from "./memories.js";
import { describeKeyScope, requestedScope, scopeChooser, scopeLines } from "./scope.js";
import { activity } from "./activity.js";

async function account(owner) {
  const response = await reach(`/api/account?owner=${encodeURIComponent(owner)}`);
  if (!response.ok) throw new Error(`Cannot read the account (${response.status}).`);
  return (await response.json()).account;
}

// ---------------------------------------------------------------- wallet set-up

function walletSetup(onReady) {
  const backup = h("textarea", {
    id: "backup-input",
    rows: "4",
    spellcheck: "false",
    placeholder: '{"type": "svc-owner-key", …}',
  });
  return card(
    "Create your wallet",
    h(
      "p",
      {},
      "Your wallet is an Ed25519 key that owns your svc account. It is created and kept in " +
        "this browser; nobody else, not even this server, ever sees it.",
    ),
    h(
      "div",
      { class: "actions" },
      action("Create wallet", async () => {
        const wallet = await createWallet();
        localStorage.setItem(BACKUP_PENDING, wallet.address);
        onReady(wallet);
      }, { busy: "Creating…" }),
    ),
    h(
      "details",
      {},
      h("summary", {}, "Restore from a backup"),
      h("label", { for: "backup-input" }, "Paste the backup you exported earlier"),
      backup,
      h(
        "div",
        { class: "actions" },
        action("Restore wallet", async () => onReady(await importBackup(backup.value)), {
          kind: "secondary",
        }),
      ),
    ),
  );
}

function accountSetup(wallet, onReady) {
  return card(
    "Create your account",
    h(
      "p",
      {},
      "An account holds the keys your agents use to reach your memory. Creating it is free.",
    ),
    h("dl", {}, field("Wallet address", wallet.address)),
    h(
      "div",
      { class: "actions" },
      action("Create account", async () => {
        await transact(wallet, { kind: "create_account" });
        say("Account created.", "success");
        onReady(await account(wallet.address));
      }, { busy: "Creating…" }),
    ),
  );
}

// ---------------------------------------------------------------- backup

/**
 * The wallet backup: a warning first, the key hidden until revealed, copy and download.
 * `onContinue`, when given, adds a button to go on (right after the wallet is created).
 */
function backupPanel(wallet, onContinue) {
  const json = exportBackup(wallet);
  const backup = h("pre", {
    class: "backup",
    id: "wallet-backup",
    tabindex: "0",
    "aria-label": "Wallet backup",
  });
  backup.textContent = "•••• hidden ••••";
  const reveal = h("button", {
    type: "button",
    class: "secondary",
    "aria-controls": "wallet-backup",
  });
  reveal.textContent = "Reveal key";
  reveal.addEventListener("click", async () => {
    const shown = reveal.textContent === "Hide key";
    backup.textContent = shown ? "•••• hidden ••••" : await json;
    reveal.textContent = shown ? "Reveal key" : "Hide key";
  });
  const name = `svc-wallet-${wallet.address.slice(2, 10)}.json`;
  return [
    h(
      "p",
      { class: "warning", role: "note" },
      "Anyone holding this backup controls your account and every memory in it. Keep it " +
        "offline or in a password manager; never paste it into a chat or give it to an agent. " +
        "Without it, a new browser cannot manage this account.",
    ),
    backup,
    h(
      "div",
      { class: "actions" },
      reveal,
      action("Copy backup", async () => {
        await navigator.clipboard.writeText(await json);
        say("Backup copied to the clipboard.", "success");
      }, { kind: "secondary" }),
      action("Download backup", async () => {
        const blob = new Blob([await json], { type: "application/json" });
        const link = h("a", { href: URL.createObjectURL(blob), download: name });
        link.click();
        URL.revokeObjectURL(link.href);
        say(`Backup saved as ${name}.`, "success");
      }, { kind: "secondary" }),
      onContinue ? action("I saved it, continue", () => Promise.resolve(onContinue())) : null,
    ),
  ];
}

// ---------------------------------------------------------------- home

/**
 * The wallet created in this browser whose backup was not yet confirmed (by "I saved it,
 * continue"): its backup is offered again, however often the page is reloaded meanwhile.
 */
const BACKUP_PENDING = "svc-backup-pending";

/** The wallet and its account, creating them first when needed; null while set-up runs. */
async function signedIn(page) {
  const wallet = await loadWallet();
  if (!wallet) {
    render(walletSetup(() => page()));
    return null;
  }
  if (localStorage.getItem(BACKUP_PENDING) === wallet.address) {
    render(card(
      "Back up your wallet",
      ...backupPanel(wallet, () => {
        localStorage.removeItem(BACKUP_PENDING);
        return page();
      }),
    ));
    return null;
  }
  const owned = await account(wallet.address);
  if (!owned) {
    render(accountSetup(wallet, () => page()));
    return null;
  }
  return { wallet, owned };
}

async function home() {
  document.title = "svc — your memory";
  const session = await signedIn(home);
  if (!session) return;
  const { wallet, owned } = session;

  const spaces = h("div", {}, h("p", { class: "empty" }, "Loading namespaces…"));
  namespaces(wallet).then(
    ({ namespaces: list }) => {
      spaces.replaceChildren(
        list.length === 0 ? h("p", { class: "empty" }, "No memories yet.") : h(
          "table",
          {},
          h("caption", { class: "sr-only" }, "Namespaces"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Namespace"),
              h("th", { scope: "col", class: "right" }, "Memories"),
            ),
          ),
          h(
            "tbody",
            {},
            list.map((n) =>
              h(
                "tr",
                {},
                h(
                  "td",
                  { class: "mono" },
                  h(
                    "a",
                    { href: `/memories?${new URLSearchParams({ namespace: n.namespace })}` },
                    n.namespace,
                  ),
                ),
                h("td", { class: "right" }, String(n.count)),
              )
            ),
          ),
        ),
      );
    },
    (error) =>
      spaces.replaceChildren(
        h("p", { class: "empty" }, `Cannot list namespaces: ${error.message}`),
      ),
  );

  const agents =
    owned.delegate_keys.filter((key) => !key.expires_at || Date.parse(key.expires_at) > Date.now())
      .length;
  const backup = h("div", { hidden: true });
  const show = action("Show backup", () => {
    backup.replaceChildren(...backupPanel(wallet));
    backup.hidden = false;
    show.hidden = true;
    return Promise.resolve();
  }, { kind: "secondary" });
  render(
    card(
      "Your account",
      h(
        "dl",
        {},
        field("Account", owned.id),
        field("Owner (this wallet)", wallet.address),
        field("Status", owned.active ? "Active" : "Inactive", { mono: false }),
        field(
          "Agents",
          agents === 0 ? "none connected yet" : `${agents} connected`,
          { mono: false },
        ),
      ),
      h(
        "div",
        { class: "actions" },
        h("a", { href: "/agents", class: "button secondary" }, "Manage agents"),
      ),
    ),
    card("Namespaces", spaces),
    card(
      "Backup",
      h(
        "p",
        {},
        "Export the wallet key and keep it somewhere safe: without it, a new browser cannot " +
          "manage this account.",
      ),
      h("div", { class: "actions" }, show),
      backup,
    ),
  );
}

// ---------------------------------------------------------------- agents

async function agents() {
  document.title = "svc — connected agents";
  const session = await signedIn(agents);
  if (!session) return;
  const { wallet, owned } = session;
  const keys = owned.delegate_keys.length === 0
    ? h(
      "p",
      { class: "empty" },
      "No agent is connected yet. Run svc-mcp and call svc_login to connect one.",
    )
    : h(
      "table",
      { class: "agents" },
      h("caption", { class: "sr-only" }, "Connected agents"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Label"),
          h("th", { scope: "col" }, "Scope"),
          h("th", { scope: "col" }, "Address"),
          h("th", { scope: "col" }, "Added"),
          h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")),
        ),
      ),
      h(
        "tbody",
        {},
        owned.delegate_keys.map((key) =>
          h(
            "tr",
            {},
            h("td", {}, key.label || "(no label)"),
            h("td", { class: "key-scope" }, describeKeyScope(key)),
            h("td", { class: "mono", title: key.address }, short(key.address)),
            h(
              "td",
              {},
              new Date(key.created_at).toLocaleDateString(undefined, { dateStyle: "medium" }),
            ),
            h(
              "td",
              { class: "right" },
              action(`Revoke`, async () => {
                if (
                  !confirm(
                    `Revoke "${key.label || key.address}"? That agent loses access at once.`,
                  )
                ) return;
                await transact(wallet, {
                  kind: "remove_delegate_key",
                  account_id: owned.id,
                  public_key: key.public_key,
                });
                await agents();
                say(`Revoked "${key.label || short(key.address)}".`, "success");
              }, { kind: "danger small", busy: "Revoking…" }),
            ),
          )
        ),
      ),
    );
  render(card("Connected agents", keys));
}

// ---------------------------------------------------------------- connect

const HEX64 = /^[0-9a-f]{64}$/;

/** The sign-in request from the URL, or the list of what is wrong with it. */
function connectRequest(params) {
  const problems = [];
  const get = (name) => params.get(name) ?? "";
  const port = Number(get("port"));
  if (!/^[0-9]{1,5}$/.test(get("port")) || port < 1 || port > 65535) {
    problems.push("port is not a port number");
  }
  if (!HEX64.test(get("publicKey"))) problems.push("publicKey is not 64 hex characters");
  else if (get("delegateAddress") !== addressOf(get("publicKey"))) {
    problems.push("delegateAddress does not match publicKey");
  }
  const label = get("label");
  if (!label || new TextEncoder().encode(label).length > 64) {
    problems.push("label must be 1 to 64 bytes");
  }
  let relayer = null;
  try {
    relayer = new URL(get("relayer"));
    if (!/^https?:$/.test(relayer.protocol)) problems.push("relayer is not an http(s) address");
  } catch {
    problems.push("relayer is not an address");
  }
  if (!HEX64.test(get("state"))) problems.push("state is missing or malformed");
  const scope = requestedScope(params, problems);
  return problems.length ? { problems } : {
    scope,
    port,
    publicKey: get("publicKey"),
    delegateAddress: get("delegateAddress"),
    label,
    relayer: relayer.href.replace(/\/$/, ""),
    state: get("state"),
  };
}

async function connect() {
  document.title = "svc — connect an agent";
  const request = connectRequest(new URLSearchParams(location.search));
  if (request.problems) {
    return render(
      card(
        "This sign-in link is not valid",
        h("p", {}, "The link your agent gave you is incomplete or was changed:"),
        h("ul", { class: "problems" }, request.problems.map((p) => h("li", {}, p))),
        h("p", {}, "Ask your agent to call svc_login again for a new link."),
      ),
      { error: true },
    );
  }
  const session = await signedIn(connect);
  if (!session) return;
  const { wallet, owned } = session;
  const config = await (await fetch("/api/config")).json();
  const code = await confirmationCode(request.publicKey);
  const added = owned.delegate_keys.find((k) => k.public_key === request.publicKey);
  const known = await namespaces(wallet).then(
    (r) => r.namespaces.map((n) => n.namespace),
    () => [],
  );
  const chooser = scopeChooser(request.scope, known);

  const callback = async (txDigest, scope) => {
    const answer = await fetch(`http://127.0.0.1:${request.port}/callback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        accountId: owned.id,
        walletAddress: wallet.address,
        packageId: config.packageId,
        txDigest,
        label: request.label,
        state: request.state,
        ...scope,
      }),
    }).catch(() => null);
    if (answer?.ok) return null;
    const reason = answer ? (await answer.json().catch(() => ({}))).error : null;
    return reason ??
      "the agent did not answer (it may have stopped waiting, or the link may have expired)";
  };

  const finish = async (txDigest, scope) => {
    const failure = await callback(txDigest, scope);
    if (!failure) {
      return render(
        card(
          "Connected",
          h(
            "p",
            { class: "done" },
            `"${request.label}" can now use your memory. You can close this tab and go back to your agent.`,
          ),
        ),
      );
    }
    render(
      card(
        "The agent did not receive the approval",
        h(
          "p",
          {},
          `The key was added to your account, but handing it to "${request.label}" failed: ${failure}.`,
        ),
        h(
          "p",
          {},
          "Retry while the agent is still waiting, or ask it to call svc_login again (and revoke this key on the Agents page).",
        ),
        h(
          "div",
          { class: "actions" },
          action("Retry", () => finish(txDigest, scope)),
          h("a", { href: "/", class: "button secondary" }, "Go to account"),
        ),
      ),
      { error: true },
    );
  };

  /** Runs `run` with the button `other()` disabled: an approval and a denial never overlap. */
  const alone = (other, run) => async () => {
    other().disabled = true;
    try {
      await run();
    } finally {
      other().disabled = false;
    }
  };

  const approve = action(
    "Approve",
    alone(() => deny, async () => {
      const scope = added
        ? {
          namespaces: added.namespaces ?? null,
          operations: added.operations ?? null,
          expires_at: added.expires_at ?? null,
        }
        : chooser.value();
      if (!await agentIsWaiting(request.port, request.state, location.search)) {
        return render(
          card(
            "No agent is waiting for this sign-in",
            h(
              "p",
              {},
              "No agent on this computer answered for this link: it expired, was already used, " +
                "or was not made by your agent. Nothing was changed.",
            ),
            h(
              "p",
              {},
              "Approve only links your own agent gave you; ask it to call svc_login again.",
            ),
          ),
          { error: true },
        );
      }
      const { digest } = added ? { digest: "already-added" } : await transact(wallet, {
        kind: "add_delegate_key",
        account_id: owned.id,
        public_key: request.publicKey,
        label: request.label,
        // The limits only (the ledger leaves out the nulls, and the wallet checks it sent that).
        ...Object.fromEntries(Object.entries(scope).filter(([, value]) => value !== null)),
      });
      await finish(digest, scope);
    }),
    { busy: "Approving…" },
  );

  const deny = action(
    "Deny",
    alone(() => approve, async () => {
      const told = await denySignIn(request.port, request.state);
      render(
        card(
          "Not connected",
          h(
            "p",
            {},
            told
              ? "Nothing was changed, and your agent was told the request was denied. You can " +
                "close this tab."
              : "Nothing was changed. You can close this tab.",
          ),
        ),
      );
    }),
    { kind: "secondary" },
  );

  render(
    card(
      "Connect an agent to your memory",
      h("p", { class: "lead" }, h("strong", {}, request.label), " asks for access to your memory:"),
      h(
        "ul",
        { class: "scope-asked", "aria-label": "What it asks for" },
        scopeLines(request.scope).map((line) => h("li", {}, line)),
      ),
      h(
        "div",
        { class: "code", role: "group", "aria-label": "Confirmation code" },
        h("span", {}, "Confirmation code"),
        h("output", { id: "code" }, code),
        h("small", {}, "Approve only if your agent shows the same code."),
      ),
      h(
        "dl",
        {},
        field("Agent", request.label, { mono: false }),
        field("Relayer", request.relayer),
        field("Agent key address", request.delegateAddress),
        field("Your account", owned.id),
      ),
      request.relayer !== config.relayer
        ? h(
          "p",
          { class: "warning" },
          `This dashboard manages accounts for ${config.relayer}; the agent will use ${request.relayer}.`,
        )
        : null,
      added
        ? h(
          "p",
          { class: "warning" },
          `This key is already on your account (${describeKeyScope(added)}).`,
        )
        : [chooser.element, chooser.summary],
      owned.active ? null : h(
        "p",
        { class: "warning" },
        "Your account is inactive: reactivate it before connecting agents.",
      ),
      h("div", { class: "actions" }, approve, deny),
    ),
  );
}

// ---------------------------------------------------------------- memories

async function memoriesPage() {
  document.title = "svc — memories";
  const session = await signedIn(memoriesPage);
  if (session) await memories(session);
}

async function activityPage() {
  document.title = "svc — activity";
  const session = await signedIn(activityPage);
  if (session) await activity(session);
}

const PAGES = {
  "/": home,
  "/agents": agents,
  "/memories": memoriesPage,
  "/activity": activityPage,
  "/connect/mcp": connect,
};
for (const link of document.querySelectorAll("nav a")) {
  if (link.getAttribute("href") === location.pathname) link.setAttribute("aria-current", "page");
}
(PAGES[location.pathname] ?? home)().catch((error) =>
  say(`Something went wrong: ${error.message}`, "error")
);
