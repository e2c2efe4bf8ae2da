/**
 * Measures how much of Apache TVM's own arithmetic tests our analyzer passes.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/ir/scripts/tvm-arith-cases.ts \
 *     --tvm-git-dir /work/.mirror/apache+tvm/repo [--rev HEAD] [--show N] [--family NAME]
 *
 * It reads tests/python/arith/test_arith_{rewrite_simplify,canonical_simplify,const_int_bound,
 * modular_set,simplify}.py out of a (bare) TVM git repository, runs every check it can translate
 * into our expressions (see tvm-arith/test-file.ts) and reports, per file and per test class or
 * function, how many pass, fail, or could not be translated. Tests TVM marks `xfail` (TVM's own
 * expected failures) are run too but counted apart, outside the rates. Nothing of TVM's text is
 * stored here.
 */
import { parseArgs } from "node:util";
import { execaSync } from "execa";
import { type CaseResult, type FileKind, TestFileRunner } from "./tvm-arith/test-file.js";

const FILES: readonly { readonly name: string; readonly kind: FileKind }[] = [
  { name: "test_arith_rewrite_simplify.py", kind: "rewrite" },
  { name: "test_arith_canonical_simplify.py", kind: "other" },
  { name: "test_arith_const_int_bound.py", kind: "bound" },
  { name: "test_arith_modular_set.py", kind: "other" },
  { name: "test_arith_simplify.py", kind: "other" },
];

const { values } = parseArgs({
  options: {
    "tvm-git-dir": { type: "string" },
    rev: { type: "string", default: "HEAD" },
    show: { type: "string", default: "0" },
    family: { type: "string" },
    json: { type: "boolean", default: false },
  },
});

const gitDir = values["tvm-git-dir"];
if (gitDir === undefined) {
  process.stderr.write("usage: tvm-arith-cases.ts --tvm-git-dir PATH [--rev REV] [--show N] [--family NAME] [--json]\n");
  process.exit(2);
}

function readTest(name: string): string {
  return execaSync("git", ["--git-dir", gitDir!, "show", `${values.rev}:tests/python/arith/${name}`], { maxBuffer: 64 << 20 }).stdout;
}

interface Tally {
  pass: number;
  fail: number;
  untranslatable: number;
}

function tally(results: readonly CaseResult[]): Tally {
  const t: Tally = { pass: 0, fail: 0, untranslatable: 0 };
  for (const r of results) if (!r.xfail) t[r.outcome]++;
  return t;
}

/** TVM's expected failures, apart: how many there are and how many pass here anyway. */
function xfailLine(results: readonly CaseResult[]): string {
  const x = results.filter((r) => r.xfail);
  return x.length === 0 ? "" : `; xfail in TVM (not counted above): ${x.length}, ${x.filter((r) => r.outcome === "pass").length} pass here`;
}

function pct(t: Tally): string {
  const translated = t.pass + t.fail;
  const all = translated + t.untranslatable;
  const of = (n: number, d: number): string => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
  return `${t.pass}/${translated} translated pass (${of(t.pass, translated)}); ${t.pass}/${all} of all (${of(t.pass, all)}); ${t.untranslatable} untranslatable`;
}

const show = Number(values.show);
const everything: CaseResult[] = [];
const summary: Record<string, Tally> = {};
for (const f of FILES) {
  const results = new TestFileRunner(readTest(f.name), f.kind).run();
  everything.push(...results);
  summary[f.name] = tally(results);
  process.stdout.write(`\n${f.name}: ${pct(tally(results))}${xfailLine(results)}\n`);
  const families = [...new Set(results.map((r) => r.family))];
  for (const fam of families) {
    if (values.family !== undefined && fam !== values.family) continue;
    const rs = results.filter((r) => r.family === fam);
    const t = tally(rs);
    process.stdout.write(`  ${fam}: ${t.pass} pass, ${t.fail} fail, ${t.untranslatable} untranslatable${xfailLine(rs)}\n`);
    const shown = rs.filter((r) => r.outcome !== "pass").slice(0, values.family !== undefined ? Infinity : show);
    for (const r of shown) process.stdout.write(`    ${r.xfail ? "xfail " : ""}${r.outcome} line ${r.line}: ${r.detail}\n`);
  }
}
process.stdout.write(`\nTOTAL: ${pct(tally(everything))}${xfailLine(everything)}\n`);
if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
