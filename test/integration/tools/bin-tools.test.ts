import { runTool } from '../../helpers/run-tool';
import fs from 'node:fs';
import path from 'node:path';

const BIN_DIR = path.join(__dirname, '../../../bin');
const TOOLS = fs.readdirSync(BIN_DIR).filter((f) => f.endsWith('.ts')).sort();

const run = (tool: string, args: string[]): ReturnType<typeof runTool> => runTool(tool.replace(/\.ts$/, ''), args);

describe('every bin tool', () => {
  it('is executable and is a package.json bin entry', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(BIN_DIR, '../package.json'), 'utf8')) as { bin: Record<string, string> };
    for (const tool of TOOLS) {
      expect(fs.statSync(path.join(BIN_DIR, tool)).mode & 0o111).not.toBe(0);
      expect(pkg.bin[tool.replace(/\.ts$/, '')]).toBe(`bin/${tool}`);
    }
  });

  it.each(TOOLS)('%s answers --help with usage and exit 0, and an unknown option with one line and exit 1', async (tool) => {
    // The two runs are independent: side by side they use both cores (each is mostly a Node start-up).
    const [help, bad] = await Promise.all([run(tool, ['--help']), run(tool, ['--no-such-option'])]);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^Usage: /);
    expect(bad.code).toBe(1);
    expect(bad.output.trim().split('\n')).toHaveLength(1);
  });
});
