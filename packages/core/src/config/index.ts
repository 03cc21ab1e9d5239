export * from "./system-config.js";
