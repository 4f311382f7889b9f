import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEmulator, loadEmulatorConfig } from "../../src/emulator/index.js";

describe("loadEmulatorConfig", () => {
  it("reads a JSON file with the shape of the options", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-config-"));
    const file = join(dir, "emulator.json");
    await writeFile(file, JSON.stringify({ credit: 0.5, port: 0, faults: { rate: 0 } }));
    const options = await loadEmulatorConfig(file);
    expect(options).toEqual({ credit: 0.5, port: 0, faults: { rate: 0 } });
    expect(createEmulator(options).state.credit).toBe(0.5);
  });

  it("names the file when it cannot be read or is not an object", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-config-"));
    const file = join(dir, "list.json");
    await writeFile(file, "[]");
    await expect(loadEmulatorConfig(file)).rejects.toThrow(
      `emulator config ${file} must hold a JSON object`,
    );
    await expect(loadEmulatorConfig(join(dir, "missing.json"))).rejects.toThrow(
      /cannot read emulator config .*missing\.json/,
    );
  });

  it("refuses a clock, which JSON cannot hold", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-config-"));
    const file = join(dir, "clock.json");
    await writeFile(file, JSON.stringify({ clock: 0 }));
    await expect(loadEmulatorConfig(file)).rejects.toThrow(
      `emulator config ${file}: clock cannot be set from JSON`,
    );
  });

  it("refuses dates and delays past the Date range in the file, naming the field", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-config-"));
    const cases: Array<[object, string]> = [
      [{ keys: [{ secret: "sk-far", expiresAt: 1e20 }] }, "keys[0].expiresAt must be a date"],
      [
        { endpoints: [{ tenantId: "t", jobAlias: "a", readyAfterMs: 1e20 }] },
        "endpoints[0].readyAfterMs must be at most 2147483647",
      ],
    ];
    for (const [config, message] of cases) {
      const file = join(dir, "far.json");
      await writeFile(file, JSON.stringify(config));
      const options = await loadEmulatorConfig(file);
      expect(() => createEmulator(options)).toThrow(message);
    }
  });
});
