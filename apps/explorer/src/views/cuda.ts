/** The CUDA C that @tessera/codegen generates for the scheduled function. */
import { el } from "../dom.js";
import type { Outcome } from "../protocol.js";

export function renderCuda(target: HTMLElement, cuda: Outcome<string>): void {
  target.replaceChildren(cuda.ok ? el("pre", { class: "code" }, cuda.value) : el("p", { class: "unavailable" }, cuda.reason));
}
