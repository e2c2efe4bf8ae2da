/** The loop nest as a tree: each loop with its extent and its thread binding or kind, each block by name. */
import { el } from "../dom.js";
import type { LoopTreeNode, Outcome } from "../protocol.js";

function item(node: LoopTreeNode): HTMLElement {
  const label =
    node.kind === "block"
      ? el("span", { class: "tree-block" }, `block "${node.name}"`)
      : el(
          "span",
          { class: node.binding === undefined ? "tree-loop" : "tree-loop bound" },
          `${node.name} ∈ [0, ${node.extent})`,
          el("span", { class: "tree-binding" }, node.binding ?? (node.forKind === "serial" ? "" : node.forKind)),
        );
  const children = node.children.length === 0 ? [] : [el("ul", {}, ...node.children.map(item))];
  return el("li", {}, label, ...children);
}

export function renderLoopTree(target: HTMLElement, tree: Outcome<LoopTreeNode>): void {
  target.replaceChildren(tree.ok ? el("ul", { class: "tree" }, item(tree.value)) : el("p", { class: "unavailable" }, tree.reason));
}
