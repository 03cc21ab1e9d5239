export * from "./constructors.js";
export * from "./error-message.js";
export * from "./markers.js";
export * from "./omni-message.js";
export * from "./redaction.js";
