/**
 * `pnpm bench:cli-start`: how long the commands take to start, whole processes timed from outside
 * (issue 30, point 5: `tessera --help` ≤ 0.3 s compiled and ≤ 1 s through `pnpm tessera`; `pnpm
 * grade` of the starter ≤ 3 s end to end without a GPU). Each case runs its "after" command (the
 * bundle of scripts/fast-start) and its "before" command (the TypeScript sources through tsx's
 * loader) in turn, after, before, after, before, …, so that both see the same machine; medians
 * with min–max. CPU time and peak memory come from /usr/bin/time where it exists.
 *
 * Usage: pnpm bench:cli-start [--runs N] [--grade-runs N] [--out-dir DIR]
 * Writes DIR/cli-start.json and DIR/cli-start.md (default docs/benchmarks).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "10" },
    "grade-runs": { type: "string", default: "5" },
    "out-dir": { type: "string", default: join(root, "docs", "benchmarks") },
  },
});
const runs = positive("--runs", values.runs);
const gradeRuns = positive("--grade-runs", values["grade-runs"]);

function positive(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:cli-start: ${name} must be a positive integer, got "${text}"`);
    process.exit(2);
  }
  return n;
}

const TIME = "/usr/bin/time";
const hasTime = existsSync(TIME);
const scratch = mkdtempSync(join(tmpdir(), "tessera-cli-start-"));
const results = join(scratch, "results.json");

/** The environment of a measured command: none of pnpm's or a test run's variables. */
const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(NODE_OPTIONS|VITEST.*|npm_.*|PNPM_.*|TESSERA_FAST_START.*)$/i.test(key)));
const viaTsx = { ...env, TESSERA_FAST_START: "0" };

