export * from "./constructors.js";
export * from "./markers.js";
export * from "./omni-message.js";
