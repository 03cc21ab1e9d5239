import { describe, expect, it } from "vitest";
import { YamlParserMissingError, yamlParser } from "./yaml.js";

describe("the YAML parser", () => {
	it("missing from an installation is an error of the installation, not of the file it was to read", () => {
		const missing = () => {
			throw Object.assign(new Error("Cannot find module 'yaml'\nRequire stack:\n- /x/bundle/screen.js"), {
				code: "MODULE_NOT_FOUND",
			});
		};
		let error: unknown;
		try {
			yamlParser("/p/omniloop.yaml", missing);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(YamlParserMissingError);
		const message = (error as Error).message;
		expect(message).toContain("/p/omniloop.yaml cannot be read");
		expect(message).toContain("the package yaml");
		expect(message).toContain("Cannot find module 'yaml')");
		expect(message).not.toContain("valid YAML expected");
		expect(message).not.toContain("Require stack");
	});

	it("loads once and parses", () => {
		expect(yamlParser("/p/omniloop.yaml")("a: 1\n")).toEqual({ a: 1 });
	});
});
