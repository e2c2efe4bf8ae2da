/**
 * The Python closure of a script cut out of a TVM test file (for `tvm-corpus-parse.ts`): the simple
 * values its names may refer to, as TVM's parser takes them from the enclosing Python frames.
 * Read from the text, outer scopes first and inner ones winning:
 * - module-level `NAME = <constant>` and `NAME = tvm.testing.parameter(<constant>, ...)`;
 * - for each enclosing function: its parameters, bound by the first case of its
 *   `@pytest.mark.parametrize`, else by the first call of the function in the file whose arguments
 *   are constants, else by their defaults; then its `NAME = <constant>` lines before the script.
 * A constant is a number or string literal, or arithmetic, concatenation or an f-string over names
 * already known; TIR values built from `T.*` calls, tuples of constants and one-line helper functions
 * are handed on as TVMScript text (`tvm-corpus-pyvalue.ts`). Anything else is left out: the script
 * then fails on the name.
 */
import { type ClosureValue, type LogicalLine, bracketed, constantValue, helperFunction, logicalLines, topLevelItems } from "./tvm-corpus-pyvalue.js";

export type { ClosureValue } from "./tvm-corpus-pyvalue.js";

const indentOf = (line: string): number => line.length - line.trimStart().length;
const isBlank = (line: string): boolean => line.trim() === "" || line.trim().startsWith("#");

export function closureOf(lines: readonly string[], at: number): Record<string, ClosureValue> {
  const logical = logicalLines(lines);
  const closure = new Map<string, ClosureValue>();
  logical.forEach((l, k) => {
    if (l.indent === 0) definition(logical, k, closure);
    if (l.indent === 0) macroDefinition(lines, logical, k, closure);
  });
  const enclosing = new Set(enclosingBlocks(lines, at));
  for (const d of enclosingDefs(lines, at)) {
    const index = logical.findIndex((l) => l.first === d);
    const def = logical[index];
    if (def === undefined) continue;
    bindParameters(logical, index, closure);
    // The lines the script sees: those of the function body and of the loops and other blocks
    // around the script; a `for` around it binds its targets to the first item.
    const lists = new Map<string, string>();
    for (let k = index + 1; k < logical.length && logical[k]!.first < at; k++) {
      if (!enclosing.has(parentLine(logical, k))) continue;
      const text = logical[k]!.text;
      if (enclosing.has(logical[k]!.first) && loopBinding(text, closure, lists)) continue;
      const list = /^(\w+)\s*=\s*(\[.*\])$/.exec(text);
      if (list !== null) lists.set(list[1]!, list[2]!);
      definition(logical, k, closure);
      macroDefinition(lines, logical, k, closure);
    }
  }
  return Object.fromEntries(closure);
}

/** Physical line numbers of the block headers (`def`, `for`, `with`, …) that enclose line `at`. */
function enclosingBlocks(lines: readonly string[], at: number): number[] {
  const blocks: number[] = [];
  let indent = indentOf(lines[at]!);
  for (let k = at - 1; k >= 0 && indent > 0; k--) {
    if (isBlank(lines[k]!) || indentOf(lines[k]!) >= indent) continue;
    indent = indentOf(lines[k]!);
    blocks.push(k);
  }
  return blocks;
}

/** The physical line of the block header that `logical[k]` sits in. */
function parentLine(logical: readonly LogicalLine[], k: number): number {
  for (let j = k - 1; j >= 0; j--) if (logical[j]!.indent < logical[k]!.indent) return logical[j]!.first;
  return -1;
}

/** Physical line numbers of the `def` lines that enclose line `at`, outermost first. */
function enclosingDefs(lines: readonly string[], at: number): number[] {
  return enclosingBlocks(lines, at)
    .filter((k) => /^\s*def\s/.test(lines[k]!))
    .reverse();
}

/** An assignment, or a helper function whose body is one `return <expr>` (as a lambda). */
function definition(logical: readonly LogicalLine[], k: number, into: Map<string, ClosureValue>): void {
  const line = logical[k]!;
  const def = /^def\s+(\w+)\s*\(([\w\s,:]*)\)\s*(->.*)?:$/.exec(line.text);
  if (def === null) return assignment(line.text, into);
  const body: string[] = [];
  for (let j = k + 1; j < logical.length && logical[j]!.indent > line.indent; j++) body.push(logical[j]!.text);
  if (body.length === 0 || !body[body.length - 1]!.startsWith("return ")) return;
  const params = def[2]!
    .split(",")
    .map((p) => p.split(":")[0]!.trim())
    .filter((p) => p !== "");
  const fn = helperFunction(params, body, into);
  if (fn !== undefined) into.set(def[1]!, fn);
}

