/** The run's status line, the student's error and what the code printed. */
import { el } from "../dom.js";
import type { RunResult } from "../protocol.js";

export function renderStatus(target: HTMLElement, text: string, kind: "busy" | "done" | "failed"): void {
  target.replaceChildren(el("span", { class: `status ${kind}`, "data-testid": "status", "data-state": kind }, text));
}

export function renderError(target: HTMLElement, result: RunResult): void {
  const e = result.error;
  if (e === undefined) {
    target.replaceChildren();
    return;
  }
  const where = e.line === undefined ? "" : ` at line ${e.line}`;
  target.replaceChildren(
    el("p", { class: "error-title", "data-testid": "error-title", "data-line": String(e.line ?? "") }, `${e.name}${where}`),
    el("pre", { class: "error-message" }, e.message),
  );
}

export function renderPrinted(target: HTMLElement, result: RunResult): void {
  target.replaceChildren(...(result.printed.length === 0 ? [] : [el("pre", { class: "printed" }, result.printed.join("\n"))]));
}
