/**
 * Paths into an IR tree, e.g. `main.body.block("root").body[1].for(j).body`. Kept as a linked
 * list of segments so building one per visited node is cheap; only a reported difference renders it.
 */
export interface IRPath {
  readonly parent: IRPath | undefined;
  /** A field (`.body`), an index (`[1]`) or a node label (`.for(j)`, `.block("C")`). */
  readonly segment: string;
}

export function rootPath(label: string): IRPath {
  return { parent: undefined, segment: label };
}

export function childPath(parent: IRPath | undefined, segment: string): IRPath {
  return { parent, segment };
}

export function fieldPath(parent: IRPath | undefined, field: string): IRPath {
  return childPath(parent, `.${field}`);
}

export function indexPath(parent: IRPath | undefined, index: number | string): IRPath {
  return childPath(parent, typeof index === "number" ? `[${index}]` : `[${JSON.stringify(index)}]`);
}

export function renderPath(path: IRPath | undefined): string {
  const segments: string[] = [];
  for (let p = path; p !== undefined; p = p.parent) segments.push(p.segment);
  const text = segments.reverse().join("");
  return text.startsWith(".") ? text.slice(1) : text;
}
