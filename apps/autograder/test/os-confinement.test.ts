/**
 * The OS layers around the sandbox host: probed once per process, off the main thread, and the
 * prefix puts exactly the layers it names before `node`.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { confinement, probeConfinement } from "../src/sandbox/os-confinement.js";

function works(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, [...args, "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("os confinement", () => {
  it("probes once: every call shares one answer", () => {
    expect(probeConfinement()).toBe(probeConfinement());
  });

  it("finds what this machine allows, as a direct try of each command does", async () => {
    const found = await probeConfinement();
    expect(found.prlimit).toBe(process.platform === "linux" && works("prlimit", ["--core=0"]));
    const expected = process.platform !== "linux" ? undefined : works("unshare", ["-n"]) ? ["-n"] : works("unshare", ["-r", "-n"]) ? ["-r", "-n"] : undefined;
    expect(found.unshare).toEqual(expected);
  });

  it("puts each layer it names before node, with the CPU limit from the run's time limit", async () => {
    const found = await probeConfinement();
    const { prefix, layers } = await confinement(30_000);
    expect(prefix.includes("prlimit")).toBe(found.prlimit);
    expect(prefix.includes("unshare")).toBe(found.unshare !== undefined);
    expect(layers.length).toBe(Number(found.prlimit) + Number(found.unshare !== undefined));
    if (found.prlimit) {
      expect(prefix).toContain("--cpu=70");
      expect(layers.join(" ")).toContain("CPU 70 s");
    }
  });
});
