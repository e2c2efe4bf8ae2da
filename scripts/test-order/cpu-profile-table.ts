/**
 * Prints the functions of a V8 CPU profile (`.cpuprofile`) ranked by self time, with their
 * inclusive time (each function counted once per sample however deep it recurses).
 * Usage: `pnpm exec tsx scripts/test-order/cpu-profile-table.ts FILE [ROWS]`.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const [path, rowsArg] = process.argv.slice(2);
if (path === undefined) throw new Error("usage: cpu-profile-table.ts FILE.cpuprofile [ROWS]");
const profile = JSON.parse(readFileSync(path, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const label = (n: ProfileNode): string => {
  const url = n.callFrame.url.replace(/^.*\/(packages|apps|node_modules)\//, "$1/");
  return `${n.callFrame.functionName || "(anonymous)"} ${url}:${n.callFrame.lineNumber + 1}`;
};
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, k) => {
  const dt = profile.timeDeltas[k] ?? 0;
  total += dt;
  const leaf = byId.get(id);
  if (leaf === undefined) return;
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + dt);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = label(byId.get(at)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
  }
});
const pct = (us: number) => `${((100 * us) / total).toFixed(1)}%`;
console.log(`total ${(total / 1e6).toFixed(2)} s sampled`);
console.log("| self | inclusive | function |\n| ---: | ---: | --- |");
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(rowsArg ?? 30))) {
  console.log(`| ${pct(us)} | ${pct(inclusive.get(name) ?? 0)} | \`${name}\` |`);
}
