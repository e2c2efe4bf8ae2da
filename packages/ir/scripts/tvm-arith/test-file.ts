/**
 * Runs the checks of one TVM arithmetic test file with our analyzer, statement by statement:
 * module-level imports and assignments, `class TestX(BaseCompare)` parameter lists of `TestCase`s
 * (spread ones too, from a helper generator of the class: every yielded `TestCase` is a case; an
 * expected `RuntimeError` passes when the analyzer refuses the input), and `def test_*()` bodies
 * (assignments, calls, `with` scopes, `assert`s and `ck.verify`s). Each check is one case:
 * passed, failed, or untranslatable (a construct with no counterpart here, or a statement before
 * it that could not run).
 */
import { pythonFunction } from "./python-function.js";
import { type PyNode, parsePython } from "./python-syntax.js";
import { type PyValue, Untranslatable, evaluate, fn, namespace, pyExpr, toPrim, truthy, tvmOp } from "./python-values.js";
import { CheckFailed, PythonError, analyzerValue, isExceptionClass, moduleScope, raisesRuntimeError, show, structurallyEqual } from "./tvm-api.js";
import { Analyzer } from "../../src/arith/index.js";
import { type PrimExpr, intImm } from "../../src/expr.js";

export type Outcome = "pass" | "fail" | "untranslatable";

export interface CaseResult {
  readonly family: string;
  readonly line: number;
  readonly outcome: Outcome;
  readonly detail: string;
  /** The case's test is marked `@pytest.mark.xfail` in TVM: TVM itself is expected to fail it. */
  readonly xfail: boolean;
}

const isXfail = (decorator: string): boolean => decorator.startsWith("@pytest.mark.xfail");

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly line: number;
}

/** Joins bracketed continuations into logical lines; drops blank lines, comments, docstrings. */
export function logicalLines(src: string): Line[] {
  const raw = src.split("\n");
  const out: Line[] = [];
  let i = 0;
  while (i < raw.length) {
    const first = raw[i]!;
    const start = i;
    let text = first;
    let depth = bracketDepth(first);
    let triple = (first.match(/"""|'''/g) ?? []).length % 2 === 1;
    while ((depth > 0 || triple || text.trimEnd().endsWith("\\")) && i + 1 < raw.length) {
      i++;
      text += `\n${raw[i]!}`;
      depth += bracketDepth(raw[i]!);
      if ((raw[i]!.match(/"""|'''/g) ?? []).length % 2 === 1) triple = !triple;
    }
    i++;
    const trimmed = text.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    if (/^[rbu]?("""|''')/.test(trimmed)) continue;
    out.push({ indent: first.length - first.trimStart().length, text: trimmed, line: start + 1 });
  }
  return out;
}

/**
 * Walks the characters of Python source outside string literals and comments, with the bracket
 * depth before each; stops early when `visit` returns true. Returns the final depth.
 */
function scanCode(text: string, visit: (c: string, i: number, depth: number) => boolean | undefined): number {
  let d = 0;
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === "#") break;
    if (c === '"' || c === "'") quote = c;
    else if (visit(c, i, d) === true) break;
    if ("([{".includes(c)) d++;
    else if (")]}".includes(c)) d--;
  }
  return d;
}

function bracketDepth(line: string): number {
  return scanCode(line, () => undefined);
}

/** The index of the assignment `=` at bracket depth 0, or -1. */
function assignmentSplit(text: string): number {
  let at = -1;
  scanCode(text, (c, i, depth) => {
    if (c !== "=" || depth !== 0 || "=<>!+-*/%&|^:".includes(text[i - 1] ?? "") || text[i + 1] === "=") return undefined;
    at = i;
    return true;
  });
  return at;
}

