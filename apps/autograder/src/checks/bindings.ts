/**
 * A bindings check: the loops of given roles are bound to given threads, and the task bound no
 * other loop. Every problem is one failure of this check, described together: a swap, a missing
 * binding, a wrong thread, an extra binding.
 */
import type { For } from "@tessera/ir";
import type { Check } from "../manifest/index.js";
import { requireBlock } from "./block-site.js";
import { roleLoops } from "./loop-roles.js";
import { type CheckContext, type CheckOutcome, fail, pass } from "./outcome.js";
import { type BlockSite, describeLoop, describeRoleLoop, site } from "./program-view.js";

type BindingsCheck = Extract<Check, { kind: "bindings" }>;
type Expected = BindingsCheck["loops"][number];

export function bindingsCheck(check: BindingsCheck, ctx: CheckContext): CheckOutcome {
  const s = requireBlock(ctx.view, check.block);
  if (typeof s === "string") return fail(s);
  // A role whose loop does not exist (the axis was not split that far) is the split check's mistake.
  const expected = check.loops.flatMap((e) => roleLoops(s, e).map((loop) => ({ e, loop })));
  const problems: string[] = [];
  const wrong = expected.filter(({ e, loop }) => loop.threadTag !== e.thread);
  const swapped = swappedPair(wrong);
  if (swapped !== undefined) problems.push(swapped);
  else {
    for (const { e, loop } of wrong) {
      problems.push(
        loop.threadTag === undefined
          ? `${describeRoleLoop(e.name, loop)} is not bound: bind it to ${e.thread}`
          : `${describeRoleLoop(e.name, loop)} should be bound to ${e.thread}, not ${loop.threadTag}`,
      );
    }
  }
  const extra = addedExtraBindings(
    s,
    expected.map((x) => x.loop),
    ctx,
    check,
  );
  if (extra.length > 0)
    problems.push(
      `${extra.map(describeLoop).join(", ")} ${extra.length === 1 ? "is" : "are"} bound too: this task binds only ${check.loops.map((e) => `${e.name} (${e.thread})`).join(" and ")}`,
    );
  return problems.length === 0 ? pass : fail(problems.join("; "));
}

/** Two loops bound to each other's thread: "blockIdx.x and blockIdx.y are swapped". */
function swappedPair(wrong: readonly { e: Expected; loop: For }[]): string | undefined {
  if (wrong.length !== 2) return undefined;
  const [a, b] = wrong as [{ e: Expected; loop: For }, { e: Expected; loop: For }];
  if (a.loop.threadTag !== b.e.thread || b.loop.threadTag !== a.e.thread) return undefined;
  return `${a.e.thread} and ${b.e.thread} are swapped: ${describeRoleLoop(a.e.name, a.loop)} should be bound to ${a.e.thread}, ${describeRoleLoop(b.e.name, b.loop)} to ${b.e.thread}`;
}

/**
 * Bound loops outside the expected ones that this task added: per thread tag, only as many as the
 * schedule before the task did not have already (an earlier task's extra binding is that task's mistake).
 */
function addedExtraBindings(s: BlockSite, expected: readonly For[], ctx: CheckContext, check: BindingsCheck): For[] {
  const extras = s.loops.filter((l) => l.threadTag !== undefined && !expected.includes(l));
  const beforeSite = ctx.before === undefined ? undefined : site(ctx.before, check.block);
  if (beforeSite === undefined) return extras;
  const beforeExpected = check.loops.flatMap((e) => roleLoops(beforeSite, e));
  const already = new Map<string, number>();
  for (const l of beforeSite.loops) {
    if (l.threadTag !== undefined && !beforeExpected.includes(l)) already.set(l.threadTag, (already.get(l.threadTag) ?? 0) + 1);
  }
  return extras.filter((l) => {
    const left = already.get(l.threadTag!) ?? 0;
    if (left === 0) return true;
    already.set(l.threadTag!, left - 1);
    return false;
  });
}
