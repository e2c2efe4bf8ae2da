/**
 * Every publishable package has a README whose ```ts blocks run as a consumer would write them:
 * each block is written to a scratch project outside the repository, whose node_modules/@tessera
 * links to the workspace packages, and run with tsx under the "@tessera/source" condition. A block
 * fenced ```ts no-run is shown, not run (it needs a GPU or inputs the README does not build).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { readWorkspace } from "./architecture/workspace.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX = join(ROOT, "node_modules", ".bin", "tsx");
const run = promisify(execFile);

/** The code of each ```ts block (not ```ts no-run) of a markdown text. */
function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts[ \t]*\n([\s\S]*?)^```[ \t]*$/gm)].map((m) => m[1] ?? "");
}

const packages = readWorkspace(ROOT);
const scratch = mkdtempSync(join(tmpdir(), "tessera-readme-"));
mkdirSync(join(scratch, "node_modules", "@tessera"), { recursive: true });
for (const p of packages) symlinkSync(join(ROOT, p.dir), join(scratch, "node_modules", p.name), "dir");
writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "readme-examples", private: true, type: "module" }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("runnableBlocks", () => {
  it("takes ```ts blocks and leaves ```ts no-run and other languages", () => {
    const md = "# x\n```ts\nconst a = 1;\n```\n```ts no-run\nnope();\n```\n```sh\nls\n```\n```ts\nconst b = 2;\n```\n";
    expect(runnableBlocks(md)).toEqual(["const a = 1;\n", "const b = 2;\n"]);
  });
});

describe.each(packages.filter((p) => p.publishable).map((p) => [p.name, p.dir] as const))("%s README", (name, dir) => {
  const readme = join(ROOT, dir, "README.md");

  it("exists and lists its entry points", () => {
    expect(existsSync(readme), `${dir}/README.md`).toBe(true);
    const text = readFileSync(readme, "utf8");
    for (const entry of packages.find((p) => p.name === name)?.entryPoints ?? []) expect(text).toContain(`\`${entry.specifier}\``);
  });

  it("has examples that run", { timeout: 180_000 }, async () => {
    const blocks = runnableBlocks(readFileSync(readme, "utf8"));
    expect(blocks.length, "runnable ```ts blocks").toBeGreaterThan(0);
    for (const [i, code] of blocks.entries()) {
      const file = join(scratch, `${name.replace(/\W/g, "_")}-${i}.ts`);
      writeFileSync(file, code);
      try {
        await run(TSX, ["--conditions=@tessera/source", file], { cwd: scratch, encoding: "utf8" });
      } catch (err) {
        const stderr = (err as { stderr?: string }).stderr ?? String(err);
        throw new Error(`${dir}/README.md, runnable block ${i + 1}, fails:\n${stderr}`);
      }
    }
  });
});
