/**
 * Which isolated-vm the sandbox loads (src/sandbox/isolated-vm.ts): the alias for this Node is
 * installed and its addon exists; another Node's alias, an unsupported Node and a package without
 * an addon are clear errors; the GPU bundle's layout (out/isolated_vm.node under the alias) is found.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ISOLATED_VM_BY_NODE_MAJOR, findIsolatedVmAddon } from "../src/sandbox/isolated-vm.js";

const scratch = mkdtempSync(join(tmpdir(), "tessera-isolated-vm-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A folder whose node_modules holds `name` with this package.json, out/isolated_vm.node if `built`,
 * and a node-gyp-build whose path() runs `pathBody` if given; returns a module path in that folder.
 */
function fakeInstall(name: string, manifest: object, built: boolean, pathBody?: string): string {
  const root = mkdtempSync(join(scratch, "install-"));
  const dir = join(root, "node_modules", name);
  mkdirSync(join(dir, "out"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
  if (built) writeFileSync(join(dir, "out", "isolated_vm.node"), "");
  if (pathBody !== undefined) {
    const loader = join(root, "node_modules", "node-gyp-build");
    mkdirSync(loader, { recursive: true });
    writeFileSync(join(loader, "package.json"), JSON.stringify({ name: "node-gyp-build", version: "4.8.4", main: "index.js" }));
    writeFileSync(join(loader, "index.js"), `module.exports = { path(dir) { ${pathBody} } };\n`);
  }
  return join(root, "grader.mjs");
}

const SIX = { name: "isolated-vm", version: "6.2.0", dependencies: { "node-gyp-build": "^4.8.4" } };

describe("isolated-vm per Node", () => {
  it("finds the installed alias for this Node and its addon", () => {
    const major = Number(process.versions.node.split(".")[0]);
    const found = findIsolatedVmAddon();
    expect(found.packageName).toBe(ISOLATED_VM_BY_NODE_MAJOR[major]);
    expect(found.version).toMatch(found.packageName === "isolated-vm-5" ? /^5\./ : /^6\./);
    expect(found.addon).toMatch(/\.node$/);
    expect(existsSync(found.addon)).toBe(true);
  });

  it("says the dependencies were installed with another Node when this Node's alias is missing", () => {
    const major = Number(process.versions.node.split(".")[0]);
    const other = major === 20 ? "24.0.0" : "20.19.0";
    expect(() => findIsolatedVmAddon(import.meta.url, other)).toThrow(
      /isolated-vm-[56] \(isolated-vm for Node (20|24)\) is not installed: the dependencies were installed with another Node/,
    );
  });

  it("refuses a Node it has no version for", () => {
    expect(() => findIsolatedVmAddon(import.meta.url, "26.1.0")).toThrow(
      "the grading sandbox (isolated-vm) has no version for Node 26.1.0: the grader runs on Node 20, 22, 24",
    );
    expect(() => findIsolatedVmAddon(import.meta.url, "21.7.3")).toThrow(/has no version for Node 21\.7\.3/);
  });

  it("finds the addon where the GPU bundle puts it, whatever the version", () => {
    const from = fakeInstall("isolated-vm-6", SIX, true, 'throw new Error("not asked");');
    const found = findIsolatedVmAddon(from, "24.22.3");
    expect(found).toMatchObject({ packageName: "isolated-vm-6", version: "6.2.0" });
    expect(found.addon.endsWith(join("node_modules", "isolated-vm-6", "out", "isolated_vm.node"))).toBe(true);
  });

  it("names the package and what to do when it has no addon for this Node", () => {
    const unbuilt = fakeInstall("isolated-vm-5", { name: "isolated-vm", version: "5.0.4" }, false);
    expect(() => findIsolatedVmAddon(unbuilt, "20.20.2")).toThrow(
      /isolated-vm 5\.0\.4 \(isolated-vm-5, .*\) has no native addon for Node 20\.20\.2: .*out\/isolated_vm\.node does not exist; install the dependencies again with this Node/,
    );
    // 6.x finds its addon through node-gyp-build, whose first line of error is passed on.
    const noPrebuild = fakeInstall("isolated-vm-6", SIX, false, 'throw new Error("No native build was found for abi=1\\n    loaded from: " + dir);');
    expect(() => findIsolatedVmAddon(noPrebuild, "22.23.5")).toThrow(
      /^isolated-vm 6\.2\.0 \(isolated-vm-6, .*\) has no native addon for Node 22\.23\.5: No native build was found for abi=1; install the dependencies again with this Node/,
    );
  });

  it("asks node-gyp-build for 6.x's addon (a prebuilt one, or build/Release)", () => {
    const from = fakeInstall("isolated-vm-6", SIX, false, 'return require("node:path").join(dir, "prebuilds", "linux-x64", "isolated-vm.abi137.glibc.node");');
    const found = findIsolatedVmAddon(from, "24.22.3");
    expect(found.addon.endsWith(join("node_modules", "isolated-vm-6", "prebuilds", "linux-x64", "isolated-vm.abi137.glibc.node"))).toBe(true);
  });
});
