import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCassette } from "../../src/cassette/cassette.js";
import { runEmulatorCommand } from "../../src/cli/emulator.js";
import { main } from "../../src/cli/main.js";
import { runRecordCommand } from "../../src/cli/record.js";
import { createEmulator, type RunningEmulator, startEmulator } from "../../src/emulator/index.js";
import { startRecorder } from "../../src/testing/index.js";
import { capture } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "record-cli-"));
let upstream: RunningEmulator;

beforeAll(async () => {
  // A paced stream stays under way long enough to be cut.
  upstream = await startEmulator({ streamChunkDelayMs: 50 });
});
afterAll(() => upstream.close());

const chat = (content: string, stream = false) =>
  JSON.stringify({ model: "emulator-chat", stream, messages: [{ role: "user", content }] });

async function post(baseURL: string, body: string): Promise<Response> {
  return fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${upstream.apiKey}`, "content-type": "application/json" },
    body,
  });
}

/** The recorder as a user runs it, in a child process; resolves once it prints its base URL. */
async function spawnRecorder(
  cassette: string,
): Promise<{ child: ChildProcess; baseURL: string; exited: Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "src/cli/bin.ts",
      "record",
      "--upstream",
      upstream.baseURL,
      "--cassette",
      cassette,
      "--env",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => resolve(code)),
  );
  let out = "";
  const baseURL = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /INFERENCE_SERVICE_BASE_URL=(\S+)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`recorder exited with ${code}`)));
  });
  return { child, baseURL, exited };
}

/** Records one chat call ("hello", with a `user`) against `upstream` into `file`; returns the answer. */
async function runRecorderOnce(upstream: RunningEmulator, file: string): Promise<string> {
  const recorder = await startRecorder({ upstream: upstream.baseURL, cassette: file });
  const response = await fetch(`${recorder.baseURL}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${upstream.apiKey}` },
    body: JSON.stringify({ ...JSON.parse(chat("hello")), user: "me" }),
  });
  const text = await response.text();
  await recorder.close();
  return text;
}

/** Waits until the cassette on disk holds `count` entries (the writer runs after each exchange). */
async function entriesOnDisk(file: string, count: number): Promise<void> {
  while (readCassette(file).log.entries.length < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("inference-service record, as a process", () => {
  it("leaves a cassette of the finished exchanges when killed mid-recording, which replays them", async () => {
    const cassette = join(dir, "killed.har");
    const { child, baseURL, exited } = await spawnRecorder(cassette);
    const first = await (await post(baseURL, chat("first"))).text();
    const second = await (await post(baseURL, chat("second"))).text();
    await entriesOnDisk(cassette, 2);
    // A stream under way: its first event is through, the rest still coming.
    const open = await post(baseURL, chat("a long stream that will be cut", true));
    const reader = open.body!.getReader();
    await reader.read();
    child.kill("SIGKILL");
    await exited;
    await reader.read().catch(() => undefined);

    expect(readCassette(cassette).log.entries).toHaveLength(2);
    const replay = createEmulator({ replay: cassette });
    const again = async (content: string) =>
      (
        await replay.fetch(`${replay.baseURL}/chat/completions`, {
          method: "POST",
          body: chat(content),
        })
      ).text();
    expect(await again("first")).toBe(first);
    expect(await again("second")).toBe(second);
  });

  it("exits 0 on SIGTERM with every finished exchange in the cassette", async () => {
    const cassette = join(dir, "terminated.har");
    const { child, baseURL, exited } = await spawnRecorder(cassette);
    for (const content of ["one", "two", "three"])
      await (await post(baseURL, chat(content))).text();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(
      readCassette(cassette).log.entries.map(
        (entry) => JSON.parse(entry.request.postData!.text).messages[0].content,
      ),
    ).toEqual(["one", "two", "three"]);
  });
});

describe("inference-service record, its command line", () => {
  it("is listed by the dispatcher", async () => {
    const { out } = await capture(main, ["--help"]);
    expect(out).toMatch(/^ {2}record +record calls to the service into a cassette/m);
  });

  it.each([
    [[], "--cassette FILE is required"],
    [
      ["--cassette", "x.har", "--mode", "sometimes"],
      '--mode must be all, new or replay, got "sometimes"',
    ],
    [["--cassette", "x.har", "--env", "--json"], "give --env or --json, not both"],
    [
      ["--cassette", "x.har", "--upstream", "http://h", "--port", "70000"],
      "--port must be an integer from 0 to 65535",
    ],
  ])("refuses %j: %s", async (argv, message) => {
    const { code, err } = await capture(runRecordCommand, argv);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain("Run 'inference-service record --help'.");
  });

  it("needs an upstream to record (flag or INFERENCE_SERVICE_BASE_URL)", async () => {
    const previous = process.env.INFERENCE_SERVICE_BASE_URL;
    delete process.env.INFERENCE_SERVICE_BASE_URL;
    try {
      const { code, err } = await capture(runRecordCommand, ["--cassette", "x.har"]);
      expect(code).toBe(2);
      expect(err).toContain("--upstream URL is required (or set INFERENCE_SERVICE_BASE_URL)");
    } finally {
      if (previous !== undefined) process.env.INFERENCE_SERVICE_BASE_URL = previous;
    }
  });

  it("prints a banner with the base URL and its export line, and stops on abort with the count", async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runRecordCommand(
      ["--upstream", upstream.baseURL, "--cassette", join(dir, "banner.har")],
      {
        stdout: (text) => {
          lines.push(text);
          if (text.includes("Ctrl-C")) controller.abort();
        },
        stderr: (text) => lines.push(text),
        signal: controller.signal,
      },
    );
    expect(await running).toBe(0);
    const out = lines.join("");
    expect(out).toMatch(
      /^Recording proxy running: forwarding to http:\/\/127\.0\.0\.1:\d+\/inference\/v1, recording into .*banner\.har\./,
    );
    expect(out).toMatch(
      /^export INFERENCE_SERVICE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/inference\/v1$/m,
    );
    expect(out).toContain("banner.har holds 0 exchanges (0 recorded now).");
  });

  /** Runs the record command until `act` is done with its base URL; its exit code and output. */
  async function recordWhile(argv: string[], act: (baseURL: string) => Promise<void>) {
    const controller = new AbortController();
    const lines: string[] = [];
    const code = await runRecordCommand([...argv, "--json"], {
      stdout: (text) => {
        lines.push(text);
        void act(JSON.parse(text).baseURL as string).finally(() => controller.abort());
      },
      stderr: (text) => lines.push(text),
      signal: controller.signal,
    });
    return { code, output: lines.join("") };
  }

  it("exits 1 when no call reached the upstream, naming it, and leaves the cassette as it was", async () => {
    const file = join(dir, "kept.har");
    await runRecorderOnce(upstream, file);
    const before = readFileSync(file, "utf8");
    const dead = await startEmulator();
    const deadURL = dead.baseURL;
    await dead.close();
    let answer = "";
    const { code, output } = await recordWhile(
      ["--upstream", deadURL, "--cassette", file],
      async (baseURL) => {
        answer = await (await post(baseURL, chat("hi"))).text();
      },
    );
    expect(code).toBe(1);
    expect(JSON.parse(answer).error.message).toContain(
      `The recording proxy could not reach the upstream ${deadURL}`,
    );
    expect(output).toContain(
      `Recorder stopped, but the recording is not complete: cassette ${file}: no call reached the upstream ${deadURL}: 1 call failed`,
    );
    expect(readFileSync(file, "utf8")).toBe(before);
  });

  it("refuses to record over a file that is not a cassette (exit 1), leaving it whole", async () => {
    const file = join(dir, "package.json");
    writeFileSync(file, '{"name":"my-app"}\n');
    const { code, err } = await capture(runRecordCommand, [
      "--upstream",
      upstream.baseURL,
      "--cassette",
      file,
    ]);
    expect(code).toBe(1);
    expect(err).toContain(
      `Could not start the recorder: cassette ${file}: exists and is not a cassette (no HAR log with entries), so recording will not overwrite it`,
    );
    expect(readFileSync(file, "utf8")).toBe('{"name":"my-app"}\n');
  });

  it("refuses a --redact value too short to redact (exit 2), without echoing it", async () => {
    const { code, err } = await capture(runRecordCommand, [
      "--upstream",
      upstream.baseURL,
      "--cassette",
      join(dir, "short.har"),
      "--redact",
      "long-enough",
      "--redact",
      "ab",
    ]);
    expect(code).toBe(2);
    expect(err).toBe(
      "inference-service record: --redact value 2 has 2 characters; a value to redact needs at least 4: a shorter one would also be replaced inside ordinary words, numbers and JSON keys, and break the cassette. Give the whole secret it is part of, or leave it out. Run 'inference-service record --help'.\n",
    );
  });

  it("refuses to replay a cassette that is not there, naming the file (exit 1)", async () => {
    const { code, err } = await capture(runRecordCommand, [
      "--mode",
      "replay",
      "--cassette",
      join(dir, "none.har"),
    ]);
    expect(code).toBe(1);
    expect(err).toMatch(/^Could not start the recorder: cassette .*none\.har: no such file/);
  });
});

describe("inference-service emulator --replay", () => {
  it("says in its banner which cassette it replays", async () => {
    const file = join(dir, "empty.har");
    writeFileSync(
      file,
      JSON.stringify({
        log: {
          version: "1.2",
          creator: { name: "t", version: "1" },
          _cassetteVersion: 1,
          entries: [],
        },
      }),
    );
    const controller = new AbortController();
    const lines: string[] = [];
    const code = await runEmulatorCommand(["--replay", file], {
      stdout: (text) => {
        lines.push(text);
        if (text.includes("Ctrl-C")) controller.abort();
      },
      stderr: (text) => lines.push(text),
      signal: controller.signal,
    });
    expect(code).toBe(0);
    expect(lines.join("")).toMatch(
      /^Replaying cassette .*empty\.har: every call under the base URL gets its recorded answer/,
    );
  });

  it("takes ignore and timing from the config file's replay object, the cassette from --replay", async () => {
    const recorded = join(dir, "ignoring.har");
    const live = await startEmulator({});
    const recorder = await runRecorderOnce(live, recorded);
    await live.close();
    const config = join(dir, "replay.json");
    writeFileSync(
      config,
      JSON.stringify({ replay: { cassette: "elsewhere.har", ignore: ["user"] } }),
    );
    const controller = new AbortController();
    let answer = "";
    const code = await runEmulatorCommand(["--config", config, "--replay", recorded, "--json"], {
      stdout: (text) => {
        const { baseURL } = JSON.parse(text) as { baseURL: string };
        void fetch(`${baseURL}/chat/completions`, {
          method: "POST",
          body: JSON.stringify({ ...JSON.parse(chat("hello")), user: "someone else" }),
        })
          .then((response) => response.text())
          .then((text) => {
            answer = text;
            controller.abort();
          });
      },
      stderr: () => {},
      signal: controller.signal,
    });
    expect(code).toBe(0);
    expect(answer).toBe(recorder);
  });

  it("serves recordings in a loop with --loop, and lists the unused ones when it stops", async () => {
    const file = join(dir, "loop.har");
    const live = await startEmulator({});
    await runRecorderOnce(live, file);
    await live.close();
    const ask = (baseURL: string) =>
      fetch(`${baseURL}/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ ...JSON.parse(chat("hello")), user: "me" }),
      }).then((response) => response.status);
    for (const [flags, statuses] of [
      [["--loop"], [200, 200, 200]],
      [[], [200, 400, 400]],
    ] as const) {
      const controller = new AbortController();
      const lines: string[] = [];
      const seen: number[] = [];
      const code = await runEmulatorCommand(["--replay", file, ...flags], {
        stdout: (text) => {
          lines.push(text);
          const baseURL = /^Base URL: +(\S+)$/m.exec(text)?.[1];
          if (baseURL) {
            void (async () => {
              for (let i = 0; i < 3; i++) seen.push(await ask(baseURL));
            })().finally(() => controller.abort());
          }
        },
        stderr: (text) => lines.push(text),
        signal: controller.signal,
      });
      expect(code).toBe(0);
      expect(seen).toEqual(statuses);
      expect(lines.join("")).toContain(
        flags.length > 0 ? "Recordings are served in a loop" : "Each recording answers once",
      );
    }
    // Nothing asked: the stop names what went unused, and how to drop it.
    const controller = new AbortController();
    const lines: string[] = [];
    await runEmulatorCommand(["--replay", file], {
      stdout: (text) => {
        lines.push(text);
        if (text.includes("Ctrl-C")) controller.abort();
      },
      stderr: (text) => lines.push(text),
      signal: controller.signal,
    });
    expect(lines.join("")).toContain(
      `Emulator stopped. cassette ${file}: 1 of 1 recordings was not used by this run: entry 0 (POST /chat/completions (model "emulator-chat")). If no test needs it any more, drop it with: npx inference-service cassette prune ${file} --drop 0.`,
    );
  });

  it("refuses --loop without a cassette", async () => {
    const { code, err } = await capture(runEmulatorCommand, ["--loop"]);
    expect(code).toBe(2);
    expect(err).toContain("--loop replays a cassette in a loop: give --replay FILE too");
  });

  it("refuses a malformed cassette at start, naming the file and the line", async () => {
    const file = join(dir, "broken.har");
    writeFileSync(file, '{\n  "log": {\n    "version": "1.2",\n  }\n}\n');
    const { code, err } = await capture(runEmulatorCommand, ["--replay", file]);
    expect(code).toBe(1);
    expect(err).toMatch(
      /^Could not start the emulator: cassette .*broken\.har: is not valid JSON: line 4, column 3/,
    );
    expect(readFileSync(file, "utf8")).toContain("1.2");
  });
});
