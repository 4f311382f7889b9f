/** @module The ConfigurationError a constructor or helper throws, for tests that assert on its fields. */
import { expect } from "vitest";
import { ConfigurationError } from "../../src/errors/errors.js";

/** Runs `build` and returns the ConfigurationError it throws; fails the test on anything else. */
export function configurationError(build: () => unknown): ConfigurationError {
  try {
    build();
  } catch (error) {
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    return error as ConfigurationError;
  }
  throw new Error("expected a ConfigurationError");
}

/** The ConfigurationError `build` throws, as the fields a program reads. */
export function configurationProblem(build: () => unknown): { option: string; message: string } {
  const { option, message } = configurationError(build);
  return { option, message };
}
