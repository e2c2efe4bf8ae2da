/**
 * Measures how much of Apache TVM's schedule-test TVMScript our parser accepts.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/ir/scripts/tvm-corpus-parse.ts \
 *     --tvm-git-dir /work/.mirror/apache+tvm/repo [--rev HEAD] [--dir tests/python/s_tir/schedule] [--show N]
 *
 * It reads the test files out of a (bare) TVM git repository, cuts out every `@T.prim_func`
 * function and every `@I.ir_module` class, parses each with our parser, prints it, parses the
 * printed text again and checks structural equality. Failures are grouped by their message (with
 * the variable parts of the message blanked out). Nothing of TVM's text is stored here: it is read
 * from the repository given on the command line each time.
 */
import { parseArgs } from "node:util";
import { execaSync } from "execa";
import { parseTVMScript } from "../src/parser/index.js";
import { printTVMScript } from "../src/printer/index.js";
import { structuralEqual } from "../src/structural/index.js";

interface Case {
  /** `file.py:line name` */
  readonly where: string;
  readonly text: string;
}

interface Outcome {
  readonly stage: "parse" | "print" | "reparse" | "equal" | "ok";
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

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === "" || line.trim().startsWith("#");

/**
 * Cuts the decorated definitions out of one Python file: each `@T.prim_func` def that is not
 * inside an `@I.ir_module` class, and each such class whole. Text is dedented to column 0.
 */
export function extractCases(file: string, source: string): Case[] {
  const lines = source.split("\n");
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const trimmed = line.trim();
    const isFunc = /^@(T|tvm\.script\.tir)\.prim_func\b/.test(trimmed);
    const isModule = /^@(I|tvm\.script\.ir|tvm\.script)\.ir_module\b|^@ir_module\b/.test(trimmed);
    if (!isFunc && !isModule) {
      i++;
      continue;
    }
    const indent = indentOf(line);
    // Further decorators, then the def/class line (which may span lines through open brackets).
    let j = i;
    while (j < lines.length && lines[j]!.trim().startsWith("@")) j++;
    if (j >= lines.length) break;
    const header = lines[j]!.trim();
    const name = /^(?:def|class)\s+(\w+)/.exec(header)?.[1] ?? "?";
    let depth = 0;
    for (;;) {
      for (const ch of lines[j]!) {
        if ("([{".includes(ch)) depth++;
        else if (")]}".includes(ch)) depth--;
      }
      j++;
      if (depth <= 0 || j >= lines.length) break;
    }
    // The body: every following line indented deeper than the decorator (blank lines included).
    let end = j;
    for (let k = j; k < lines.length; k++) {
      if (isBlank(lines[k]!)) continue;
      if (indentOf(lines[k]!) <= indent) break;
      end = k + 1;
    }
    const text = lines
      .slice(i, end)
      .map((l) => (l.length >= indent ? l.slice(indent) : l.trimStart()))
      .join("\n");
    cases.push({ where: `${file.split("/").pop()}:${i + 1} ${name}`, text: `${text}\n` });
    i = end;
  }
  return cases;
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0]!;
}

/** Blanks out names (but not `T.*` functions) and numbers so that failures with one cause group together. */
function messageKey(message: string): string {
  return message
    .replace(/^.*?\berror: /, "")
    .replace(/"(?!T\.)[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+\b/g, "N");
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
