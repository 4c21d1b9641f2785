import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const DOCKER = path.join(__dirname, '../../../docker');

interface Service {
  hostname?: string;
  build?: { context: string; dockerfile: string };
  image?: string;
  environment?: Record<string, string | number>;
  ports?: string[];
}

describe('docker files (no Docker engine here: checked as files)', () => {
  const compose = parse(fs.readFileSync(path.join(DOCKER, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };

  it('runs a 3-node ZooKeeper ensemble and 3 brokers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['kafka1', 'kafka2', 'kafka3', 'zk1', 'zk2', 'zk3']);
    for (const id of [1, 2, 3]) {
      const zk = compose.services[`zk${id}`] as Service;
      expect(zk.image).toBe('zookeeper:3.8');
      expect(zk.environment?.['ZOO_MY_ID']).toBe(id);
      expect(String(zk.environment?.['ZOO_SERVERS'])).toContain(`server.${id}=zk${id}:2888:3888;2181`);
    }
  });

  it('gives each broker its own id and advertised listeners, all on the same ensemble and chroot', () => {
    const connects = new Set<string>();
    for (const id of [1, 2, 3]) {
      const b = compose.services[`kafka${id}`] as Service;
      expect(b.build).toEqual({ context: '..', dockerfile: 'docker/Dockerfile' });
      expect(b.environment?.['KAFKA_BROKER_ID']).toBe(id);
      expect(String(b.environment?.['KAFKA_ADVERTISED_LISTENERS'])).toContain(`INTERNAL://kafka${id}:9092`);
      expect(b.ports).toEqual([`${id}9092:${id}9092`]);
      connects.add(String(b.environment?.['KAFKA_ZOOKEEPER_CONNECT']));
    }
    expect([...connects]).toEqual(['zk1:2181,zk2:2181,zk3:2181/kafka']);
  });

  it('builds an image whose entry point exists and starts the broker', () => {
    const dockerfile = fs.readFileSync(path.join(DOCKER, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toContain('npm ci --omit=dev');
    const entry = fs.readFileSync(path.join(DOCKER, 'broker-entrypoint.sh'), 'utf8');
    expect(entry).toContain('exec ./bin/kafka-server-start.ts');
    expect(fs.statSync(path.join(DOCKER, 'broker-entrypoint.sh')).mode & 0o111).not.toBe(0);
  });
});
