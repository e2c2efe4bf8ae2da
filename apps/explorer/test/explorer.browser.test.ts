/**
 * The built explorer in headless Chromium: the course's manual schedule at 256³ step by step with
 * what each view shows (its WebGPU run on SwiftShader included), a racy schedule's diagnostic at the line that made the buffer, a
 * ScheduleError at the student's line, and a runaway schedule stopped by the time limit.
 * Screenshots go to apps/explorer/test-artifacts/ (git-ignored); TESSERA_EXPLORER_SCREENSHOT=PATH
 * also saves the manual schedule's page there (the README's picture).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumInstalled, launchChromium, CHROMIUM } from "./browser/chromium.js";
import { serveStatic } from "./browser/static-server.js";

const APP = join(import.meta.dirname, "..");
const ARTIFACTS = join(APP, "test-artifacts");
const SOLUTION = join(APP, "..", "..", "assignments", "gemm-relu-add", "solution", "gemm_relu_add.ts");
const STARTER = join(APP, "..", "..", "assignments", "gemm-relu-add", "gemm_relu_add.ts");
const available = chromiumInstalled();
if (!available) console.warn(`explorer browser tests skipped: no chromium at ${CHROMIUM} (apt-get install chromium)`);

let browser: BrowserContext;
let server: Awaited<ReturnType<typeof serveStatic>>;
let builtDir = "";

beforeAll(async () => {
  if (!available) return;
  const outDir = process.env.TESSERA_EXPLORER_DIST ?? mkdtempSync(join(tmpdir(), "tessera-explorer-"));
  builtDir = outDir;
  if (process.env.TESSERA_EXPLORER_DIST === undefined) await build({ root: APP, logLevel: "error", build: { outDir, emptyOutDir: true } });
  server = await serveStatic(outDir);
  browser = await launchChromium({ width: 1500, height: 1100 });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(query = ""): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${server.url}${query}`);
  return page;
}

async function runAndWait(page: Page): Promise<void> {
  await page.getByTestId("run").click();
  await page.locator('[data-testid="status"][data-state="done"], [data-testid="status"][data-state="failed"]').waitFor({ timeout: 45_000 });
}

/** The editor's text of a 1-based line. */
async function editorLine(page: Page, selector: string): Promise<string> {
  return (await page.locator(`.cm-content ${selector}`).first().textContent()) ?? "";
}

async function setCode(page: Page, code: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
}

