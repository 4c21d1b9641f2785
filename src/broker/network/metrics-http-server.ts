import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getLogger } from '../../common/logging/logging';

const log = getLogger('kafka.metrics.MetricsHttpServer');

/** What the endpoint serves: the exposition text and its content type (a KafkaMetrics). */
export interface MetricsSource {
  exposition(): Promise<string>;
  readonly contentType: string;
}

/**
 * The broker's Prometheus endpoint (what the JMX exporter's Java agent serves next to a JVM broker): GET
 * /metrics answers the text exposition, anything else 404. It lives in the network layer because it listens on a
 * socket; it is a separate server from the Kafka listeners so that a scrape never waits behind Kafka requests'
 * muting or quotas. A failed bind (port taken) rejects startup, which stops the broker.
 */
export class MetricsHttpServer {
  private server: http.Server | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly source: MetricsSource,
  ) {}

  startup(): Promise<void> {
    const server = http.createServer((req, res) => this.serve(req, res));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.host === '' ? undefined : this.host, () => {
        server.off('error', reject);
        server.on('error', (err) => log.error('Metrics endpoint error', err));
        const address = server.address() as AddressInfo;
        log.info(`Serving Prometheus metrics on http://${this.host === '' ? '0.0.0.0' : this.host}:${address.port}/metrics`);
        resolve();
      });
    });
  }

  /** The bound port (the configured one, or the ephemeral one for port 0 in tests). */
  boundPort(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? -1;
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || (url !== '/metrics' && url !== '/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    this.source.exposition().then(
      (text) => res.writeHead(200, { 'Content-Type': this.source.contentType }).end(text),
      (err: unknown) => {
        log.error('Could not collect the metrics', err);
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end('Could not collect the metrics\n');
      },
    );
  }

  shutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}
