import { describe, expect, it } from "vitest";
import { connectionPasswords, holdsPassword, isCommonPassword } from "./connection-passwords.js";

describe("connectionPasswords", () => {
	it("finds the password of each form, as written and decoded", () => {
		const cases: [string, string[]][] = [
			["postgres://app:hunter22@db:5432/app", ["hunter22"]],
			["postgres://app:long-pass@word123@db/x", ["long-pass@word123"]],
			["jdbc:mysql://app:p%40ss@db/reports", ["p%40ss", "p@ss"]],
			["jdbc:oracle:thin:app/tiger-tiger@//db:1521/svc", ["tiger-tiger"]],
			["jdbc:postgresql://db/ledger?user=app&password=s3cret&ssl=true", ["s3cret"]],
			["mysql://db/x?password=s3cret", ["s3cret"]],
			// Inside JSON (Cloud Foundry's VCAP_SERVICES) or a command line, not only at the start.
			['{"db":[{"credentials":{"uri":"postgres://app:vcap-s3cret@db:5432/x"}}]}', ["vcap-s3cret"]],
			["--primary postgres://a:first-pw@db1/x --replica postgres://b:second-pw@db2/x", ["first-pw", "second-pw"]],
			["jdbc:sqlserver://db:1433;databaseName=x;user=app;pwd=s3cret", ["s3cret"]],
			["Server=db;Database=x;User Id=app;Password=s3cret pass;", ["s3cret pass"]],
			// ADO.NET quotes, doubled inside; ODBC braces, `}}` inside.
			['Data Source=db;User ID=app;Password="semi;""colon"""', ['semi;"colon"']],
			["Driver={ODBC Driver 18};Server=db;Uid=app;Pwd={Tr0ub;4dor}}}", ["Tr0ub;4dor}"]],
			[
				"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=c2VjcmV0a2V5+/==;EndpointSuffix=core.windows.net",
				["c2VjcmV0a2V5+/=="],
			],
			["host=db port=5432 user=app password=s3cret dbname=x", ["s3cret"]],
			["host=db user=app password='it\\'s secret' dbname=x", ["it's secret"]],
			["host=db user=app sslpassword=it\\'s\\ secret", ["it's secret"]],
		];
		for (const [value, passwords] of cases) expect(connectionPasswords(value), value).toEqual(passwords);
	});

	it("takes ordinary values for none: URLs without one, a working directory, a lone key=value", () => {
		for (const value of [
			"https://example.com/path",
			"http://user@proxy:3128",
			"https://search.example/q?passwords=none&page=2",
			"https://app.example/?pwd=/home/me&tab=2",
			'{"docs":"see https://example.com/a@b and mailto:me@example.com"}',
			"password=x",
			"a=1;b=2",
			"Password=;Server=db",
			"di=01;34:ln=01;36",
			// Shell code and free text with a password= in them are no connection strings.
			"history -a; pwd=$(pwd); echo done",
			"() {  host=db; password=$(pass show db/app); psql }",
			"Fix login; password = must not be empty anymore\n\nSee #12",
			"a=1;b=2;password=s3cret-value",
		]) {
			expect(holdsPassword(value), value).toBe(false);
		}
	});

	it("a password everyone's examples use is not redacted on its own (the variable is still kept out)", () => {
		expect(isCommonPassword("Postgres")).toBe(true);
		expect(isCommonPassword("s3cret-pass")).toBe(false);
	});
});
