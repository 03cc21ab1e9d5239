export * from "./project-config.js";
export * from "./system-config.js";
export { YamlParserMissingError } from "./yaml.js";
