/** @module The `service-name` check: the Service-Name's shape, without a request. */
import { resolveServiceName } from "../config/service_name.js";
import { ENV } from "../constants.js";
import { configurationFailure, type Verdict } from "./check.js";

export interface ServiceNameRead {
  serviceName?: string;
  error?: unknown;
}

/**
 * The Service-Name from the same options and env variables as `DedicatedEndpointLLM`:
 * `serviceName`, else `tenantId` and `jobAlias` (options, then env). Nothing configured → none.
 */
export function readServiceName(options: {
  serviceName?: string;
  tenantId?: string;
  jobAlias?: string;
}): ServiceNameRead {
  try {
    return { serviceName: resolveServiceName(options, { required: false })?.serviceName };
  } catch (error) {
    return { error };
  }
}

export function checkServiceName(read: ServiceNameRead): Verdict {
  if (read.error !== undefined) {
    return configurationFailure(
      "service-name",
      read.error,
      // docs/service-contract.md#dedicated-endpoints, rule 2: the service would answer 404 or route to the wrong service.
      "The Service-Name is malformed; no request was sent.",
    );
  }
  if (read.serviceName === undefined) {
    return {
      id: "service-name",
      status: "skip",
      detail: `Skipped: no dedicated endpoint configured (\`serviceName\`, or \`tenantId\` and \`jobAlias\`, or ${ENV.tenantId} and ${ENV.jobAlias}).`,
    };
  }
  const [tenantId, jobAlias] = read.serviceName.split(".");
  return {
    id: "service-name",
    status: "pass",
    detail: `${read.serviceName}: tenant ID "${tenantId}", job alias "${jobAlias}".`,
  };
}
