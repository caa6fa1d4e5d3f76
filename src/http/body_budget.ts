/**
 * A budget of the bytes held by request bodies that nobody has authenticated yet: bodies being
 * read before their signature is checked, and bodies of public routes. It bounds them across all
 * connections and per client address, so that slow or unfinished bodies cannot exhaust memory.
 *
 * A body that is refused is answered at once, without reading it. A body larger than
 * {@link SMALL_BODY_BYTES} may not take the last eighth of either budget: while large bodies
 * fill the rest, the small requests of ordinary clients (a recall is a few hundred bytes) still
 * find room, even those sharing an address with the large ones. The bodies of public routes,
 * whose client no key vouches for (MCP, before its sidecar checks the bearer; sponsoring), may
 * take at most half of either budget: a client without a key, sending slow bodies, leaves the
 * signed routes room.
 *
 * @example
 * ```ts
 * const budget = new BodyBudget({ totalBytes: 32 << 20, perAddressBytes: 8 << 20 });
 * const reservation = budget.open("203.0.113.7");
 * if (reservation.grow(2 << 20) === undefined) {
 *   // read up to 2 MiB, then:
 *   reservation.release();
 * }
 * ```
 */

/** Bodies up to this size (64 KiB) may use the whole budget; larger ones seven eighths of it. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** Which budget a body did not fit: its client address's, or the one shared by all. */
export type BodyBudgetRefusal = "address" | "total";

/** The sizes of a {@link BodyBudget}. */
export interface BodyBudgetOptions {
  /** Bytes held by all unauthenticated bodies together (default 32 MiB). */
  totalBytes?: number;
  /** Bytes held by the unauthenticated bodies of one client address (default 8 MiB). */
  perAddressBytes?: number;
}

/** The bytes one body holds against a {@link BodyBudget}; grown as it is read, released once. */
export interface BodyReservation {
  /** The bytes reserved so far. */
  readonly bytes: number;
  /** Reserves `bytes` more; `undefined` when they fit, else the budget that is spent. */
  grow(bytes: number): BodyBudgetRefusal | undefined;
  /** Gives every reserved byte back; later calls do nothing. */
  release(): void;
}

/** Counts the bytes held by unauthenticated request bodies (see the module comment). */
export class BodyBudget {
  /** The budget shared by all client addresses. */
  readonly totalBytes: number;
  /** The budget of each client address. */
  readonly perAddressBytes: number;
  #held = 0;
  #byAddress = new Map<string, number>();
  /** What public routes' bodies hold: in all (under `""`) and by address. */
  #public = new Map<string, number>();

  /** A budget with the given limits (32 MiB in all, 8 MiB per address, by default). */
  constructor(options: BodyBudgetOptions = {}) {
    this.totalBytes = options.totalBytes ?? 32 * 1024 * 1024;
    this.perAddressBytes = options.perAddressBytes ?? 8 * 1024 * 1024;
  }

  /** Bytes reserved now: by `address`'s bodies, or by all when no address is given. */
  held(address?: string): number {
    return address === undefined ? this.#held : this.#byAddress.get(address) ?? 0;
  }

  /**
   * A reservation, empty until grown, for a body from `address`; `isPublic` for a public route's
   * (half of either budget at most).
   */
  open(address: string, isPublic = false): BodyReservation {
    let bytes = 0;
    let released = false;
    return {
      get bytes() {
        return bytes;
      },
      grow: (more: number) => {
        if (released) throw new Error("Cannot grow a body reservation: it was released");
        const refusal = this.#refusal(address, bytes, more, isPublic);
        if (refusal) return refusal;
        bytes += more;
        this.#add(address, more, isPublic);
        return undefined;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#add(address, -bytes, isPublic);
      },
    };
  }

  #refusal(
    address: string,
    current: number,
    more: number,
    isPublic: boolean,
  ): BodyBudgetRefusal | undefined {
    const large = current + more > SMALL_BODY_BYTES;
    const cap = (limit: number) => large ? limit - Math.floor(limit / 8) : limit;
    const half = (key: string, limit: number) =>
      isPublic && (this.#public.get(key) ?? 0) + more > limit / 2;
    if (this.held(address) + more > cap(this.perAddressBytes)) return "address";
    if (half(address, this.perAddressBytes)) return "address";
    if (this.#held + more > cap(this.totalBytes) || half("", this.totalBytes)) return "total";
    return undefined;
  }

  #add(address: string, bytes: number, isPublic: boolean): void {
    this.#held += bytes;
    count(this.#byAddress, address, bytes);
    if (isPublic) {
      count(this.#public, "", bytes);
      count(this.#public, address, bytes);
    }
  }
}

/** Adds `bytes` to `key`'s count in `counts`, dropping a count that reaches 0. */
function count(counts: Map<string, number>, key: string, bytes: number): void {
  const left = (counts.get(key) ?? 0) + bytes;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
