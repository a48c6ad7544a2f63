export { resolveRealPath } from "./real-path.js";
