import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { closeLogging, configureLogging } from '../../../src/common/logging/logging';
import { SYSTEM_CLOCK } from '../../../src/common/time';

describe('SYSTEM_CLOCK timers', () => {
  it('log a throwing or rejecting callback instead of letting it reach the process', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'time-test-'));
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let unhandled = 0;
    const onUnhandled = (): void => void unhandled++;
    process.on('unhandledRejection', onUnhandled);
    try {
      configureLogging({ mode: 'server', logDir: dir });
      const fired: string[] = [];
      const done = new Promise<void>((resolve) => {
        SYSTEM_CLOCK.setTimer(() => {
          fired.push('sync');
          throw new Error('sync failure');
        }, 0);
        SYSTEM_CLOCK.setTimer(async () => {
          fired.push('async');
          await Promise.resolve();
          throw new Error('async failure');
        }, 0);
        SYSTEM_CLOCK.setTimer(() => void setImmediate(resolve), 5);
      });
      await done;
      closeLogging();
      expect(fired).toEqual(['sync', 'async']);
      const server = fs.readFileSync(path.join(dir, 'server.log'), 'utf8');
      expect(server.match(/ERROR Uncaught exception in a timer/g)).toHaveLength(2);
      expect(server).toContain('async failure');
      expect(unhandled).toBe(0);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      stdout.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
