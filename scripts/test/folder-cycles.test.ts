/** The folder-cycle count of the architecture figures: a cycle through folders is found, an index's re-exports are not one. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { folderCycles } from "../architecture/folder-cycles.js";

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), "tessera-folder-cycles-"));
  for (const group of ["packages", "apps", "assignments"]) mkdirSync(join(root, group), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const cyclesOf = (r: string, pkg: string) => folderCycles(r).find((p) => p.package === pkg)?.cycles;

describe("folderCycles", () => {
  it("finds folders that import each other through a chain", () => {
    const r = tree({
      "packages/p/src/a/one.ts": 'import { two } from "../b/two.js";\nexport const one = two;\n',
      "packages/p/src/b/two.ts": 'import { three } from "../c/three.js";\nexport const two = three;\n',
      "packages/p/src/c/three.ts": 'export { one as three } from "../a/one.js";\n',
      "packages/p/src/d/four.ts": 'import { one } from "../a/one.js";\nexport const four = one;\n',
    });
    expect(cyclesOf(r, "packages/p")).toEqual([["a", "b", "c"]]);
  });

  it("does not count an index that gathers its subfolders", () => {
    const r = tree({
      "packages/p/src/index.ts": 'export * from "./a/one.js";\n',
      "packages/p/src/errors.ts": "export class E extends Error {}\n",
      "packages/p/src/a/one.ts": 'import { E } from "../errors.js";\nexport const one = E;\n',
    });
    expect(cyclesOf(r, "packages/p")).toEqual([]);
  });
});
