import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** The page's sources (web/) and the bundle built from them (web/dist/, not committed); from src/ui or dist/src/ui. */
export const WEB_DIR = path.join(__dirname, __dirname.split(path.sep).includes('dist') ? '../../../web' : '../../web');
export const BUNDLE_FILE = path.join(WEB_DIR, 'dist/app.js');
const SOURCES = ['app.js', 'components.js', 'style.css'];

/** The bundle is stale when it is missing or older than one of its sources. */
export function uiBundleIsStale(): boolean {
  if (!fs.existsSync(BUNDLE_FILE)) return true;
  const built = fs.statSync(BUNDLE_FILE).mtimeMs;
  return SOURCES.some((f) => fs.statSync(path.join(WEB_DIR, f)).mtimeMs > built);
}

/**
 * Bundles web/app.js with preact and htm from node_modules into one script (esbuild), so that the page needs
 * nothing from a CDN. `npm run build:ui` (scripts/setup.sh) runs it; kafka-ui runs it when the bundle is stale.
 */
export async function buildUiBundle(): Promise<void> {
  await build({ entryPoints: [path.join(WEB_DIR, 'app.js')], bundle: true, minify: true, format: 'iife', target: 'es2020', outfile: BUNDLE_FILE, logLevel: 'warning' });
}
