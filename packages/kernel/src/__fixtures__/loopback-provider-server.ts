import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the loopback server received. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** The body as the bytes arrived, decoded as UTF-8. */
  text: string;
}

/** How the server answers one request. */
export type Responder = (request: ReceivedRequest, response: http.ServerResponse) => void;

/** Answers with JSON and a status. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Responder {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };
}

/** Answers with a raw text body. */
export function raw(status: number, body: string): Responder {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(body);
  };
}

/** Promises a longer body than it sends, then cuts the connection. */
export function truncated(body: string): Responder {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length * 2) });
    response.write(body);
    setImmediate(() => response.socket?.destroy());
  };
}

/** Never answers (the test's timeout must fire). */
export function hang(): Responder {
  return () => undefined;
}

/**
 * A provider imitation on 127.0.0.1, port 0, for client tests: answers each request with the next
 * responder of its script (the last one repeats), and records what it received.
 */
export class LoopbackProviderServer {
  readonly requests: ReceivedRequest[] = [];
  private readonly server: http.Server;
  private script: Responder[] = [];

  private constructor() {
    this.server = http.createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // keep the raw text
        }
        const request: ReceivedRequest = {
          method: incoming.method ?? '',
          url: incoming.url ?? '',
          headers: incoming.headers,
          body,
          text,
        };
        this.requests.push(request);
        const responder = this.script.length > 1 ? this.script.shift()! : this.script[0];
        if (!responder) {
          json(500, { error: { message: 'no responder scripted' } })(request, response);
          return;
        }
        responder(request, response);
      });
    });
  }

  /** Starts a server on a free loopback port. */
  static async start(): Promise<LoopbackProviderServer> {
    const instance = new LoopbackProviderServer();
    await new Promise<void>((resolve) => instance.server.listen(0, '127.0.0.1', resolve));
    return instance;
  }

  /** `http://127.0.0.1:<port>` */
  get url(): string {
    const address = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  /** Replaces the script. */
  answer(...responders: Responder[]): this {
    this.script = responders;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A loopback URL where nothing listens (a port just freed). */
export async function refusedUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
