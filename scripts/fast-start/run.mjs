// @ts-check
/**
 * `pnpm tessera …` and `pnpm grade …`:
 *   node --conditions=@tessera/source scripts/fast-start/run.mjs <app> [args…]
 * runs the app's TypeScript entry from a bundle of the workspace sources (node_modules/.cache/
 * tessera-fast-start/<app>/), rebuilt first when any source it was built from has changed: a
 * fresh clone builds on its first run (a second or two), and an edit is always seen by the next
 * run. See launch.mjs (the ways a start can go), manifest.mjs (what "fresh" means) and build.mjs.
 *
 * Environment: TESSERA_FAST_START=0 runs the sources through tsx; TESSERA_FAST_START_LOG=1 says on
 * stderr which way a start went and why; TESSERA_FAST_START_CACHE=DIR keeps the bundles in DIR.
 */
import { join } from "node:path";
import { APPS, ROOT, cacheDirOf, workerSources } from "./apps.mjs";
import { launch } from "./launch.mjs";

const [name, ...args] = process.argv.slice(2);
const app = name === undefined ? undefined : APPS[name];
if (app === undefined) {
  process.stderr.write(`usage: node --conditions=@tessera/source scripts/fast-start/run.mjs <${Object.keys(APPS).join("|")}> [args…]\n`);
  process.exit(2);
}
await launch({
  name,
  entry: join(ROOT, app.entry),
  workers: workerSources(name),
  root: ROOT,
  cacheDir: cacheDirOf(name),
  args,
  tsx: app.tsx?.(args),
});
