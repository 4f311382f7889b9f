/** @module The console's calls to the admin API: same origin, JSON both ways. */

/** Calls `/_emulator<path>`; a reply that is not 2xx rejects with the admin API's message. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, headers: {} };
  if (method !== "GET") {
    // The admin API refuses writes that are not JSON: the guard against cross-site requests.
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const response = await fetch(`/_emulator${path}`, init);
  const json = await response.json();
  if (!response.ok) throw new Error(json.error?.message || `HTTP ${response.status}`);
  return json as T;
}
