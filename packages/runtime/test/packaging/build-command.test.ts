/**
 * The packaging tests build dist/ with each package's own `build` script (buildCommandOf), so
 * that what `pnpm test:pack` and `pnpm test:handout` install is what `pnpm build` publishes.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PUBLISHED_PACKAGES, buildCommandOf, packageDir } from "./published-packages.js";

describe("the build command of a package", () => {
  it("is tsgo on the package's tsconfig.build.json for every published package", () => {
    for (const name of PUBLISHED_PACKAGES) {
      const dir = packageDir(name);
      expect(buildCommandOf(dir), name).toEqual({ compiler: "tsgo", args: ["-p", "tsconfig.build.json"] });
      expect(existsSync(join(dir, "tsconfig.build.json")), name).toBe(true);
    }
  });

  it("refuses a build script that is not a TypeScript compiler, naming the manifest and the script", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tessera-build-command-"));
    try {
      await writeFile(join(dir, "package.json"), JSON.stringify({ name: "x", scripts: { build: "vite build" } }));
      expect(() => buildCommandOf(dir)).toThrow(`${join(dir, "package.json")}: the build script "vite build" does not start with tsc or tsgo`);
      await writeFile(join(dir, "package.json"), JSON.stringify({ name: "x" }));
      expect(() => buildCommandOf(dir)).toThrow(/the build script "" does not start with tsc or tsgo/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