interface Command {
  readonly label: string;
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

interface Sample {
  readonly wall: number;
  readonly cpu: number | undefined;
  readonly maxRssMiB: number | undefined;
}

function runOnce(cmd: Command): Sample {
  const timeFile = join(scratch, "time.txt");
  const argv = hasTime ? [TIME, "-o", timeFile, "-f", "%U %S %M", ...cmd.argv] : [...cmd.argv];
  const started = performance.now();
  const res = spawnSync(argv[0]!, argv.slice(1), { cwd: root, env: cmd.env, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  const wall = (performance.now() - started) / 1000;
  if (res.status !== 0) throw new Error(`${cmd.label}: exit ${res.status}\n${res.stderr.toString().slice(-2000)}`);
  if (!hasTime) return { wall, cpu: undefined, maxRssMiB: undefined };
  const [user, sys, rssKb] = readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-3).map(Number);
  return { wall, cpu: user! + sys!, maxRssMiB: rssKb! / 1024 };
}

interface Stats {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

function stats(xs: readonly number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { median: s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]!, max: s[s.length - 1]! };
}

interface Side {
  readonly command: string;
  readonly wall: Stats;
  readonly cpu: Stats | undefined;
  readonly maxRssMiB: Stats | undefined;
  readonly samples: readonly Sample[];
}

interface Case {
  readonly name: string;
  readonly goalSeconds: number | undefined;
  readonly runs: number;
  readonly after: Side;
  readonly before: Side;
  /** after / before, pair by pair. */
  readonly ratio: Stats;
}

function side(cmd: Command, samples: Sample[]): Side {
  const num = (xs: (number | undefined)[]) => (xs.every((x) => x !== undefined) ? stats(xs as number[]) : undefined);
  return {
    command: cmd.label,
    wall: stats(samples.map((s) => s.wall)),
    cpu: num(samples.map((s) => s.cpu)),
    maxRssMiB: num(samples.map((s) => s.maxRssMiB)),
    samples,
  };
}

function measure(name: string, goalSeconds: number | undefined, n: number, after: Command, before: Command): Case {
  process.stderr.write(`${name}: warm-up …\n`);
  runOnce(after);
  runOnce(before);
  const a: Sample[] = [];
  const b: Sample[] = [];
  for (let i = 0; i < n; i++) {
    a.push(runOnce(after));
    b.push(runOnce(before));
    process.stderr.write(`${name}: ${i + 1}/${n}: ${a.at(-1)!.wall.toFixed(3)} s / ${b.at(-1)!.wall.toFixed(3)} s\n`);
  }
  return { name, goalSeconds, runs: n, after: side(after, a), before: side(before, b), ratio: stats(a.map((s, i) => s.wall / b[i]!.wall)) };
}

function bundleEntry(app: string): string {
  const manifest = JSON.parse(readFileSync(join(root, "node_modules", ".cache", "tessera-fast-start", app, "manifest.json"), "utf8")) as {
    outDir: string;
    entry: string;
  };
  return join(manifest.outDir, manifest.entry);
}

const node = process.execPath;
const cond = "--conditions=@tessera/source";
const launcher = "scripts/fast-start/run.mjs";
const tsxLoader = ["--import", "tsx", cond];
const pnpm = "pnpm";
const gradeArgs = ["--no-gpu", "--results", results];

const loadBefore = loadavg();
const startedAt = new Date().toISOString();
// Fresh bundles first (a build is not what is measured): one run of each app through the launcher.
for (const app of ["tessera", "grade"]) {
  const res = spawnSync(node, [cond, launcher, app, "--help"], { cwd: root, env, stdio: "ignore" });
  if (res.status !== 0) throw new Error(`could not run ${app} through ${launcher}`);
}
const tesseraBundle = bundleEntry("tessera");
const rel = (p: string) => relative(root, p);

const cases: Case[] = [
  measure(
    "tessera --help, compiled",
    0.3,
    runs,
    { label: `node ${rel(tesseraBundle)} --help (the bundle)`, argv: [node, cond, tesseraBundle, "--help"], env },
    { label: "node --import tsx --conditions=@tessera/source apps/cli/src/main.ts --help", argv: [node, ...tsxLoader, "apps/cli/src/main.ts", "--help"], env },
  ),
  measure(
    "tessera --help through the launcher (freshness check included)",
    undefined,
    runs,
    { label: `node --conditions=@tessera/source ${launcher} tessera --help`, argv: [node, cond, launcher, "tessera", "--help"], env },
    { label: "the same, TESSERA_FAST_START=0 (tsx)", argv: [node, cond, launcher, "tessera", "--help"], env: viaTsx },
  ),
  measure(
    "pnpm tessera --help",
    1,
    runs,
    { label: "pnpm tessera --help", argv: [pnpm, "-s", "tessera", "--help"], env },
    { label: "TESSERA_FAST_START=0 pnpm tessera --help (tsx)", argv: [pnpm, "-s", "tessera", "--help"], env: viaTsx },
  ),
  measure(
    "pnpm grade of the starter, no GPU",
    3,
    gradeRuns,
    { label: "pnpm grade --no-gpu --results R", argv: [pnpm, "-s", "grade", ...gradeArgs], env },
    { label: "TESSERA_FAST_START=0 pnpm grade --no-gpu --results R (tsx)", argv: [pnpm, "-s", "grade", ...gradeArgs], env: viaTsx },
  ),
];
const pnpmAlone = measure(
  "pnpm alone (a script that does nothing)",
  undefined,
  runs,
  { label: "pnpm -s exec true", argv: [pnpm, "-s", "exec", "true"], env },
  { label: "node -e 0", argv: [node, "-e", "0"], env },
);
const loadAfter = loadavg();
rmSync(scratch, { recursive: true, force: true });

const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  pnpm: spawnSync(pnpm, ["--version"], { encoding: "utf8", env }).stdout.trim(),
  loadAverageBefore: loadBefore.map((x) => Number(x.toFixed(2))),
  loadAverageAfter: loadAfter.map((x) => Number(x.toFixed(2))),
  startedAt,
};

const outDir = resolve(values["out-dir"]);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "cli-start.json"), `${JSON.stringify({ machine, cases: [...cases, pnpmAlone] }, null, 2)}\n`);
writeFileSync(join(outDir, "cli-start.md"), markdown());
console.log(`wrote ${rel(join(outDir, "cli-start.md"))} and cli-start.json`);

