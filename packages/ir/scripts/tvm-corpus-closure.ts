/**
 * The Python closure of a script cut out of a TVM test file (for `tvm-corpus-parse.ts`): the simple
 * values its names may refer to, as TVM's parser takes them from the enclosing Python frames.
 * Read from the text: module-level `NAME = <literal>` and `NAME = tvm.testing.parameter(<literal>, ...)`,
 * then, inner scopes winning, each enclosing function's `NAME = <literal>` before the script and
 * the first case of its `@pytest.mark.parametrize("a, b", [(<literal>, <literal>), ...])`.
 * Anything not a plain number or string literal is left out (the script then fails on the name).
 */

export type ClosureValue = number | string;

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === "" || line.trim().startsWith("#");

function literalValue(text: string): ClosureValue | undefined {
  const t = text.trim();
  if (/^-?\d+$/.test(t)) return Number.parseInt(t, 10);
  if (/^-?(\d+\.\d*|\.\d+)(e-?\d+)?$/i.test(t)) return Number.parseFloat(t);
  const quoted = /^(["'])([^"'\\]*)\1$/.exec(t);
  return quoted === null ? undefined : quoted[2];
}

/** Splits `a, (b, c), d` at its top-level commas. */
function topLevelItems(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if ("([{".includes(ch)) depth++;
    else if (")]}".includes(ch)) depth--;
    else if (ch === "," && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim() !== "") items.push(text.slice(start));
  return items.map((s) => s.trim());
}

function assignment(line: string, into: Map<string, ClosureValue>): void {
  const m = /^\s*(\w+)\s*=\s*(.+?)\s*(#.*)?$/.exec(line);
  if (m === null) return;
  const [, name, rhs] = m as unknown as [string, string, string];
  const param = /^tvm\.testing\.parameter\((.*)\)$/.exec(rhs);
  const value = literalValue(param === null ? rhs : (topLevelItems(param[1]!)[0] ?? ""));
  if (value !== undefined) into.set(name, value);
}

/** `@pytest.mark.parametrize("a, b", [(1, "x"), ...])` on one line: the first case's literal values. */
function parametrize(line: string, into: Map<string, ClosureValue>): void {
  const m = /^\s*@pytest\.mark\.parametrize\(\s*["']([^"']+)["']\s*,\s*\[(.*)\]\s*\)\s*$/.exec(line);
  if (m === null) return;
  const names = m[1]!.split(",").map((s) => s.trim());
  const first = topLevelItems(m[2]!)[0];
  if (first === undefined) return;
  const values = names.length === 1 ? [first] : topLevelItems(first.replace(/^\((.*)\)$/, "$1"));
  names.forEach((name, i) => {
    const v = values[i] === undefined ? undefined : literalValue(values[i]!);
    if (v !== undefined) into.set(name, v);
  });
}

export function closureOf(lines: readonly string[], at: number): Record<string, ClosureValue> {
  const closure = new Map<string, ClosureValue>();
  for (const line of lines) if (indentOf(line) === 0 && !isBlank(line)) assignment(line, closure);
  // Enclosing functions, outermost first.
  const defs: number[] = [];
  let indent = indentOf(lines[at]!);
  for (let k = at - 1; k >= 0 && indent > 0; k--) {
    if (isBlank(lines[k]!) || indentOf(lines[k]!) >= indent) continue;
    indent = indentOf(lines[k]!);
    if (/^\s*def\s/.test(lines[k]!)) defs.unshift(k);
  }
  for (const d of defs) {
    for (let k = d - 1; k >= 0 && lines[k]!.trim().startsWith("@"); k--) parametrize(lines[k]!, closure);
    const bodyIndent = lines.slice(d + 1, at + 1).find((l) => !isBlank(l)) ?? "";
    for (let k = d + 1; k < at; k++) if (indentOf(lines[k]!) === indentOf(bodyIndent) && !isBlank(lines[k]!)) assignment(lines[k]!, closure);
  }
  return Object.fromEntries(closure);
}
