/**
 * Writes the broken test submissions (apps/autograder/test/submission-cases.ts) as folders into
 * OUT, one per case, e.g. to grade them in batch on a GPU machine:
 *
 *   pnpm exec tsx --conditions=@tessera/source apps/autograder/scripts/write-broken-submissions.ts OUT
 *   pnpm grade batch OUT --out RESULTS
 */
import { cp, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { CASES, type CaseName, writeSubmission } from "../test/submission-cases.js";

const out = process.argv[2];
if (out === undefined) {
  console.error("usage: write-broken-submissions.ts OUT");
  process.exit(2);
}
const target = resolve(process.env["INIT_CWD"] ?? process.cwd(), out);
await mkdir(target, { recursive: true });
for (const name of Object.keys(CASES) as CaseName[]) {
  const written = await writeSubmission(name);
  try {
    await cp(written.dir, join(target, name), { recursive: true });
  } finally {
    await written.remove();
  }
}
console.log(`${Object.keys(CASES).length} submissions written to ${target}`);
