/**
 * @module `langchain-inference-service/redis`: `RedisStore`, a `UsageStore` on Redis that lets
 * several processes share one budget and one rate limit. Node-only (ioredis uses `node:net`),
 * hence its own subpath; `ioredis` is an optional peer dependency.
 */
export { RedisStore, type RedisStoreOptions } from "./stores/redis_store.js";
