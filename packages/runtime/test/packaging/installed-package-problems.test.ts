/**
 * The manifest and import checks that the packaging test applies to each installed package,
 * on small packages written here: each defect is reported, a sound package gives nothing.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bareSpecifiers, installedPackageProblems, packageOfSpecifier } from "./published-packages.js";

let dir = "";

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "tessera-manifest-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writePackage(manifest: Record<string, unknown>, files: Record<string, string>): Promise<void> {
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "@tessera/example", version: "0.1.0", ...manifest }));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  }
}

// A subpath export ("./helper") is a key, not a file: only the targets must exist.
const soundExports = {
  ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
  "./helper": { import: "./dist/helper.js" },
  "./package.json": "./package.json",
};
const soundFiles = {
  "dist/index.js":
    'import { z } from "zod";\nimport { readFileSync } from "node:fs";\nexport { helper } from "./helper.js";\nconst c = await import("@tessera/ir");\n',
  "dist/index.d.ts": "export {};\n",
  "dist/helper.js": 'export const helper = () => check("from \\"not-an-import\\"");\n',
};

describe("installedPackageProblems", () => {
  it("finds nothing wrong with a sound package", async () => {
    await writePackage({ exports: soundExports, dependencies: { zod: "4.6.7", "@tessera/ir": "0.1.0" } }, soundFiles);
    expect(await installedPackageProblems(dir)).toEqual([]);
  });

  it("reports a private manifest, workspace: ranges, the source condition and exports of missing files", async () => {
    const exports = { ".": { "@tessera/source": "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/main.js" } };
    await writePackage({ private: true, exports, dependencies: { zod: "4.6.7", "@tessera/ir": "workspace:*" } }, soundFiles);
    const problems = (await installedPackageProblems(dir)).map((p) => p.problem);
    expect(problems).toEqual([
      "is private",
      "depends on @tessera/ir@workspace:*",
      expect.stringContaining("exports keep the in-repo condition"),
      "exports ./src/index.ts, which is not in the package",
      "exports ./dist/main.js, which is not in the package",
    ]);
  });

  it("reports dist modules that import packages missing from dependencies (a devDependency at run time)", async () => {
    await writePackage({ exports: soundExports, dependencies: { zod: "4.6.7" }, devDependencies: { "@tessera/ir": "0.1.0" } }, soundFiles);
    expect(await installedPackageProblems(dir)).toEqual([
      { pkg: "@tessera/example", problem: 'dist/index.js imports "@tessera/ir", which is not a dependency' },
    ]);
  });
});

describe("import specifiers", () => {
  it("lists static, re-export, side-effect and literal dynamic imports that are not relative", async () => {
    const js =
      'import a from "a";\nexport * from "@s/b/sub";\nimport "c";\nconst d = await import("d");\nimport e from "./e.js";\nlet f = g("from \\"h\\"");\n';
    expect((await bareSpecifiers(js)).sort()).toEqual(["@s/b/sub", "a", "c", "d"]);
  });

  it("maps a specifier to its package; Node built-ins to none", () => {
    const specs = ["@s/b/sub", "zod/v4", "node:fs", "path"];
    expect(specs.map(packageOfSpecifier)).toEqual(["@s/b", "zod", undefined, undefined]);
  });
});
