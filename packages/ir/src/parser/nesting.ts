/**
 * Limits on how deeply a TVMScript program may nest. The parser, the IR builders, the printer
 * and the compiler passes are recursive; without a limit, 600 nested parentheses, a sum of
 * 2,000 terms or 1,000 nested loops overflow the stack. Real programs stay far below these
 * limits (a few levels of loops, expressions a few dozen deep); deeper input is a syntax error
 * "nesting deeper than N" at the first node past the limit.
 */
import type { PyExpr, PyStmt } from "./ast.js";
import { type SourcePos, fail } from "./errors.js";

/** Statements nested in statements (`for`, `with`, `if`, `def`), the file's top level being 0. */
export const MAX_STATEMENT_NESTING = 100;
/** IR levels (loops — a T.grid of n extents is n —, blocks, allocations and lets wrapping what follows). */
export const MAX_IR_NESTING = 250;
/** Expressions nested in an expression: `((x))` is 3 deep, `a + b + c` is 3 deep (left-nested). */
export const MAX_EXPRESSION_DEPTH = 200;

type Node = PyStmt | PyExpr;

interface Pending {
  readonly value: unknown;
  /** How many statements enclose this one. */
  readonly statements: number;
  /** How many expressions enclose this one (0 for a statement's own expressions' roots). */
  readonly expressions: number;
  readonly isStatement: boolean;
}

/**
 * Checks the parsed module against the limits without recursion (it runs before anything
 * recursive sees the tree). Throws a ParseFailure at the first node too deep.
 */
export function checkNesting(module: readonly PyStmt[]): void {
  const stack: Pending[] = module.map((s) => ({ value: s, statements: 0, expressions: 0, isStatement: true }));
  while (stack.length > 0) {
    const { value, statements, expressions, isStatement } = stack.pop()!;
    if (Array.isArray(value)) {
      for (const v of value) stack.push({ value: v, statements, expressions, isStatement });
      continue;
    }
    if (typeof value !== "object" || value === null || isPosition(value)) continue;
    const node = value as Partial<Node> & Record<string, unknown>;
    const isNode = typeof node.kind === "string";
    if (isNode && isStatement && statements > MAX_STATEMENT_NESTING)
      fail(`nesting deeper than ${MAX_STATEMENT_NESTING} statements (for/with/if blocks)`, positionOf(node));
    if (isNode && !isStatement && expressions > MAX_EXPRESSION_DEPTH) fail(`expression nesting deeper than ${MAX_EXPRESSION_DEPTH} levels`, positionOf(node));
    for (const [key, child] of Object.entries(node)) {
      if (key === "pos" || key === "opPos") continue;
      if (isStatement && isNode && (key === "body" || key === "orelse")) {
        stack.push({ value: child, statements: statements + 1, expressions: 0, isStatement: true });
      } else if (isStatement && isNode) {
        stack.push({ value: child, statements, expressions: 1, isStatement: false });
      } else {
        // An expression's operands, or the fields of a keyword argument / parameter (same depth).
        stack.push({ value: child, statements, expressions: isNode ? expressions + 1 : expressions, isStatement: false });
      }
    }
  }
}

function isPosition(value: object): boolean {
  return "line" in value && "column" in value && !("kind" in value);
}

function positionOf(node: Partial<Node> & Record<string, unknown>): SourcePos {
  const pos = node.pos as SourcePos | undefined;
  return pos ?? { line: 1, column: 1 };
}
