/** The primitives the code applied, one button each, and the TVMScript after the chosen one with its change highlighted. */
import { lineDiff } from "../diff/line-diff.js";
import { el } from "../dom.js";
import type { Step } from "../protocol.js";

/** Fills `list` with a button per step and shows the diff of the chosen step in `script`; `onSelect` gets the step's line. */
export function renderSteps(list: HTMLElement, script: HTMLElement, steps: readonly Step[], onSelect: (line: number | undefined) => void): void {
  const buttons = steps.map((step, i) =>
    el("button", { type: "button", class: "step", "data-step": String(i) }, `${i}. ${step.primitive}${step.line === undefined ? "" : ` (line ${step.line})`}`),
  );
  const select = (i: number) => {
    buttons.forEach((b, j) => b.classList.toggle("selected", j === i));
    showScript(script, steps, i);
    onSelect(steps[i]?.line);
  };
  buttons.forEach((b, i) => b.addEventListener("click", () => select(i)));
  list.replaceChildren(...buttons);
  if (steps.length > 0) select(steps.length - 1);
  else script.replaceChildren();
}

function showScript(target: HTMLElement, steps: readonly Step[], i: number): void {
  const step = steps[i];
  if (step === undefined) return;
  const previous = steps[i - 1];
  const lines = previous === undefined ? step.script.split("\n").map((text) => ({ kind: "same" as const, text })) : lineDiff(previous.script, step.script);
  const rows = lines.map((l) => el("div", { class: `diff-${l.kind}` }, `${l.kind === "added" ? "+" : l.kind === "removed" ? "-" : " "} ${l.text}`));
  target.replaceChildren(el("pre", { class: "script" }, ...rows));
  // Scroll the script (not the page) to the first change.
  const change = target.querySelector<HTMLElement>(".diff-added, .diff-removed");
  target.scrollTop = change === null ? 0 : Math.max(0, change.offsetTop - 48);
}
