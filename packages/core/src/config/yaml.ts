import { createRequire } from "node:module";
import type { parse } from "yaml";

const require = createRequire(import.meta.url);
let parser: typeof parse | undefined;

/**
 * Parses YAML, loading the parser the first time a config file is read: most processes that
 * import omniloop read none (no omniloop.yaml, no system_config.yaml), and the parser is among
 * the heaviest modules it depends on. Loaded with `require` (the package ships CommonJS for
 * Node) so config loading stays synchronous.
 */
export function parseYaml(text: string): unknown {
	parser ??= (require("yaml") as { parse: typeof parse }).parse;
	return parser(text);
}
