/** @module The emulator's web console: the HTML page served outside the API. */

export { consolePage } from "./page.js";
