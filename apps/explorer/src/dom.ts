/** Builds DOM nodes; text always goes in as text (never as HTML), since much of it comes from the student's code. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Readonly<Record<string, string>> = {},
  ...children: readonly (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** A titled panel whose body a view fills. */
export function panel(title: string, testId: string): { root: HTMLElement; body: HTMLElement } {
  const body = el("div", { class: "panel-body" });
  const root = el("section", { class: "panel", "data-testid": testId }, el("h2", {}, title), body);
  return { root, body };
}
