// npm run build:ui: bundles the cluster page (web/) for bin/kafka-ui.ts.
import { buildUiBundle } from '../src/ui/ui-bundle';

void buildUiBundle().then(
  () => process.stdout.write('Built web/dist/app.js\n'),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
