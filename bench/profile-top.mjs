// Prints the functions with the most self time in a .cpuprofile: node bench/profile-top.mjs <file> [n]
import { readFileSync } from "node:fs";

const [file, n = "30"] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
	const frame = nodes.get(id).callFrame;
	const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
	self.set(key, (self.get(key) ?? 0) + profile.timeDeltas[i]);
	total += profile.timeDeltas[i];
});
for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
	console.log(`${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${key}`);
}
