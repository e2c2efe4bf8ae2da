/** Writes examples/ from scripts/examples.ts (`pnpm examples`). */
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { exampleFiles } from "./examples.js";

const dir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../examples");
for (const [name, text] of exampleFiles()) {
  writeFileSync(join(dir, name), text);
  console.log(`wrote examples/${name}`);
}
