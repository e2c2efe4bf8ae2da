/**
 * `tessera-grade` loads only the default command (grade) up front: the tuner, the job queue and
 * the batch reports (meta-schedule, BullMQ, Redis, Vega) load when their subcommand runs.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { memoryIO } from "../src/cli/io.js";
import { runGradeCli } from "../src/cli/main.js";
import { batchCommand } from "../src/cli/batch-command.js";
import { packageCommand } from "../src/cli/package-command.js";
import { tuneCommand } from "../src/cli/tune-command.js";
import { workerCommand } from "../src/cli/worker-command.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The packages outside the workspace and the workspace files that `entry` reaches through static imports (not `import()`). */
async function staticallyReached(entry: string): Promise<{ packages: Set<string>; files: Set<string> }> {
  const result = await build({
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    write: false,
    outdir: "out",
    platform: "node",
    format: "esm",
    conditions: ["@tessera/source"],
    metafile: true,
    logLevel: "silent",
    plugins: [
      {
        name: "external",
        setup: (b) => b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith("@tessera/") ? undefined : { path: a.path, external: true })),
      },
    ],
  });
  const inputs = result.metafile.inputs;
  const reached = new Set<string>();
  const seen = new Set<string>();
  const queue = [Object.keys(inputs).find((k) => resolve(root, k) === entry)!];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind === "dynamic-import") continue;
      if (imp.external) reached.add(imp.path);
      else queue.push(imp.path);
    }
  }
  return { packages: reached, files: seen };
}

describe("tessera-grade starts without loading what only other subcommands need", () => {
  it("main.ts reaches neither the tuner, the job queue nor the charts", async () => {
    const { packages, files } = await staticallyReached(resolve(root, "apps/autograder/src/main.ts"));
    for (const heavy of ["bullmq", "ioredis", "vega", "vega-lite", "cli-progress"]) expect(packages, heavy).not.toContain(heavy);
    // (The GPU worker's process isolation, a light corner of meta-schedule, is fine.)
    for (const module of [
      "packages/meta-schedule/src/index.ts",
      "packages/queue/src/index.ts",
      "apps/autograder/src/tune/index.ts",
      "apps/autograder/src/queue/queue-grader.ts",
      "apps/autograder/src/batch/run-batch.ts",
    ]) {
      expect(files, module).not.toContain(module);
    }
    // What grading itself needs is still there.
    for (const needed of ["esbuild", "execa", "zod"]) expect(packages).toContain(needed);
  }, 60_000);

  it("each subcommand's help is its own module's (loaded for --help)", async () => {
    for (const command of [tuneCommand, batchCommand, packageCommand, workerCommand]) {
      const io = memoryIO();
      const code = await runGradeCli([command.name, "--help"], io);
      expect(code).toBe(0);
      expect(io.out.join("")).toBe(`Usage: tessera-grade ${command.usage}\n\n${command.summary}\n${command.help ?? ""}\n`);
    }
  });
});
