// @ts-check
/**
 * vitest's global setup: one temporary folder for the whole run, removed when the run ends.
 *
 * The tests make hundreds of scratch folders (work dirs of tuning runs, handouts, zips, sandboxes'
 * files, the children's own), and many are never removed: a failed assertion skips its cleanup, and
 * a child process killed at a time limit leaves its files. Pointing TMPDIR at a folder of the run's
 * own gathers all of them where one removal at the end finds them: `os.tmpdir()` reads TMPDIR at
 * every call, and the test workers and every process they start inherit this process's
 * environment. TESSERA_TEST_KEEP_TMP=1 keeps the folder (its path is printed) to look into a
 * failure; the variable unset or any other value removes it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The prefix of the run's folder in the system's temporary folder. */
export const TEMP_ROOT_PREFIX = "tessera-tests-";

/** vitest's global setup: see the header. */
export default function setup() {
  return makeTempRoot((line) => process.stderr.write(line));
}

/**
 * Makes the run's temporary folder, points TMPDIR at it, and returns what removes it again (or keeps
 * it, under TESSERA_TEST_KEEP_TMP=1); `log` gets the lines about a kept or unremovable folder.
 * @param {(line: string) => void} log
 */
export function makeTempRoot(log) {
  const previous = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), TEMP_ROOT_PREFIX));
  process.env.TMPDIR = root;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.TESSERA_TEST_KEEP_TMP === "1") {
      log(`the tests' temporary files are kept in ${root}\n`);
      return;
    }
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      // A folder a test left unreadable, say: the run's verdict stands, the leftover is named.
      log(`could not remove the tests' temporary folder ${root}: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
}