/** A `@T.inline` / `@T.macro` function (decorator at `logical[k]`), handed on as its dedented text. */
function macroDefinition(lines: readonly string[], logical: readonly LogicalLine[], k: number, into: Map<string, ClosureValue>): void {
  const def = logical[k + 1];
  const name = def === undefined ? null : /^def\s+(\w+)\s*\(/.exec(def.text);
  if (!/^@T\.(inline|macro)\b/.test(logical[k]!.text) || def === undefined || name === null) return;
  let end = k + 2;
  while (end < logical.length && logical[end]!.indent > def.indent) end++;
  const body = lines.slice(def.first, logical[end]?.first ?? lines.length);
  while (body.length > 0 && isBlank(body[body.length - 1]!)) body.pop();
  into.set(name[1]!, { macro: `${body.map((line) => line.slice(def.indent)).join("\n")}\n` });
}

/** `NAME = <constant>`, `A, B = <constant>, <constant>` or `NAME = tvm.testing.parameter(<constant>, ...)`. */
function assignment(text: string, into: Map<string, ClosureValue>): void {
  const m = /^([\w\s,]+?)\s*=(?!=)\s*(.+)$/.exec(text);
  if (m === null) return;
  const targets = m[1]!.split(",").map((s) => s.trim());
  if (targets.some((t) => !/^\w+$/.test(t))) return;
  const param = /^tvm\.testing\.parameter\((.*)\)$/.exec(m[2]!);
  const rhs = param === null ? m[2]! : (topLevelItems(param[1]!)[0] ?? "");
  // `a, b = pair` unpacks a tuple handed on as text.
  const known = into.get(rhs.trim());
  const tupleText = targets.length > 1 && typeof known === "object" && "expr" in known ? known.expr : rhs;
  const values = targets.length === 1 ? [rhs] : joinLambdas(topLevelItems(tupleText.replace(/^[([](.*)[)\]]$/, "$1")));
  if (values.length !== targets.length) return;
  const computed = values.map((v) => constantValue(v, into));
  targets.forEach((t, i) => {
    const v = computed[i];
    if (v !== undefined) into.set(t, v);
  });
}

/** Items split at the commas of a lambda's parameters (`lambda x, y: x + y`), joined again. */
function joinLambdas(items: readonly string[]): string[] {
  const out: string[] = [];
  for (const item of items) {
    const last = out[out.length - 1];
    if (last !== undefined && /^lambda\b[^:]*$/.test(last)) out[out.length - 1] = `${last}, ${item}`;
    else out.push(item);
  }
  return out;
}

/** Binds the parameters of the function defined at `logical[index]`. */
function bindParameters(logical: readonly LogicalLine[], index: number, closure: Map<string, ClosureValue>): void {
  const def = logical[index]!;
  const m = /^def\s+(\w+)\s*\(/.exec(def.text);
  if (m === null) return;
  const params = parameterList(bracketed(def.text, m[0].length - 1) ?? "");
  const bound = new Map<string, ClosureValue>();
  const moduleLists = new Map<string, string>();
  for (const l of logical) {
    const list = l.indent === 0 ? /^(\w+)\s*=\s*(\[.*\])$/.exec(l.text) : null;
    if (list !== null) moduleLists.set(list[1]!, list[2]!);
  }
  for (let k = index - 1; k >= 0 && logical[k]!.text.startsWith("@"); k--) parametrize(logical[k]!.text, bound, moduleLists);
  if (bound.size === 0) firstCallArguments(logical, m[1]!, def.first, params, closure, bound);
  for (const p of params) {
    const v = bound.get(p.name) ?? (p.defaultText === undefined ? undefined : constantValue(p.defaultText, closure));
    if (v !== undefined) closure.set(p.name, v);
  }
}

interface Parameter {
  readonly name: string;
  readonly defaultText?: string | undefined;
}

/** `a, b: int, c=3, *, d: str = "x"`: names and default texts, up to any `*args`/`**kwargs`. */
function parameterList(text: string): Parameter[] {
  const params: Parameter[] = [];
  for (const item of topLevelItems(text)) {
    if (item === "*" || item === "/") continue;
    const m = /^(\w+)\s*(?::[^=]*)?(?:=\s*(.+))?$/.exec(item);
    if (m === null) continue;
    params.push({ name: m[1]!, defaultText: m[2] });
  }
  return params;
}

/** The first case of `@pytest.mark.parametrize("a, b", [(1, "x"), ...])` (also `pytest.param(...)` cases). */
function parametrize(text: string, into: Map<string, ClosureValue>, moduleLists: ReadonlyMap<string, string>): void {
  const m = /^@pytest\.mark\.parametrize\(/.exec(text);
  if (m === null) return;
  const [namesText, casesWritten] = topLevelItems(bracketed(text, m[0].length - 1) ?? "");
  // The cases may be a module-level list named elsewhere (`@pytest.mark.parametrize("a,b", CASES)`).
  const casesText = casesWritten !== undefined && /^\w+$/.test(casesWritten) ? (moduleLists.get(casesWritten) ?? casesWritten) : casesWritten;
  if (namesText === undefined || casesText === undefined || !/^[[(]/.test(casesText)) return;
  const names = (constantValue(namesText, into) ?? "")
    .toString()
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const first = topLevelItems(casesText.slice(1, -1))[0];
  if (first === undefined || names.length === 0) return;
  const wrapped = /^pytest\.param\((.*)\)$/.exec(first);
  const caseText =
    wrapped === null
      ? first
      : topLevelItems(wrapped[1]!)
          .filter((s) => !/^\w+\s*=/.test(s))
          .join(", ");
  const values = names.length === 1 && wrapped === null ? [caseText] : topLevelItems(caseText.replace(/^\((.*)\)$/, "$1"));
  names.forEach((name, i) => {
    const v = values[i] === undefined ? undefined : constantValue(values[i]!, into);
    if (v !== undefined) into.set(name, v);
  });
}

/**
 * Binds `params` from the first call `name(...)` whose arguments are all constants, in the scope
 * that defines the function (the rest of the enclosing function's body; the file for a module-level one).
 */
function firstCallArguments(
  logical: readonly LogicalLine[],
  name: string,
  defLine: number,
  params: readonly Parameter[],
  known: ReadonlyMap<string, ClosureValue>,
  into: Map<string, ClosureValue>,
  depth = 0,
): void {
  const call = new RegExp(`(?<![\\w.])${name}\\(`);
  const at = logical.findIndex((l) => l.first === defLine);
  const indent = logical[at]!.indent;
  let end = at + 1;
  while (indent > 0 && end < logical.length && logical[end]!.indent >= indent) end++;
  const scope = indent === 0 ? logical : logical.slice(at + 1, end);
  // Names the caller binds before the call: its constant assignments and the first item of a
  // `for a, b in [(...), ...]:` loop, forgotten at the next top-level statement.
  let caller = new Map(known);
  for (const l of scope) {
    if (l.first === defLine) continue;
    if (l.indent === 0) caller = new Map(known);
    // A call inside a sibling function (`def verify(n): f = sched(n)`) sees that function's
    // parameters as its own first call binds them.
    const sibling = indent > 0 && l.indent === indent && depth === 0 ? /^def\s+(\w+)\s*\(/.exec(l.text) : null;
    if (sibling !== null) {
      caller = new Map(known);
      const siblingParams = parameterList(bracketed(l.text, sibling[0].length - 1) ?? "");
      firstCallArguments(logical, sibling[1]!, l.first, siblingParams, known, caller, depth + 1);
      continue;
    } else if (!loopBinding(l.text, caller)) assignment(l.text, caller);
    const m = call.exec(l.text);
    if (m === null || /^def\s/.test(l.text)) continue;
    const args = topLevelItems(bracketed(l.text, m.index + name.length) ?? "");
    const values = new Map<string, ClosureValue>();
    let positional = 0;
    const allConstant = args.every((arg) => {
      const kw = /^(\w+)\s*=(?!=)\s*(.+)$/.exec(arg);
      const target = kw === null ? params[positional++]?.name : kw[1]!;
      const argText = (kw === null ? arg : kw[2]!).trim();
      // A name the caller bound is handed on as it is (a list or TIR value too).
      const v = caller.get(argText) ?? constantValue(argText, caller);
      if (target === undefined || v === undefined) return false;
      values.set(target, v);
      return true;
    });
    if (!allConstant) continue;
    for (const [k, v] of values) into.set(k, v);
    return;
  }
}

/**
 * `for a, b in [(x, y), ...]:` (or over a list assigned before, named in `lists`) binds the targets
 * to the first item; false when the line is no such loop.
 */
function loopBinding(text: string, into: Map<string, ClosureValue>, lists?: ReadonlyMap<string, string>): boolean {
  const m = /^for\s+([\w\s,()]+?)\s+in\s+([[(].*[\])]|\w+)\s*:$/.exec(text);
  if (m === null) return false;
  const iterable = lists?.get(m[2]!) ?? m[2]!;
  if (!/^[[(]/.test(iterable)) return false;
  const first = topLevelItems(iterable.slice(1, -1))[0];
  if (first !== undefined) assignment(`${m[1]!.replace(/[()]/g, "")} = ${first}`, into);
  return true;
}