const CHECK = /^assert\b|\.verify\(|assert_structural_equal\(/;

function isCheck(text: string): boolean {
  return CHECK.test(text);
}

type Scope = Map<string, PyValue>;

function lookup(scopes: readonly Scope[]): (name: string) => PyValue | undefined {
  return (name) => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const v = scopes[i]!.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  };
}

function assignTargets(lhs: string, value: PyValue, scope: Scope): void {
  const names = lhs
    .replace(/^\(|\)$/g, "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (!names.every((n) => /^[A-Za-z_][A-Za-z_0-9]*$/.test(n))) throw new Untranslatable(`assignment to ${lhs}`);
  if (names.length === 1 && !lhs.includes(",")) {
    scope.set(names[0]!, value);
    return;
  }
  if (value.t !== "tuple" || value.items.length !== names.length) throw new Untranslatable(`unpacking into ${lhs}`);
  names.forEach((n, i) => scope.set(n, value.items[i]!));
}

function message(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
}

/** The kind of test file, which says what its `TestCase` arguments mean. */
export type FileKind = "rewrite" | "bound" | "other";

export class TestFileRunner {
  readonly results: CaseResult[] = [];
  private readonly module: Scope = moduleScope();
  private readonly lines: Line[];
  /** While a loop runs: its checks' outcomes by line, recorded once when the outermost loop ends. */
  private loopResults: Map<number, CaseResult> | undefined;

  constructor(
    src: string,
    private readonly kind: FileKind,
  ) {
    this.lines = logicalLines(src);
    this.module.set(
      "TestCase",
      fn("TestCase", (args, kw) => namespace("TestCase", Object.fromEntries([...args.map((a, i) => [String(i), a] as const), ...kw]))),
    );
  }

  run(): CaseResult[] {
    let i = 0;
    while (i < this.lines.length) {
      const l = this.lines[i]!;
      const end = this.blockEnd(i);
      if (l.text.startsWith("class ")) this.runClass(i, end);
      else if (l.text.startsWith("def ") || l.text.startsWith("@")) this.runDecorated(i, end);
      else this.moduleStatement(l);
      i = end;
    }
    return this.results;
  }

  /** The index after the block opened at i (its lines indented deeper; decorators join the def). */
  private blockEnd(i: number): number {
    const base = this.lines[i]!.indent;
    let j = i + 1;
    if (this.lines[i]!.text.startsWith("@")) {
      while (j < this.lines.length && this.lines[j]!.text.startsWith("@")) j++;
      j++;
    }
    while (j < this.lines.length && this.lines[j]!.indent > base) j++;
    return j;
  }

  private moduleStatement(l: Line): void {
    const m = /^from\s+([\w.]+)\s+import\s+(.+)$/.exec(l.text);
    try {
      if (m !== null) {
        for (const part of m[2]!.replace(/[()]/g, "").split(",")) {
          const [name, alias] = part.trim().split(/\s+as\s+/);
          const path = `${m[1]}.${name}`.replace(/^tvm\.script\.tirx$/, "tirx");
          const value = path === "tvm.script.tirx" ? this.module.get("T") : this.evalText(path, [this.module]);
          this.module.set((alias ?? name)!.trim(), value!);
        }
        return;
      }
      if (l.text.startsWith("import ") || l.text.startsWith("if __name__")) return;
      const eq = assignmentSplit(l.text);
      if (eq > 0) assignTargets(l.text.slice(0, eq).trim(), this.evalText(l.text.slice(eq + 1), [this.module]), this.module);
    } catch {
      // A module-level name that cannot be built stays unbound: the checks using it are untranslatable.
    }
  }

  private evalText(text: string, scopes: readonly Scope[]): PyValue {
    return evaluate(parseOrThrow(text), lookup(scopes));
  }

  private record(family: string, line: number, outcome: Outcome, detail: string): void {
    const result: CaseResult = { family, line, outcome, detail, xfail: false };
    if (this.loopResults === undefined) {
      this.results.push(result);
      return;
    }
    // Inside a loop: one case per line, its first failure kept.
    const seen = this.loopResults.get(line);
    if (seen === undefined || (seen.outcome === "pass" && outcome !== "pass")) this.loopResults.set(line, result);
  }

  /**
   * A function or class with its decorators. One marked xfail in TVM is run as any other, and its
   * cases are tagged: they are counted apart, since TVM's own expectation for them is failure.
   */
  private runDecorated(start: number, end: number): void {
    let defIndex = start;
    while (this.lines[defIndex]!.text.startsWith("@")) defIndex++;
    const xfail = this.lines.slice(start, defIndex).some((l) => isXfail(l.text));
    const before = this.results.length;
    if (this.lines[defIndex]!.text.startsWith("class ")) this.runClass(defIndex, end);
    else this.runFunction(start, end);
    if (xfail) for (let k = before; k < this.results.length; k++) this.results[k] = { ...this.results[k]!, xfail: true };
  }

  private runClass(start: number, end: number): void {
    const header = this.lines[start]!;
    const family = /^class\s+(\w+)/.exec(header.text)![1]!;
    if (!/\((BaseCompare|\w*Compare\w*)\)/.test(header.text)) return;
    const scope: Scope = new Map();
    for (let i = start + 1; i < end; i++) {
      const l = this.lines[i]!;
      if (l.indent !== this.lines[start + 1]!.indent) continue;
      if (l.text.startsWith("def ") || l.text.startsWith("@")) {
        const fEnd = this.blockEnd(i);
        // A test method of the class's own: its checks are not read here.
        if (/def test_/.test(l.text)) this.countUntranslatable(family, i + 1, fEnd, "own test method");
        else this.defineHelper(l.text, i + 1, fEnd, scope, [this.module, scope]);
        i = fEnd - 1;
        continue;
      }
      const eq = assignmentSplit(l.text);
      if (eq < 0) continue;
      const lhs = l.text.slice(0, eq).trim();
      const rhs = l.text.slice(eq + 1).trim();
      if (lhs === "test_case") this.runParameterList(family, l, rhs, [this.module, scope]);
      else {
        try {
          assignTargets(lhs, this.evalText(rhs, [this.module, scope]), scope);
        } catch {
          // Left unbound; cases that use it are untranslatable.
        }
      }
    }
  }

  /** A helper function of a test class (`def _generate_tests():`), bound in `scope`. */
  private defineHelper(header: string, from: number, to: number, scope: Scope, scopes: readonly Scope[]): void {
    const m = /^def\s+(\w+)\((.*)\)\s*(->.*)?:$/s.exec(header);
    if (m === null) return;
    const params = m[2]!
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "");
    if (!params.every((p) => /^\w+$/.test(p))) return;
    scope.set(m[1]!, pythonFunction(m[1]!, params, this.lines.slice(from, to), lookup(scopes)));
  }

  private runParameterList(family: string, l: Line, rhs: string, scopes: readonly Scope[]): void {
    let node: PyNode;
    try {
      node = parsePython(rhs);
    } catch (err) {
      const n = (rhs.match(/TestCase\(/g) ?? []).length;
      for (let k = 0; k < n; k++) this.record(family, l.line, "untranslatable", `syntax: ${message(err)}`);
      return;
    }
    if (node.t !== "call") return;
    for (const a of node.args) {
      const line = l.line;
      let cases: readonly PyValue[];
      try {
        // `*_generate_tests()`: every value the helper yields is a case.
        cases = a.value.t === "star" ? spreadCases(evaluate(a.value.a, lookup(scopes))) : [evaluate(a.value, lookup(scopes))];
      } catch (err) {
        this.record(family, line, "untranslatable", message(err));
        continue;
      }
      for (const tc of cases) {
        try {
          this.runTestCase(family, line, tc);
        } catch (err) {
          this.record(family, line, outcomeOf(err), message(err));
        }
      }
    }
  }

  private runTestCase(family: string, line: number, tc: PyValue): void {
    if (tc.t !== "obj" || tc.name !== "TestCase") throw new Untranslatable("parameter that is not a TestCase");
    const get = (i: number, name: string): PyValue | undefined => tc.attr(String(i)) ?? tc.attr(name);
    const an = new Analyzer();
    if (this.kind === "rewrite") {
      const before = get(0, "before")!;
      const expected = get(1, "expected")!;
      const raises = isExceptionClass(expected);
      if (!raises && (expected.t === "obj" || expected.t === "fn")) throw new Untranslatable("expected exception");
      const pre = get(2, "preconditions");
      const exit = pre === undefined || pre.t === "none" ? () => undefined : an.enterConstraint(preconditionOf(pre));
      try {
        const input = toPrim(before, before.t === "int" ? "int32" : undefined);
        if (raises) {
          expectRuntimeError(() => an.rewriteSimplify(input));
          this.record(family, line, "pass", "");
          return;
        }
        const after = an.rewriteSimplify(input);
        if (!structurallyEqual(pyExpr(after), expected))
          throw new CheckFailed(`got ${show(after)}, expected ${show(toPrim(expected, expected.t === "int" ? "int32" : undefined))}`);
      } finally {
        exit();
      }
      this.record(family, line, "pass", "");
      return;
    }
    if (this.kind === "bound") {
      const e = toPrim(get(0, "expr")!);
      const expected = get(1, "expected_bounds")!;
      const known = get(2, "known_bounds");
      const constraint = get(3, "constraint");
      const analyzer = analyzerValue(an);
      if (known !== undefined && known.t === "dict") {
        for (const [k, v] of known.entries) {
          if (v.t !== "tuple") throw new Untranslatable("known bound");
          const update = (analyzer as PyValue & { t: "obj" }).attr("update")!;
          const cib = (this.module.get("tvm") as PyValue & { t: "obj" }).attr("arith") as PyValue & { t: "obj" };
          const bound = (cib.attr("ConstIntBound") as PyValue & { t: "obj" }).call!(v.items, new Map());
          (update as PyValue & { t: "fn" }).call([k, bound], new Map());
        }
      }
      const exit = constraint === undefined || constraint.t === "none" ? () => undefined : an.enterConstraint(toPrim(constraint));
      let got: PyValue;
      try {
        got = ((analyzer as PyValue & { t: "obj" }).attr("const_int_bound") as PyValue & { t: "fn" }).call([pyExpr(e)], new Map());
      } finally {
        exit();
      }
      if (expected.t !== "tuple" || expected.items.length !== 2) throw new Untranslatable("expected bounds");
      const [lo, hi] = expected.items as [PyValue, PyValue];
      const gotLo = (got as PyValue & { t: "obj" }).attr("min_value")!;
      const gotHi = (got as PyValue & { t: "obj" }).attr("max_value")!;
      const same = (a: PyValue, b: PyValue): boolean => b.t === "none" || (a.t === "int" && b.t === "int" && a.v === b.v);
      if (!same(gotLo, lo) || !same(gotHi, hi)) throw new CheckFailed(`${show(e)}: got [${fmt(gotLo)}, ${fmt(gotHi)}], expected [${fmt(lo)}, ${fmt(hi)}]`);
      this.record(family, line, "pass", "");
      return;
    }
    throw new Untranslatable("TestCase in a file without a case kind");
  }

  private countUntranslatable(family: string, from: number, to: number, why: string): void {
    for (let i = from; i < to; i++) if (isCheck(this.lines[i]!.text)) this.record(family, this.lines[i]!.line, "untranslatable", why);
  }

  private runFunction(start: number, end: number): void {
    let defIndex = start;
    while (this.lines[defIndex]!.text.startsWith("@")) defIndex++;
    const def = this.lines[defIndex]!;
    const m = /^def\s+(\w+)\((.*)\)\s*(->.*)?:$/s.exec(def.text);
    if (m === null || !m[1]!.startsWith("test")) return;
    const family = m[1]!;
    const decorators = this.lines.slice(start, defIndex).map((l) => l.text);
    if (decorators.some((d) => !d.startsWith("@tvm.testing.requires") && d !== "@pytest.mark.skip" && !isXfail(d))) {
      this.countUntranslatable(family, defIndex + 1, end, `decorated: ${decorators[0]}`);
      return;
    }
    const params = m[2]!
      .split(",")
      .map((p) => p.trim())
      .filter((p) => p !== "");
    // Parameters are pytest fixtures of module-level `tvm.testing.parameter(...)` lists.
    let bindings: Map<string, PyValue>[] = [new Map()];
    for (const p of params) {
      const values = this.module.get(p);
      if (values === undefined || values.t !== "tuple") {
        this.countUntranslatable(family, defIndex + 1, end, `fixture ${p}`);
        return;
      }
      bindings = bindings.flatMap((b) => values.items.map((v) => new Map([...b, [p, v]])));
    }
    for (const b of bindings) this.runBody(family, defIndex + 1, end, b);
  }

  private runBody(family: string, from: number, to: number, params: Map<string, PyValue>): void {
    const scope: Scope = new Map(params);
    const scopes = [this.module, scope];
    const exits: { indent: number; exit: () => void }[] = [];
    try {
      this.runLines(family, from, to, scopes, exits);
    } finally {
      while (exits.length > 0) exits.pop()!.exit();
    }
  }

  /** Runs lines [from, to); false when a statement could not run (the checks after it are untranslatable). */
  private runLines(family: string, from: number, to: number, scopes: Scope[], exits: { indent: number; exit: () => void }[]): boolean {
    for (let i = from; i < to; i++) {
      const l = this.lines[i]!;
      while (exits.length > 0 && l.indent <= exits[exits.length - 1]!.indent) exits.pop()!.exit();
      if (isCheck(l.text)) {
        this.runCheck(family, l, scopes);
        continue;
      }
      const loop = /^for\s+(.+?)\s+in\s+(.+):$/s.exec(l.text);
      if (loop !== null) {
        const end = this.blockEnd(i);
        if (!this.runLoop(family, loop[1]!, loop[2]!, i + 1, end, scopes)) {
          this.countUntranslatable(family, end, to, "setup: a loop before the check");
          return false;
        }
        i = end - 1;
        continue;
      }
      try {
        this.statement(l, scopes, exits);
      } catch (err) {
        this.countUntranslatable(family, i + 1, to, `setup: ${message(err)}`);
        return false;
      }
    }
    return true;
  }

  /**
   * `for target in iterable:` over a tuple, list, `range` or `zip`. Each check in the loop's body is
   * one case: it passes when it passes in every iteration (the first failure is reported).
   */
  private runLoop(family: string, target: string, iterable: string, from: number, to: number, scopes: Scope[]): boolean {
    const outer = this.loopResults;
    const results = outer ?? new Map<number, CaseResult>();
    this.loopResults = results;
    let ok = true;
    try {
      const items = this.evalText(iterable, scopes);
      if (items.t !== "tuple") throw new Untranslatable(`for over ${items.t}`);
      const exits: { indent: number; exit: () => void }[] = [];
      for (const item of items.items) {
        assignTargets(target, item, scopes[scopes.length - 1]!);
        try {
          if (!this.runLines(family, from, to, scopes, exits)) ok = false;
        } finally {
          while (exits.length > 0) exits.pop()!.exit();
        }
        if (!ok) break;
      }
    } catch (err) {
      this.countUntranslatable(family, from, to, `setup: ${message(err)}`);
      ok = false;
    } finally {
      this.loopResults = outer;
    }
    if (outer === undefined) for (const r of [...results.values()].sort((a, b) => a.line - b.line)) this.results.push(r);
    return ok;
  }

  private statement(l: Line, scopes: Scope[], exits: { indent: number; exit: () => void }[]): void {
    const text = l.text;
    if (text === "pass") return;
    const w = /^with\s+(.+?)(?:\s+as\s+\w+)?:$/s.exec(text);
    if (w !== null) {
      const cm = this.evalText(w[1]!, scopes);
      const enter = cm.t === "obj" ? cm.attr("__enter__") : undefined;
      if (enter === undefined || enter.t !== "fn") throw new Untranslatable(`with ${w[1]}`);
      const exit = enter.call([], new Map());
      exits.push({ indent: l.indent, exit: () => exit.t === "fn" && exit.call([], new Map()) });
      return;
    }
    if (/^(for|if|elif|else|while|try|except|def|return|raise|class|lambda)\b/.test(text)) throw new Untranslatable(`statement ${text.split(/\s/)[0]}`);
    const eq = assignmentSplit(text);
    if (eq > 0) {
      assignTargets(text.slice(0, eq).trim(), this.evalText(text.slice(eq + 1), scopes), scopes[scopes.length - 1]!);
      return;
    }
    this.evalText(text, scopes);
  }

  private runCheck(family: string, l: Line, scopes: Scope[]): void {
    try {
      if (l.text.startsWith("assert")) {
        const body = l.text.replace(/^assert\s+/, "");
        const parsed = parsePython(body);
        // `assert cond, message`: the message is not evaluated.
        const cond = parsed.t === "tuple" ? parsed.items[0]! : parsed;
        const v = evaluate(cond, lookup(scopes));
        if (!truthy(v)) throw new CheckFailed(`assertion failed: ${body.slice(0, 120)}`);
      } else this.evalText(l.text, scopes);
      this.record(family, l.line, "pass", "");
    } catch (err) {
      const outcome = outcomeOf(err);
      this.record(family, l.line, outcome, message(err));
    }
  }
}

function parseOrThrow(text: string): PyNode {
  try {
    return parsePython(text);
  } catch (err) {
    throw new Untranslatable(`syntax: ${message(err)}`);
  }
}

/** TestCase preconditions: one condition or a list of them, all assumed. */
function preconditionOf(pre: PyValue): PrimExpr {
  if (pre.t === "tuple") return pre.items.map((x) => toPrim(x)).reduce((acc, x) => tvmOp("and", acc, x));
  if (pre.t === "int") return intImm(Number(pre.v), "bool");
  return toPrim(pre);
}

/**
 * A check that throws: untranslatable only when the translation gave up; a failed check, a Python
 * error the test did not expect, or the analyzer throwing on the input is a failure.
 */
function outcomeOf(err: unknown): Outcome {
  if (err instanceof CheckFailed || err instanceof PythonError) return "fail";
  return err instanceof Untranslatable ? "untranslatable" : "fail";
}

function spreadCases(v: PyValue): readonly PyValue[] {
  if (v.t !== "tuple") throw new Untranslatable(`* of ${v.t}`);
  return v.items;
}

/** pytest.raises(RuntimeError) around `f`. */
function expectRuntimeError(f: () => PrimExpr): void {
  let result: PrimExpr;
  try {
    result = f();
  } catch (err) {
    if (raisesRuntimeError(err)) return;
    throw err;
  }
  throw new CheckFailed(`expected RuntimeError, got ${show(result)}`);
}

function fmt(v: PyValue): string {
  return v.t === "int" ? String(v.v) : v.t === "none" ? "None" : v.t;
}
