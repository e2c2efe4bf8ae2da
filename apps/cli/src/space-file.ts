/**
 * A design space written as a TypeScript (or JavaScript) file: its default export (or its export
 * `schedule`) is a schedule function `(sch) => void` with sampling instructions, TVM's ScheduleFn.
 * Loaded with import(), so a `.ts` file needs the CLI to run under tsx (`pnpm tessera …`).
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ScheduleFnLike } from "@tessera/meta-schedule";
import { CliError } from "./errors.js";
import { readTextFile } from "./load.js";

export async function loadScheduleFn(file: string): Promise<ScheduleFnLike> {
  await readTextFile(file); // a missing or unreadable file is a CliError naming it
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(resolve(file)).href)) as Record<string, unknown>;
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    const hint = file.endsWith(".ts") && /Unknown file extension/.test(detail) ? " (a .ts space needs tsx: run 'pnpm tessera tune …')" : "";
    throw new CliError(`--space ${file}: cannot load it: ${detail}${hint}`);
  }
  const fn = mod.default ?? mod.schedule;
  if (typeof fn !== "function") {
    throw new CliError(
      `--space ${file}: the file must export a schedule function, e.g. 'export default (sch) => { … }' (found exports: ${Object.keys(mod).join(", ") || "none"})`,
    );
  }
  return fn as ScheduleFnLike;
}
