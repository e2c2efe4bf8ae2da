/**
 * Helper functions that TVM's test classes define and call, such as a generator of `TestCase`s
 * spread into `tvm.testing.parameter(*_generate_tests())`: their bodies run here, statement by
 * statement (assignments, `for` over a tuple or list, `if`/`elif`/`else`, `yield`, `return`).
 * A generator's yields come back as a tuple, which is all that spreading it needs.
 */
import { parsePython } from "./python-syntax.js";
import { NONE, type PyValue, Untranslatable, evaluate, fn, truthy } from "./python-values.js";

export interface SourceLine {
  readonly indent: number;
  readonly text: string;
  readonly line: number;
}

type Scope = Map<string, PyValue>;

class Return {
  constructor(readonly value: PyValue) {}
}

/** A Python function of `params` whose body is `body` (its lines, deeper than the `def`). */
export function pythonFunction(name: string, params: readonly string[], body: readonly SourceLine[], outer: (name: string) => PyValue | undefined): PyValue {
  const isGenerator = body.some((l) => /^yield\b/.test(l.text));
  return fn(name, (args) => {
    if (args.length !== params.length) throw new Untranslatable(`${name}() called with ${args.length} arguments`);
    const locals: Scope = new Map(params.map((p, i) => [p, args[i]!]));
    const yields: PyValue[] = [];
    const runner = new BodyRunner(locals, outer, yields);
    let result: PyValue = NONE;
    try {
      runner.block(body, 0, body.length);
    } catch (err) {
      if (!(err instanceof Return)) throw err;
      result = err.value;
    }
    return isGenerator ? { t: "tuple", items: yields } : result;
  });
}

class BodyRunner {
  constructor(
    private readonly locals: Scope,
    private readonly outer: (name: string) => PyValue | undefined,
    private readonly yields: PyValue[],
  ) {}

  private eval(text: string): PyValue {
    return evaluate(parsePython(text), (n) => this.locals.get(n) ?? this.outer(n));
  }

  /** The index after the block whose header is at i. */
  private end(lines: readonly SourceLine[], i: number, to: number): number {
    let j = i + 1;
    while (j < to && lines[j]!.indent > lines[i]!.indent) j++;
    return j;
  }

  block(lines: readonly SourceLine[], from: number, to: number): void {
    let i = from;
    while (i < to) {
      const l = lines[i]!;
      const end = this.end(lines, i, to);
      const forLoop = /^for\s+(\w+)\s+in\s+(.+):$/s.exec(l.text);
      if (forLoop !== null) {
        const items = this.eval(forLoop[2]!);
        if (items.t !== "tuple") throw new Untranslatable(`for over ${items.t}`);
        for (const item of items.items) {
          this.locals.set(forLoop[1]!, item);
          this.block(lines, i + 1, end);
        }
        i = end;
        continue;
      }
      if (/^if\s/.test(l.text)) {
        i = this.conditional(lines, i, to);
        continue;
      }
      this.simple(l.text);
      i = end;
    }
  }

  /** An `if` with its `elif`/`else` branches starting at i; returns the index after them all. */
  private conditional(lines: readonly SourceLine[], i: number, to: number): number {
    let taken = false;
    let j = i;
    while (j < to) {
      const l = lines[j]!;
      const end = this.end(lines, j, to);
      const branch = /^(if|elif)\s+(.+):$/s.exec(l.text);
      const isElse = l.text === "else:";
      if (j > i && branch?.[1] !== "elif" && !isElse) break;
      if (!taken && (isElse || truthy(this.eval(branch![2]!)))) {
        taken = true;
        this.block(lines, j + 1, end);
      }
      j = end;
      if (isElse) break;
    }
    return j;
  }

  private simple(text: string): void {
    if (text === "pass") return;
    const y = /^yield\s+(.+)$/s.exec(text);
    if (y !== null) {
      this.yields.push(this.eval(y[1]!));
      return;
    }
    const r = /^return(?:\s+(.+))?$/s.exec(text);
    if (r !== null) throw new Return(r[1] === undefined ? NONE : this.eval(r[1]));
    const a = /^([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$/s.exec(text);
    if (a !== null) {
      this.locals.set(a[1]!, this.eval(a[2]!));
      return;
    }
    throw new Untranslatable(`statement in a helper function: ${text.split(/\s/)[0]}`);
  }
}
