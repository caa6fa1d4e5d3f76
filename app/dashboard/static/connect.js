// The MCP sign-in consent page (/connect/mcp): the request from the link svc_login gave the
// agent, checked; the key it would add, with its scope to choose; approve (a sponsored
// transaction registering the key) or deny. Every text from the URL goes through textContent.
import {
  addressOf,
  agentIsWaiting,
  confirmationCode,
  denySignIn,
  namespaces,
  transact,
} from "./wallet.js";
import { action, card, field, h, render } from "./ui.js";
import { describeKeyScope, requestedScope, scopeChooser, scopeLines } from "./scope.js";
import { signedIn } from "./session.js";

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

export async function connect() {
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
  // A link whose agent stopped waiting (expired, used, or not made here) says so at once, before
  // the wallet and the consent form.
  const waiting = await agentIsWaiting(request.port, request.state, location.search);
  if (waiting !== true) return render(notWaiting(waiting), { error: true });
  const session = await signedIn(connect);
  if (!session) return;
  const { wallet, owned } = session;
  const config = await (await fetch("/api/config")).json();
  const code = await confirmationCode(request.publicKey);
  const added = owned.delegate_keys.find((k) => k.public_key === request.publicKey);
  const known = await namespaces(session).then(
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
      // Asked again: the agent may have stopped waiting while the form was open.
      const still = await agentIsWaiting(request.port, request.state, location.search);
      if (still !== true) return render(notWaiting(still), { error: true });
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

/** The card for a link no agent answers for (`false`), or one made by an older svc-mcp. */
function notWaiting(waiting) {
  if (waiting === "older") {
    return card(
      "This agent's svc-mcp is older than the dashboard",
      h(
        "p",
        {},
        "The agent that made this link runs svc-mcp 0.1.0, whose sign-in proof does not " +
          "cover the whole link, so the dashboard does not accept it. Nothing was changed.",
      ),
      h(
        "p",
        {},
        "Update svc-mcp to this relayer's version, then ask the agent to call svc_login " +
          "again. Credentials it saved before keep working.",
      ),
    );
  }
  return card(
    "No agent is waiting for this sign-in",
    h(
      "p",
      {},
      "No agent on this computer answered for this link: it expired, was already used, " +
        "or was not made by your agent. Nothing was changed.",
    ),
    h("p", {}, "Approve only links your own agent gave you; ask it to call svc_login again."),
  );
}
