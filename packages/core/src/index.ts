export * from "./messages/index.js";
export * from "./model/index.js";
