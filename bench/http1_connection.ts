/**
 * A minimal HTTP/1.1 client for the load generator: one keep-alive connection that sends one
 * request at a time and reads each answer by its `content-length` or its chunks, as a load
 * generator such as wrk does. `fetch` costs the generator two to three times the CPU a request, which on
 * a small machine comes out of the relayer's cores.
 *
 * @example
 * ```ts
 * const connection = await Http1Connection.open(new URL("http://127.0.0.1:8000"));
 * const { status, body } = await connection.send("GET", "/health", {});
 * connection.close();
 * ```
 */
const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");

const CRLF = [13, 10];
const CRLF_CRLF = [13, 10, 13, 10];

/** One keep-alive connection to a host; see the module documentation. */
export class Http1Connection {
  #conn: Deno.TcpConn;
  #host: string;
  #buffer = new Uint8Array(16_384);
  #filled = 0;

  private constructor(conn: Deno.TcpConn, host: string) {
    this.#conn = conn;
    this.#host = host;
  }

  static async open(url: URL): Promise<Http1Connection> {
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port || 80) });
    conn.setNoDelay(true);
    return new Http1Connection(conn, url.host);
  }

  /**
   * The answer's status and body to `method path` with `headers` and `body`, and whether the
   * connection may carry another request (not when the server said `connection: close`).
   */
  async send(method: string, path: string, headers: Record<string, string>, body?: Uint8Array) {
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.#host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (body) head += `content-length: ${body.byteLength}\r\n`;
    const request = encoder.encode(head + "\r\n");
    const bytes = new Uint8Array(request.length + (body?.length ?? 0));
    bytes.set(request);
    if (body) bytes.set(body, request.length);
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
    const { end: headEnd, lines } = await this.#lines(0);
    const status = Number(lines[0].split(" ")[1]);
    const header = (name: string) =>
      lines.find((line) => line.toLowerCase().startsWith(name + ":"))?.split(":")[1]
        .trim().toLowerCase();
    let end = headEnd;
    const length = header("content-length");
    let answer: Uint8Array;
    if (length !== undefined) {
      while (this.#filled < end + Number(length)) await this.#read();
      answer = this.#buffer.slice(end, end + Number(length));
      end += Number(length);
    } else if (header("transfer-encoding") === "chunked") {
      const chunks: Uint8Array[] = [];
      while (true) {
        let lineEnd = -1;
        while ((lineEnd = this.#find(CRLF, end)) < 0) await this.#read();
        const size = parseInt(latin1.decode(this.#buffer.subarray(end, lineEnd)), 16);
        if (!(size >= 0)) throw new Error("a chunk without a size");
        end = lineEnd + 2;
        // The last chunk: trailer fields, if any, up to a blank line.
        if (size === 0) {
          end = (await this.#lines(end)).end;
          break;
        }
        while (this.#filled < end + size + 2) await this.#read();
        chunks.push(this.#buffer.slice(end, end + size));
        end += size + 2;
      }
      answer = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
      chunks.reduce((at, chunk) => (answer.set(chunk, at), at + chunk.length), 0);
    } else {
      throw new Error("an answer without a length");
    }
    this.#buffer.copyWithin(0, end, this.#filled);
    this.#filled -= end;
    return { status, body: answer, reusable: header("connection") !== "close" };
  }

  /** The lines from `from` up to a blank line, and where the blank line ends. */
  async #lines(from: number): Promise<{ end: number; lines: string[] }> {
    while (this.#filled < from + 2) await this.#read();
    // No field at all: the blank line itself.
    if (this.#buffer[from] === 13 && this.#buffer[from + 1] === 10) {
      return { end: from + 2, lines: [] };
    }
    let at = -1;
    while ((at = this.#find(CRLF_CRLF, from)) < 0) await this.#read();
    return {
      end: at + 4,
      lines: latin1.decode(this.#buffer.subarray(from, at)).split("\r\n"),
    };
  }

  /** Where `pattern` starts in the bytes read, from `from`, or -1. */
  #find(pattern: number[], from: number): number {
    const bytes = this.#buffer;
    for (let i = from; i + pattern.length <= this.#filled; i++) {
      if (pattern.every((byte, k) => bytes[i + k] === byte)) return i;
    }
    return -1;
  }

  async #read(): Promise<void> {
    if (this.#filled === this.#buffer.length) {
      const grown = new Uint8Array(this.#buffer.length * 2);
      grown.set(this.#buffer);
      this.#buffer = grown;
    }
    const read = await this.#conn.read(this.#buffer.subarray(this.#filled));
    if (read === null) throw new Error("the relayer closed the connection");
    this.#filled += read;
  }

  close(): void {
    this.#conn.close();
  }
}
