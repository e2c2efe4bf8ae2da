/** The simulator's verdict: numbers against the unscheduled function, races, out-of-bounds accesses. */
import { el } from "../dom.js";
import type { Outcome, Verdict } from "../protocol.js";

export function verdictHeadline(v: Verdict): string {
  if (v.fault !== undefined) return "FAULT";
  if (v.raceCount > 0) return `RACE: ${v.raceCount} racing accesses`;
  if (v.mismatchCount > 0) return `WRONG: ${v.mismatchCount} elements differ from the unscheduled function`;
  return "OK: matches the unscheduled function, no race";
}

/** `raceLines` names, per racing buffer, the line of the primitive that created it. */
export function renderVerdict(target: HTMLElement, verdict: Outcome<Verdict>, raceLines: ReadonlyMap<string, number>): void {
  if (!verdict.ok) {
    target.replaceChildren(el("p", { class: "unavailable" }, verdict.reason));
    return;
  }
  const v = verdict.value;
  const good = v.passed && v.fault === undefined;
  const origins = v.raceBuffers.map((b) => {
    const line = raceLines.get(b);
    return el("li", {}, line === undefined ? `${b}` : `${b} was created at line ${line}`);
  });
  target.replaceChildren(
    el("p", { class: good ? "verdict good" : "verdict bad", "data-testid": "verdict-headline" }, verdictHeadline(v)),
    ...(v.fault === undefined ? [] : [el("pre", { class: "fault" }, v.fault)]),
    ...(origins.length === 0 ? [] : [el("ul", { class: "race-origins" }, ...origins)]),
    ...(v.races.length === 0 ? [] : [el("pre", { class: "races" }, v.races.slice(0, 5).join("\n"))]),
  );
}
