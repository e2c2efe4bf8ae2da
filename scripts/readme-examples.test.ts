/**
 * Every publishable package has a README whose ```ts blocks run as a consumer would write them:
 * each block is written to a scratch project outside the repository, whose node_modules/@tessera
 * links to the workspace packages, and run with tsx under the "@tessera/source" condition. A block
 * fenced ```ts no-run is shown, not run (it needs a GPU or inputs the README does not build).
 * One tsx process runs every block, each imported as its own module in turn (a process per block
 * transformed and loaded the packages again each time: about 2 CPU s a block); what a block throws,
 * or an exit code it sets, is that block's failure.
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

const publishable = packages.filter((p) => p.publishable);

/** A block's scratch file: the README's package and the block's index. */
function blockFile(name: string, i: number): string {
  return join(scratch, `${name.replace(/\W/g, "_")}-${i}.ts`);
}

/**
 * Imports each file named on the command line in turn, in one process; prints one JSON line:
 * file → the error it threw (its stack), or the exit code it set, or null when it ran cleanly.
 */
const RUNNER = `import { pathToFileURL } from "node:url";
const outcome: Record<string, string | null> = {};
for (const file of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(file).href);
    const code = process.exitCode;
    outcome[file] = code === undefined || code === 0 ? null : \`it set the exit code \${code}\`;
  } catch (err) {
    outcome[file] = err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
  process.exitCode = 0;
}
console.log("readme-examples:" + JSON.stringify(outcome));
`;

/** Each block's outcome (see RUNNER), from one tsx run of every README's blocks, started once. */
let outcomes: Promise<Record<string, string | null>> | undefined;
function runAllBlocks(): Promise<Record<string, string | null>> {
  outcomes ??= (async () => {
    const files: string[] = [];
    for (const p of publishable) {
      const readme = join(ROOT, p.dir, "README.md");
      if (!existsSync(readme)) continue;
      for (const [i, code] of runnableBlocks(readFileSync(readme, "utf8")).entries()) {
        writeFileSync(blockFile(p.name, i), code);
        files.push(blockFile(p.name, i));
      }
    }
    const runner = join(scratch, "run-blocks.ts");
    writeFileSync(runner, RUNNER);
    let stdout: string;
    try {
      ({ stdout } = await run(TSX, ["--conditions=@tessera/source", runner, ...files], { cwd: scratch, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }));
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(`the README blocks' process failed (a block ended it, or an error escaped it):\n${e.stderr ?? String(err)}\n${e.stdout ?? ""}`);
    }
    const line = stdout.split("\n").find((l) => l.startsWith("readme-examples:"));
    if (line === undefined) throw new Error(`the README blocks' process printed no outcome (a block ended it early?):\n${stdout}`);
    return JSON.parse(line.slice("readme-examples:".length)) as Record<string, string | null>;
  })();
  return outcomes;
}

describe.each(publishable.map((p) => [p.name, p.dir] as const))("%s README", (name, dir) => {
  const readme = join(ROOT, dir, "README.md");

  it("exists and lists its entry points", () => {
    expect(existsSync(readme), `${dir}/README.md`).toBe(true);
    const text = readFileSync(readme, "utf8");
    for (const entry of packages.find((p) => p.name === name)?.entryPoints ?? []) expect(text).toContain(`\`${entry.specifier}\``);
  });

  it("has examples that run", { timeout: 180_000 }, async () => {
    const blocks = runnableBlocks(readFileSync(readme, "utf8"));
    expect(blocks.length, "runnable ```ts blocks").toBeGreaterThan(0);
    const outcome = await runAllBlocks();
    for (const i of blocks.keys()) {
      const failure = outcome[blockFile(name, i)];
      if (failure !== null) throw new Error(`${dir}/README.md, runnable block ${i + 1}, fails:\n${failure ?? "it did not run"}`);
    }
  });
});
