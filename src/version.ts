/** @module The package version, reported to LangSmith through `_addVersion`. */
export const VERSION = "0.1.0";
