/**
 * A published package's `publishConfig.exports` (what npm consumers resolve) offers every subpath
 * its workspace `exports` offers: a subpath added to one and not the other builds and tests fine in
 * the workspace and breaks only outside it.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

interface Manifest {
  readonly name: string;
  readonly private?: boolean;
  readonly exports?: Record<string, unknown>;
  readonly publishConfig?: { readonly exports?: Record<string, unknown> };
}

const published = readdirSync(join(ROOT, "packages"))
  .map((dir) => JSON.parse(readFileSync(join(ROOT, "packages", dir, "package.json"), "utf8")) as Manifest)
  .filter((m) => m.private !== true && m.publishConfig?.exports !== undefined);

describe("published packages' exports", () => {
  it("finds the published packages", () => {
    expect(published.map((m) => m.name)).toContain("@tessera/schedule");
  });

  for (const m of published)
    it(`${m.name}: publishConfig.exports has the same subpaths as exports`, () => {
      expect(Object.keys(m.publishConfig?.exports ?? {}).sort()).toEqual(Object.keys(m.exports ?? {}).sort());
    });
});
