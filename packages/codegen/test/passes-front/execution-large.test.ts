/**
 * Meaning preservation through passes 1–8 (see execution.test.ts) for the two largest corpus
 * entries, the 128³ fast and pipelined gemms: about a minute of sequential-executor time, so they
 * run in `pnpm test:slow` (vitest.config.ts).
 */
import { describe, test } from "vitest";
import { LARGE_CORPUS_ENTRIES, checkThroughFrontPasses } from "./corpus-execution.js";
import { corpusEntry } from "./helpers.js";

describe("passes 1–8 preserve the corpus' results", () => {
  for (const name of LARGE_CORPUS_ENTRIES) {
    test(name, () => checkThroughFrontPasses(corpusEntry(name)), 180_000);
  }
});
