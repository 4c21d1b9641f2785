import fs from 'node:fs';
import path from 'node:path';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { freePort } from '../../helpers/free-port';
import { createChroot } from '../../helpers/create-chroot';
import { tmpDir } from '../../helpers/tmp-dir';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * docs/security.md's "SASL_SSL with ACLs, step by step", run as written: every code block between the
 * walkthrough markers, in order, in an empty directory with `bin` linked in. `sh` blocks run with `sh -e` (the
 * one starting the broker in the background, as the "second terminal" the doc speaks of), `properties` blocks are
 * written to the file their first line names, and each `text` block lists lines the output of the `sh` block
 * before it must contain. The only changes: the ZooKeeper address (`localhost:2181`, a chroot of this test's
 * ensemble here) and the broker's port (9093, a free one here).
 */

jest.setTimeout(120_000);

const REPO = path.resolve(__dirname, '../../..');
const DOC = path.join(REPO, 'docs/security.md');

interface Block {
  lang: string;
  body: string;
}

function walkthroughBlocks(): Block[] {
  const doc = fs.readFileSync(DOC, 'utf8');
  const begin = doc.indexOf('<!-- walkthrough:begin -->');
  const end = doc.indexOf('<!-- walkthrough:end -->');
  if (begin < 0 || end < begin) throw new Error('docs/security.md has no walkthrough markers');
  const blocks: Block[] = [];
  for (const m of doc.slice(begin, end).matchAll(/^( *)```(\w+)\n([\s\S]*?)^\1```$/gm)) {
    const indent = (m[1] ?? '').length;
    const body = (m[3] ?? '').split('\n').map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length))).join('\n');
    blocks.push({ lang: m[2] ?? '', body });
  }
  return blocks;
}

let ensemble: ZkEnsemble;
let broker: TestChild | undefined;

afterAll(async () => {
  await broker?.stop();
  await ensemble?.close();
});

it('docs/security.md: the SASL_SSL + ACL walkthrough works as written', async () => {
  const blocks = walkthroughBlocks();
  expect(blocks.map((b) => b.lang)).toEqual(['sh', 'sh', 'text', 'properties', 'sh', 'properties', 'properties', 'sh', 'text', 'sh', 'text', 'sh', 'text']);
  ensemble = await startZkEnsemble({ size: 3 });
  const chroot = uniqueChroot('walkthrough');
  await createChroot(ensemble.connectString, chroot);
  const zkConnect = ensemble.connectString + chroot;
  const port = String(await freePort());
  const dir = tmpDir('kafka-ts-walkthrough-');
  fs.symlinkSync(path.join(REPO, 'bin'), path.join(dir, 'bin'));
  const env = { ...process.env, LOG_DIR: path.join(dir, 'logs') };
  const local = (text: string): string => text.replaceAll('localhost:2181', zkConnect).replaceAll('9093', port);

  let lastOutput = '';
  for (const block of blocks) {
    const body = local(block.body);
    if (block.lang === 'properties') {
      const file = /^# (\S+)\n/.exec(body)?.[1];
      if (file === undefined) throw new Error(`a properties block without its file name:\n${body}`);
      fs.writeFileSync(path.join(dir, file), body);
    } else if (block.lang === 'text') {
      const missing = body.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !lastOutput.includes(l));
      expect({ missing, output: missing.length === 0 ? '' : lastOutput }).toEqual({ missing: [], output: '' });
    } else if (body.includes('kafka-server-start.ts')) {
      broker = spawnChild('/bin/sh', ['-c', `exec ${body.trim()}`], { cwd: dir, env, name: 'walkthrough-broker' });
      await broker.waitForLine(/\[KafkaServer id=1\] started/, { timeoutMs: 60000 });
    } else {
      const child = spawnChild('/bin/sh', ['-e', '-c', body], { cwd: dir, env, name: 'walkthrough-step' });
      // A step that hangs fails with its output rather than the test's timeout.
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([child.exited, new Promise<{ code: string }>((resolve) => (timer = setTimeout(() => resolve({ code: 'still running after 30 s' }), 30000)))]);
      clearTimeout(timer);
      if (child.isRunning()) await child.stop();
      lastOutput = child.output();
      expect({ step: body, exit: exit.code, output: exit.code === 0 ? '' : lastOutput.slice(-3000) }).toEqual({ step: body, exit: 0, output: '' });
    }
  }
  // The refusal of the last step is the authorizer's, in its log.
  const authorizerLog = fs.readFileSync(path.join(dir, 'logs', 'kafka-authorizer.log'), 'utf8');
  expect(authorizerLog).toMatch(/Principal = User:alice is Denied Operation = (Describe|Read) from host = 127\.0\.0\.1 on resource = Topic:LITERAL:payments/);
});
