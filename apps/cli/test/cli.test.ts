import { describe, expect, it } from "vitest";
import { commands, runCli } from "../src/index.js";
import { captureIO } from "./capture.js";

describe("tessera CLI dispatcher", () => {
  it("--help lists every command and exits 0", async () => {
    const io = captureIO();
    expect(await runCli(["--help"], io)).toBe(0);
    expect(io.err).toBe("");
    for (const name of ["print FILE", "equal A B", "run FILE [--seed N]"]) {
      expect(io.out).toContain(name);
    }
    expect(commands.map((c) => c.name)).toEqual(["print", "equal", "run", "apply", "simulate", "build", "tune", "worker"]);
  });

  it("no arguments prints help to stderr and exits 2", async () => {
    const io = captureIO();
    expect(await runCli([], io)).toBe(2);
    expect(io.err).toContain("Usage: tessera");
  });

  it("unknown command is a user error (exit 2)", async () => {
    const io = captureIO();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(io.err).toBe("tessera: unknown command 'frobnicate' (see 'tessera --help')\n");
  });

  it("wrong arity and bad flags are user errors (exit 2)", async () => {
    for (const argv of [["print"], ["equal", "a.py"], ["run", "f.py", "--seed", "x"], ["run", "f.py", "--bogus"]]) {
      const io = captureIO();
      expect(await runCli(argv, io)).toBe(2);
      expect(io.err).toMatch(/^tessera: /);
    }
  });
});
