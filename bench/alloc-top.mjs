// Where a workload allocates: samples the heap during the timed span of one W2 run and prints the
// functions that allocated the most bytes (self), as bench/profile-top.mjs prints CPU.
//   node bench/alloc-top.mjs <contender> [turns] [n]
import { Session } from "node:inspector";
import { w2Script } from "./mock.mjs";

const [contender = "omniloop", turns = "200", n = "30"] = process.argv.slice(2);
const { run } = await import(`./contenders/${contender === "omniloop-notrace" ? "omniloop" : contender}.mjs`);
const inspector = new Session();
inspector.connect();
const post = (method, params = {}) =>
	new Promise((resolve, reject) => inspector.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
let profile;
await run(
	w2Script(Number(turns)),
	async (fn) => {
		await post("HeapProfiler.startSampling", {
			samplingInterval: 256,
			includeObjectsCollectedByMajorGC: true,
			includeObjectsCollectedByMinorGC: true,
		});
		const result = await fn();
		profile = (await post("HeapProfiler.stopSampling")).profile;
		return result;
	},
	{ trace: contender !== "omniloop-notrace" },
);
const self = new Map();
let total = 0;
const visit = (node) => {
	const f = node.callFrame;
	const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`;
	self.set(key, (self.get(key) ?? 0) + node.selfSize);
	total += node.selfSize;
	for (const child of node.children) visit(child);
};
visit(profile.head);
console.log(`total ${(total / 1024).toFixed(0)} KB sampled`);
for (const [key, bytes] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n)))
	console.log(`${(bytes / 1024).toFixed(0).padStart(8)} KB ${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${key}`);
