/**
 * Measures how many of Apache TVM's before/after pass tests our passes reproduce.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/codegen/scripts/tvm-pass-cases.ts \
 *     --tvm-git-dir /work/.mirror/apache+tvm/repo [--rev HEAD] [--pass NAME] [--show N] [--verbose]
 *
 * For each TVM test file of a pass we have (table in tvm-pass-cases/pass-table.ts), it reads the
 * pairs (tvm-pass-cases/extract-pairs.ts), parses "before" and "expected" with our parser, runs
 * our pass (and what TVM's test runs around it) on "before", and compares structurally with
 * "expected" (or checks that the pass raised, where TVM's test expects an error). A case whose
 * TVMScript our parser refuses is counted as unparsed, apart from the failures.
 * Nothing of TVM's text is stored here: it is read from the repository given on the command line.
 */
import { parseArgs } from "node:util";
import { type IRModule, type PrimFunc, parseTVMScript, structuralDiff } from "@tessera/ir";
import { execaSync } from "execa";
import { messageKey } from "../../ir/scripts/tvm-corpus-extract.js";
import { type PairSide, type PassPair, extractPairs } from "./tvm-pass-cases/extract-pairs.js";
import { PASS_TABLE, type PassUnderTest } from "./tvm-pass-cases/pass-table.js";

type Outcome = { readonly status: "ok" | "unparsed" | "fail"; readonly message: string };

const { values } = parseArgs({
  options: {
    "tvm-git-dir": { type: "string" },
    rev: { type: "string", default: "HEAD" },
    pass: { type: "string" },
    show: { type: "string", default: "3" },
    verbose: { type: "boolean", default: false },
  },
});
const gitDir = values["tvm-git-dir"];
if (gitDir === undefined) {
  process.stderr.write("usage: tvm-pass-cases.ts --tvm-git-dir PATH [--rev REV] [--pass NAME] [--show N] [--verbose]\n");
  process.exit(2);
}

function git(...args: string[]): string {
  return execaSync("git", ["--git-dir", gitDir!, ...args], { maxBuffer: 64 << 20 }).stdout;
}

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split("\n")[0]!;

function parse(side: PairSide, where: string): IRModule | string {
  try {
    return parseTVMScript(side.text, { fileName: where, closure: side.closure });
  } catch (err) {
    return firstLine(err);
  }
}

/** The functions of a module, paired by name, or by position when each module holds one. */
function pairFunctions(before: IRModule, expected: IRModule): [PrimFunc, PrimFunc, string][] | string {
  if (before.functions.size === 1 && expected.functions.size === 1) {
    const [name, f] = [...before.functions][0]!;
    return [[f, [...expected.functions.values()][0]!, name]];
  }
  const out: [PrimFunc, PrimFunc, string][] = [];
  for (const [name, f] of before.functions) {
    const g = expected.functions.get(name);
    if (g === undefined) return `function ${name} has no expected counterpart`;
    out.push([f, g, name]);
  }
  return out;
}

function check(pass: PassUnderTest, pair: PassPair): Outcome {
  const before = parse(pair.before, `${pair.where} (before)`);
  if (typeof before === "string") return { status: "unparsed", message: before };
  if (pair.expected === undefined) {
    try {
      for (const f of before.functions.values()) pass.run(f, pair.options);
    } catch {
      return { status: "ok", message: "" };
    }
    return { status: "fail", message: "TVM raises here; our pass accepted the input" };
  }
  const expected = parse(pair.expected, `${pair.where} (expected)`);
  if (typeof expected === "string") return { status: "unparsed", message: expected };
  const funcs = pairFunctions(before, expected);
  if (typeof funcs === "string") return { status: "fail", message: funcs };
  for (const [f, g, name] of funcs) {
    let got: PrimFunc;
    let want: PrimFunc;
    try {
      got = pass.run(f, pair.options);
    } catch (err) {
      return { status: "fail", message: `raised: ${firstLine(err)}` };
    }
    try {
      want = pass.normalizeExpected?.(g, pair.options) ?? g;
    } catch (err) {
      return { status: "fail", message: `normalizing expected raised: ${firstLine(err)}` };
    }
    const diff = structuralDiff({ ...got, attrs: {} }, { ...want, attrs: {} });
    if (diff !== undefined) return { status: "fail", message: `${name}: ${diff.message}` };
  }
  return { status: "ok", message: "" };
}

const show = Number(values.show);
const totals = { cases: 0, ok: 0, unparsed: 0, fail: 0 };
const rows: string[] = [];
for (const pass of PASS_TABLE.filter((p) => values.pass === undefined || p.name === values.pass)) {
  const source = git("show", `${values.rev}:${pass.file}`);
  const pairs = extractPairs(pass.file, source);
  const counts = { ok: 0, unparsed: 0, fail: 0 };
  const groups = new Map<string, string[]>();
  for (const pair of pairs) {
    const out = check(pass, pair);
    counts[out.status]++;
    if (out.status === "ok") continue;
    const key = `[${out.status}] ${messageKey(out.message)}`;
    groups.set(key, [...(groups.get(key) ?? []), `${pair.where}: ${out.message}`]);
  }
  totals.cases += pairs.length;
  totals.ok += counts.ok;
  totals.unparsed += counts.unparsed;
  totals.fail += counts.fail;
  const parsed = pairs.length - counts.unparsed;
  rows.push(
    `${pass.name.padEnd(34)} ${String(pairs.length).padStart(4)} ${String(counts.unparsed).padStart(9)} ${`${counts.ok}/${parsed}`.padStart(9)} ${String(counts.fail).padStart(5)}`,
  );
  if (show === 0 && !values.verbose) continue;
  process.stdout.write(`\n== ${pass.name} (${pass.file})\n`);
  for (const [key, list] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    process.stdout.write(`  ${list.length} × ${key}\n`);
    const listed = values.verbose ? list : list.slice(0, show);
    for (const w of listed) process.stdout.write(`    - ${w}\n`);
  }
}
const pct = (n: number, d: number): string => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
process.stdout.write(`\n${"pass".padEnd(34)} ${"cases".padStart(4)} ${"unparsed".padStart(9)} ${"ok/parsed".padStart(9)} ${"fail".padStart(5)}\n`);
for (const r of rows) process.stdout.write(`${r}\n`);
const parsedTotal = totals.cases - totals.unparsed;
process.stdout.write(
  `\n${totals.cases} cases: ${totals.unparsed} unparsed, ${totals.ok}/${parsedTotal} parsed cases pass ` +
    `(${pct(totals.ok, parsedTotal)}), ${totals.fail} fail; ${pct(totals.ok, totals.cases)} of all cases\n`,
);
