import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * One entry of an agent's `network` (docs/sandbox.md): `registry.npmjs.org`, `*.github.com` for
 * its subdomains, or either with `:port`. Without a port it allows HTTP's and HTTPS's own ports
 * (80 and 443), nothing else of the host: "some hosts over HTTP and HTTPS", not their SSH or
 * database ports.
 */
export interface AllowedHost {
	/** Lower case, without the port: `example.com`, or `*.example.com`. */
	readonly pattern: string;
	readonly ports: readonly number[];
	/**
	 * Named as an address of the machine itself (`localhost`, a loopback or link-local IP): only
	 * then may the connection reach one. A name that resolves there (a subdomain pointed at
	 * 127.0.0.1, DNS rebinding) would otherwise reach the host's own services through the proxy,
	 * or the cloud's metadata address.
	 */
	readonly local: boolean;
}

const WEB_PORTS = [80, 443] as const;

export function parseAllowedHost(entry: string): AllowedHost {
	const match = /^(.*?)(?::(\d{1,5}))?$/.exec(entry.trim().toLowerCase());
	const pattern = match?.[1] ?? entry;
	const port = match?.[2];
	return {
		pattern,
		ports: port === undefined ? WEB_PORTS : [Number(port)],
		local: pattern === "localhost" || (isIP(pattern) !== 0 && isLocalAddress(pattern)),
	};
}

/**
 * The entry of `allowed` that lets a connection to `host`:`port` through, if one does. An address
 * of the machine written as an IP (`127.0.0.1`, `[::ffff:127.0.0.1]`) needs an entry naming the
 * machine: no lookup is made for an IP, so a wildcard that happens to match it (`*.0.1`) must not.
 */
export function allowingEntry(allowed: readonly AllowedHost[], host: string, port: number): AllowedHost | undefined {
	return entriesNaming(allowed, host).find((entry) => entry.ports.includes(port));
}

/** Does some entry of `allowed` let `host` through on some port (for a refusal that says which part was wrong)? */
export function namesHost(allowed: readonly AllowedHost[], host: string): boolean {
	return entriesNaming(allowed, host).length > 0;
}

function entriesNaming(allowed: readonly AllowedHost[], host: string): AllowedHost[] {
	const name = hostName(host);
	const localLiteral = isIP(name) !== 0 && isLocalAddress(name);
	return allowed.filter((entry) => (entry.local || !localLiteral) && names(entry, name));
}

function hostName(host: string): string {
	return host.toLowerCase().replace(/^\[|\]$/g, "");
}

function names(entry: AllowedHost, name: string): boolean {
	return entry.pattern.startsWith("*.") ? name.endsWith(entry.pattern.slice(1)) : name === entry.pattern;
}

const local = new BlockList();
local.addSubnet("127.0.0.0", 8, "ipv4");
local.addSubnet("0.0.0.0", 8, "ipv4");
local.addSubnet("169.254.0.0", 16, "ipv4");
local.addAddress("::1", "ipv6");
local.addAddress("::", "ipv6");
local.addSubnet("fe80::", 10, "ipv6");
// The cloud's metadata service over IPv6 (AWS); over IPv4 it is link-local, above.
local.addAddress("fd00:ec2::254", "ipv6");

/**
 * Loopback, "this host" (0.0.0.0), link-local (the cloud metadata address among them), or one of
 * this machine's own interfaces (its LAN address, a Docker bridge: services bound to 0.0.0.0
 * answer there too); IPv4-mapped IPv6 included.
 */
export function isLocalAddress(address: string): boolean {
	const family = isIP(address);
	if (family === 0) return false;
	const type = family === 4 ? "ipv4" : "ipv6";
	// BlockList matches an IPv4-mapped IPv6 address in either form (`::ffff:1.2.3.4`, `::ffff:102:304`).
	return local.check(address, type) || ownAddresses().check(address, type);
}

/** The machine's interfaces' addresses now: one added since (a Docker bridge) counts at once. */
function ownAddresses(): BlockList {
	const own = new BlockList();
	for (const addresses of Object.values(networkInterfaces())) {
		for (const { address, family } of addresses ?? []) own.addAddress(address, family === "IPv4" ? "ipv4" : "ipv6");
	}
	return own;
}

/** A host name that resolved to the machine itself although its entry did not name it so. */
export class LocalAddressError extends Error {
	constructor(
		readonly host: string,
		readonly address: string,
	) {
		super(`${host} resolves to ${address}, an address of this machine, which only an entry naming it allows`);
		this.name = "LocalAddressError";
	}
}

/** Resolves a name to all its addresses (`dns.lookup` with `all: true`; a test gives its own). */
export type ResolveAll = (
	hostname: string,
	options: LookupOptions,
	callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const resolveWithDns: ResolveAll = (hostname, options, callback) =>
	dnsLookup(hostname, { ...options, all: true }, callback);

/**
 * DNS as `net.connect` and `http.request` use it, except that a name resolving to a loopback or
 * link-local address fails with LocalAddressError: checked on the addresses actually connected
 * to, so a name that answers differently the second time (rebinding) gains nothing.
 */
export function publicOnlyLookup(resolve: ResolveAll = resolveWithDns): LookupFunction {
	return (hostname, options, callback) => {
		resolve(hostname, options, (error, addresses) => {
			if (error !== null) {
				callback(error, "", 0);
				return;
			}
			const reached = addresses.find((a) => isLocalAddress(a.address));
			if (reached !== undefined) {
				callback(new LocalAddressError(hostname, reached.address), "", 0);
				return;
			}
			const first = addresses[0];
			if (options.all === true) callback(null, addresses);
			else callback(null, first?.address ?? "", first?.family ?? 4);
		});
	};
}
