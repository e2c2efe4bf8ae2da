/**
 * Measures how much of Apache TVM's test TVMScript our parser accepts.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/ir/scripts/tvm-corpus-parse.ts \
 *     --tvm-git-dir /work/.mirror/apache+tvm/repo [--rev HEAD] [--dir DIR]... [--held-out] [--show N]
 *
 * `--dir` may be given several times (default: the schedule tests); `--held-out` measures the
 * directories other than the schedule tests (tvmscript, tirx-base, tirx-transform,
 * s_tir/transform, codegen). A pass rate is printed per directory, then the failure histogram.
 *
 * It reads the test files out of a (bare) TVM git repository, cuts out every `@T.prim_func`
 * function and every `@I.ir_module` class, parses each with our parser, prints it (in both
 * dialects, the course's and today's TVM's), parses the printed text again and checks structural
 * equality, and that printing it once more gives the same text. Failures are grouped by their message (with the variable parts blanked out).
 * Nothing of TVM's text is stored here: it is read from the repository given on the command line.
 */
import { parseArgs } from "node:util";
import { execaSync } from "execa";
import { TVMScriptSyntaxError, parseTVMScript } from "../src/parser/index.js";
import { printTVMScript } from "../src/printer/index.js";
import { structuralEqual } from "../src/structural/index.js";
import type { IRModule } from "../src/func.js";
import { type Case, extractCases, messageKey } from "./tvm-corpus-extract.js";

interface Outcome {
  readonly stage: "parse" | "reject" | "print" | "reparse" | "equal" | "fixpoint" | "ok";
  readonly message: string;
}

const { values } = parseArgs({
  options: {
    "tvm-git-dir": { type: "string" },
    rev: { type: "string", default: "HEAD" },
    dir: { type: "string", multiple: true },
    "held-out": { type: "boolean", default: false },
    show: { type: "string", default: "3" },
    verbose: { type: "boolean", default: false },
  },
});

const gitDir = values["tvm-git-dir"];
if (gitDir === undefined) {
  process.stderr.write("usage: tvm-corpus-parse.ts --tvm-git-dir PATH [--rev REV] [--dir DIR]... [--held-out] [--show N] [--verbose]\n");
  process.exit(2);
}

function git(...args: string[]): string {
  return execaSync("git", ["--git-dir", gitDir!, ...args], { maxBuffer: 64 << 20 }).stdout;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0]!;
}

function check(c: Case): Outcome {
  let mod;
  try {
    mod = parseTVMScript(c.text, { fileName: c.where, closure: c.closure });
  } catch (err) {
    if (c.expectError && err instanceof TVMScriptSyntaxError) return { stage: "ok", message: "" };
    return { stage: "parse", message: firstLine(err) };
  }
  if (c.expectError) return { stage: "reject", message: "accepted a script that TVM rejects" };
  for (const dialect of ["course", "tvm"] as const) {
    const out = roundTrip(mod, c, dialect);
    if (out.stage !== "ok") return { stage: out.stage, message: `${out.message} (printed as ${dialect})` };
  }
  return { stage: "ok", message: "" };
}

/** Prints `mod` in one dialect, parses the print and checks it is the same module and prints the same. */
function roundTrip(mod: IRModule, c: Case, dialect: "course" | "tvm"): Outcome {
  let printed: string;
  try {
    printed = printTVMScript(mod, { dialect });
  } catch (err) {
    return { stage: "print", message: firstLine(err) };
  }
  let again;
  try {
    again = parseTVMScript(printed, { fileName: `${c.where} (printed)` });
  } catch (err) {
    return { stage: "reparse", message: firstLine(err) };
  }
  for (const [name, f] of mod.functions) {
    const g = again.functions.get(name);
    if (g === undefined) return { stage: "equal", message: `function ${name} lost in printing` };
    if (!structuralEqual(f, g)) return { stage: "equal", message: `function ${name} differs after print → parse` };
  }
  if (printTVMScript(again, { dialect }) !== printed) return { stage: "fixpoint", message: "printing the reparsed module gives another text" };
  return { stage: "ok", message: "" };
}

const HELD_OUT_DIRS = [
  "tests/python/tvmscript",
  "tests/python/tirx-base",
  "tests/python/tirx-transform",
  "tests/python/s_tir/transform",
  "tests/python/codegen",
];
const dirs = [...(values["held-out"] ? HELD_OUT_DIRS : []), ...(values.dir ?? [])];
if (dirs.length === 0) dirs.push("tests/python/s_tir/schedule");

const groups = new Map<string, { stage: string; cases: string[]; messages: string[]; sample: string }>();
const perDir: { dir: string; files: number; total: number; parsed: number; roundTripped: number }[] = [];
for (const dir of dirs) {
  const files = git("ls-tree", "-r", "--name-only", values.rev, "--", dir)
    .split("\n")
    .filter((f) => /\/test_[^/]*\.py$/.test(f))
    .sort();
  const tally = { dir, files: files.length, total: 0, parsed: 0, roundTripped: 0 };
  perDir.push(tally);
  for (const file of files) {
    for (const c of extractCases(file, git("show", `${values.rev}:${file}`))) {
      tally.total++;
      const out = check(c);
      if (out.stage !== "parse") tally.parsed++;
      if (out.stage === "ok") {
        tally.roundTripped++;
        continue;
      }
      const key = `[${out.stage}] ${messageKey(out.message)}`;
      const g = groups.get(key) ?? { stage: out.stage, cases: [], messages: [], sample: out.message };
      g.cases.push(c.where);
      g.messages.push(out.message);
      groups.set(key, g);
    }
  }
}

const show = Number(values.show);
for (const [key, g] of [...groups].sort((a, b) => b[1].cases.length - a[1].cases.length)) {
  process.stdout.write(`\n${g.cases.length} × ${key}\n    e.g. ${g.sample}\n`);
  const listed = values.verbose ? g.cases : g.cases.slice(0, show);
  listed.forEach((w, i) => process.stdout.write(values.verbose ? `    - ${w}: ${g.messages[i]}\n` : `    - ${w}\n`));
  if (listed.length < g.cases.length) process.stdout.write(`    … and ${g.cases.length - listed.length} more\n`);
}
const pct = (n: number, total: number): string => `${((100 * n) / Math.max(total, 1)).toFixed(1)}%`;
const sum = (f: (t: (typeof perDir)[number]) => number): number => perDir.reduce((acc, t) => acc + f(t), 0);
process.stdout.write("\n");
for (const t of [
  ...perDir,
  { dir: "all", files: sum((t) => t.files), total: sum((t) => t.total), parsed: sum((t) => t.parsed), roundTripped: sum((t) => t.roundTripped) },
]) {
  process.stdout.write(
    `${t.dir}: ${t.files} files, ${t.total} cases: ${t.parsed} parse (${pct(t.parsed, t.total)}), ` +
      `${t.roundTripped} round-trip (${pct(t.roundTripped, t.total)}), ${t.total - t.roundTripped} fail\n`,
  );
}
