/**
 * @module `Telemetry`: what a channel knows about tracing its requests — the API's operation and
 * URL, whether the model turned telemetry off, whether content is captured — and the one check
 * every request makes: is a tracer or meter provider registered? When none is, a request builds
 * nothing at all (docs/observability.md).
 */
import { AttributeSets, CallTrace, type TraceTarget } from "./call_trace.js";
import { resolveCaptureContent } from "./content.js";
import { bounded } from "./limits.js";
import { otelRegistry } from "./otel.js";

/** What a channel's telemetry is built from. */
export interface TelemetrySetup {
  /** `gen_ai.operation.name` of the API (`chat`, `text_completion`, `embeddings`, …). */
  operation: string;
  /** The URL requests are posted to: the normalised base URL and the API's path. */
  url: string;
  /** The model's `telemetry` option: `false` turns its spans and metrics off. @default true */
  enabled?: boolean;
  /** The model's `captureContent` option; undefined reads the conventions' variable. */
  captureContent?: boolean;
}

/** A channel's telemetry: see the module's comment. */
export class Telemetry {
  /** Undefined when the model turned telemetry off. */
  readonly #target?: TraceTarget;

  constructor({ operation, url, enabled = true, captureContent }: TelemetrySetup) {
    if (!enabled) return;
    const parsed = new URL(url);
    const defaultPort = parsed.protocol === "https:" ? 443 : 80;
    this.#target = {
      operation,
      url: bounded(`${parsed.origin}${parsed.pathname}`),
      template: bounded(parsed.pathname),
      // An IPv6 host without its brackets, as `server.address` writes it.
      address: bounded(parsed.hostname.replace(/^\[(.*)\]$/, "$1")),
      port: parsed.port === "" ? defaultPort : Number(parsed.port),
      captureContent: resolveCaptureContent(captureContent),
      sets: new AttributeSets(),
    };
  }

  /**
   * The telemetry of one request, not yet begun; undefined — and nothing built — when telemetry
   * is off, or the app registered no tracer or meter provider.
   */
  trace(): CallTrace | undefined {
    const target = this.#target;
    if (target === undefined) return undefined;
    const otel = otelRegistry();
    return otel === undefined ? undefined : new CallTrace(target, otel);
  }
}
