/**
 * Finds the before/after pairs of one TVM pass-test file (for `tvm-pass-cases.ts`), in the styles
 * TVM's tests use:
 * - module-level functions compared by a helper call: `_check(before_func, expected_func)`, and
 *   `_check_fail(func)` / `_check_error(func)` for inputs the pass must reject;
 * - a test function or class holding definitions named `before` and `expected` (or `Before`,
 *   `Expected`, `After`), with `expected = before` for "unchanged" and `expected = SomeError` or a
 *   `pytest.raises` for rejection;
 * - option settings in the pair's scope (`transitively_prove_inequalities = True` as a class
 *   attribute, inherited from a base class of the same file, or a keyword argument).
 * Tests marked `@pytest.mark.xfail` are left out (TVM itself does not pass them).
 */
import { extractCases } from "../../../ir/scripts/tvm-corpus-extract.js";
import type { ClosureValue } from "../../../ir/scripts/tvm-corpus-closure.js";

/** The TVMScript of one side of a pair and the Python closure values its names take (TVM's parser reads them from the test's frames). */
export interface PairSide {
  readonly text: string;
  readonly closure: Readonly<Record<string, ClosureValue>>;
}

export interface PassPair {
  /** `file.py:line scope` */
  readonly where: string;
  readonly before: PairSide;
  /** TVMScript of the expected result; undefined when the pass must raise. */
  readonly expected: PairSide | undefined;
  /** Boolean and integer settings found in the pair's scope (class attributes, keyword arguments). */
  readonly options: Readonly<Record<string, boolean | number>>;
}

interface Definition {
  readonly name: string;
  readonly line: number;
  readonly side: PairSide;
  /** Line index of the enclosing `def`/`class`, -1 at module level. */
  readonly scope: number;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

function enclosingScope(lines: readonly string[], line: number): number {
  const indent = indentOf(lines[line]!);
  if (indent === 0) return -1;
  for (let k = line - 1; k >= 0; k--) {
    const l = lines[k]!;
    if (l.trim() === "" || indentOf(l) >= indent) continue;
    if (/^\s*(def|class)\s/.test(l)) return k;
  }
  return -1;
}

/** The lines of the scope opened at line `scope` (its header included). */
function scopeLines(lines: readonly string[], scope: number): string[] {
  const indent = indentOf(lines[scope]!);
  let end = scope + 1;
  while (end < lines.length && (lines[end]!.trim() === "" || indentOf(lines[end]!) > indent)) end++;
  return lines.slice(scope, end);
}

const OPTION = /\b([a-z][a-z0-9_]*)\s*=\s*(True|False|\d+)\b/g;

function optionsIn(text: string, into: Record<string, boolean | number>): void {
  for (const m of text.matchAll(OPTION)) into[m[1]!] = m[2] === "True" ? true : m[2] === "False" ? false : Number(m[2]);
}

/** Options of a class scope: its base classes' (same file) first, then its own attribute lines. */
function classOptions(lines: readonly string[], scope: number, into: Record<string, boolean | number>): void {
  const header = lines[scope]!;
  const bases = /\(([^)]*)\)/.exec(header)?.[1]?.split(",") ?? [];
  for (const base of bases.map((b) => b.trim())) {
    const at = lines.findIndex((l) => new RegExp(`^class\\s+${base}\\b`).test(l));
    if (at >= 0) classOptions(lines, at, into);
  }
  const own = indentOf(lines[scope + 1] ?? "");
  for (const l of scopeLines(lines, scope).slice(1)) if (indentOf(l) === own && !/^\s*def\s/.test(l)) optionsIn(l, into);
}

/**
 * Whether pytest runs nothing of the class at line `scope`: neither it nor a base class of the
 * file has a `test_` method, and it has no base from elsewhere (such as tvm.testing's
 * CompareBeforeAfter) that could bring one. TVM never checks such a class's pair.
 */
