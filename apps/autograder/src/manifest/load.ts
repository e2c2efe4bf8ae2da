/** Reads and validates a grading manifest; every problem becomes a ManifestError naming the field. */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { type Manifest, ManifestSchema } from "./schema.js";

export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ManifestError";
  }
}

/** "tasks[2].checks[0].points" from zod's path. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? "(top level)" : out;
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `  ${formatFieldPath(i.path)}: ${i.message}`).join("\n");
}

/** Validates an already-parsed manifest; `source` names it in errors. */
export function parseManifest(value: unknown, source = "manifest"): Manifest {
  const result = ManifestSchema.safeParse(value);
  if (!result.success) {
    const n = result.error.issues.length;
    throw new ManifestError(`${source}: invalid grading manifest (${n} problem${n === 1 ? "" : "s"}):\n${formatIssues(result.error.issues)}`);
  }
  return result.data;
}

export function loadManifest(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : String(code ?? err);
    throw new ManifestError(`cannot read grading manifest ${path}: ${why}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  return parseManifest(value, path);
}
