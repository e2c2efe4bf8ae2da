/** The workspace's dependency graph as a mermaid flowchart: solid arrows for dependencies, dotted for dev-only ones. */
import type { WorkspacePackage } from "./workspace.js";

export function mermaidGraph(packages: readonly WorkspacePackage[]): string {
  const id = (name: string) => name.replace(/^@tessera\//, "").replace(/[^A-Za-z0-9]/g, "_");
  const lines = ["flowchart BT"];
  for (const p of packages) lines.push(`  ${id(p.name)}["${p.name}"]`);
  for (const p of packages) {
    for (const d of p.dependsOn) lines.push(`  ${id(p.name)} --> ${id(d)}`);
    for (const d of p.devDependsOn) lines.push(`  ${id(p.name)} -.-> ${id(d)}`);
  }
  return lines.join("\n");
}
