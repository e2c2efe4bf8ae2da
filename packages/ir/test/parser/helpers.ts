import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { BlockRealize, Stmt } from "../../src/stmt.js";
import { forEachStmt } from "../../src/functor.js";

export const CORPUS_DIR = fileURLToPath(new URL("../corpus/", import.meta.url));

export function corpusFiles(): string[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith(".py"))
    .sort();
}

export function readCorpus(name: string): string {
  return readFileSync(`${CORPUS_DIR}${name}`, "utf8");
}

/** Every block realize of a body, in pre-order, keyed by block name. */
export function blocksByName(body: Stmt): Map<string, BlockRealize> {
  const out = new Map<string, BlockRealize>();
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize") out.set(s.block.name, s);
  });
  return out;
}

export function blockNamed(body: Stmt, name: string): BlockRealize {
  const b = blocksByName(body).get(name);
  if (b === undefined) throw new Error(`no block named ${name}`);
  return b;
}