describe.skipIf(!available)("the schedule explorer in Chromium", () => {
  it("the built page carries no line of the assignment's solution", () => {
    const built = readdirSync(builtDir, { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(js|html|css)$/.test(f))
      .map((f) => readFileSync(join(builtDir, f), "utf8"))
      .join("\n");
    // Lines of the solution that the starter does not have (the schedule calls students write).
    const starter = new Set(
      readFileSync(STARTER, "utf8")
        .split("\n")
        .map((l) => l.trim()),
    );
    const own = readFileSync(SOLUTION, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l.startsWith("sch.") && !starter.has(l));
    expect(own.length).toBeGreaterThan(10);
    for (const line of own) expect(built.includes(line), `the built page contains the solution line ${line}`).toBe(false);
  });

  it("applies the course's manual schedule at 256³ step by step", async () => {
    const page = await open();
    // The starter's workload, with the solution's text pasted in: the built page carries no solution.
    await page.getByTestId("example").selectOption("starter");
    await setCode(page, readFileSync(SOLUTION, "utf8"));
    await runAndWait(page);
    expect(await page.getByTestId("status").textContent()).toMatch(/^done in/);
    const steps = page.locator("button.step");
    const count = await steps.count();
    expect(count).toBeGreaterThan(25);
    expect(await steps.first().textContent()).toBe("0. initial");
    // Each primitive: its call is marked in the editor, and the TVMScript shows what it changed.
    for (let i = 1; i < count; i++) {
      await steps.nth(i).click();
      const primitive = /^\d+\. (\w+)/.exec((await steps.nth(i).textContent()) ?? "")?.[1] ?? "";
      expect(await editorLine(page, '[data-mark="step"]')).toContain(primitive);
      expect(await page.locator("[data-testid=script] .diff-added, [data-testid=script] .diff-removed").count()).toBeGreaterThan(0);
    }
    // The first split: the i loop becomes i_0 and i_1.
    await steps.nth(1).click();
    const added = await page.locator("[data-testid=script] .diff-added").allTextContents();
    expect(added.join("\n")).toMatch(/for (\w+)_0, \1_1\b/);
    await steps.nth(count - 1).click();

    const tree = (await page.getByTestId("loop-tree").textContent()) ?? "";
    for (const binding of ["blockIdx.x", "blockIdx.y", "threadIdx.x", "threadIdx.y"]) expect(tree).toContain(binding);
    expect(tree).toContain('block "gemm"');
    const caption = page.getByTestId("tiling-caption");
    expect(await caption.getAttribute("data-block-tile")).toBe("64×64");
    expect(await caption.getAttribute("data-thread-tile")).toBe("4×4");
    expect(await caption.textContent()).toContain("grid 4×4×1 blocks of 16×16×1 threads");
    expect(await page.getByTestId("verdict-headline").textContent()).toBe("OK: matches the unscheduled function, no race");
    expect(await page.locator("[data-testid=bank-conflicts] tr[data-slowdown]").count()).toBeGreaterThan(0);
    const cuda = (await page.getByTestId("cuda").textContent()) ?? "";
    expect(cuda).toContain("__global__");
    expect(cuda).toContain("__shared__");
    // Through WebGPU (SwiftShader here): checked against the unscheduled kernel and the JS executor, both timed.
    expect(await page.getByTestId("gpu-headline").getAttribute("data-state")).toBe("pass");
    expect(await page.getByTestId("gpu-error-executor").textContent()).toMatch(/^(0|\d\.\d\de-\d+)$/);
    for (const time of ["gpu-time-scheduled", "gpu-time-baseline"])
      expect(await page.getByTestId(time).textContent()).toMatch(/^\d+\.\d{3} ms \(median of 3\)$/);
    expect(await page.getByTestId("gpu-speedup").textContent()).toMatch(/^\d+\.\d\d×$/);
    expect(await page.getByTestId("gpu-clock").textContent()).toMatch(/^(GPU timestamp queries|CPU time around submit)/);
    expect(await page.getByTestId("wgsl").textContent()).toContain("var<workgroup>");
    // The picture: the shared-memory copy of A moved under the k loop.
    await steps.filter({ hasText: "computeAt" }).first().click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: join(ARTIFACTS, "manual-256.png") });
    const readme = process.env.TESSERA_EXPLORER_SCREENSHOT;
    if (readme !== undefined) await page.screenshot({ path: readme });
    await page.close();
  });

  it("gives a racy schedule's diagnostic at the line that made the racing buffer", async () => {
    const page = await open();
    await page.getByTestId("example").selectOption("racy");
    await runAndWait(page);
    expect(await page.getByTestId("verdict-headline").textContent()).toMatch(/^RACE: \d+ racing accesses$/);
    expect(await page.locator("[data-testid=verdict] pre.races").textContent()).toContain("write-write race on shared memory A_shared");
    const origin = (await page.locator(".race-origins li").first().textContent()) ?? "";
    const line = Number(/^A_shared was created at line (\d+)$/.exec(origin)?.[1]);
    expect(await editorLine(page, '[data-mark="race"]')).toContain('sch.cacheRead(add, 0, "shared")');
    expect(line).toBeGreaterThan(0);
    // The GPU's numbers may or may not show the race; the panel defers to the simulator.
    expect(["pass", "fail"]).toContain(await page.getByTestId("gpu-headline").getAttribute("data-state"));
    expect(await page.getByTestId("gpu-note").textContent()).toContain("the simulator's verdict is the authority");
    await page.screenshot({ path: join(ARTIFACTS, "racy.png") });
    await page.close();
  });

  it("shows a ScheduleError at the line of the student's code", async () => {
    const page = await open();
    await page.getByTestId("workload").selectOption("vector-add");
    await setCode(
      page,
      [
        'import type { LoopRV, Schedule } from "@tessera/schedule";',
        "export function schedule(sch: Schedule): void {",
        '  const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];',
        "  const [outer, inner] = sch.split(i, [null, 128]) as [LoopRV, LoopRV];",
        "  sch.reorder(inner, outer);",
        '  sch.fuse(inner, sch.getLoops(sch.getBlock("C"))[5]!);',
        "}",
      ].join("\n"),
    );
    await runAndWait(page);
    const title = page.getByTestId("error-title");
    expect(await title.getAttribute("data-line")).toBe("6");
    expect(await title.textContent()).toMatch(/Error at line 6$/);
    expect(await editorLine(page, '[data-mark="error"]')).toContain("sch.fuse(");
    // The steps before the error are there: the split and the reorder.
    expect(await page.locator("button.step").allTextContents()).toEqual(["0. initial", "1. split (line 4)", "2. reorder (line 5)"]);
    await page.screenshot({ path: join(ARTIFACTS, "schedule-error.png") });
    await page.close();
  });

  it("runs the code without the network or the GPU: fetch and navigator.gpu are gone from the worker", async () => {
    const page = await open();
    await page.getByTestId("workload").selectOption("vector-add");
    await setCode(page, 'export function schedule(): void {\n  console.log("gpu:", String(navigator.gpu));\n  void fetch("/index.html");\n}\n');
    await runAndWait(page);
    expect(await page.getByTestId("printed").textContent()).toContain("gpu: undefined");
    expect(await page.getByTestId("error-title").textContent()).toBe("TypeError at line 3");
    expect(await page.locator("[data-testid=error] pre").textContent()).toContain("fetch is not a function");
    await page.close();
  });

  it("says plainly that nothing ran on WebGPU in a browser without it, and still shows the WGSL", async () => {
    const page = await browser.newPage();
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "gpu", { value: undefined });
    });
    await page.goto(server.url);
    await page.getByTestId("example").selectOption("vector-add");
    await runAndWait(page);
    const headline = page.getByTestId("gpu-headline");
    expect(await headline.getAttribute("data-state")).toBe("unavailable");
    expect(await headline.textContent()).toMatch(/^WebGPU run unavailable: this browser has no WebGPU/);
    expect(await page.getByTestId("wgsl").textContent()).toContain("@compute");
    await page.close();
  });

  it("stops a schedule that runs past the time limit", async () => {
    const page = await open("?limit=1500");
    await setCode(page, "export function schedule(): void {\n  for (;;) {}\n}\n");
    await runAndWait(page);
    expect(await page.getByTestId("status").textContent()).toBe("stopped: the run took longer than 1.5 s");
    await page.close();
  });
});
