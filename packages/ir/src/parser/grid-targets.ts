/**
 * The loop variables of `for ... in T.grid(...)` as Python unpacks them: one name per extent,
 * `*rest` taking what the other names leave, or a single name for all of them. A name that takes
 * several variables is bound to their tuple, which indexes a buffer (`A[iters]`) or splices (`*rest`).
 */
import type { PyExpr } from "./ast.js";
import { fail } from "./errors.js";
import type { ScopeStack } from "./scope.js";

/** A loop variable's name, and the group name (with its position) it belongs to, if any. */
export interface GridTarget {
  readonly name: string;
  readonly group?: string | undefined;
}

/** The loop variables of a T.grid with `count` extents, for the loop's target expression. */
export function gridTargets(target: PyExpr, count: number): GridTarget[] {
  if (target.kind === "Name") return count === 1 ? [{ name: target.id }] : grouped(target.id, count);
  if (target.kind !== "Tuple") fail("a loop variable must be a plain name", target.pos);
  const starred = target.elts.filter((e) => e.kind === "Starred");
  if (starred.length > 1) fail("only one loop variable may be starred", starred[1]!.pos);
  const rest = count - (target.elts.length - starred.length);
  if (rest < 0 || (starred.length === 0 && rest !== 0)) {
    const given = starred.length === 0 ? `${target.elts.length}` : `at least ${target.elts.length - 1}`;
    fail(`T.grid has ${count} extents but ${given} loop variables are given`, target.pos);
  }
  return target.elts.flatMap((e) => {
    if (e.kind === "Starred") return grouped(nameOf(e.value), rest);
    return [{ name: nameOf(e) }];
  });
}

function nameOf(e: PyExpr): string {
  if (e.kind !== "Name") fail("a loop variable must be a plain name", e.pos);
  return e.id;
}

function grouped(group: string, count: number): GridTarget[] {
  return Array.from({ length: count }, (_, i) => ({ name: `${group}_${i}`, group }));
}

/** The scope name of a grouped variable: not a Python name, so no user name can collide with it. */
export const memberKey = (t: GridTarget): string => `${t.group}#${t.name}`;

/** Binds each group name to the tuple of its members' scope names. */
export function defineGroups(scopes: ScopeStack, targets: readonly GridTarget[], pos: PyExpr["pos"]): void {
  const groups = new Map<string, string[]>();
  for (const t of targets) if (t.group !== undefined) groups.set(t.group, [...(groups.get(t.group) ?? []), memberKey(t)]);
  for (const [group, keys] of groups) {
    const node: PyExpr = { kind: "Tuple", elts: keys.map((id): PyExpr => ({ kind: "Name", id, pos })), pos };
    scopes.define(group, {
      kind: "expr",
      text: `(${targets
        .filter((t) => t.group === group)
        .map((t) => t.name)
        .join(", ")})`,
      node,
    });
  }
}
