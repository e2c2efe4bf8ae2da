/**
 * Golden files under test/cuda/golden. `TESSERA_UPDATE_GOLDEN=1` rewrites them from the current
 * output instead of comparing (review the diff before keeping it).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), "golden");
const updating = process.env.TESSERA_UPDATE_GOLDEN === "1";

/** Compares `actual` with the golden `file` of `dir` (default: the CUDA golden files). */
export function expectGolden(file: string, actual: string, dir = GOLDEN_DIR): void {
  const path = join(dir, file);
  if (updating) {
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${file} is missing: run with TESSERA_UPDATE_GOLDEN=1 to create it`);
  expect(actual, `${file} differs from the golden file (TESSERA_UPDATE_GOLDEN=1 updates it)`).toBe(readFileSync(path, "utf8"));
}
