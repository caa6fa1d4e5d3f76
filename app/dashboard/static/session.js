// The wallet and account every page starts from: created in this browser on the first visit
// (with its backup offered until confirmed), or restored from a backup file; then the account
// that the wallet owns, opened in a sponsored transaction.
import { createWallet, exportBackup, importBackup, loadWallet, reach, transact } from "./wallet.js";
import { action, card, field, h, render, say } from "./ui.js";

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
        // Made meanwhile (in another tab): that one is the wallet's.
        await transact(wallet, { kind: "create_account" }).catch((error) => {
          if (error.reason !== "account_exists") throw error;
        });
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
export function backupPanel(wallet, onContinue) {
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

/**
 * The wallet created in this browser whose backup was not yet confirmed (by "I saved it,
 * continue"): its backup is offered again, however often the page is reloaded meanwhile.
 */
const BACKUP_PENDING = "svc-backup-pending";

/** The wallet and its account, creating them first when needed; null while set-up runs. */
export async function signedIn(page) {
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
