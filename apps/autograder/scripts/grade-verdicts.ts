/**
 * GPU and no-GPU grading must agree on every structural verdict. This script:
 *   grade-verdicts cases OUT_DIR              writes every broken-submission case, mutation-table
 *                                             entry and spelling of the tests as a submission folder
 *   grade-verdicts grade DIR --out FILE.json [--shard I/N]
 *                                             grades each folder of DIR (with the GPU when there is
 *                                             one, else --no-gpu) and records every check's verdict
 *   grade-verdicts compare A.json[,A2.json…] B.json[,…] --md FILE.md
 *                                             the two runs side by side: structural verdicts must be
 *                                             identical; numerics and timing may differ (and are listed)
 * On a GPU host: `.device-bundle/run.sh grade-verdicts grade DIR --out gpu.json` (the entry is in the bundle).
 */
import { cpSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { assignmentBinding } from "../src/assignment.js";
import { chooseGpu } from "../src/cli/gpu-choice.js";
import { gradeSubmission } from "../src/grade/grade-submission.js";
import { isStructural } from "../src/checks/index.js";
import { loadManifest } from "../src/manifest/index.js";

interface CheckVerdict {
  readonly task: string;
  readonly check: string;
  readonly structural: boolean;
  readonly status: string;
  readonly points: number;
}

interface CaseVerdicts {
  readonly name: string;
  readonly score: number;
  readonly maxScore: number;
  readonly checks: readonly CheckVerdict[];
  readonly taskErrors: Readonly<Record<string, string>>;
  readonly numerics: Readonly<Record<string, string>>;
  readonly seconds: number;
}

interface VerdictRun {
  readonly device: string;
  readonly date: string;
  readonly cases: readonly CaseVerdicts[];
}

async function writeCases(outDir: string): Promise<void> {
  // The cases live with the tests that own them; this developer script only writes them out.
  const { CASES, writeSubmission, writeDerivedSubmission } = await import("../test/submission-cases.js");
  const { MUTATIONS } = await import("../test/mutations.js");
  const { SPELLINGS } = await import("../test/spellings.js");
  const { solution } = await import("../test/submission-cases.js");
  mkdirSync(outDir, { recursive: true });
  const keep = async (name: string, written: { dir: string; remove(): Promise<void> }): Promise<void> => {
    cpSync(written.dir, join(outDir, name), { recursive: true });
    await written.remove();
  };
  for (const name of Object.keys(CASES) as (keyof typeof CASES)[]) await keep(`case-${name}`, await writeSubmission(name));
  for (const m of MUTATIONS) {
    const recipe = m.file === "gemm_relu_add.ts" ? { gemm: solution(...m.edits), trace: solution() } : { gemm: solution(), trace: solution(...m.edits) };
    await keep(`mutation-${m.name}`, await writeDerivedSubmission(m.name, recipe));
  }
  for (const s of SPELLINGS) await keep(`spelling-${s.name}`, await writeDerivedSubmission(s.name, { gemm: solution(...s.edits), trace: solution() }));
  console.log(`wrote ${readdirSync(outDir).length} submission folders to ${outDir}`);
}

async function gradeAll(dir: string, out: string, noGpu: boolean, shard: { index: number; count: number }): Promise<void> {
  const binding = assignmentBinding("gemm-relu-add");
  const manifest = loadManifest(binding.manifestPath);
  const choice = chooseGpu(noGpu);
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .filter((_, k) => k % shard.count === shard.index - 1);
  const cases: CaseVerdicts[] = [];
  for (const [n, name] of names.entries()) {
    const started = performance.now();
    const report = await gradeSubmission({
      submissionDir: join(dir, name),
      binding,
      manifest,
      gpu: choice.gpu,
      ...(choice.reason === undefined ? {} : { noGpuReason: choice.reason }),
      numerics: { rounds: 1 },
    });
    const checks = report.tasks.flatMap((t) =>
      t.checks.map((c) => ({ task: t.task.id, check: c.check.id, structural: isStructural(c.check), status: c.status, points: c.points })),
    );
    const taskErrors = Object.fromEntries(report.tasks.filter((t) => t.error !== undefined).map((t) => [t.task.id, t.error!]));
    const numerics = Object.fromEntries(
      Object.entries(report.numerics).map(([role, o]) => [role, o === undefined ? "-" : `${o.passed ? "pass" : "FAIL"} (${o.backend})`]),
    );
    const seconds = (performance.now() - started) / 1000;
    cases.push({ name, score: report.score, maxScore: report.maxScore, checks, taskErrors, numerics, seconds });
    console.log(`[${n + 1}/${names.length}] ${name}: ${report.score} / ${report.maxScore} (${seconds.toFixed(1)} s)`);
  }
  const device = choice.gpu?.name ?? `no GPU (${choice.reason ?? "none"})`;
  choice.gpu?.dispose();
  const run: VerdictRun = { device, date: new Date().toISOString(), cases };
  writeFileSync(out, JSON.stringify(run, null, 2) + "\n");
  console.log(`wrote ${out}`);
}

/** One run from one or more files (the shards of a run), comma-separated. */
function readRun(paths: string): VerdictRun {
  const runs = paths.split(",").map((p) => JSON.parse(readFileSync(p, "utf8")) as VerdictRun);
  return { device: runs[0]!.device, date: runs[0]!.date, cases: runs.flatMap((r) => r.cases).sort((x, y) => x.name.localeCompare(y.name)) };
}

function compare(aPath: string, bPath: string, mdPath: string): number {
  const a = readRun(aPath);
  const b = readRun(bPath);
  const byName = new Map(b.cases.map((c) => [c.name, c]));
  const rows: string[] = [];
  let differing = 0;
  for (const ca of a.cases) {
    const cb = byName.get(ca.name);
    if (cb === undefined) {
      rows.push(`| ${ca.name} | missing in the second run | | |`);
      differing++;
      continue;
    }
    const key = (v: CheckVerdict): string => `${v.task}/${v.check}`;
    const sb = new Map(cb.checks.map((v) => [key(v), v]));
    const diffs = ca.checks
      .filter((v) => v.structural)
      .filter((v) => sb.get(key(v))?.status !== v.status || sb.get(key(v))?.points !== v.points)
      .map((v) => `${key(v)}: ${v.status} ${v.points} vs ${sb.get(key(v))?.status ?? "absent"} ${sb.get(key(v))?.points ?? ""}`);
    if (diffs.length > 0) differing++;
    const numerics = (c: CaseVerdicts): string =>
      Object.entries(c.numerics)
        .map(([r, v]) => `${r} ${v}`)
        .join(", ") || "-";
    rows.push(
      `| ${ca.name} | ${diffs.length === 0 ? "identical" : diffs.join("; ")} | ${ca.score}/${ca.maxScore} · ${numerics(ca)} | ${cb.score}/${cb.maxScore} · ${numerics(cb)} |`,
    );
  }
  const md = [
    "# Structural verdicts with and without a GPU (`grade-verdicts`)",
    "",
    `Every broken-submission case, mutation-table entry and spelling of the autograder's tests, graded in full (numerics 1 round) by the same code on two machines: A = ${a.device} (${a.date.slice(0, 10)}), B = ${b.device} (${b.date.slice(0, 10)}).`,
    `Structural checks must agree; the score differs by design where timing (20 pt) needs a GPU and where numerics run on the GPU instead of the simulator.`,
    "",
    `**${a.cases.length - differing} of ${a.cases.length} cases have identical structural verdicts.**`,
    "",
    "| case | structural verdicts | A: score · numerics | B: score · numerics |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(mdPath, md);
  console.log(md);
  return differing === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  const [command, ...rest] = process.argv.slice(2);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { out: { type: "string" }, md: { type: "string" }, shard: { type: "string", default: "1/1" }, "no-gpu": { type: "boolean", default: false } },
  });
  const shard = /^(\d+)\/(\d+)$/.exec(values.shard ?? "1/1");
  if (command === "cases" && positionals.length === 1) {
    await writeCases(resolve(positionals[0]!));
    return 0;
  }
  if (
    command === "grade" &&
    positionals.length === 1 &&
    values.out !== undefined &&
    shard !== null &&
    Number(shard[1]) >= 1 &&
    Number(shard[1]) <= Number(shard[2])
  ) {
    await gradeAll(resolve(positionals[0]!), resolve(values.out), values["no-gpu"] === true, { index: Number(shard[1]), count: Number(shard[2]) });
    return 0;
  }
  if (command === "compare" && positionals.length === 2 && values.md !== undefined) return compare(positionals[0]!, positionals[1]!, values.md);
  console.error("usage: grade-verdicts cases OUT_DIR | grade DIR --out FILE.json [--no-gpu] [--shard I/N] | compare A.json[,…] B.json[,…] --md FILE.md");
  return 2;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`grade-verdicts: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