function s(x: number): string {
  return `${x.toFixed(3)} s`;
}

function range(st: Stats): string {
  return `${s(st.median)} (${st.min.toFixed(3)}–${st.max.toFixed(3)})`;
}

function markdown(): string {
  const rows = cases.map((c) => {
    const cpu = c.after.cpu !== undefined && c.before.cpu !== undefined ? `${s(c.before.cpu.median)} → ${s(c.after.cpu.median)}` : "–";
    const mem =
      c.after.maxRssMiB !== undefined && c.before.maxRssMiB !== undefined
        ? `${c.before.maxRssMiB.median.toFixed(0)} → ${c.after.maxRssMiB.median.toFixed(0)} MiB`
        : "–";
    const goal = c.goalSeconds === undefined ? "–" : `≤ ${c.goalSeconds} s: **${c.after.wall.median <= c.goalSeconds ? "met" : "not met"}**`;
    return `| ${c.name} | ${range(c.before.wall)} | **${range(c.after.wall)}** | ${c.ratio.median.toFixed(3)} | ${cpu} | ${mem} | ${goal} |`;
  });
  const commands = cases.flatMap((c) => [`- ${c.name}: after \`${c.after.command}\`; before \`${c.before.command}\``]);
  return `# Command start-up: \`tessera --help\` and \`pnpm grade\` (\`pnpm bench:cli-start\`)

Issue 30, point 5 ("Fast start"). \`pnpm tessera\` and \`pnpm grade\` run
\`scripts/fast-start/run.mjs\`, which runs the app from an esbuild bundle of its workspace sources
(node_modules/.cache/tessera-fast-start/), rebuilt first when any source it was built from has
changed; "before" is the same command from the TypeScript sources through tsx's loader (what the
root scripts ran until then; \`TESSERA_FAST_START=0\` still does it).

Whole-process wall times, median (min–max) of ${runs} runs (${gradeRuns} for grading) after one
warm-up each; "after" and "before" ran in turn (after, before, after, …), so the ratio (after /
before, pair by pair) is the robust figure on a busy machine. CPU time (user + system, children
included) and peak memory (the largest process) from /usr/bin/time.

Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, pnpm ${machine.pnpm}.
Load average (1, 5, 15 min) before: ${machine.loadAverageBefore.join(", ")}; after: ${machine.loadAverageAfter.join(", ")}
(the machine is shared: other work ran at the same time). Started ${machine.startedAt}.

| case | before: wall | after: wall | after / before | CPU before → after | peak memory | goal |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}

${commands.join("\n")}

What pnpm itself costs before it runs a script: \`${pnpmAlone.after.command}\` ${range(pnpmAlone.after.wall)}
(\`node -e 0\`: ${range(pnpmAlone.before.wall)}); \`pnpm tessera --help\` cannot be faster than that.

Notes:
- "Compiled" is Node on the bundle's entry itself; through the launcher adds the freshness check
  (one stat per input: the sources, their folders, the package.json/tsconfig.json files, the
  external packages' files, the lockfile; about 600 for the CLI) and source maps.
- A start after an edit rebuilds first (about 1–2.5 s here for either app); that is not measured.
- \`pnpm grade\` of the starter also runs the sandbox's child process once per graded call (six
  for the starter, each a fresh Node with isolated-vm and the 1.4 MB sandbox runtime, compiled
  from V8's code cache after the first) and the solution's stand-ins for the unfinished tasks:
  grading work, not start-up. The sandbox runtime itself is built once and kept
  (apps/autograder/node_modules/.cache/tessera-sandbox/) while its sources are unchanged; part 2's
  sandbox run overlaps part 1's. Once a task has failed, the grader starts the run that would
  follow if the next one failed too (apps/autograder/src/grade/speculative-runs.ts), so the
  starter's runs go two at a time: without that, this case measured 3.26 s (3.20–3.41, 7 runs).

Reproduce: \`pnpm bench:cli-start [--runs N] [--grade-runs N] [--out-dir DIR]\`.
`;
}
