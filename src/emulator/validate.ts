/** @module Input checks shared by the options, the JSON config file and the admin API. */

/** Thrown for a malformed option, config file entry or admin request body; the message names the field. */
export class EmulatorConfigError extends TypeError {
  override readonly name = "EmulatorConfigError";
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function requireRecord(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) throw new EmulatorConfigError(`${field} must be an object`);
  return value;
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== "string" || value.length === 0) {
    throw new EmulatorConfigError(`${field} must be a non-empty string`);
  }
  return value;
}

export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined ? undefined : requireString(value, field);
}

export function requireNumber(value: unknown, field: string, min = -Infinity): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min) {
    throw new EmulatorConfigError(
      `${field} must be a finite number${min > -Infinity ? ` >= ${min}` : ""}`,
    );
  }
  return value;
}

export function optionalNumber(value: unknown, field: string, min = -Infinity): number | undefined {
  return value === undefined ? undefined : requireNumber(value, field, min);
}

export function optionalArray(value: unknown, field: string): unknown[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new EmulatorConfigError(`${field} must be an array`);
  return value;
}

export function requireStringArray(value: unknown, field: string): string[] {
  const items = optionalArray(value, field) ?? [];
  return items.map((item, i) => requireString(item, `${field}[${i}]`));
}
