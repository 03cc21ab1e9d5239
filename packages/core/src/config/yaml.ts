import { createRequire } from "node:module";
import type { parse } from "yaml";

const require = createRequire(import.meta.url);
let parser: typeof parse | undefined;

/**
 * The YAML parser could not be loaded: the installation is incomplete (a bundle whose package
 * does not declare `yaml`), and the file it was to read is not at fault.
 */
export class YamlParserMissingError extends Error {
	override readonly name = "YamlParserMissingError";
	constructor(
		readonly file: string,
		cause: unknown,
	) {
		super(
			`${file} cannot be read: omniloop's YAML parser (the package yaml) is missing from this installation; reinstall omniloop (${(cause as Error).message.split("\n")[0]})`,
			{ cause },
		);
	}
}

function requireYaml(): typeof parse {
	return (require("yaml") as { parse: typeof parse }).parse;
}

/**
 * The YAML parser, loaded the first time a config file is read: most processes that import
 * omniloop read none (no omniloop.yaml, no system_config.yaml), and the parser is among the
 * heaviest modules it depends on. Loaded with `require` (the package ships CommonJS for Node) so
 * config loading stays synchronous. Callers parse outside this call, so a parse error is the
 * file's and a missing parser is not.
 */
export function yamlParser(file: string, load: () => typeof parse = requireYaml): typeof parse {
	if (parser !== undefined) return parser;
	try {
		parser = load();
	} catch (error) {
		throw new YamlParserMissingError(file, error);
	}
	return parser;
}