function classNeverRuns(lines: readonly string[], scope: number): boolean {
  if (scopeLines(lines, scope).some((l) => /^\s*def\s+test/.test(l))) return false;
  const bases = (/\(([^)]*)\)/.exec(lines[scope]!)?.[1]?.split(",") ?? []).map((b) => b.trim()).filter((b) => b !== "" && b !== "object");
  return bases.every((base) => {
    const at = lines.findIndex((l) => new RegExp(`^class\\s+${base}\\b`).test(l));
    return at >= 0 && classNeverRuns(lines, at);
  });
}

/** Whether the test at line `scope` is marked `@pytest.mark.xfail` (TVM itself does not pass it). */
function expectedToFail(lines: readonly string[], scope: number): boolean {
  for (let k = scope - 1; k >= 0 && lines[k]!.trim().startsWith("@"); k--) if (/xfail/.test(lines[k]!)) return true;
  return false;
}

const BEFORE = /^(before|Before|original|Original)$/;
const EXPECTED = /^(expected|Expected|after|After|transformed|Transformed)$/;

export function extractPairs(file: string, source: string): PassPair[] {
  const lines = source.split("\n");
  const base = file.split("/").pop()!;
  const defs: Definition[] = extractCases(file, source).map((c) => {
    const m = /:(\d+) (\S+)$/.exec(c.where)!;
    const line = Number(m[1]) - 1;
    return { name: m[2]!, line, side: { text: c.text, closure: c.closure }, scope: enclosingScope(lines, line) };
  });
  const pairs: PassPair[] = [];

  // Scoped pairs: before/expected defined in one test function or class.
  const scopes = [...new Set(defs.map((d) => d.scope))].filter((s) => s >= 0);
  for (const scope of scopes) {
    if (expectedToFail(lines, scope)) continue;
    if (lines[scope]!.trim().startsWith("class") && classNeverRuns(lines, scope)) continue;
    const here = defs.filter((d) => d.scope === scope);
    const before = here.find((d) => BEFORE.test(d.name));
    if (before === undefined) continue;
    const body = scopeLines(lines, scope);
    const text = body.join("\n");
    const options: Record<string, boolean | number> = {};
    if (lines[scope]!.trim().startsWith("class")) classOptions(lines, scope, options);
    else optionsIn(text.replace(/^.*\b(def|class)\b.*$/gm, ""), options);
    const expectedDef = here.find((d) => EXPECTED.test(d.name));
    const alias = /^\s*expected\s*=\s*([\w.]+)\s*$/m.exec(text)?.[1];
    let expected: PairSide | undefined;
    if (expectedDef !== undefined) expected = expectedDef.side;
    else if (alias !== undefined && BEFORE.test(alias)) expected = before.side;
    else if (!((alias !== undefined && /Error$/.test(alias)) || /pytest\.raises/.test(text))) continue;
    const name = /^\s*(?:def|class)\s+(\w+)/.exec(lines[scope]!)?.[1] ?? "?";
    pairs.push({ where: `${base}:${scope + 1} ${name}`, before: before.side, expected, options });
  }

  // Helper-call pairs between named functions (module-level ones, or those of a test function).
  const topLevel = new Map([...defs.filter((d) => d.scope !== -1), ...defs.filter((d) => d.scope === -1)].map((d) => [d.name, d]));
  const flat = source.replace(/\s+/g, " ");
  for (const m of flat.matchAll(/\b_check(_fail|_error)?\(\s*(\w+)\s*(?:,\s*(\w+)\s*)?[,)]/g)) {
    const before = topLevel.get(m[2]!);
    if (before === undefined) continue;
    const fails = m[1] !== undefined;
    const expected = fails ? undefined : topLevel.get(m[3] ?? "");
    if (!fails && expected === undefined) continue;
    pairs.push({ where: `${base}:${before.line + 1} ${m[2]}`, before: before.side, expected: expected?.side, options: {} });
  }
  return pairs;
}
