// Prints the functions with the most self time in a .cpuprofile: node bench/profile-top.mjs <file> [n] [--samples]
// --samples weighs each sample as one, not by the wall time since the previous one: on a loaded
// machine a sample taken after the process waited for a core carries that wait, which then lands
// on whatever frame happened to run (often GC or a native call); counting samples is steadier.
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const bySamples = args.includes("--samples");
const [file, n = "30"] = args.filter((arg) => arg !== "--samples");
const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
	const frame = nodes.get(id).callFrame;
	const key = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
	const weight = bySamples ? 1 : profile.timeDeltas[i];
	self.set(key, (self.get(key) ?? 0) + weight);
	total += weight;
});
for (const [key, weight] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) {
	const figure = bySamples ? `${weight}`.padStart(8) : `${(weight / 1000).toFixed(1).padStart(8)} ms`;
	console.log(`${figure} ${((100 * weight) / total).toFixed(1).padStart(5)}%  ${key}`);
}
