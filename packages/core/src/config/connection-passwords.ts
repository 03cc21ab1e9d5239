/**
 * Passwords written inside connection strings: a variable holding one is a credential whatever
 * it is called (`DATABASE_URL`, `REPORTS_DB`), so it is kept out of the shell's environment and
 * its password is redacted (docs/sandbox.md).
 *
 * The forms:
 * - a URL's user part, anywhere in the value: `postgres://app:pw@db/x`, `redis://:pw@cache`, `jdbc:mysql://app:pw@db/x`
 *   (the scheme may have colons, the password an unencoded `@`);
 * - Oracle's thin form: `jdbc:oracle:thin:app/pw@//db/x`;
 * - a URL parameter: `?password=pw`, `&sslpassword=pw`, SQL Server's `;password=pw` or `;pwd=pw`
 *   (a `?pwd=` is as often a working directory);
 * - keywords, as ADO.NET, ODBC and Azure write them (`Server=db;User Id=app;Password=pw;`,
 *   `AccountName=x;AccountKey=…;`) and as libpq does (`host=db user=app password=pw dbname=x`):
 *   only a value that is such a list through and through, naming where to connect, so shell code
 *   or a commit message with a `password=` in it is not one.
 */
// Anywhere in the value, not only at its start: a URL inside JSON (Cloud Foundry's VCAP_SERVICES,
// SPRING_APPLICATION_JSON) or a command line (`--db postgres://…`) carries its password as well.
// Each URL is read on its own (up to a space or a quote), and the search goes on after it: a
// value of many URLs takes time in proportion to its length.
const URL = /(?<![a-z0-9+.:-])[a-z][a-z0-9+.:-]*:\/\/[^\s"'<>]*/gi;
const URL_USER_PART = /^[a-z][a-z0-9+.:-]*:\/\/([^/?#]*)@/i;
const URL_PASSWORD_PARAMETER = /^\S*?(?:[?&;](?:ssl)?(?:password|passwd)|;pwd)=([^&;#]+)/i;
const ORACLE_THIN = /(?<![a-z0-9+.:-])jdbc:oracle:[a-z0-9]+:[^/\s@:"']+\/([^@\s"']+)@/gi;

export function holdsPassword(value: string): boolean {
	return connectionPasswords(value).length > 0;
}

/**
 * The passwords a connection string carries: a URL's as written and decoded (a `.env` or an error
 * may show either), a keyword list's as its quoting means it.
 */
export function connectionPasswords(value: string): string[] {
	const inUrl = [
		...[...value.matchAll(URL)].flatMap(([url]) => [
			passwordOfUserPart(URL_USER_PART.exec(url)?.[1]),
			URL_PASSWORD_PARAMETER.exec(url)?.[1],
		]),
		...[...value.matchAll(ORACLE_THIN)].map((match) => match[1]),
	];
	const found = [
		...inUrl.flatMap((password) => (password === undefined ? [] : [password, decodedOrUndefined(password)])),
		...keywordPasswords(value, SEMICOLON_LIST),
		...keywordPasswords(value, LIBPQ_LIST),
	];
	return [...new Set(found)].filter((password): password is string => password !== undefined && password.trim() !== "");
}

/**
 * A password everyone's examples use (`postgres`, `password`): the variable holding it is still
 * kept out of commands, but the word is not redacted on its own — it would be in every
 * docker-compose file and SQL script the Session shows, hiding nothing.
 */
export function isCommonPassword(password: string): boolean {
	return COMMON_PASSWORDS.has(password.toLowerCase());
}

const COMMON_PASSWORDS = new Set([
	"postgres",
	"password",
	"password1",
	"passw0rd",
	"p@ssw0rd",
	"changeme",
	"12345678",
	"123456789",
	"admin123",
	"welcome1",
	"qwerty123",
]);

/** How one kind of `key=value` list is read. */
interface KeywordList {
	/** One pair, from where the last ended (sticky): its key and its value as written. */
	readonly pair: RegExp;
	/** Keys (lower case, spaces removed) whose values are passwords. */
	readonly secrets: ReadonlySet<string>;
	/** Keys of which one must be present: where to connect. */
	readonly places: ReadonlySet<string>;
	unquote(value: string): string;
}

const SEMICOLON_LIST: KeywordList = {
	pair: /\s*([A-Za-z][A-Za-z ]{0,40}?)\s*=\s*(\{(?:[^}]|\}\})*\}|"(?:[^"]|"")*"|'(?:[^']|'')*'|[^;\n"'{]*)\s*(?:;|$)/y,
	secrets: new Set(["password", "pwd", "accountkey", "sharedaccesskey", "sharedaccesssignature"]),
	places: new Set([
		"server",
		"datasource",
		"host",
		"address",
		"addr",
		"networkaddress",
		"database",
		"initialcatalog",
		"driver",
		"dsn",
		"accountname",
		"endpoint",
		"defaultendpointsprotocol",
	]),
	// ODBC quotes with braces (`}}` inside is one `}`); ADO.NET with quotes, doubled inside.
	unquote: (value) => {
		if (value.startsWith("{") && value.endsWith("}")) return value.slice(1, -1).replace(/\}\}/g, "}");
		const quote = value[0];
		if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote))
			return value.slice(1, -1).replaceAll(quote + quote, quote);
		return value.trim();
	},
};

const LIBPQ_LIST: KeywordList = {
	pair: /\s*([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s'\\]|\\.)+)/y,
	secrets: new Set(["password", "sslpassword"]),
	places: new Set(["host", "hostaddr", "dbname", "service"]),
	// libpq reads a backslash as escaping the next character, quoted or not.
	unquote: (value) => {
		const inner = value.startsWith("'") && value.endsWith("'") && value.length >= 2 ? value.slice(1, -1) : value;
		return inner.replace(/\\(.)/g, "$1");
	},
};

/** The passwords of `value` when it is a `kind` list through and through (and names a place); none otherwise. */
function keywordPasswords(value: string, kind: KeywordList): string[] {
	if (!value.includes("=")) return [];
	const pattern = new RegExp(kind.pair.source, kind.pair.flags);
	const passwords: string[] = [];
	let pairs = 0;
	let place = false;
	const onlySpaceLeft = /\s*$/y;
	for (;;) {
		onlySpaceLeft.lastIndex = pattern.lastIndex;
		if (onlySpaceLeft.test(value)) break;
		const at = pattern.lastIndex;
		const match = pattern.exec(value);
		if (match === null || pattern.lastIndex === at) return [];
		pairs++;
		const key = (match[1] ?? "").toLowerCase().replace(/\s+/g, "");
		if (kind.places.has(key)) place = true;
		if (kind.secrets.has(key)) passwords.push(kind.unquote(match[2] ?? ""));
	}
	return pairs >= 2 && place ? passwords : [];
}

/** The password of a URL's `user:password` (its authority up to the last `@`, as URL parsers read it). */
function passwordOfUserPart(userPart: string | undefined): string | undefined {
	const colon = userPart?.indexOf(":") ?? -1;
	return userPart === undefined || colon < 0 ? undefined : userPart.slice(colon + 1);
}

function decodedOrUndefined(text: string): string | undefined {
	try {
		return decodeURIComponent(text.replace(/\+/g, " "));
	} catch {
		return undefined;
	}
}
