import { describe, expect, it } from "vitest";
import { RateLimiter, validateRateLimiterOptions } from "../../src/spend/rate_limiter.js";
import { configurationProblem } from "../helpers/errors.js";

describe("the rate limiter's options", () => {
  it.each<[Record<string, unknown>, string, RegExp]>([
    [{ requestsPerMinute: 0 }, "requestsPerMinute", /must be a number > 0; got 0/],
    [{ tokensPerMinute: Number.POSITIVE_INFINITY }, "tokensPerMinute", /a number > 0/],
    [{ per: "user" }, "per", /"model" or "key"/],
    [{ burst: 1.5 }, "burst", /a whole number ≥ 1/],
    [{ decrease: 1 }, "decrease", /between 0 and 1/],
    [{ recoveryMs: -5 }, "recoveryMs", /milliseconds > 0/],
    [{ maxPauseMs: "1s" }, "maxPauseMs", /milliseconds ≥ 0/],
    [{ store: { takeRate() {} } }, "store", /a UsageStore/],
    [{ rpm: 60 }, "rpm", /not an option of RateLimiter/],
    // A pause is slept with a timer: Node runs one over 2^31 − 1 ms after 1 ms.
    [{ pauseMs: 2 ** 31 }, "pauseMs", /at most 2147483647 ms \(about 24\.8 days\)/],
    [{ maxPauseMs: 2 ** 31 }, "maxPauseMs", /at most 2147483647 ms \(about 24\.8 days\)/],
  ])("name the option of %j and what it must be", (options, option, message) => {
    const found = configurationProblem(() => validateRateLimiterOptions(options));
    expect(found.option).toBe(option);
    expect(found.message).toMatch(message);
    // The constructor checks the same way.
    expect(configurationProblem(() => new RateLimiter(options as never)).option).toBe(option);
  });

  it("takes any recoveryMs: it sets how fast a cut rate climbs back, never a timer", () => {
    expect(validateRateLimiterOptions({ recoveryMs: 1e12 }).recoveryMs).toBe(1e12);
  });
});
