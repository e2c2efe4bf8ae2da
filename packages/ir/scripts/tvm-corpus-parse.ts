/**
 * Measures how much of Apache TVM's schedule-test TVMScript our parser accepts.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/ir/scripts/tvm-corpus-parse.ts \
 *     --tvm-git-dir /work/.mirror/apache+tvm/repo [--rev HEAD] [--dir tests/python/s_tir/schedule] [--show N]
 *
 * It reads the test files out of a (bare) TVM git repository, cuts out every `@T.prim_func`
 * function and every `@I.ir_module` class, parses each with our parser, prints it, parses the
 * printed text again and checks structural equality, and that printing it once more gives the
 * same text. Failures are grouped by their message (with the variable parts blanked out).
 * Nothing of TVM's text is stored here: it is read from the repository given on the command line.
 */
import { parseArgs } from "node:util";
import { execaSync } from "execa";
import { parseTVMScript } from "../src/parser/index.js";
import { printTVMScript } from "../src/printer/index.js";
import { structuralEqual } from "../src/structural/index.js";
import { type Case, extractCases, messageKey } from "./tvm-corpus-extract.js";

interface Outcome {
  readonly stage: "parse" | "print" | "reparse" | "equal" | "fixpoint" | "ok";
  readonly message: string;
}

const { values } = parseArgs({
  options: {
    "tvm-git-dir": { type: "string" },
    rev: { type: "string", default: "HEAD" },
    dir: { type: "string", default: "tests/python/s_tir/schedule" },
    show: { type: "string", default: "3" },
    verbose: { type: "boolean", default: false },
  },
});

const gitDir = values["tvm-git-dir"];
if (gitDir === undefined) {
  process.stderr.write("usage: tvm-corpus-parse.ts --tvm-git-dir PATH [--rev REV] [--dir DIR] [--show N] [--verbose]\n");
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
    mod = parseTVMScript(c.text, { fileName: c.where });
  } catch (err) {
    return { stage: "parse", message: firstLine(err) };
  }
  let printed: string;
  try {
    printed = printTVMScript(mod);
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
  if (printTVMScript(again) !== printed) return { stage: "fixpoint", message: "printing the reparsed module gives another text" };
  return { stage: "ok", message: "" };
}

const files = git("ls-tree", "-r", "--name-only", values.rev, "--", values.dir)
  .split("\n")
  .filter((f) => /\/test_[^/]*\.py$/.test(f))
  .sort();

const groups = new Map<string, { stage: string; cases: string[]; sample: string }>();
let total = 0;
let parsed = 0;
let roundTripped = 0;
for (const file of files) {
  for (const c of extractCases(file, git("show", `${values.rev}:${file}`))) {
    total++;
    const out = check(c);
    if (out.stage !== "parse") parsed++;
    if (out.stage === "ok") {
      roundTripped++;
      continue;
    }
    const key = `[${out.stage}] ${messageKey(out.message)}`;
    const g = groups.get(key) ?? { stage: out.stage, cases: [], sample: out.message };
    g.cases.push(c.where);
    groups.set(key, g);
  }
}

const show = Number(values.show);
for (const [key, g] of [...groups].sort((a, b) => b[1].cases.length - a[1].cases.length)) {
  process.stdout.write(`\n${g.cases.length} × ${key}\n    e.g. ${g.sample}\n`);
  const listed = values.verbose ? g.cases : g.cases.slice(0, show);
  for (const w of listed) process.stdout.write(`    - ${w}\n`);
  if (listed.length < g.cases.length) process.stdout.write(`    … and ${g.cases.length - listed.length} more\n`);
}
const pct = (n: number): string => `${((100 * n) / Math.max(total, 1)).toFixed(1)}%`;
process.stdout.write(
  `\n${files.length} files, ${total} cases: ${parsed} parse (${pct(parsed)}), ` +
    `${roundTripped} round-trip (${pct(roundTripped)}), ${total - roundTripped} fail\n`,
);
