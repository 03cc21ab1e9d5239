#!/usr/bin/env node
import { runDemo } from "./demo.js";

await runDemo(process.stdout, process.cwd());
