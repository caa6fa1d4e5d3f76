// What a loopback address (127.0.0.1, [::1]) answers with: the dashboard has one origin,
// localhost, since a browser keeps a wallet per origin. Without a wallet here the page goes
// there; with one (made at this address by an earlier version) it offers the wallet's backup,
// to restore at localhost, so the wallet is not left behind.
import { forgetWallet, loadWallet } from "./wallet.js";
import { backupPanel } from "./session.js";
import { action, card, h, render } from "./ui.js";

const there = new URL(location.href);
there.hostname = "localhost";
const wallet = await loadWallet().catch(() => null);
if (!wallet) {
  location.replace(there.href);
} else {
  document.title = "svc — move your wallet";
  render(card(
    "Move your wallet to the dashboard's address",
    h(
      "p",
      {},
      `The dashboard is now at ${there.origin}. This address (${location.host}) still holds ` +
        `the wallet ${wallet.address}, made here by an earlier version, and a browser keeps a ` +
        "wallet per address. Download its backup, then open the dashboard and choose " +
        "Restore from a backup. Once it is restored there, forget it here: this address then " +
        "goes straight to the dashboard.",
    ),
    ...backupPanel(wallet),
    h(
      "div",
      { class: "actions" },
      h("a", { href: there.href, class: "button primary" }, "Open the dashboard"),
      action("Forget it at this address", async () => {
        const sure = confirm(
          `Forget the wallet ${wallet.address} at ${location.host}? Do so only once it is ` +
            `restored at ${there.origin} (or its backup is kept): nothing else can manage its ` +
            "account.",
        );
        if (!sure) return;
        await forgetWallet();
        location.replace(there.href);
      }, { kind: "danger" }),
    ),
  ));
}
