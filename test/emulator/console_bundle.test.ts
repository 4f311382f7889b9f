/**
 * The console's script is written in src/emulator/browser/ and bundled into a generated
 * module that every build of the emulator (sources, dist/, tsx) inlines: it must match the sources.
 */
import { describe, expect, it } from "vitest";
import { bundleConsoleScript } from "../../scripts/console_bundle.js";
import { CONSOLE_SCRIPT } from "../../src/emulator/console/script.generated.js";

describe("the console's bundled script", () => {
  it("is up to date with its browser sources (else run npm run build:console)", async () => {
    expect(CONSOLE_SCRIPT).toBe(await bundleConsoleScript());
  });

  it("can sit inside a <script> element: no closing tag, no HTML comment opener", () => {
    expect(CONSOLE_SCRIPT).not.toMatch(/<\/script|<!--/i);
  });
});
