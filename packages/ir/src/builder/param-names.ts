/**
 * Reads the parameter names of a JS callback, the way TVM's `te.compute` reads a Python
 * lambda's argument names: `(i, j) => …` names its axes `i` and `j`. Anything fancier than
 * plain identifiers (destructuring, defaults) yields `undefined` so callers fall back to
 * generated names.
 */

export interface ParameterList {
  /** Names of the plain parameters, or `undefined` when they cannot be read. */
  readonly names: readonly string[] | undefined;
  /** Whether the last parameter is a rest parameter (`...idx`). */
  readonly rest: boolean;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// A function's source text never changes, so parse each callback once.
const cache = new WeakMap<(...args: never[]) => unknown, ParameterList>();

export function parameterList(fn: (...args: never[]) => unknown): ParameterList {
  let list = cache.get(fn);
  if (list === undefined) {
    list = parse(fn.toString());
    cache.set(fn, list);
  }
  return list;
}

function parse(source: string): ParameterList {
  const text = source.trimStart();
  let inner: string;
  const arrowSingle = /^(?:async\s+)?([A-Za-z_$][\w$]*)\s*=>/.exec(text);
  if (arrowSingle) {
    inner = arrowSingle[1]!;
  } else {
    const open = text.indexOf("(");
    const close = text.indexOf(")", open + 1);
    if (open < 0 || close < 0) return { names: undefined, rest: false };
    inner = text.slice(open + 1, close);
  }
  const parts = inner
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const names: string[] = [];
  let rest = false;
  for (const [i, part] of parts.entries()) {
    if (part.startsWith("...") && i === parts.length - 1) {
      rest = true;
      const name = part.slice(3).trim();
      if (!IDENTIFIER.test(name)) return { names: undefined, rest };
      continue;
    }
    if (!IDENTIFIER.test(part)) return { names: undefined, rest: false };
    names.push(part);
  }
  return { names, rest };
}
