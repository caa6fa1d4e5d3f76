/**
 * Whether the stdio bridge is signed in: the identity it reads whenever a call needs one, and
 * the host told when that changes.
 */

/** What the bridge needs to reach the relayer as the signed-in client. */
export interface BridgeIdentity {
  relayerUrl: string;
  delegatePrivateKey: string;
  accountId: string;
}

/** Signed out: why, in a sentence for the person (the default says how to sign in). */
export interface SignedOut {
  reason?: string;
}

/** Whether `identity` is signed in. */
export function isSignedIn(identity: BridgeIdentity | SignedOut): identity is BridgeIdentity {
  return "relayerUrl" in identity;
}

/** What a memory tool answers signed out: why, and how to sign in. */
export function signedOutText(identity: SignedOut): string {
  return (identity.reason ? `${identity.reason} ` : "Not signed in to svc memory. ") +
    "Call the svc_login tool and open the link it returns, or run `svc-mcp login` " +
    "with the preset of your relayer (for example `svc-mcp login --local`) in a terminal.";
}

/** The identity of the moment, and whether the host was last told it is signed in. */
export class SignInState {
  readonly #read: () => Promise<BridgeIdentity | SignedOut>;
  readonly #toolsChanged: () => void;
  // Whether the last identity read was signed in (undefined: none read yet).
  #signedIn: boolean | undefined;

  /** `read` reads the identity; `toolsChanged` tells the host the tools changed. */
  constructor(read: () => Promise<BridgeIdentity | SignedOut>, toolsChanged: () => void) {
    this.#read = read;
    this.#toolsChanged = toolsChanged;
  }

  /**
   * The identity of the moment. A sign-in or sign-out the host was not told of (credentials
   * another process wrote or deleted: `svc-mcp login` in a terminal) tells it the tools changed.
   */
  async current(): Promise<BridgeIdentity | SignedOut> {
    const identity = await this.#read();
    const now = isSignedIn(identity);
    if (this.#signedIn !== undefined && this.#signedIn !== now) this.#toolsChanged();
    this.#signedIn = now;
    return identity;
  }

  /** The identity of the moment, for a change the caller tells the host of itself. */
  async reread(): Promise<BridgeIdentity | SignedOut> {
    const identity = await this.#read();
    this.#signedIn = isSignedIn(identity);
    return identity;
  }

  /** Signed out by the bridge itself (the host is told by the caller). */
  signedOut(): void {
    this.#signedIn = false;
  }
}
