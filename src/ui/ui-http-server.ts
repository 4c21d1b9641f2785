import fs from 'node:fs';
import * as http from 'node:http';
import path from 'node:path';
import { getLogger } from '../common/logging/logging';
import { BUNDLE_FILE, WEB_DIR } from './ui-bundle';

const log = getLogger('kafka.tools.KafkaUi');

/** A JSON answer, or an HTTP error with a one-line message (bad input never takes the tool down). */
export type ApiAnswer = { status: number; body: unknown };
export type ApiHandler = (method: string, url: URL, body: unknown) => Promise<ApiAnswer>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_BODY = 64 * 1024;

const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>kafka-ts cluster</title>
<link rel="stylesheet" href="/style.css"></head>
<body><div id="app"></div><script src="/app.js"></script></body></html>
`;

/**
 * kafka-ui's HTTP server, built like the broker's metrics endpoint: the page (index, bundle, CSS) and /api/*
 * answered by the handler as JSON. POST bodies are JSON, at most 64 KiB.
 */
export class UiHttpServer {
  private server: http.Server | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly api: ApiHandler,
  ) {}

  startup(): Promise<void> {
    const server = http.createServer((req, res) => this.serve(req, res));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host === '' ? undefined : this.host, () => {
        server.off('error', reject);
        server.on('error', (err) => log.error('HTTP server error', err));
        resolve();
      });
    });
  }

  boundPort(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address !== null ? address.port : -1;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    if (method === 'GET' && (url.pathname === '/' || url.pathname === '/index.html')) return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(INDEX_HTML);
    if (method === 'GET' && url.pathname === '/app.js') return this.file(res, BUNDLE_FILE, 'text/javascript; charset=utf-8');
    if (method === 'GET' && url.pathname === '/style.css') return this.file(res, path.join(WEB_DIR, 'style.css'), 'text/css; charset=utf-8');
    if (!url.pathname.startsWith('/api/')) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return this.json(res, 413, { error: 'Request body too large' });
      let body: unknown = undefined;
      if (size > 0) {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return this.json(res, 400, { error: 'Request body is not JSON' });
        }
      }
      this.api(method, url, body).then(
        (a) => this.json(res, a.status, a.body),
        (err: unknown) => {
          if (err instanceof HttpError) return this.json(res, err.status, { error: err.message });
          log.warn(`${method} ${url.pathname} failed: ${(err as Error).message}`);
          this.json(res, 500, { error: (err as Error).message });
        },
      );
    });
  }

  private file(res: http.ServerResponse, file: string, type: string): void {
    fs.readFile(file, (err, data) => {
      if (err) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      else res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-cache' }).end(data);
    });
  }

  private json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(body));
  }

  shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
