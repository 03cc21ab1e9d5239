export * from "./always-allowed.js";
export * from "./seq-reservation.js";
export * from "./session-index.js";
export * from "./trace-files.js";
export * from "./trace-header.js";
export * from "./trace-reader.js";
export * from "./trace-writer.js";
export * from "./unbegun-file.js";
