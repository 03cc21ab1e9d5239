export * from "./project-instructions.js";
