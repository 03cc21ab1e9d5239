// One `omniloop serve` of the cluster bench, in its own process (its CPU is its own), on the
// shared Postgres and home. Driven over IPC by run.mjs: "create" → Session ids, "start" → Tasks
// begin (on this process), "measure" → CPU and RSS since "start", "stop".
//   node server-child.mjs <database-url> <home> <ratePerSecond> <seconds>
import { benchServer, TOKEN } from "../server/bench-server.mjs";
import { PacedModel } from "../server/paced-model.mjs";

const [database, home, rateArg, secondsArg] = process.argv.slice(2);
const bench = await benchServer(new PacedModel({ rate: Number(rateArg), seconds: Number(secondsArg) }), {
	home,
	database,
	report: (error) => process.stderr.write(`server: ${error}\n`),
});
const { server } = bench;

let cpuStart = process.cpuUsage();
let wallStart = performance.now();
let maxRss = 0;
const rssTimer = setInterval(() => {
	maxRss = Math.max(maxRss, process.memoryUsage().rss);
}, 100);

process.send({ kind: "ready", origin: server.origin, token: TOKEN });
process.on("message", async (message) => {
	if (message.kind === "create") {
		process.send({ kind: "created", ids: await bench.createSessions(message.count) });
	} else if (message.kind === "start") {
		cpuStart = process.cpuUsage();
		wallStart = performance.now();
		maxRss = 0;
		// A start refused leaves the figures short of their load: said on stderr, beside them.
		await bench.startTasks(message.ids, { inFlight: 20 }).catch((error) => process.stderr.write(`${error.message}\n`));
		process.send({ kind: "started" });
	} else if (message.kind === "measure") {
		const cpu = process.cpuUsage(cpuStart);
		const wallMs = performance.now() - wallStart;
		process.send({
			kind: "measured",
			cpuPercentOfOneCore: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
			maxRssMb: Math.max(maxRss, process.memoryUsage().rss) / 1024 / 1024,
		});
	} else if (message.kind === "stop") {
		clearInterval(rssTimer);
		await bench.close();
		process.send({ kind: "stopped" });
		process.disconnect();
	}
});
